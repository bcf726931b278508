// SPDX-License-Identifier: MIT
// EvaluationDomain FFTs against the O(n^2) DFT and Horner evaluation, round trips, cosets,
// bit reversal and thread-count independence, as typed tests for both Groth16 scalar fields.
#include "common/poly/evaluation_domain.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tests/common/poly/horner.hpp"

namespace zkmill::test {

using namespace zkmill::ff;
using zkmill::poly::EvaluationDomain;
using zkmill::poly::FftDir;
using zkmill::util::ThreadPool;

namespace {

// X_k = sum_j x_j u^(jk): the definition, O(n^2).
template <class F>
std::vector<F> naive_dft(const std::vector<F>& x, const F& u) {
  std::vector<F> out(x.size());
  F uk = F::one();
  for (size_t k = 0; k < x.size(); ++k, uk *= u) out[k] = horner(x, uk);
  return out;
}

size_t bitrev(size_t i, size_t bits) {
  size_t r = 0;
  for (size_t b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

}  // namespace

template <class F>
class DomainTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0xD0'0000 + F::kTwoAdicity};
  std::vector<F> random_vec(size_t n) {
    std::vector<F> v(n);
    for (auto& x : v) x = F::random(rng);
    return v;
  }
};

using ScalarFields = ::testing::Types<Bn254Fr, Bls12381Fr>;
TYPED_TEST_SUITE(DomainTest, ScalarFields);

TYPED_TEST(DomainTest, SizeRoundsUpToAPowerOfTwo) {
  using F = TypeParam;
  const std::pair<size_t, size_t> cases[] = {{0, 1}, {1, 1}, {2, 2}, {3, 4}, {5, 8}, {1000, 1024}, {4097, 8192}};
  for (auto [req, want] : cases) {
    EvaluationDomain<F> d(req);
    EXPECT_EQ(d.size(), want) << "min_size " << req;
    EXPECT_EQ(size_t(1) << d.log_size(), d.size());
    // w has order exactly n.
    EXPECT_EQ(d.omega().pow(uint64_t(d.size())), F::one());
    if (d.size() > 1) {
      EXPECT_EQ(d.omega().pow(uint64_t(d.size() / 2)), -F::one());
    }
    EXPECT_EQ(d.omega() * d.omega_inv(), F::one());
    EXPECT_EQ(d.size_inv() * F::from_u64(d.size()), F::one());
  }
}

TYPED_TEST(DomainTest, SizeBeyondTwoAdicityThrows) {
  using F = TypeParam;
  const size_t s = F::kTwoAdicity;
  EXPECT_THROW(EvaluationDomain<F>((size_t(1) << s) + 1), std::invalid_argument);
  EXPECT_THROW(EvaluationDomain<F>::from_log_size(s + 1), std::invalid_argument);
  EXPECT_THROW(EvaluationDomain<F>(SIZE_MAX), std::invalid_argument);
  // The largest domain exists (its tables are O(sqrt n), so this is cheap).
  auto d = EvaluationDomain<F>::from_log_size(s);
  EXPECT_EQ(d.size(), size_t(1) << s);
  EXPECT_EQ(d.omega(), F::root_of_unity(s));
}

TYPED_TEST(DomainTest, WrongLengthsThrow) {
  using F = TypeParam;
  EvaluationDomain<F> d(16);
  auto x = this->random_vec(17);
  EXPECT_THROW(d.fft(std::span<F>(x)), std::invalid_argument);
  EXPECT_THROW(d.icoset_fft(std::span<F>(x).first(15)), std::invalid_argument);
  EXPECT_THROW(d.fft(x), std::invalid_argument);  // vectors may be shorter, never longer
  EXPECT_THROW(d.fft_natural_to_bitrev(std::span<F>(x).first(16), FftDir::kForward, F::one(), 2),
               std::invalid_argument);
  std::vector<F> odd(12);
  EXPECT_THROW(EvaluationDomain<F>::bit_reverse_permute(odd), std::invalid_argument);
}

TYPED_TEST(DomainTest, VectorOverloadZeroPads) {
  using F = TypeParam;
  EvaluationDomain<F> d(8);
  auto x = this->random_vec(5);
  auto padded = x;
  padded.resize(8);
  d.fft(x);
  d.fft(std::span<F>(padded));
  EXPECT_EQ(x, padded);
}

TYPED_TEST(DomainTest, FftAndIfftMatchNaiveDftUpTo256) {
  using F = TypeParam;
  for (size_t k = 0; k <= 8; ++k) {
    auto d = EvaluationDomain<F>::from_log_size(k);
    auto x = this->random_vec(d.size());
    auto y = x;
    d.fft(y);
    ASSERT_EQ(y, naive_dft(x, d.omega())) << "fft, n = " << d.size();
    y = x;
    d.ifft(y);
    auto want = naive_dft(x, d.omega_inv());
    for (auto& v : want) v *= d.size_inv();
    ASSERT_EQ(y, want) << "ifft, n = " << d.size();
  }
}

// Sizes past kDirectLog use the four-step layout: spot-check outputs against Horner at w^i.
TYPED_TEST(DomainTest, BlockedFftMatchesPointEvaluations) {
  using F = TypeParam;
  for (size_t k : {9, 10, 11, 12, 13, 15, 17}) {
    auto d = EvaluationDomain<F>::from_log_size(k);
    const size_t n = d.size();
    auto x = this->random_vec(n);
    auto y = x;
    d.fft(y);
    std::vector<size_t> idx = {0, 1, n / 2, n - 1};
    for (int t = 0; t < 12; ++t) idx.push_back(size_t(this->rng() % n));
    for (size_t i : idx) ASSERT_EQ(y[i], horner(x, d.omega().pow(uint64_t(i)))) << "n = " << n << ", i = " << i;
    auto z = x;
    d.coset_fft(z);
    for (size_t i : idx)
      ASSERT_EQ(z[i], horner(x, d.coset_generator() * d.omega().pow(uint64_t(i)))) << "coset, n = " << n;
  }
}

TYPED_TEST(DomainTest, RoundTripsUpTo2Pow16) {
  using F = TypeParam;
  for (size_t k = 0; k <= 16; ++k) {
    auto d = EvaluationDomain<F>::from_log_size(k);
    const auto x = this->random_vec(d.size());
    auto y = x;
    d.fft(y);
    d.ifft(y);
    ASSERT_EQ(y, x) << "ifft(fft(x)), k = " << k;
    d.ifft(y);
    d.fft(y);
    ASSERT_EQ(y, x) << "fft(ifft(x)), k = " << k;
    d.coset_fft(y);
    d.icoset_fft(y);
    ASSERT_EQ(y, x) << "icoset_fft(coset_fft(x)), k = " << k;
  }
}

TYPED_TEST(DomainTest, CosetFftIsFftOfDistributedPowers) {
  using F = TypeParam;
  for (size_t k : {0, 1, 3, 8, 11, 14}) {
    auto d = EvaluationDomain<F>::from_log_size(k);
    const auto x = this->random_vec(d.size());
    auto y = x;
    d.coset_fft(y);
    auto z = x;
    EvaluationDomain<F>::distribute_powers(z, F::generator());
    d.fft(z);
    ASSERT_EQ(y, z) << "k = " << k;
    // And the inverse: icoset_fft = g^-i ifft.
    auto w = x;
    d.icoset_fft(w);
    auto v = x;
    d.ifft(v);
    EvaluationDomain<F>::distribute_powers(v, d.coset_generator_inv());
    ASSERT_EQ(w, v) << "k = " << k;
  }
}

TYPED_TEST(DomainTest, DistributePowersOnAnyLength) {
  using F = TypeParam;
  ThreadPool pool(3);
  const F g = F::random(this->rng);
  for (size_t n : {0, 1, 7, 10000}) {
    auto x = this->random_vec(n);
    auto y = x;
    EvaluationDomain<F>::distribute_powers(y, g, pool);
    F t = F::one();
    for (size_t i = 0; i < n; ++i, t *= g) ASSERT_EQ(y[i], x[i] * t) << "i = " << i;
  }
}

TYPED_TEST(DomainTest, VanishingPolynomialIsConstantOnTheCoset) {
  using F = TypeParam;
  for (size_t k : {0, 4, 12}) {
    auto d = EvaluationDomain<F>::from_log_size(k);
    EXPECT_EQ(d.coset_generator(), F::generator());
    EXPECT_EQ(d.z_on_coset(), F::generator().pow(uint64_t(d.size())) - F::one());
    EXPECT_FALSE(d.z_on_coset().is_zero());
    EXPECT_EQ(d.z_on_coset() * d.z_on_coset_inv(), F::one());
    for (uint64_t i : {uint64_t(0), uint64_t(1), uint64_t(d.size() - 1)}) {
      EXPECT_EQ(d.evaluate_vanishing(d.omega().pow(i)), F::zero());
      EXPECT_EQ(d.evaluate_vanishing(d.coset_generator() * d.omega().pow(i)), d.z_on_coset());
    }
  }
}

TYPED_TEST(DomainTest, BitReversePermuteMatchesDefinition) {
  using F = TypeParam;
  ThreadPool pool(4);
  for (size_t k = 0; k <= 13; ++k) {
    const size_t n = size_t(1) << k;
    const auto x = this->random_vec(n);
    auto y = x;
    EvaluationDomain<F>::bit_reverse_permute(y, pool);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[bitrev(i, k)]) << "k = " << k << ", i = " << i;
    EvaluationDomain<F>::bit_reverse_permute(y, pool);
    ASSERT_EQ(y, x) << "not an involution at k = " << k;
  }
}

// The building blocks' contract, including the scaling s h^i on the bit-reversed side.
TYPED_TEST(DomainTest, PermutationFreeBlocksMatchTheirDefinition) {
  using F = TypeParam;
  for (size_t k : {2, 9, 12, 13}) {
    auto d = EvaluationDomain<F>::from_log_size(k);
    const size_t n = d.size();
    const auto x = this->random_vec(n);
    const F s = F::random(this->rng);
    for (int e : {-1, 0, 1}) {
      const F h = e == 0 ? F::one() : e > 0 ? d.coset_generator() : d.coset_generator_inv();
      for (FftDir dir : {FftDir::kForward, FftDir::kInverse}) {
        const F u = dir == FftDir::kForward ? d.omega() : d.omega_inv();
        // natural -> bit-reversed: entry i = s h^i sum_j x_j u^(ij), at position bitrev(i).
        auto y = x;
        d.fft_natural_to_bitrev(y, dir, s, e);
        for (size_t i : {size_t(0), size_t(1), n / 2 + 1, n - 1}) {
          if (i >= n) continue;
          F want = s * h.pow(uint64_t(i)) * horner(x, u.pow(uint64_t(i)));
          ASSERT_EQ(y[bitrev(i, k)], want) << "n2b k=" << k << " e=" << e << " i=" << i;
        }
        // bit-reversed -> natural: X_i = sum_j s h^j x_j u^(ij), with x_j read from bitrev(j).
        auto z = x;
        EvaluationDomain<F>::bit_reverse_permute(z);
        d.fft_bitrev_to_natural(z, dir, s, e);
        std::vector<F> scaled(n);
        F hj = s;
        for (size_t j = 0; j < n; ++j, hj *= h) scaled[j] = x[j] * hj;
        for (size_t i : {size_t(0), size_t(1), n / 2 + 1, n - 1}) {
          if (i >= n) continue;
          ASSERT_EQ(z[i], horner(scaled, u.pow(uint64_t(i)))) << "b2n k=" << k << " e=" << e << " i=" << i;
        }
      }
    }
  }
}

TYPED_TEST(DomainTest, MultithreadedEqualsSingleThreadBitForBit) {
  using F = TypeParam;
  ThreadPool one(1), four(4);
  for (size_t k : {14, 15}) {
    auto d = EvaluationDomain<F>::from_log_size(k);
    const auto x = this->random_vec(d.size());
    auto run = [&](ThreadPool& pool) {
      std::vector<std::vector<F>> outs;
      auto y = x;
      d.fft(y, pool);
      outs.push_back(y);
      d.ifft(y, pool);
      outs.push_back(y);
      d.coset_fft(y, pool);
      outs.push_back(y);
      d.icoset_fft(y, pool);
      outs.push_back(y);
      EvaluationDomain<F>::bit_reverse_permute(y, pool);
      EvaluationDomain<F>::distribute_powers(y, d.omega(), pool);
      outs.push_back(y);
      return outs;
    };
    auto a = run(one), b = run(four), c = run(ThreadPool::global());
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i], b[i]) << "step " << i << ", k = " << k;
      ASSERT_EQ(a[i], c[i]) << "step " << i << ", k = " << k;
      // Limb-level equality, not just field equality.
      for (size_t j = 0; j < a[i].size(); ++j) ASSERT_EQ(a[i][j].v, b[i][j].v);
    }
    EXPECT_EQ(a[3], x);
  }
}

}  // namespace zkmill::test
