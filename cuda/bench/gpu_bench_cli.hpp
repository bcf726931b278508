// SPDX-License-Identifier: MIT
// The GPU benchmark suite's options (cuda/bench/suite.hpp) on a CLI11 app, defined once for its
// two front ends: `zkmill bench gpu` (app/cmd_bench_gpu.cpp) and zkmill_gpu_bench
// (cuda/bench/gpu_bench.cpp), which had a hand-written parser of its own that took "--runs abc"
// as 1 and knew an option the subcommand lacked. Plain C++, no CUDA: the app parses these even in
// a build without the backend (and then says so).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cuda/bench/suite.hpp"

namespace zkmill::cuda {

// Adds every option to `app`, bound to `o` (its defaults shown by --help). Call
// finish_gpu_bench_options(o) after parsing.
inline void add_gpu_bench_options(CLI::App& app, GpuBenchOptions& o) {
  app.add_option("--msm-sizes", o.msm_sizes, "G1 MSM sizes, log2 (0: skip)")->delimiter(',')->capture_default_str();
  app.add_option("--msm-g2-sizes", o.msm_g2_sizes, "G2 MSM sizes, log2 (0: skip)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--ntt-sizes", o.ntt_sizes, "NTT sizes, log2 (0: skip)")->delimiter(',')->capture_default_str();
  app.add_option("--prove-sizes", o.prove_sizes, "Full GPU proofs, log2 domain, synthetic keys (0: skip)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--msm-c", o.msm_widths, "MSM window widths (0: automatic)")->delimiter(',')->capture_default_str();
  app.add_option("--precompute", o.precompute,
                 "Precomputed copies of the MSM points / resident key, t per row (1: plain; t >= W: one window)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--porep-log", o.porep_log, "PoRep-sized partition of each curve, log2 domain (0: skip)")
      ->capture_default_str();
  app.add_option("--porep-size", o.porep_size,
                 "PoRep row: real `porep` witnesses of about this many constraints (e.g. 130000000), synthesized "
                 "on the host, instead of the synthetic one (0); the device-made key stays synthetic")
      ->capture_default_str();
  app.add_option("--porep-partitions", o.porep_partitions,
                 "PoRep row with --porep-size: partitions of one job, synthesized on host threads while the GPU "
                 "proves (wall, GPU time per partition)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--porep-threads", o.porep_threads,
                 "PoRep row with --porep-size: partitions synthesized at once (each bundle ~16 GiB at 130M "
                 "constraints; 0: as 60% of host memory allows)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  app.add_option("--porep-accumulate", o.porep_accumulate,
                 "PoRep row: extra warm runs of the first partition with every MSM forced to these accumulations "
                 "(e.g. xyzz,affine), beside the automatic policy");
  app.add_option("--porep-bundle", o.porep_bundle,
                 "PoRep row with --porep-size: full bundles (a, b, c made on the host and uploaded) or witness "
                 "(witness-only bundles as the farm ships them by default: the circuit's PCE matrices are recorded "
                 "once on the host, resident on the card, and a, b, c are computed there)")
      ->capture_default_str()
      ->check(CLI::IsMember({"full", "witness"}));
  app.add_option("--porep-product", o.porep_product,
                 "PoRep row with --porep-size and --porep-bundle witness: partition 0 proved twice more through the "
                 "prove worker's call (cuda::prove_gpu) on a host key of its shape: key admission, upload and the "
                 "key cache's default budget included (rows porep_product)")
      ->capture_default_str();
  app.add_option("--pinned-bundle", o.pinned_bundle,
                 "Prove rows: the bundle page-locked first (not timed), uploaded without the staging copies")
      ->capture_default_str();
  app.add_option("--h-basis", o.h_basis,
                 "H basis of the synthetic keys: coset_lagrange (what setup writes), monomial (keys written before: "
                 "one NTT more per proof) or both, comma-separated (prove rows per basis; the PoRep row's first "
                 "partition once more in the second)")
      ->capture_default_str();
  app.add_option("--h-beside", o.h_beside,
                 "Prove rows: where H's kernels run, ab or g2 or both comma-separated (warm proofs interleaved per "
                 "placement, rows *_hab / *_hg2); default: the prover's (ZKMILL_GPU_H_BESIDE, else g2)");
  app.add_option("--check-cpu-log", o.check_cpu_log, "Compare with the CPU prover at this prove size (0: skip)")
      ->capture_default_str();
  app.add_option("--g2-cpu-log", o.g2_cpu_log,
                 "Also prove with B_G2 on the CPU pool (GpuProveOptions::g2_on_cpu) at this size (0: skip)")
      ->capture_default_str();
  app.add_option("--runs", o.runs, "Timed runs per MSM (NTT: twice as many)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--ceilings", o.ceilings,
                 "Measure the card's ceilings: IMAD rate, copy bandwidths, the field products (limb widths, FP64)")
      ->capture_default_str();
  app.add_option("--msm-bits", o.msm_bits,
                 "Also time each MSM size on a PoRep-like scalar mix (55% zero, 40% one, 5% full): rows *_bits")
      ->capture_default_str();
  app.add_option("--curves", o.curves, "Curves, comma-separated (bn254, bls12-381)")->capture_default_str();
}

// What the parsed values mean to the suite: sizes of 0 (or a list "0") skip their part; no
// window width is automatic, no precompute factor is 1.
inline void finish_gpu_bench_options(GpuBenchOptions& o) {
  auto positive = [](std::vector<int>& v) { std::erase_if(v, [](int x) { return x <= 0; }); };
  positive(o.msm_sizes);
  positive(o.msm_g2_sizes);
  positive(o.ntt_sizes);
  positive(o.prove_sizes);
  positive(o.precompute);
  if (o.msm_widths.empty()) o.msm_widths = {0};
  if (o.precompute.empty()) o.precompute = {1};
}

}  // namespace zkmill::cuda
