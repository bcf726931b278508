// SPDX-License-Identifier: MIT
// Tests the MSM (buckets, and the interleaved GLV path for a few points) against the naive sum
// for all four groups, and the digit recoding/planner.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/msm/pippenger.hpp"
#include "common/msm/straus.hpp"

namespace zkmill::test {

using namespace zkmill;

namespace {
util::ThreadPool& one_thread() {
  static util::ThreadPool p(1);
  return p;
}
util::ThreadPool& four_threads() {
  static util::ThreadPool p(4);
  return p;
}
}  // namespace

template <class P>
class MsmTest : public ::testing::Test {
 protected:
  using J = ec::Jacobian<P>;
  using A = ec::Affine<P>;
  using Fr = typename P::Scalar;
  static constexpr bool kIsG2 = requires { typename P::Base::Base; };  // coordinates in Fp2

  std::mt19937_64 rng{0x6d736d00 + sizeof(typename P::Base)};

  // n distinct-looking points: an arithmetic progression start + i*step from two random points
  // (cheap for G2, where n scalar multiplications would dominate the test time).
  std::vector<A> points(size_t n) {
    J start = J::generator() * Fr::random(rng), step = J::generator() * Fr::random(rng);
    std::vector<J> js(n);
    for (size_t i = 0; i < n; ++i) {
      js[i] = start;
      start += step;
    }
    return ec::batch_normalize<P>(js);
  }
  std::vector<Fr> scalars(size_t n) {
    std::vector<Fr> s(n);
    for (auto& x : s) x = Fr::random(rng);
    return s;
  }
  // The naive reference costs one scalar multiplication per point; keep G2 sizes modest.
  size_t cap(size_t n) const { return kIsG2 ? std::min<size_t>(n, 300) : n; }

  static J run(const std::vector<A>& b, const std::vector<Fr>& s, util::ThreadPool& pool,
               const msm::MsmConfig& cfg = {}) {
    return msm::msm<P>(b, s, cfg, pool);
  }
  static J naive(const std::vector<A>& b, const std::vector<Fr>& s) { return msm::msm_naive<P>(b, s); }

