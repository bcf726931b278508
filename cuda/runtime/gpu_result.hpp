// SPDX-License-Identifier: MIT
// The outcome of a GPU entry point, as a value: MSM and NTT entries never throw across the
// API (callers are worker loops that must keep serving), they return {code, message} instead.
// Plain C++ so that code built without nvcc can include it.
#pragma once

#include <string>

namespace zkmill::cuda {

enum class GpuErrc : int {
  kOk = 0,
  kInvalidArgument,  // a size or pointer the entry cannot accept; nothing ran
  kNoDevice,         // no CUDA device or no usable driver
  kOutOfMemory,      // a device (or pinned host) allocation failed; nothing is left allocated
  kCudaError,        // any other CUDA failure; the message names the call and file:line
  kInternal,         // an unexpected host-side exception
};

inline const char* to_string(GpuErrc c) {
  switch (c) {
    case GpuErrc::kOk:
      return "ok";
    case GpuErrc::kInvalidArgument:
      return "invalid argument";
    case GpuErrc::kNoDevice:
      return "no device";
    case GpuErrc::kOutOfMemory:
      return "out of memory";
    case GpuErrc::kCudaError:
      return "cuda error";
    case GpuErrc::kInternal:
      return "internal error";
  }
  return "unknown";
}

struct GpuResult {
  GpuErrc code = GpuErrc::kOk;
  std::string message;

  bool ok() const { return code == GpuErrc::kOk; }
  explicit operator bool() const { return ok(); }
};

using MsmResult = GpuResult;
using NttResult = GpuResult;

}  // namespace zkmill::cuda
