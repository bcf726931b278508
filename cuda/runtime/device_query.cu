// SPDX-License-Identifier: MIT
// query_gpus: the CUDA runtime's view of the machine, for `zkmill info` and for tests that
// need to know whether a GPU is there before they try to use one.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "cuda/runtime/cuda_check.cuh"
#include "cuda/runtime/device_query.hpp"

namespace zkmill::cuda {

std::vector<GpuInfo> query_gpus(std::string* error) {
  std::vector<GpuInfo> gpus;
  if (error) error->clear();
  int count = 0;
  CudaStatus st = ZK_CUDA_TRY(cudaGetDeviceCount(&count));
  if (!st.ok()) {
    // No device and no driver are the common, expected cases; name them plainly and keep
    // CUDA's own wording in brackets for anything else.
    if (error) {
      if (st.code == cudaErrorNoDevice) {
        *error = "no CUDA device (" + st.what() + ")";
      } else if (st.code == cudaErrorInsufficientDriver) {
        *error = "no usable CUDA driver (" + st.what() + ")";
      } else {
        *error = "cudaGetDeviceCount failed: " + std::string(cudaGetErrorName(st.code)) + " (" + st.what() + ")";
      }
    }
    // A failed probe also leaves its (non-sticky) error in the runtime's last-error slot; clear it
    // so later, unrelated ZK_CUDA_OK_LAUNCH checks do not report it.
    (void)cudaGetLastError();
    return gpus;
  }
  if (count == 0) {
    if (error) *error = "no CUDA device";
    return gpus;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    st = ZK_CUDA_TRY(cudaGetDeviceProperties(&prop, i));
    if (!st.ok()) {
      if (error) *error = st.message();
      (void)cudaGetLastError();
      return {};
    }
    GpuInfo g;
    g.index = i;
    g.name = prop.name;
    g.total_mem = prop.totalGlobalMem;
    g.sm_count = prop.multiProcessorCount;
    g.cc_major = prop.major;
    g.cc_minor = prop.minor;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace zkmill::cuda
