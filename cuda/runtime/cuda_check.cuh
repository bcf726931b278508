// SPDX-License-Identifier: MIT
// The project's one way to check CUDA runtime calls: ZK_CUDA_OK throws CudaError carrying
// file:line, the failing expression and CUDA's own error name and text; ZK_CUDA_TRY returns
// the same facts as a value for code that must not throw (device probing, destructors).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace zkmill::cuda {

// The outcome of one CUDA runtime call, with where it was made.
struct CudaStatus {
  cudaError_t code = cudaSuccess;
  const char* expr = "";
  const char* file = "";
  int line = 0;

  bool ok() const { return code == cudaSuccess; }
  explicit operator bool() const { return ok(); }

  // CUDA's description alone, e.g. "no CUDA-capable device is detected".
  std::string what() const { return cudaGetErrorString(code); }

  // "file.cu:42: cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation (out of memory)".
  std::string message() const {
    if (ok()) return "success";
    return std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + cudaGetErrorName(code) + " (" +
           cudaGetErrorString(code) + ")";
  }
};

class CudaError : public std::runtime_error {
 public:
  explicit CudaError(const CudaStatus& s) : std::runtime_error(s.message()), status_(s) {}
  cudaError_t code() const { return status_.code; }
  const CudaStatus& status() const { return status_; }

 private:
  CudaStatus status_;
};

inline CudaStatus cuda_status(cudaError_t code, const char* expr, const char* file, int line) {
  return CudaStatus{code, expr, file, line};
}

inline void cuda_ok(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw CudaError(cuda_status(code, expr, file, line));
}

}  // namespace zkmill::cuda

// Throws zkmill::cuda::CudaError unless `expr` returns cudaSuccess.
#define ZK_CUDA_OK(expr) ::zkmill::cuda::cuda_ok((expr), #expr, __FILE__, __LINE__)
// Evaluates `expr` and yields a zkmill::cuda::CudaStatus; never throws.
#define ZK_CUDA_TRY(expr) ::zkmill::cuda::cuda_status((expr), #expr, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors surface only through cudaGetLastError.
#define ZK_CUDA_OK_LAUNCH() ZK_CUDA_OK(cudaGetLastError())
