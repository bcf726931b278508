// SPDX-License-Identifier: MIT
// The GPU benchmark suite behind `zkmill_gpu_bench` and `zkmill bench gpu`: card ceilings, G1/G2 MSM,
// NTT, full GPU proofs and a PoRep-sized partition, printed as one table. Plain C++ header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zkmill::cuda {

struct GpuBenchOptions {
  std::vector<int> msm_sizes{20, 22, 24, 26};  // log2 n; empty: skip
  std::vector<int> msm_g2_sizes{20, 22};       // G2 MSM, log2 n; empty: skip
  std::vector<int> ntt_sizes{20, 21, 22, 23, 24, 25, 26, 27};
  std::vector<int> prove_sizes{20, 22, 24};  // log2 domain of synthetic-key proofs
  std::vector<int> msm_widths{0};            // window widths (0: automatic)
  // Precompute factors t (fixed bases, pippenger_plan.hpp): each G1/G2 MSM row and each prove
  // size runs once per t; 1 = plain points, t >= W = one window. MSM rows time the MSM over
  // copies made beforehand (their bytes and build time in the note); prove rows with t > 1 are
  // extra cold + warm proofs whose key is cached with t copies (GpuProveOptions::precompute).
  std::vector<int> precompute{1};
  bool msm_bits = true;  // also each MSM size on a PoRep-like mix (55% 0, 40% 1, 5% full): "_bits" rows
  int porep_log = 27;    // PoRep-sized partition of each curve (device-generated key); 0: skip
  // porep_size > 0: real `porep` witnesses of that many constraints (the domain follows from the
  // circuit; porep_log then only enables the row) instead of the synthetic one, porep_partitions
  // of them as one pipelined job, porep_threads synthesized at once (0: as host memory allows).
  uint64_t porep_size = 0;
  int porep_partitions = 1;
  int porep_threads = 0;
  // Extra warm runs of the first partition with every MSM forced to one accumulation, e.g.
  // "xyzz,affine" (the automatic policy against each, in the same process and memory state).
  std::string porep_accumulate;
  // PoRep row with porep_size: "full" bundles (a, b, c synthesized on the host and uploaded) or
  // "witness" (witness-only bundles, a, b, c computed on the device by the circuit's PCE
  // matrices, recorded once on the host first: the farm's default, worker.bundle_kind).
  std::string porep_bundle = "full";
  // With porep_size and witness bundles: after the rows, partition 0 proved twice more through
  // cuda::prove_gpu on a host key of its shape (the prove worker's path: key admission and upload,
  // the matrices in the key cache, the default budget), rows porep_product.
  bool porep_product = false;
  // The H basis of the synthetic keys (prove rows, PoRep row): "coset_lagrange" (what setup
  // writes), "monomial" (keys written before, one NTT more per proof), or both comma-separated:
  // prove rows for each basis; the PoRep row runs in the first, with one extra warm run of its
  // first partition in each other basis (the before/after in one process).
  std::string h_basis = "coset_lagrange";
  // Where H's kernels run in the prove rows (GpuHPlacement): "" for the prover's default
  // (ZKMILL_GPU_H_BESIDE, else g2), or a comma-separated list of ab / g2: the warm proofs whose
  // key holds precomputed copies then run `runs` times per placement, interleaved (ab g2 ab g2 ...,
  // rows prove_gpu..._hab / _hg2), so that every placement meets the same card and key state.
  std::string h_beside;
  int check_cpu_log = 20;  // also run the CPU prover at this prove size and compare; 0: skip
  int g2_cpu_log = 20;     // also prove with B_G2 on the CPU pool at this size (the old path); 0: skip
  int runs = 3;
  // The prove rows' bundle in page-locked host memory (cudaHostRegister, not timed): the uploads
  // then go to the device without the pinned pool's staging copies.
  bool pinned_bundle = false;
  bool ceilings = true;  // IMAD rate, D2D and pinned H2D bandwidth
  std::string curves = "bn254,bls12-381";
};

// Prints progress lines and the final table to stdout; returns 0 when every checked result was
// right, 1 otherwise (an exception or a GPU error is reported and also gives 1). Never throws.
int run_gpu_bench(const GpuBenchOptions& options) noexcept;

}  // namespace zkmill::cuda
