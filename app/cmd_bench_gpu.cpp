// SPDX-License-Identifier: MIT
// `zkmill bench gpu`: the GPU benchmark suite (cuda/bench/suite.hpp) as a subcommand of `bench`;
// cmd_bench.cpp attaches it through attach_bench_gpu(). Builds nothing, prints one table. Its
// options are zkmill_gpu_bench's, defined once in cuda/bench/gpu_bench_cli.hpp (plain C++: they
// parse in a build without the CUDA backend too, which then says so).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>

#include "cuda/bench/gpu_bench_cli.hpp"

namespace zkmill::cli {

// Adds `gpu` under `bench`. The returned function runs the suite when `gpu` was chosen on the
// command line (its exit code), and returns -1 otherwise.
std::function<int()> attach_bench_gpu(CLI::App& bench) {
  auto o = std::make_shared<cuda::GpuBenchOptions>();
  auto* gpu = bench.add_subcommand("gpu", "GPU MSM / NTT / full-proof / PoRep-partition timings and card ceilings");
  cuda::add_gpu_bench_options(*gpu, *o);
  return [o, gpu]() -> int {
    if (!gpu->parsed()) return -1;
#if defined(ZKMILL_HAVE_CUDA)
    cuda::finish_gpu_bench_options(*o);
    return cuda::run_gpu_bench(*o);
#else
    (void)o;
    std::fprintf(stderr, "zkmill bench gpu: this binary was built without the CUDA backend\n");
    return 1;
#endif
  };
}

}  // namespace zkmill::cli
