// SPDX-License-Identifier: MIT
// GPU gate for GoogleTest: ZKMILL_REQUIRE_GPU() at the top of a test skips it, with the reason,
// when the CUDA backend was not compiled (ZKMILL_CUDA=OFF, CI: no nvcc) or no CUDA device is
// visible (CI, a dev box without a card). A GPU test therefore never fails for lack of a GPU,
// and `ctest` output says exactly why it did not run. Usable from any test target; link
// zk_cuda to get real device detection (it defines ZKMILL_HAVE_CUDA).
#pragma once

#include <gtest/gtest.h>

#include <string>

#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/runtime/device_query.hpp"
#endif

namespace zkmill::test {

// Empty when at least one CUDA device is usable, else why not. Probed once per process:
// device enumeration costs milliseconds and the answer does not change under a test run.
inline const std::string& gpu_unavailable_reason() {
  static const std::string reason = [] {
#if defined(ZKMILL_HAVE_CUDA)
    std::string err;
    if (!zkmill::cuda::query_gpus(&err).empty()) return std::string();
    return err.empty() ? std::string("no CUDA device") : err;
#else
    return std::string("CUDA backend not compiled (nvcc not found or ZKMILL_CUDA=OFF)");
#endif
  }();
  return reason;
}

inline bool gpu_available() { return gpu_unavailable_reason().empty(); }

}  // namespace zkmill::test

// GTEST_SKIP returns from the enclosing test body, so this must be used in the test itself
// (or a void helper whose caller checks IsSkipped()).
#define ZKMILL_REQUIRE_GPU()                                                            \
  do {                                                                                  \
    if (!::zkmill::test::gpu_available()) {                                             \
      GTEST_SKIP() << "needs a CUDA GPU: " << ::zkmill::test::gpu_unavailable_reason(); \
    }                                                                                   \
  } while (0)