  // msm with 1 and 4 threads, both accumulations, all equal to the naive sum.
  void check_all_ways(const std::vector<A>& b, const std::vector<Fr>& s, const char* what) {
    util::ThreadPool &one = one_thread(), &four = four_threads();
    J want = naive(b, s);
    J r1 = run(b, s, one), r4 = run(b, s, four);
    EXPECT_EQ(r1, want) << what << " n=" << b.size() << " (1 thread)";
    EXPECT_EQ(r4, want) << what << " n=" << b.size() << " (4 threads)";
    EXPECT_EQ(r1, r4);
    EXPECT_TRUE(r4.is_on_curve());
    for (auto acc : {msm::Accumulation::kXyzz, msm::Accumulation::kBatchAffine}) {
      msm::MsmConfig cfg;
      cfg.accumulation = acc;
      EXPECT_EQ(run(b, s, four, cfg), want) << what << " n=" << b.size() << " forced accumulation " << int(acc);
    }
    msm::MsmConfig plain;
    plain.small_scalar_fast_path = false;
    EXPECT_EQ(run(b, s, one, plain), want) << what << " n=" << b.size() << " without the 0/1 fast path";
  }
};

using Groups =
    ::testing::Types<curves::Bn254G1Params, curves::Bn254G2Params, curves::Bls12381G1Params, curves::Bls12381G2Params>;
TYPED_TEST_SUITE(MsmTest, Groups);

TYPED_TEST(MsmTest, MatchesNaiveOnRandomInputs) {
  for (size_t n : {0, 1, 2, 3, 17, 100, 1000}) {
    n = this->cap(n);
    auto b = this->points(n);
    auto s = this->scalars(n);
    this->check_all_ways(b, s, "random");
  }
}

// Bit-aware MSM (the A, B_G1, B_G2 and L MSMs of a mostly-bit witness): scalars drawn from
// {0, 1, -1, other} at several densities, including all-bits and no-bits, give exactly the
// naive sum and the plain Pippenger's (0/1 split off), with 1 and 4 threads.
TYPED_TEST(MsmTest, BitWitnessDensitiesMatchReference) {
  using Fr = typename TestFixture::Fr;
  const size_t n = TestFixture::kIsG2 ? 200 : 1200;
  auto b = this->points(n);
  // (percent zero, percent one, percent minus one); the rest are uniform.
  const int mixes[][3] = {{0, 100, 0}, {50, 50, 0}, {47, 48, 0}, {45, 45, 5}, {70, 20, 0},
                          {10, 10, 0}, {0, 0, 0},   {100, 0, 0}, {99, 0, 0},  {0, 99, 0}};
  for (const auto& mix : mixes) {
    std::vector<Fr> s(n);
    for (auto& x : s) {
      const int u = int(this->rng() % 100);
      x = u < mix[0]                     ? Fr::zero()
          : u < mix[0] + mix[1]          ? Fr::one()
          : u < mix[0] + mix[1] + mix[2] ? -Fr::one()
                                         : Fr::random(this->rng);
    }
    const std::string what = "zero " + std::to_string(mix[0]) + "% one " + std::to_string(mix[1]) + "% minus one " +
                             std::to_string(mix[2]) + "%";
    const auto want = this->naive(b, s);
    msm::MsmConfig plain;
    plain.small_scalar_fast_path = false;
    EXPECT_EQ(this->run(b, s, four_threads(), plain), want) << what << " (plain Pippenger)";
    EXPECT_EQ(this->run(b, s, one_thread()), want) << what << " (bit-aware, 1 thread)";
    EXPECT_EQ(this->run(b, s, four_threads()), want) << what << " (bit-aware, 4 threads)";
  }
}

TYPED_TEST(MsmTest, EveryWindowSizeAndBothAccumulations) {
  using Fr = typename TestFixture::Fr;
  const size_t n = this->cap(150);
  auto b = this->points(n);
  auto s = this->scalars(n);
  s[3] = Fr::zero() - Fr::one();
  s[4] = Fr::from_u64(2);
  auto want = this->naive(b, s);
  util::ThreadPool& pool = four_threads();
  // 2^15 buckets of a G2 reduction dwarf 150 points; the window code is group independent, so
  // G2 stops at c = 12 and G1 covers the rest.
  const unsigned max_c = TestFixture::kIsG2 ? 12 : msm::kMaxWindowBits;
  for (unsigned c = 1; c <= max_c; ++c)
    for (auto acc : {msm::Accumulation::kXyzz, msm::Accumulation::kBatchAffine}) {
      // Tiny batches (2, 7) force many deferrals and overflows; they are only worth it once per
      // few window sizes.
      std::vector<size_t> batches{0};
      if (acc == msm::Accumulation::kBatchAffine && c % 4 == 1) batches = {0, 2, 7};
      for (size_t batch : batches) {
        msm::MsmConfig cfg;
        cfg.window_bits = c;
        cfg.accumulation = acc;
        cfg.batch_size = batch;
        cfg.small_scalar_fast_path = (c % 2) == 0;
        EXPECT_EQ(this->run(b, s, pool, cfg), want) << "c=" << c << " acc=" << int(acc) << " batch=" << batch;
      }
    }
}

TYPED_TEST(MsmTest, SkewedScalars) {
  using Fr = typename TestFixture::Fr;
  const size_t n = this->cap(1000);
  auto b = this->points(n);
  std::vector<Fr> s(n);
  // Witness-like: 70% zero, 20% one, 10% random.
  for (auto& x : s) {
    auto u = this->rng() % 10;
    x = u < 7 ? Fr::zero() : u < 9 ? Fr::one() : Fr::random(this->rng);
  }
  this->check_all_ways(b, s, "70/20/10");
  std::fill(s.begin(), s.end(), Fr::one());
  this->check_all_ways(b, s, "all ones");
  std::fill(s.begin(), s.end(), Fr::zero());
  this->check_all_ways(b, s, "all zero");
  std::fill(s.begin(), s.end(), Fr::random(this->rng));
  this->check_all_ways(b, s, "all equal");
  std::fill(s.begin(), s.end(), Fr::zero() - Fr::one());
  this->check_all_ways(b, s, "all r-1");
  std::fill(s.begin(), s.end(), Fr::from_u64(2));
  this->check_all_ways(b, s, "all two");
  for (auto& x : s) x = Fr::from_u64(this->rng() % 256);
  this->check_all_ways(b, s, "bytes");
  for (auto& x : s) x = Fr::zero() - Fr::from_u64(this->rng() % 5);
  this->check_all_ways(b, s, "small negatives");
}

TYPED_TEST(MsmTest, DuplicatesNegationsAndIdentityPoints) {
  using A = typename TestFixture::A;
  using Fr = typename TestFixture::Fr;
  const size_t n = this->cap(400);
  auto distinct = this->points(8);
  std::vector<A> b(n);
  for (size_t i = 0; i < n; ++i) {
    A p = distinct[this->rng() % distinct.size()];
    switch (this->rng() % 4) {
      case 0:
        b[i] = p;
        break;
      case 1:
        b[i] = -p;
        break;
      case 2:
        b[i] = A::identity();
        break;
      default:
        b[i] = distinct[0];
        break;  // one very common point
    }
  }
  auto s = this->scalars(n);
  this->check_all_ways(b, s, "dup/neg/identity points, random scalars");
  // Equal scalars on equal and opposite points: every addition in a bucket hits the doubling
  // or the cancellation special case.
  std::fill(s.begin(), s.end(), Fr::random(this->rng));
  this->check_all_ways(b, s, "dup/neg/identity points, equal scalars");
  for (size_t i = 0; i < n; ++i) s[i] = Fr::from_u64(1 + this->rng() % 3);
  this->check_all_ways(b, s, "dup/neg/identity points, scalars 1..3");
  // P and -P with one scalar: the sum is O.
  std::vector<A> pm{distinct[1], -distinct[1], distinct[2], -distinct[2]};
  std::vector<Fr> same(4, Fr::random(this->rng));
  this->check_all_ways(pm, same, "cancelling");
  EXPECT_TRUE(this->naive(pm, same).is_identity());
}

// Up to 64 points the MSM may take the interleaved GLV path (msm/straus.hpp): always up to 16
// general points, up to 64 on one thread. Every size across both limits, with the scalars that
// stress the path (0, 1, -1, r - 1, small, 2^127-ish halves) and points that meet in its chain
// (duplicates, negations, identities), equals the naive sum and the buckets' (a fixed window
// forces them), on 1 and 4 threads.
TYPED_TEST(MsmTest, FewPointsMatchTheBucketsAndTheNaiveSum) {
  using A = typename TestFixture::A;
  using Fr = typename TestFixture::Fr;
  auto distinct = this->points(6);
  const Fr specials[] = {Fr::zero(),
                         Fr::one(),
                         -Fr::one(),
                         Fr::from_u64(2),
                         Fr::from_u64(15),
                         -Fr::from_u64(16),
                         Fr::from_u64(uint64_t(1) << 63)};
  msm::MsmConfig buckets;
  buckets.window_bits = 4;
  for (size_t n : {1, 2, 5, 8, 15, 16, 17, 31, 33, 63, 64, 65}) {
    std::vector<A> b = this->points(n);
    std::vector<Fr> s = this->scalars(n);
    for (size_t i = 0; i < n; ++i) {
      if (this->rng() % 3 == 0) s[i] = specials[this->rng() % std::size(specials)];
      switch (this->rng() % 6) {
        case 0:
          b[i] = distinct[this->rng() % distinct.size()];
          break;
        case 1:
          b[i] = -distinct[this->rng() % distinct.size()];
          break;
        case 2:
          b[i] = A::identity();
          break;
        default:
          break;
      }
    }
    const auto want = this->naive(b, s);
    EXPECT_EQ(this->run(b, s, one_thread()), want) << "n=" << n << " (1 thread)";
    EXPECT_EQ(this->run(b, s, four_threads()), want) << "n=" << n << " (4 threads)";
    EXPECT_EQ(this->run(b, s, one_thread(), buckets), want) << "n=" << n << " (buckets)";
    // The same points with one scalar and its negation: the sum cancels to O.
    if (n >= 2) {
      std::vector<A> pm{b[0], b[0]};
      std::vector<Fr> k{s[1], -s[1]};
      EXPECT_TRUE(this->run(pm, k, one_thread()).is_identity()) << "n=" << n;
    }
  }
  // straus_msm, the serial entry for callers outside the prover (the verifier's inputs).
  auto b = this->points(5);
  auto s = this->scalars(5);
  s[2] = Fr::zero();
  b[3] = A::identity();
  EXPECT_EQ(msm::straus_msm<TypeParam>(b, s), this->naive(b, s));
  EXPECT_TRUE(msm::straus_msm<TypeParam>(std::span<const A>(), std::span<const Fr>()).is_identity());
}

TYPED_TEST(MsmTest, DenseSubsetMatchesNaiveOnSelection) {
  using A = typename TestFixture::A;
  using Fr = typename TestFixture::Fr;
  const size_t vars = this->cap(700);
  auto s_all = this->scalars(vars);
  for (size_t i = 0; i < vars; i += 5) s_all[i] = Fr::one();
  std::vector<bool> density(vars);
  for (size_t i = 0; i < vars; ++i) density[i] = this->rng() % 3 != 0;
  std::vector<Fr> picked;
  for (size_t i = 0; i < vars; ++i)
    if (density[i]) picked.push_back(s_all[i]);
  auto b = this->points(picked.size());
  auto want = this->naive(b, picked);
  util::ThreadPool pool(2);
  EXPECT_EQ(msm::msm_dense_subset<TypeParam>(b, s_all, density, pool), want);
  // All bits clear: empty bases, identity.
  std::vector<bool> none(vars, false);
  EXPECT_TRUE(msm::msm_dense_subset<TypeParam>(std::span<const A>(), s_all, none, pool).is_identity());
  // Mismatches throw.
  EXPECT_THROW(msm::msm_dense_subset<TypeParam>(b, s_all, none, pool), std::invalid_argument);
  std::vector<bool> short_density(vars - 1, true);
  EXPECT_THROW(msm::msm_dense_subset<TypeParam>(b, s_all, short_density, pool), std::invalid_argument);
  std::vector<A> fewer(b.begin(), b.end() - 1);
  EXPECT_THROW(msm::msm_dense_subset<TypeParam>(fewer, s_all, density, pool), std::invalid_argument);
}

TYPED_TEST(MsmTest, SizeMismatchThrows) {
  auto b = this->points(3);
  auto s = this->scalars(2);
  EXPECT_THROW(msm::msm<TypeParam>(b, s), std::invalid_argument);
  EXPECT_THROW(msm::msm_naive<TypeParam>(b, s), std::invalid_argument);
  msm::MsmConfig cfg;
  cfg.window_bits = 17;
  auto s3 = this->scalars(3);
  EXPECT_THROW(msm::msm<TypeParam>(b, s3, cfg), std::invalid_argument);
}

TYPED_TEST(MsmTest, ResultIsDeterministicPerPoolSize) {
  const size_t n = this->cap(500);
  auto b = this->points(n);
  auto s = this->scalars(n);
  util::ThreadPool pool(4);
  auto r1 = this->run(b, s, pool), r2 = this->run(b, s, pool);
  // Same representative, not only the same point.
  EXPECT_EQ(r1.X, r2.X);
  EXPECT_EQ(r1.Y, r2.Y);
  EXPECT_EQ(r1.Z, r2.Z);
}

// ---- recoding and planning (curve independent) ----

TEST(SignedDigits, RecodingReconstructsTheScalar) {
  using Fr = curves::Bls12381::Fr;
  std::mt19937_64 rng(99);
  std::vector<Fr> samples{Fr::zero(), Fr::one(), Fr::zero() - Fr::one(), Fr::from_u64(2)};
  for (int i = 0; i < 40; ++i) samples.push_back(Fr::random(rng));
  for (unsigned c = 1; c <= msm::kMaxWindowBits; ++c) {
    unsigned W = msm::num_windows(Fr::kBits, c);
    EXPECT_GE(size_t(W) * c, Fr::kBits + 1);
    std::vector<uint16_t> code(W);
    for (const Fr& k : samples) {
      msm::recode_signed(k.to_canonical(), c, W, code.data(), 1);
      Fr acc = Fr::zero(), radix = Fr::from_u64(uint64_t(1) << c);
      for (unsigned w = W; w-- > 0;) {
        int32_t d = msm::decode_digit(code[w]);
        ASSERT_LE(d, int32_t(1) << (c - 1)) << "c=" << c;
        ASSERT_GT(d, -(int32_t(1) << (c - 1))) << "c=" << c;
        acc = acc * radix + Fr::from_i64(d);
      }
      ASSERT_EQ(acc, k) << "c=" << c;
    }
  }
  // The extreme digits of c = 16 survive the uint16 code.
  EXPECT_EQ(msm::decode_digit(msm::encode_digit(32768)), 32768);
  EXPECT_EQ(msm::decode_digit(msm::encode_digit(-32767)), -32767);
  EXPECT_EQ(msm::decode_digit(msm::encode_digit(0)), 0);
}

TEST(SignedDigits, SmallScalarsHaveZeroUpperDigits) {
  ff::Limbs<4> k{200, 0, 0, 0};
  std::vector<uint16_t> code(32);
  msm::recode_signed(k, 8, 32, code.data(), 1);
  EXPECT_EQ(msm::decode_digit(code[0]), 200 - 256);
  EXPECT_EQ(msm::decode_digit(code[1]), 1);
  for (unsigned w = 2; w < 32; ++w) EXPECT_EQ(code[w], 0);
}

TEST(WindowPlanner, PlansAreSaneAcrossSizes) {
  unsigned prev_c = 0;
  for (size_t logn = 0; logn <= 24; ++logn) {
    auto p = msm::plan_windows(size_t(1) << logn, 255, 48, 1);
    EXPECT_GE(p.c, 1u);
    EXPECT_LE(p.c, msm::kMaxWindowBits);
    EXPECT_EQ(p.windows, msm::num_windows(255, p.c));
    EXPECT_EQ(p.chunks, 1u);  // one thread never splits points
    EXPECT_GE(p.c, prev_c);   // larger inputs never want smaller windows
    prev_c = p.c;
  }
  // More threads than windows: the points get split.
  auto p = msm::plan_windows(size_t(1) << 20, 255, 48, 64);
  EXPECT_GT(size_t(p.windows) * p.chunks, size_t(32));
  // Forced window and method are honoured.
  auto f = msm::plan_windows(1000, 254, 32, 2, 5, msm::Accumulation::kBatchAffine);
  EXPECT_EQ(f.c, 5u);
  EXPECT_EQ(f.accumulation, msm::Accumulation::kBatchAffine);
}

}  // namespace zkmill::test
