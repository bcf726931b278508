// SPDX-License-Identifier: MIT
// query_gpus reports sane properties for every device, or an empty list with a reason; the
// GPU-dependent part is skipped via ZKMILL_REQUIRE_GPU on machines without one. Compiles with
// and without the CUDA backend so the GPU gate itself is exercised everywhere it is built.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/gpu.hpp"

#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/runtime/device_query.hpp"
#endif

namespace zkmill::test {

TEST(DeviceQuery, ReasonIsGivenExactlyWhenNoGpu) {
#if defined(ZKMILL_HAVE_CUDA)
  std::string err = "stale";
  const auto gpus = zkmill::cuda::query_gpus(&err);
  if (gpus.empty()) {
    EXPECT_FALSE(err.empty()) << "an empty device list must come with a reason";
  } else {
    EXPECT_TRUE(err.empty()) << "unexpected error alongside " << gpus.size() << " device(s): " << err;
  }
  // A null error pointer is allowed.
  EXPECT_EQ(zkmill::cuda::query_gpus(nullptr).size(), gpus.size());
  EXPECT_EQ(gpu_available(), !gpus.empty());
#else
  EXPECT_FALSE(gpu_available());
  EXPECT_NE(gpu_unavailable_reason().find("not compiled"), std::string::npos);
#endif
}

TEST(DeviceQuery, EveryDeviceHasSaneProperties) {
  ZKMILL_REQUIRE_GPU();
#if defined(ZKMILL_HAVE_CUDA)
  std::string err;
  const auto gpus = zkmill::cuda::query_gpus(&err);
  ASSERT_FALSE(gpus.empty()) << err;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const auto& g = gpus[i];
    SCOPED_TRACE("device " + std::to_string(i) + ": " + g.name);
    EXPECT_EQ(g.index, static_cast<int>(i));
    EXPECT_FALSE(g.name.empty());
    EXPECT_GT(g.total_mem, size_t(256) << 20);  // every CUDA card of this decade has more
    EXPECT_GT(g.sm_count, 0);
    // CUDA 13 supports Turing (7.5) and newer only.
    EXPECT_GE(g.cc_major * 10 + g.cc_minor, 75);
    EXPECT_GE(g.cc_minor, 0);
  }
#endif
}

}  // namespace zkmill::test
