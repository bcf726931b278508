// SPDX-License-Identifier: MIT
// GPU NTT (cuda/ntt/ntt.hpp) against the CPU's EvaluationDomain (common/poly) for both scalar
// fields, sizes 2^1 to 2^22 (splits into one, two and three passes), all five directions (the
// coset ones with the shifts g, snarkjs's zeta and a random one), plus round trips, the
// prover's inverse-to-coset + forward pair, and argument errors; the textbook reference in
// cpu_reference.hpp cross-checks the CPU side. Skips without a GPU. Sizes up to 2^27 are checked
// by the benchmark (suite_ntt.cu).
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
  static cuda::NttResult run(Fr* d, size_t n, NttDirection dir, const Fr& shift = Fr::generator()) {
    return cuda::ntt_in_place(d, n, dir, shift);
  }
};
struct Bls12381Ntt {
  using Fr = ff::Bls12381Fr;
  static cuda::NttResult run(Fr* d, size_t n, NttDirection dir, const Fr& shift = Fr::generator()) {
    return cuda::ntt_in_place(d, n, dir, shift);
  }
};

constexpr NttDirection kAll[] = {NttDirection::kForward, NttDirection::kInverse, NttDirection::kCosetForward,
                                 NttDirection::kCosetInverse, NttDirection::kInverseToCoset};

bool uses_shift(NttDirection dir) {
  return dir == NttDirection::kCosetForward || dir == NttDirection::kCosetInverse ||
         dir == NttDirection::kInverseToCoset;
}

template <class T>
class GpuNtt : public ::testing::Test {
 protected:
  using Fr = typename T::Fr;

  // x_j *= s^j.
  static void scale_powers(std::vector<Fr>& x, const Fr& s) {
    Fr p = Fr::one();
    for (auto& v : x) {
      v *= p;
      p *= s;
    }
  }

  // The CPU's transform (common/poly). Shift g: the domain's own coset transforms; any other
  // shift s: its fft / ifft with the powers of s applied here (coset forward: x_j s^j first;
  // coset inverse: s^-j after; inverse to coset: s^j after).
  static void cpu_ntt(std::vector<Fr>& x, size_t log_n, NttDirection dir, const Fr& shift = Fr::generator()) {
    const auto d = poly::EvaluationDomain<Fr>::from_log_size(log_n);
    const bool g = shift == Fr::generator();
    switch (dir) {
      case NttDirection::kForward:
        d.fft(x);
        break;
      case NttDirection::kInverse:
        d.ifft(x);
        break;
      case NttDirection::kCosetForward:
        if (g) {
          d.coset_fft(x);
        } else {
          scale_powers(x, shift);
          d.fft(x);
        }
        break;
      case NttDirection::kCosetInverse:
        if (g) {
          d.icoset_fft(x);
        } else {
          d.ifft(x);
          scale_powers(x, shift.inverse());
        }
        break;
      case NttDirection::kInverseToCoset:
        d.ifft(x);
        scale_powers(x, shift);
        break;
    }
  }

  // The shifts each coset direction is checked with: g (native keys), a primitive 2n-th root of
  // unity (the snarkjs prover's zeta, when the field has one) and a random element.
  static std::vector<Fr> shifts(size_t log_n, std::mt19937_64& rng) {
    std::vector<Fr> s{Fr::generator()};
    if (log_n + 1 <= size_t(Fr::kTwoAdicity)) s.push_back(Fr::root_of_unity(log_n + 1));
    s.push_back(Fr::random(rng));
    return s;
  }

  static size_t mismatches(const std::vector<Fr>& got, const std::vector<Fr>& want, size_t& first) {
    size_t bad = 0;
    first = got.size();
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i]) {
        ++bad;
        if (first == got.size()) first = i;
      }
    return bad;
  }

  // GPU and CPU transforms of the same random input agree, every element, every direction and
  // (coset directions) every shift.
  static void check(size_t log_n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto input = random_scalars<Fr>(size_t(1) << log_n, rng);
    const auto coset_shifts = shifts(log_n, rng);
    for (NttDirection dir : kAll)
      for (const Fr& shift : coset_shifts) {
        if (!uses_shift(dir) && shift != Fr::generator()) continue;
        std::vector<Fr> want = input, got = input;
        cpu_ntt(want, log_n, dir, shift);
        const cuda::NttResult r = T::run(got.data(), got.size(), dir, shift);
        ASSERT_TRUE(r.ok()) << r.message;
        size_t first = 0;
        EXPECT_EQ(mismatches(got, want, first), 0u)
            << "n = 2^" << log_n << ", direction " << int(dir) << ", shift " << (&shift - coset_shifts.data())
            << ", first mismatch at " << first;
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

// The prover's pair (cuda/groth16/prove.cuh, CosetSteps): kForward(kInverseToCoset(e, s)) is
// kCosetForward(kInverse(e), s), for g and snarkjs's zeta, at one pass (2^9), two (2^16) and
// three (2^21).
TYPED_TEST(GpuNtt, InverseToCosetThenForwardIsCosetForward) {
  ZKMILL_REQUIRE_GPU();
  using Fr = typename TypeParam::Fr;
  std::mt19937_64 rng(4);
  for (size_t log_n : {9, 16, 21}) {
    const auto e = random_scalars<Fr>(size_t(1) << log_n, rng);
    for (const Fr& s : {Fr::generator(), Fr::root_of_unity(log_n + 1)}) {
      auto fused = e, plain = e;
      ASSERT_TRUE(TypeParam::run(fused.data(), fused.size(), NttDirection::kInverseToCoset, s).ok());
      ASSERT_TRUE(TypeParam::run(fused.data(), fused.size(), NttDirection::kForward).ok());
      ASSERT_TRUE(TypeParam::run(plain.data(), plain.size(), NttDirection::kInverse).ok());
      ASSERT_TRUE(TypeParam::run(plain.data(), plain.size(), NttDirection::kCosetForward, s).ok());
      EXPECT_EQ(fused, plain) << "n = 2^" << log_n;
    }
  }
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
