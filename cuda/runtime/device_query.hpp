// SPDX-License-Identifier: MIT
// Lists the CUDA devices this process can see; a plain C++ interface so that host code built
// without nvcc (the CLI, tests) can include it. Defined only when zk_cuda is built.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace zkmill::cuda {

struct GpuInfo {
  int index = 0;         // CUDA device ordinal, as taken by cudaSetDevice
  std::string name;      // e.g. "NVIDIA H200"
  size_t total_mem = 0;  // global memory, bytes
  int sm_count = 0;      // streaming multiprocessors
  int cc_major = 0;      // compute capability, e.g. 9.0 for Hopper
  int cc_minor = 0;
};

// Returns every visible device. Never throws: when the list is empty and `error` is non-null,
// *error says why ("no CUDA device ...", a driver problem, ...); on success *error is cleared.
// Callers treat "no GPU" as a normal state (CI, laptops), hence a reason rather than an exception.
std::vector<GpuInfo> query_gpus(std::string* error);

// The device with CUDA ordinal `index`, or nullopt with *why_not saying why, e.g. "CUDA device 3
// does not exist (2 device(s) visible, 0..1)" or "CUDA device 0 does not exist (no CUDA device
// visible)". One wording for every caller that checks a device given on the command line.
inline std::optional<GpuInfo> find_gpu(int index, std::string* why_not) {
  std::string err;
  const std::vector<GpuInfo> gpus = query_gpus(&err);
  auto it = std::find_if(gpus.begin(), gpus.end(), [index](const GpuInfo& g) { return g.index == index; });
  if (it != gpus.end()) return *it;
  if (why_not)
    *why_not =
        "CUDA device " + std::to_string(index) + " does not exist (" +
        (gpus.empty() ? (err.empty() ? std::string("no CUDA device visible") : err)
                      : std::to_string(gpus.size()) + " device(s) visible, 0.." + std::to_string(gpus.size() - 1)) +
        ")";
  return std::nullopt;
}

}  // namespace zkmill::cuda
