// SPDX-License-Identifier: MIT
// zkmill_gpu_bench: command-line front end of the GPU benchmark suite (cuda/bench/suite.hpp);
// `zkmill bench gpu` runs the same suite with the same options (cuda/bench/gpu_bench_cli.hpp).
// Exit codes: 0 every checked result right (or --help), 1 a wrong result or a GPU error, 2 a
// malformed command line.
#include <CLI/CLI.hpp>

#include "cuda/bench/gpu_bench_cli.hpp"
#include "cuda/bench/suite.hpp"

int main(int argc, char** argv) {
  zkmill::cuda::GpuBenchOptions o;
  CLI::App app{"GPU MSM / NTT / full-proof / PoRep-partition timings and card ceilings (as `zkmill bench gpu`)",
               "zkmill_gpu_bench"};
  zkmill::cuda::add_gpu_bench_options(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // the help, exit 0, no device touched
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // the message naming the option
    return 2;
  }
  zkmill::cuda::finish_gpu_bench_options(o);
  return zkmill::cuda::run_gpu_bench(o);
}
