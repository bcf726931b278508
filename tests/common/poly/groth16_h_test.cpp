// SPDX-License-Identifier: MIT
// Groth16 quotient: A(t)B(t) - C(t) = h(t)(t^n - 1) at a random t for satisfied systems, fails for
// unsatisfied ones, agrees with the unfused bellman pipeline and with a single-thread run; the
// coset values that coset-Lagrange keys take are A B - C on the coset.
#include "common/poly/groth16_h.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/common/poly/horner.hpp"

namespace zkmill::test {

using namespace zkmill::ff;
using zkmill::poly::EvaluationDomain;
using zkmill::poly::groth16_coset_values_in_place;
using zkmill::poly::groth16_h;
using zkmill::poly::groth16_h_in_place;
using zkmill::util::ThreadPool;

namespace {

// The interpolant of values on the domain (zero-padded), evaluated at t: ifft, then Horner.
template <class F>
F interpolant_at(const EvaluationDomain<F>& d, std::vector<F> values, const F& t) {
  d.ifft(values);
  return horner(values, t);
}

// A(t)B(t) - C(t) - h(t) Z(t).
template <class F>
F identity_defect(const EvaluationDomain<F>& d, const std::vector<F>& a, const std::vector<F>& b,
                  const std::vector<F>& c, const std::vector<F>& h, const F& t) {
  return interpolant_at(d, a, t) * interpolant_at(d, b, t) - interpolant_at(d, c, t) -
         horner(h, t) * d.evaluate_vanishing(t);
}

// v zero-padded to the domain's size: the in-place forms' input.
template <class F>
std::vector<F> padded(const EvaluationDomain<F>& d, std::vector<F> v) {
  v.resize(d.size(), F::zero());
  return v;
}

}  // namespace

template <class F>
class QuotientTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0x9a'0000 + F::kTwoAdicity};
  std::vector<F> random_vec(size_t n) {
    std::vector<F> v(n);
    for (auto& x : v) x = F::random(rng);
    return v;
  }
  // A satisfied system of m rows: random a, b and c_j = a_j b_j.
  void satisfied(size_t m, std::vector<F>& a, std::vector<F>& b, std::vector<F>& c) {
    a = random_vec(m);
    b = random_vec(m);
    c.resize(m);
    for (size_t j = 0; j < m; ++j) c[j] = a[j] * b[j];
  }
};

using ScalarFields = ::testing::Types<Bn254Fr, Bls12381Fr>;
TYPED_TEST_SUITE(QuotientTest, ScalarFields);

TYPED_TEST(QuotientTest, SatisfiedSystemsGiveTheExactQuotient) {
  using F = TypeParam;
  // Row counts around powers of two, on both the direct and the four-step FFT paths.
  for (size_t m : {1, 2, 3, 5, 16, 100, 1024, 1025, 3000, 8191}) {
    EvaluationDomain<F> d(m);
    std::vector<F> a, b, c;
    this->satisfied(m, a, b, c);
    auto h = groth16_h(d, a, b, c);
    ASSERT_EQ(h.size(), d.size() - 1) << "m = " << m;
    for (int trial = 0; trial < 2; ++trial) {
      const F t = F::random(this->rng);
      ASSERT_EQ(identity_defect(d, a, b, c, h, t), F::zero()) << "m = " << m;
    }
    // The in-place form leaves the same h plus a zero top coefficient.
    auto ia = padded(d, a), ib = padded(d, b), ic = padded(d, c);
    groth16_h_in_place<F>(d, ia, ib, ic);
    EXPECT_TRUE(ia.back().is_zero()) << "m = " << m;
    ia.pop_back();
    EXPECT_EQ(ia, h) << "m = " << m;
  }
}

TYPED_TEST(QuotientTest, UnsatisfiedSystemBreaksTheIdentity) {
  using F = TypeParam;
  for (size_t m : {1, 7, 600, 5000}) {
    EvaluationDomain<F> d(m);
    std::vector<F> a, b, c;
    this->satisfied(m, a, b, c);
    c[m / 2] += F::one();  // one violated row
    auto h = groth16_h(d, a, b, c);
    const F t = F::random(this->rng);
    EXPECT_NE(identity_defect(d, a, b, c, h, t), F::zero()) << "m = " << m;
    auto ia = padded(d, a), ib = padded(d, b), ic = padded(d, c);
    groth16_h_in_place<F>(d, ia, ib, ic);
    EXPECT_FALSE(ia.back().is_zero()) << "m = " << m;
  }
}

