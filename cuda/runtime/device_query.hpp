// Lists the CUDA devices this process can see; a plain C++ interface so that host code built
// without nvcc (the CLI, tests) can include it. Defined only when zk_cuda is built.
#pragma once

#include <cstddef>
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

}  // namespace zkmill::cuda
