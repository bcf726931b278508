// SPDX-License-Identifier: MIT
// `zkmill bench gpu`: the GPU benchmark suite (cuda/bench/suite.hpp) as a subcommand of `bench`;
// cmd_bench.cpp attaches it through attach_bench_gpu(). Builds nothing, prints one table.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/bench/suite.hpp"
#endif

namespace zkmill::cli {

// Adds `gpu` under `bench`. The returned function runs the suite when `gpu` was chosen on the
// command line (its exit code), and returns -1 otherwise.
std::function<int()> attach_bench_gpu(CLI::App& bench) {
  struct Opts {
    std::vector<int> msm{20, 22, 24, 26}, msm_g2{20, 22}, ntt{20, 21, 22, 23, 24, 25, 26, 27}, prove{20, 22, 24},
        widths{0}, precompute{1};
    int porep_log = 27, check_cpu_log = 20, g2_cpu_log = 20, runs = 3;
    uint64_t porep_size = 0;
    int porep_partitions = 1, porep_threads = 0;
    std::string porep_accumulate, porep_bundle = "full", h_basis = "coset_lagrange";
    bool ceilings = true, msm_bits = true, porep_product = false, pinned_bundle = false;
    std::vector<std::string> curves{"bn254", "bls12-381"};
  };
  auto o = std::make_shared<Opts>();
  auto* gpu = bench.add_subcommand("gpu", "GPU MSM / NTT / full-proof / PoRep-partition timings and card ceilings");
  gpu->add_option("--msm-sizes", o->msm, "G1 MSM sizes, log2 (0: skip)")->delimiter(',')->capture_default_str();
  gpu->add_option("--msm-g2-sizes", o->msm_g2, "G2 MSM sizes, log2 (0: skip)")->delimiter(',')->capture_default_str();
  gpu->add_option("--ntt-sizes", o->ntt, "NTT sizes, log2 (0: skip)")->delimiter(',')->capture_default_str();
  gpu->add_option("--prove-sizes", o->prove, "Full GPU proofs, log2 domain, synthetic keys (0: skip)")
      ->delimiter(',')
      ->capture_default_str();
  gpu->add_option("--msm-c", o->widths, "MSM window widths (0: automatic)")->delimiter(',')->capture_default_str();
  gpu->add_option("--precompute", o->precompute,
                  "Precomputed copies of the MSM points / resident key, t per row (1: plain; t >= W: one window)")
      ->delimiter(',')
      ->capture_default_str();
  gpu->add_option("--porep-log", o->porep_log, "PoRep-sized partition of each curve, log2 domain (0: skip)")
      ->capture_default_str();
  gpu->add_option("--porep-size", o->porep_size,
                  "PoRep row: real `porep` witnesses of about this many constraints (e.g. 130000000), synthesized "
                  "on the host, instead of the synthetic one (0); the device-made key stays synthetic")
      ->capture_default_str();
  gpu->add_option("--porep-partitions", o->porep_partitions,
                  "PoRep row with --porep-size: partitions of one job, synthesized on host threads while the GPU "
                  "proves (wall, GPU time per partition)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  gpu->add_option("--porep-threads", o->porep_threads,
                  "PoRep row with --porep-size: partitions synthesized at once (each bundle ~16 GiB at 130M "
                  "constraints; 0: as 60% of host memory allows)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  gpu->add_option("--porep-accumulate", o->porep_accumulate,
                  "PoRep row: extra warm runs of the first partition with every MSM forced to these accumulations "
                  "(e.g. xyzz,affine), beside the automatic policy");
  gpu->add_option("--porep-bundle", o->porep_bundle,
                  "PoRep row with --porep-size: full bundles (a, b, c made on the host and uploaded) or witness "
                  "(witness-only bundles as the farm ships them by default: the circuit's PCE matrices are recorded "
                  "once on the host, resident on the card, and a, b, c are computed there)")
      ->capture_default_str()
      ->check(CLI::IsMember({"full", "witness"}));
  gpu->add_option("--porep-product", o->porep_product,
                  "PoRep row with --porep-size and --porep-bundle witness: partition 0 proved twice more through the "
                  "prove worker's call (cuda::prove_gpu) on a host key of its shape: key admission, upload and the "
                  "key cache's default budget included (rows porep_product)")
      ->capture_default_str();
  gpu->add_option("--pinned-bundle", o->pinned_bundle,
                  "Prove rows: the bundle page-locked first (not timed), uploaded without the staging copies")
      ->capture_default_str();
  gpu->add_option("--h-basis", o->h_basis,
                  "H basis of the synthetic keys: coset_lagrange (what setup writes), monomial (keys written before: "
                  "one NTT more per proof) or both, comma-separated (prove rows per basis; the PoRep row's first "
                  "partition once more in the second)")
      ->capture_default_str();
  gpu->add_option("--check-cpu-log", o->check_cpu_log, "Compare with the CPU prover at this prove size (0: skip)")
      ->capture_default_str();
  gpu->add_option("--g2-cpu-log", o->g2_cpu_log,
                  "Also prove with B_G2 on the CPU pool (GpuProveOptions::g2_on_cpu) at this size (0: skip)")
      ->capture_default_str();
  gpu->add_option("--runs", o->runs, "Timed runs per MSM (NTT: twice as many)")->capture_default_str();
  gpu->add_option("--ceilings", o->ceilings, "Measure IMAD rate and copy bandwidths")->capture_default_str();
  gpu->add_option("--msm-bits", o->msm_bits,
                  "Also time each MSM size on a PoRep-like scalar mix (55% zero, 40% one, 5% full): rows *_bits")
      ->capture_default_str();
  gpu->add_option("--curves", o->curves, "Curves (bn254, bls12-381)")->delimiter(',')->capture_default_str();
  return [o, gpu]() -> int {
    if (!gpu->parsed()) return -1;
#if defined(ZKMILL_HAVE_CUDA)
    auto nonzero = [](const std::vector<int>& v) {
      std::vector<int> r;
      for (int x : v)
        if (x > 0) r.push_back(x);
      return r;
    };
    cuda::GpuBenchOptions b;
    b.msm_sizes = nonzero(o->msm);
    b.msm_g2_sizes = nonzero(o->msm_g2);
    b.ntt_sizes = nonzero(o->ntt);
    b.prove_sizes = nonzero(o->prove);
    b.msm_widths = o->widths.empty() ? std::vector<int>{0} : o->widths;
    b.precompute = nonzero(o->precompute).empty() ? std::vector<int>{1} : nonzero(o->precompute);
    b.porep_log = o->porep_log;
    b.porep_size = o->porep_size;
    b.porep_partitions = o->porep_partitions;
    b.porep_threads = o->porep_threads;
    b.porep_accumulate = o->porep_accumulate;
    b.porep_bundle = o->porep_bundle;
    b.porep_product = o->porep_product;
    b.pinned_bundle = o->pinned_bundle;
    b.h_basis = o->h_basis;
    b.check_cpu_log = o->check_cpu_log;
    b.g2_cpu_log = o->g2_cpu_log;
    b.runs = o->runs < 1 ? 1 : o->runs;
    b.ceilings = o->ceilings;
    b.msm_bits = o->msm_bits;
    b.curves.clear();
    for (const auto& c : o->curves) b.curves += c + ",";
    return cuda::run_gpu_bench(b);
#else
    (void)o;
    std::fprintf(stderr, "zkmill bench gpu: this binary was built without the CUDA backend\n");
    return 1;
#endif
  };
}

}  // namespace zkmill::cli
