// SPDX-License-Identifier: MIT
// GPU NTT (cuda/ntt/ntt.hpp) against the CPU's EvaluationDomain (common/poly) for both scalar
// fields, sizes 2^1 to 2^22 (splits into one, two and three passes), all four directions, plus
// round trips and argument errors; the textbook reference in cpu_reference.hpp cross-checks the
// CPU side. Skips without a GPU. Sizes up to 2^27 are checked by the benchmark (suite_ntt.cu).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/poly/evaluation_domain.hpp"
#include "cuda/ntt/ntt.hpp"
#include "tests/cuda/cpu_reference.hpp"
#include "tests/support/gpu.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;
using cuda::NttDirection;

struct Bn254Ntt {
  using Fr = ff::Bn254Fr;
  static cuda::NttResult run(Fr* d, size_t n, NttDirection dir) { return cuda::ntt_in_place(d, n, dir); }
};
struct Bls12381Ntt {
  using Fr = ff::Bls12381Fr;
  static cuda::NttResult run(Fr* d, size_t n, NttDirection dir) { return cuda::ntt_in_place(d, n, dir); }
};

constexpr NttDirection kAll[] = {NttDirection::kForward, NttDirection::kInverse, NttDirection::kCosetForward,
                                 NttDirection::kCosetInverse};

template <class T>
class GpuNtt : public ::testing::Test {
 protected:
  using Fr = typename T::Fr;

  static void cpu_ntt(std::vector<Fr>& x, size_t log_n, NttDirection dir) {
    const auto d = poly::EvaluationDomain<Fr>::from_log_size(log_n);
    switch (dir) {
      case NttDirection::kForward:
        d.fft(x);
        break;
      case NttDirection::kInverse:
        d.ifft(x);
        break;
      case NttDirection::kCosetForward:
        d.coset_fft(x);
        break;
      case NttDirection::kCosetInverse:
        d.icoset_fft(x);
        break;
    }
  }

  // GPU and CPU transforms of the same random input agree, every element.
  static void check(size_t log_n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto input = random_scalars<Fr>(size_t(1) << log_n, rng);
    for (NttDirection dir : kAll) {
      std::vector<Fr> want = input, got = input;
      cpu_ntt(want, log_n, dir);
      const cuda::NttResult r = T::run(got.data(), got.size(), dir);
      ASSERT_TRUE(r.ok()) << r.message;
      size_t bad = 0, first = got.size();
      for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i]) {
          ++bad;
          if (first == got.size()) first = i;
        }
      EXPECT_EQ(bad, 0u) << "n = 2^" << log_n << ", direction " << int(dir) << ", first mismatch at " << first;
    }
  }
};
using NttTypes = ::testing::Types<Bn254Ntt, Bls12381Ntt>;
TYPED_TEST_SUITE(GpuNtt, NttTypes);

// The CPU reference itself against the O(n^2) definition.
TYPED_TEST(GpuNtt, ReferenceMatchesDefinition) {
  using Fr = typename TypeParam::Fr;
  std::mt19937_64 rng(1);
  const auto a = random_scalars<Fr>(256, rng);
  auto fast = a;
  ntt_reference(fast, NttDirection::kForward);
  EXPECT_EQ(fast, dft_naive(a, Fr::root_of_unity(8)));
}

// The two CPU implementations agree (no GPU needed): the convention the GPU is held to.
TYPED_TEST(GpuNtt, CpuReferencesAgree) {
  using Fr = typename TypeParam::Fr;
  std::mt19937_64 rng(2);
  for (size_t log_n : {1, 5, 12}) {
    const auto a = random_scalars<Fr>(size_t(1) << log_n, rng);
    for (NttDirection dir : kAll) {
      auto x = a, y = a;
      ntt_reference(x, dir);
      TestFixture::cpu_ntt(y, log_n, dir);
      EXPECT_EQ(x, y) << "n = 2^" << log_n << ", direction " << int(dir);
    }
  }
}

TYPED_TEST(GpuNtt, Small1k) {
  ZKMILL_REQUIRE_GPU();
  this->check(10, 10);
}

TYPED_TEST(GpuNtt, TinySizes) {
  ZKMILL_REQUIRE_GPU();
  for (size_t log_n = 1; log_n <= 9; ++log_n) this->check(log_n, 100 + log_n);
}

TYPED_TEST(GpuNtt, Sizes2e11To2e20) {
  ZKMILL_REQUIRE_GPU();
  for (size_t log_n = 11; log_n <= 20; ++log_n) this->check(log_n, 200 + log_n);
}

// The sizes past 2^20 with three passes of other splits (7+7+7, 8+7+7: cuda/ntt/ntt_impl.cuh).
TYPED_TEST(GpuNtt, Sizes2e21And2e22) {
  ZKMILL_REQUIRE_GPU();
  for (size_t log_n : {21, 22}) this->check(log_n, 300 + log_n);
}

TYPED_TEST(GpuNtt, RoundTrips) {
  ZKMILL_REQUIRE_GPU();
  using Fr = typename TypeParam::Fr;
  std::mt19937_64 rng(3);
  const auto a = random_scalars<Fr>(size_t(1) << 16, rng);
  auto x = a;
  ASSERT_TRUE(TypeParam::run(x.data(), x.size(), NttDirection::kForward).ok());
  ASSERT_TRUE(TypeParam::run(x.data(), x.size(), NttDirection::kInverse).ok());
  EXPECT_EQ(x, a);
  ASSERT_TRUE(TypeParam::run(x.data(), x.size(), NttDirection::kCosetForward).ok());
  ASSERT_TRUE(TypeParam::run(x.data(), x.size(), NttDirection::kCosetInverse).ok());
  EXPECT_EQ(x, a);
}

TYPED_TEST(GpuNtt, ArgumentErrors) {
  using Fr = typename TypeParam::Fr;
  std::vector<Fr> x(12, Fr::one());
  EXPECT_EQ(TypeParam::run(x.data(), 12, NttDirection::kForward).code, cuda::GpuErrc::kInvalidArgument);
  EXPECT_EQ(TypeParam::run(x.data(), 0, NttDirection::kForward).code, cuda::GpuErrc::kInvalidArgument);
  EXPECT_EQ(TypeParam::run(nullptr, 16, NttDirection::kForward).code, cuda::GpuErrc::kInvalidArgument);
}

}  // namespace
}  // namespace zkmill::test