// The fused pipeline equals bellman's step by step: ifft, coset_fft, a b - c, divide by
// Z(g) = g^n - 1, icoset_fft, drop the top coefficient.
TYPED_TEST(QuotientTest, MatchesTheUnfusedPipeline) {
  using F = TypeParam;
  for (size_t m : {4, 900, 4096, 20000}) {
    EvaluationDomain<F> d(m);
    // Arbitrary (unsatisfied) inputs of different lengths: the algebra must agree anyway.
    auto a = this->random_vec(m), b = this->random_vec(m - 1), c = this->random_vec(m / 2);
    auto h = groth16_h(d, a, b, c);
    for (auto* v : {&a, &b, &c}) {
      d.ifft(*v);
      d.coset_fft(*v);
    }
    const F zinv = d.z_on_coset().inverse();
    for (size_t i = 0; i < d.size(); ++i) a[i] = (a[i] * b[i] - c[i]) * zinv;
    d.icoset_fft(a);
    a.pop_back();
    EXPECT_EQ(h, a) << "m = " << m;
  }
}

// The coset-Lagrange scalars (groth16_coset_values_in_place) are (A B - C)(g w^i) with A, B, C the
// interpolants: each value against a direct evaluation at the coset point, and, divided by
// Z(g w^i) = g^n - 1, the values of the quotient groth16_h returns (h by Horner at g w^i).
TYPED_TEST(QuotientTest, CosetValuesAreTheProductOnTheCoset) {
  using F = TypeParam;
  for (size_t m : {1, 6, 1000, 5000}) {
    EvaluationDomain<F> d(m);
    std::vector<F> a, b, c;
    this->satisfied(m, a, b, c);
    const auto h = groth16_h(d, a, b, c);
    auto va = padded(d, a), vb = padded(d, b), vc = padded(d, c);
    groth16_coset_values_in_place<F>(d, va, vb, vc);
    const F zinv = d.z_on_coset().inverse();
    F x = d.coset_generator();
    for (size_t i = 0; i < d.size(); ++i, x *= d.omega()) {
      if (i % 97 != 0 && i + 1 != d.size()) continue;  // each check is O(n): a sample of the points
      ASSERT_EQ(va[i], interpolant_at(d, a, x) * interpolant_at(d, b, x) - interpolant_at(d, c, x))
          << "m = " << m << ", i = " << i;
      ASSERT_EQ(va[i] * zinv, horner(h, x)) << "m = " << m << ", i = " << i;
    }
  }
}

TYPED_TEST(QuotientTest, MultithreadedEqualsSingleThreadBitForBit) {
  using F = TypeParam;
  ThreadPool one(1), three(3);
  const size_t m = (size_t(1) << 14) - 5;
  EvaluationDomain<F> d(m);
  std::vector<F> a, b, c;
  this->satisfied(m, a, b, c);
  auto h1 = groth16_h(d, a, b, c, one);
  auto h3 = groth16_h(d, a, b, c, three);
  auto hg = groth16_h(d, a, b, c);
  ASSERT_EQ(h1.size(), d.size() - 1);
  for (size_t i = 0; i < h1.size(); ++i) {
    ASSERT_EQ(h1[i].v, h3[i].v) << "i = " << i;
    ASSERT_EQ(h1[i].v, hg[i].v) << "i = " << i;
  }
}

TYPED_TEST(QuotientTest, RejectsWrongLengths) {
  using F = TypeParam;
  EvaluationDomain<F> d(64);
  auto ok = this->random_vec(64), longer = this->random_vec(65), shorter = this->random_vec(63);
  EXPECT_THROW(groth16_h(d, longer, ok, ok), std::invalid_argument);
  EXPECT_THROW(groth16_h(d, ok, ok, longer), std::invalid_argument);
  EXPECT_THROW(groth16_h_in_place<F>(d, ok, shorter, ok), std::invalid_argument);
  EXPECT_NO_THROW(groth16_h(d, shorter, ok, shorter));
}

}  // namespace zkmill::test
