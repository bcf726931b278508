// SPDX-License-Identifier: MIT
// zkmill_gpu_bench: command-line front end of the GPU benchmark suite (cuda/bench/suite.hpp);
// `zkmill bench gpu` runs the same suite.
//
//   zkmill_gpu_bench [--OPTION VALUE ...]: the options are listed once, in kUsage below (--help).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/bench/suite.hpp"

namespace {

std::vector<int> parse_list(const char* s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (const int v = std::atoi(item.c_str()); v > 0 || !out.empty() || item != "0") out.push_back(v);
  if (out.size() == 1 && out[0] == 0) out.clear();
  return out;
}

}  // namespace

// Every option, for --help and for a malformed command line.
constexpr const char* kUsage =
    "usage: zkmill_gpu_bench [--OPTION VALUE ...]   (every option takes one value)\n"
    "  --msm-sizes 20,22,24,26   --msm-g2-sizes 20,22   --ntt-sizes 20,...,27   --prove-sizes 20,22,24\n"
    "  --porep-log 27   --check-cpu-log 20   --g2-cpu-log 20   --runs 3   --curves bn254,bls12-381\n"
    "  --msm-c 0,16   --ceilings 1   --msm-bits 1   --precompute 1,2,99   --pinned-bundle 0|1\n"
    "  --porep-size N --porep-partitions P --porep-threads T   --porep-bundle full|witness\n"
    "  --porep-accumulate xyzz,affine,ones-xyzz,ones-affine   --porep-product 0|1\n"
    "  --h-basis coset_lagrange|monomial   --h-beside ab,g2\n"
    "A list \"0\" or a size 0 skips that part; with no option every part runs at its default sizes.\n";

int main(int argc, char** argv) {
  zkmill::cuda::GpuBenchOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "%s: option %s has no value\n%s", argv[0], argv[argc - 1], kUsage);
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--msm-sizes")
      o.msm_sizes = parse_list(v);
    else if (k == "--msm-g2-sizes")
      o.msm_g2_sizes = parse_list(v);
    else if (k == "--g2-cpu-log")
      o.g2_cpu_log = std::atoi(v);
    else if (k == "--ntt-sizes")
      o.ntt_sizes = parse_list(v);
    else if (k == "--prove-sizes")
      o.prove_sizes = parse_list(v);
    else if (k == "--msm-c")
      o.msm_widths = parse_list(v).empty() ? std::vector<int>{0} : parse_list(v);
    else if (k == "--precompute")
      o.precompute = parse_list(v).empty() ? std::vector<int>{1} : parse_list(v);
    else if (k == "--porep-log")
      o.porep_log = std::atoi(v);
    else if (k == "--porep-size")
      o.porep_size = std::strtoull(v, nullptr, 10);
    else if (k == "--porep-partitions")
      o.porep_partitions = std::max(1, std::atoi(v));
    else if (k == "--porep-threads")
      o.porep_threads = std::max(0, std::atoi(v));
    else if (k == "--porep-product")
      o.porep_product = std::atoi(v) != 0;
    else if (k == "--porep-accumulate")
      o.porep_accumulate = v;
    else if (k == "--porep-bundle") {
      o.porep_bundle = v;
      if (o.porep_bundle != "full" && o.porep_bundle != "witness") {
        std::fprintf(stderr, "--porep-bundle takes full or witness, got '%s'\n", v);
        return 2;
      }
    } else if (k == "--h-basis")
      o.h_basis = v;
    else if (k == "--h-beside")
      o.h_beside = v;
    else if (k == "--check-cpu-log")
      o.check_cpu_log = std::atoi(v);
    else if (k == "--pinned-bundle")
      o.pinned_bundle = std::atoi(v) != 0;
    else if (k == "--runs")
      o.runs = std::max(1, std::atoi(v));
    else if (k == "--ceilings")
      o.ceilings = std::atoi(v) != 0;
    else if (k == "--msm-bits")
      o.msm_bits = std::atoi(v) != 0;
    else if (k == "--curves")
      o.curves = v;
    else {
      std::fprintf(stderr, "unknown option %s\n%s", k.c_str(), kUsage);
      return 2;
    }
  }
  return zkmill::cuda::run_gpu_bench(o);
}
