// SPDX-License-Identifier: MIT
// GPU MSM (cuda/msm/msm.hpp) against CPU references, one typed suite for G1 and G2 of both
// curves: random scalars at 2^10, 2^14, 2^18 (exact value and the CPU Pippenger) and 2^20 (exact
// value), skewed scalars (70% zero, 20% one, 10% random), forced narrow and wide windows (huge
// buckets, several accumulation levels), repeated / opposite / infinite points, and argument
// errors. References: points of known discrete log ([a + i b] G: the MSM is one scalar
// multiplication), the naive sum, and common/msm's Pippenger over the same group on the same
// inputs. Unless a test forces one, every GPU MSM runs twice, with XYZZ and with batch-affine
// bucket accumulation (cuda/msm/batch_affine.cuh), and both must give the expected value.
// Every GPU test skips cleanly where no GPU is present.
#include <gtest/gtest.h>

#include <random>
#include <type_traits>
#include <vector>

#include "common/msm/pippenger.hpp"
#include "cuda/msm/accumulation.hpp"
#include "cuda/msm/msm.hpp"
#include "tests/cuda/cpu_reference.hpp"
#include "tests/support/gpu.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;

// One group of one curve: its types, the GPU entry point, and the sizes its tests use (G2
// costs ~4x G1 per point, so its exceptional-point and window tests are a little smaller).
template <class CurveT, class PointT, class AffineT, class ParamsT, auto Entry, uint64_t Seed>
struct GroupCase {
  using Curve = CurveT;
  using Point = PointT;
  using Affine = AffineT;
  using Params = ParamsT;
  static constexpr uint64_t kSeed = Seed;
  static constexpr bool kG2 = !std::is_same_v<PointT, typename CurveT::G1>;
  static constexpr size_t kExceptional = kG2 ? 1500 : 3000;
  static constexpr size_t kWindowLog = kG2 ? 12 : 13;
  static std::vector<int> windows() {
    if constexpr (kG2) {
      return {2, 5, 12, 17};
    } else {
      return {2, 4, 7, 12, 17, 22};
    }
  }
  static cuda::MsmResult run(const Affine* p, const typename Curve::Fr* s, size_t n, Point* out,
                             cuda::MsmOptions o = {}) {
    return Entry(p, s, n, out, o);
  }
};

using Bn = curves::Bn254;
using Bls = curves::Bls12381;
using Bn254G1 = GroupCase<Bn, Bn::G1, Bn::G1Affine, Bn::G1Params, &cuda::msm_g1<Bn>, 0>;
using Bls12381G1 = GroupCase<Bls, Bls::G1, Bls::G1Affine, Bls::G1Params, &cuda::msm_g1<Bls>, 0>;
using Bn254G2 = GroupCase<Bn, Bn::G2, Bn::G2Affine, Bn::G2Params, &cuda::msm_g2<Bn>, 10>;
using Bls12381G2 = GroupCase<Bls, Bls::G2, Bls::G2Affine, Bls::G2Params, &cuda::msm_g2<Bls>, 10>;

template <class T>
class GpuMsm : public ::testing::Test {
 protected:
  using C = typename T::Curve;
  using Fr = typename C::Fr;
  using P = typename T::Point;
  using A = typename T::Affine;
  using GP = typename T::Params;

  // GPU result for (points, scalars), failing the test on an error. With the default (automatic)
  // accumulation, both accumulations are run and must agree; the batch-affine result is returned.
  static P gpu(const std::vector<A>& pts, const std::vector<Fr>& sc, cuda::MsmOptions o = {}) {
    if (o.accumulation != cuda::MsmAccumulation::kAuto) return gpu_once(pts, sc, o);
    o.accumulation = cuda::MsmAccumulation::kXyzz;
    const P xyzz = gpu_once(pts, sc, o);
    o.accumulation = cuda::MsmAccumulation::kBatchAffine;
    const P affine = gpu_once(pts, sc, o);
    EXPECT_EQ(xyzz, affine) << "XYZZ and batch-affine accumulation disagree";
    return affine;
  }
  static P gpu_once(const std::vector<A>& pts, const std::vector<Fr>& sc, const cuda::MsmOptions& o) {
    P out = P::generator();  // poison: a result that was never written shows up as wrong
    const cuda::MsmResult r = T::run(pts.data(), sc.data(), pts.size(), &out, o);
    EXPECT_TRUE(r.ok()) << cuda::to_string(r.code) << ": " << r.message;
    return out;
  }
  static P cpu_msm(const std::vector<A>& pts, const std::vector<Fr>& sc) {
    return msm::msm<GP>(std::span<const A>(pts), std::span<const Fr>(sc));
  }
  static auto points(size_t log_n, std::mt19937_64& rng) { return progression_points<C, GP>(size_t(1) << log_n, rng); }
  static std::mt19937_64 rng(uint64_t seed) { return std::mt19937_64(seed + T::kSeed); }
  static A random_point(std::mt19937_64& rng) { return (P::generator() * Fr::random(rng)).to_affine(); }
  // The exceptional inputs of an addition mixed into a run: kind 0 P, 1 -P, 2 Q, 3 infinity, any
  // other a fresh random point.
  static A exceptional_mix(size_t kind, const A& p, const A& q, std::mt19937_64& rng) {
    return kind == 0 ? p : kind == 1 ? -p : kind == 2 ? q : kind == 3 ? A::identity() : random_point(rng);
  }

  void random_at(size_t log_n, uint64_t seed, bool with_cpu_msm) {
    auto r = rng(seed);
    const auto kp = points(log_n, r);
    const auto sc = random_scalars<Fr>(kp.points.size(), r);
    const P got = gpu(kp.points, sc);
    EXPECT_EQ(got, expected_msm<C>(kp, sc)) << "n = 2^" << log_n;
    if (with_cpu_msm) {
      EXPECT_EQ(got, cpu_msm(kp.points, sc)) << "n = 2^" << log_n;
    }
  }
};
using MsmTypes = ::testing::Types<Bn254G1, Bls12381G1, Bn254G2, Bls12381G2>;
constexpr cuda::MsmAffineRound kAffineRounds[] = {cuda::MsmAffineRound::kContiguous,
                                                  cuda::MsmAffineRound::kInterleaved};
TYPED_TEST_SUITE(GpuMsm, MsmTypes);

// Independent random points against the naive sum (no structure shared with the reference).
TYPED_TEST(GpuMsm, Small1kMatchesNaive) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  auto rng = F::rng(101);
  std::vector<typename F::A> pts(1024);
  for (auto& p : pts) p = F::random_point(rng);
  const auto sc = random_scalars<typename F::Fr>(pts.size(), rng);
  EXPECT_EQ(F::gpu(pts, sc), (naive_msm<typename F::C, typename F::GP>(pts, sc)));
}

TYPED_TEST(GpuMsm, Random2e10) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(10, 1, true);
}
TYPED_TEST(GpuMsm, Random2e14) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(14, 2, true);
}
TYPED_TEST(GpuMsm, Random2e18) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(18, 3, true);
}
TYPED_TEST(GpuMsm, Random2e20) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(20, 4, false);  // exact value only: the CPU Pippenger takes seconds here
}

TYPED_TEST(GpuMsm, Skewed2e14And2e18) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  for (size_t log_n : {14, 18}) {
    auto rng = F::rng(200 + log_n);
    const auto kp = F::points(log_n, rng);
    const auto sc = skewed_scalars<typename F::Fr>(kp.points.size(), rng);
    const auto got = F::gpu(kp.points, sc);
    EXPECT_EQ(got, expected_msm<typename F::C>(kp, sc)) << "n = 2^" << log_n;
    EXPECT_EQ(got, F::cpu_msm(kp.points, sc)) << "n = 2^" << log_n;
  }
}

// The bit-aware split (zeros dropped, ones summed by a reduction, the rest through the windows)
// on random PoRep-like mixes, against the exact value and the CPU Pippenger; then the edges:
// only zeros and ones (no windows at all), only ones, one windowed scalar among ones, a single
// one among zeros, and a forced narrow width on a mix (several window levels beside the ones).
TYPED_TEST(GpuMsm, BitHeavyScalars) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  for (size_t log_n : {12, 17}) {
    auto rng = F::rng(250 + log_n);
    const auto kp = F::points(log_n, rng);
    const auto sc = bit_heavy_scalars<Fr>(kp.points.size(), rng);
    const auto got = F::gpu(kp.points, sc);
    EXPECT_EQ(got, expected_msm<typename F::C>(kp, sc)) << "n = 2^" << log_n;
    if (log_n == 12) {
      EXPECT_EQ(got, F::cpu_msm(kp.points, sc));
    }
  }
  auto rng = F::rng(260);
  const auto kp = F::points(13, rng);
  const size_t n = kp.points.size();
  auto check = [&](const std::vector<Fr>& sc, const char* what, cuda::MsmOptions o = {}) {
    EXPECT_EQ(F::gpu(kp.points, sc, o), expected_msm<typename F::C>(kp, sc)) << what;
  };
  check(bit_heavy_scalars<Fr>(n, rng, 50, 50), "only 0 and 1");
  check(std::vector<Fr>(n, Fr::one()), "all ones");
  std::vector<Fr> sc(n, Fr::one());
  sc[n / 3] = Fr::random(rng);
  check(sc, "one windowed scalar among ones");
  std::fill(sc.begin(), sc.end(), Fr::zero());
  sc[n - 1] = Fr::one();
  check(sc, "a single one");
  cuda::MsmOptions narrow;
  narrow.window_bits = 3;
  check(bit_heavy_scalars<Fr>(n, rng, 30, 30), "mix at c = 3", narrow);
}

// Narrow windows put thousands of points in each bucket: several chunk levels per bucket.
TYPED_TEST(GpuMsm, ForcedWindowWidths) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  auto rng = F::rng(300);
  const auto kp = F::points(TypeParam::kWindowLog, rng);
  const auto sc = random_scalars<typename F::Fr>(kp.points.size(), rng);
  const auto want = expected_msm<typename F::C>(kp, sc);
  for (int c : TypeParam::windows()) {
    cuda::MsmOptions o;
    o.window_bits = c;
    EXPECT_EQ(F::gpu(kp.points, sc, o), want) << "c = " << c;
  }
}

// Repeated points (bucket doublings), opposite points (cancellation), points at infinity,
// zero scalars, the scalar -1.
TYPED_TEST(GpuMsm, ExceptionalPoints) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  using A = typename F::A;
  auto rng = F::rng(400);
  const A p = F::random_point(rng), q = F::random_point(rng);
  std::vector<A> pts;
  std::vector<Fr> sc;
  for (size_t i = 0; i < TypeParam::kExceptional; ++i) {
    const int kind = int(i % 5);
    pts.push_back(kind == 0 ? p : kind == 1 ? -p : kind == 2 ? q : kind == 3 ? A::identity() : p);
    // Few distinct scalars: equal digits put equal points in the same bucket.
    sc.push_back(i % 7 == 0 ? Fr::zero() : (i % 3 == 0 ? -Fr::one() : Fr::from_u64(uint64_t(i % 4 + 1))));
  }
  const auto want = naive_msm<typename F::C, typename F::GP>(pts, sc);
  EXPECT_EQ(F::gpu(pts, sc), want);
  cuda::MsmOptions o;
  o.window_bits = 3;
  EXPECT_EQ(F::gpu(pts, sc, o), want);
  // p and -p with equal scalars only: the exact sum is the identity.
  const std::vector<A> pair = {p, -p, p, -p};
  const std::vector<Fr> same(4, Fr::from_u64(5));
  EXPECT_TRUE(F::gpu(pair, same).is_identity());
}

// The exceptional pairs of batch-affine rounds, forced on both the 1-scalar sum and narrow
// windows: runs of repeated points (pairs P + P: the tangent), P and -P in one run (pairs
// summing to infinity, then infinity + Q), points at infinity in every position, runs of odd
// and even length, runs of one and two points, and the all-ones MSM; each against the naive sum
// with XYZZ and batch-affine accumulation.
TYPED_TEST(GpuMsm, BatchAffineExceptionalRuns) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  using A = typename F::A;
  auto rng = F::rng(450);
  const A p = F::random_point(rng), q = F::random_point(rng), o = A::identity();
  auto check = [&](const std::vector<A>& pts, const std::vector<Fr>& sc, int c, const char* what) {
    const auto want = naive_msm<typename F::C, typename F::GP>(pts, sc);
    cuda::MsmOptions opt;
    opt.window_bits = c;
    opt.accumulation = cuda::MsmAccumulation::kXyzz;
    EXPECT_EQ(F::gpu(pts, sc, opt), want) << what << ", c = " << c << ", XYZZ";
    opt.accumulation = cuda::MsmAccumulation::kBatchAffine;
    for (const auto round : kAffineRounds) {
      opt.affine_round = round;
      EXPECT_EQ(F::gpu(pts, sc, opt), want) << what << ", c = " << c << ", batch-affine round " << int(round);
    }
  };
  // Patterns of p, -p, q, O, in runs of many lengths (odd and even), all with scalar 1 (the
  // 1-scalar sum is one run), then with few distinct scalars at c = 3 (a few long buckets).
  const std::vector<std::vector<A>> patterns = {
      {p, p},                    // a lone doubling
      {p, -p},                   // P + (-P) = O
      {o, o, o},                 // only infinity, odd length
      {p, p, p, p, p, p, p},     // doublings at every level, odd length
      {p, -p, q, o, p, p, -p},   // every kind in one run
      {o, p, -p, o, q, q, q, o}  // infinity first and last
  };
  for (const auto& pat : patterns) {
    check(pat, std::vector<Fr>(pat.size(), Fr::one()), 0, "pattern, scalars 1");
    check(pat, std::vector<Fr>(pat.size(), Fr::from_u64(3)), 3, "pattern, scalars 3");
  }
  std::vector<A> pts;
  std::vector<Fr> ones, few;
  for (size_t i = 0; i < 2 * TypeParam::kExceptional + 1; ++i) {  // odd total
    const size_t kind = (i * 7 + i / 13) % 6;
    pts.push_back(F::exceptional_mix(kind == 4 ? 0 : kind, p, q, rng));  // P twice as often
    ones.push_back(Fr::one());
    few.push_back(Fr::from_u64(uint64_t(i % 5 + 2)));  // buckets of ~n/5 points each
  }
  check(pts, ones, 0, "all ones");
  check(pts, few, 3, "few scalars");
  check(pts, few, 0, "few scalars, automatic width");
  // Random bucket sizes: scalars drawn from 2..17 over distinct points, c = 5.
  std::vector<Fr> small(pts.size());
  for (auto& s : small) s = Fr::from_u64(2 + rng() % 16);
  check(pts, small, 5, "random small scalars");
}

// The 1-scalar sum cut into slices (the budget a call may cap: one piece, a few, the 256-point
// floor), every slice its own run of batch-affine rounds and the slices' sums added by XYZZ, on
// random points mixed with the exceptional pairs (P + P, P + (-P), O) inside and across pieces,
// beside zero and windowed scalars; against the naive CPU sum, with XYZZ and batch-affine.
TYPED_TEST(GpuMsm, OnesSumInSlicesMatchesNaive) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  using A = typename F::A;
  auto rng = F::rng(800);
  const A p = F::random_point(rng), q = F::random_point(rng);
  std::vector<A> pts;
  std::vector<Fr> sc;
  for (size_t i = 0; i < 2 * TypeParam::kExceptional + 1; ++i) {
    pts.push_back(F::exceptional_mix((i * 5 + i / 17) % 8, p, q, rng));
    sc.push_back(i % 11 == 0 ? Fr::zero() : i % 13 == 0 ? Fr::random(rng) : Fr::one());  // mostly ones
  }
  const auto want = naive_msm<typename F::C, typename F::GP>(pts, sc);
  cuda::MsmOptions opt;
  opt.accumulation = cuda::MsmAccumulation::kXyzz;
  EXPECT_EQ(F::gpu_once(pts, sc, opt), want) << "XYZZ";
  opt.accumulation = cuda::MsmAccumulation::kBatchAffine;
  const uint64_t per_point = 2 * sizeof(typename F::C::Fq) * (TypeParam::kG2 ? 2 : 1);  // bytes per input
  // No cap (one slice), ~3 pieces, pieces of 512 points, and the 256-point floor (a 1-byte cap).
  for (const uint64_t cap : {uint64_t(0), per_point * pts.size() / 3, per_point * 512, uint64_t(1)}) {
    opt.affine_budget_bytes = cap;
    for (const auto round : kAffineRounds) {
      opt.affine_round = round;
      EXPECT_EQ(F::gpu_once(pts, sc, opt), want) << "batch-affine, cap " << cap << " B, round " << int(round);
    }
  }
  // All ones of one repeated point in pieces of 256: every piece's sum is the same point, so the
  // pieces' XYZZ sum doubles.
  const std::vector<A> same(1500, p);
  const std::vector<Fr> ones(same.size(), Fr::one());
  opt.affine_budget_bytes = 1;
  EXPECT_EQ(F::gpu_once(same, ones, opt), (naive_msm<typename F::C, typename F::GP>(same, ones)));
}

// An allocation that fails inside the batch-affine rounds (the test hook of accumulation.hpp, at
// the first reservation and at a later one, when the rounds already hold buffers) releases their
// buffers and sums by XYZZ: for the 1-scalar sum and for the windows, each against the exact
// value; the failure must have fired (else the rounds never ran and the test proves nothing), and
// the next MSM runs normally.
TYPED_TEST(GpuMsm, AllocationFailureInsideTheRoundsFallsBackToXyzz) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  namespace pip = cuda::pippenger;
  auto r = F::rng(900);
  const auto kp = F::points(12, r);
  auto random_sc = random_scalars<Fr>(kp.points.size(), r);
  std::vector<Fr> ones_sc(kp.points.size(), Fr::one());
  for (size_t i = 0; i < ones_sc.size(); i += 97) ones_sc[i] = random_sc[i];  // a few windowed scalars
  cuda::MsmOptions opt;
  opt.accumulation = cuda::MsmAccumulation::kBatchAffine;
  opt.window_bits = 6;  // buckets of ~64 points: several rounds in the windows too
  for (const auto* sc : {&ones_sc, &random_sc}) {
    const auto want = expected_msm<typename F::C>(kp, *sc);
    const bool ones = sc == &ones_sc;
    for (const int after : {0, 3}) {
      // With the ones forced batch-affine too, the windows' rounds come after theirs: fail the
      // ones' reservations here, and the windows' where there are no ones (random scalars).
      pip::inject_alloc_failure(pip::AllocSite::kRounds, after);
      EXPECT_EQ(F::gpu_once(kp.points, *sc, opt), want) << (ones ? "ones" : "windows") << ", failure at " << after;
      EXPECT_FALSE(pip::alloc_failure_pending(pip::AllocSite::kRounds)) << "the injected failure never fired";
      pip::inject_alloc_failure(pip::AllocSite::kRounds, -1);
    }
    EXPECT_EQ(F::gpu_once(kp.points, *sc, opt), want) << "after the fallbacks";
  }
}

// Every way of running a batch-affine round (contiguous and interleaved slots) on random points
// and scalars, at sizes that leave partial
// blocks and many blocks per round, and on skewed scalars (one huge bucket, many tiny ones),
// against the exact value.
TYPED_TEST(GpuMsm, AffineRoundKindsAgree) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  for (const size_t log_n : {size_t(9), size_t(14)}) {
    auto r = F::rng(700 + log_n);
    const auto kp = F::points(log_n, r);
    auto sc = random_scalars<typename F::Fr>(kp.points.size(), r);
    const auto want = expected_msm<typename F::C>(kp, sc);
    auto skew = sc;
    for (size_t i = 0; i < skew.size(); ++i)
      if (i % 3 == 0) skew[i] = F::Fr::from_u64(5);  // a third of the points in one bucket per window
    const auto want_skew = expected_msm<typename F::C>(kp, skew);
    for (const auto round : kAffineRounds) {
      cuda::MsmOptions opt;
      opt.accumulation = cuda::MsmAccumulation::kBatchAffine;
      opt.affine_round = round;
      EXPECT_EQ(F::gpu_once(kp.points, sc, opt), want) << "n = 2^" << log_n << ", round " << int(round);
      opt.window_bits = 7;
      EXPECT_EQ(F::gpu_once(kp.points, skew, opt), want_skew) << "skewed, n = 2^" << log_n << ", round " << int(round);
    }
  }
}

// Rounds over a handful of full buckets among ~2^15 empty ones (wide windows, scalars of one or
// a few small values): each round's slot count is far below the buckets' count, and the last
// rounds hold one or a few runs. In one slice and in one slice per bucket (a 1-byte budget: the
// slices' rounds of different sizes back to back), for both round kinds, against the exact
// value. (Written for the rounds queued without host round trips, which launched for a bound on
// the slot count: measured slower and not kept, cuda/bench/NOTES-batch-affine.md.)
TYPED_TEST(GpuMsm, AffineRoundsOverFewFullBuckets) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  auto r = F::rng(950);
  const auto kp = F::points(12, r);
  std::vector<Fr> one_value(kp.points.size(), Fr::from_u64(3));  // one run of 4096 points
  std::vector<Fr> few_values(kp.points.size());
  for (size_t i = 0; i < few_values.size(); ++i)
    few_values[i] = Fr::from_u64(2 + (i * i) % 5);  // 2, 3, 6: runs of ~800-1600
  for (const auto* sc : {&one_value, &few_values}) {
    const auto want = expected_msm<typename F::C>(kp, *sc);
    for (const auto round : kAffineRounds) {
      for (const uint64_t budget : {uint64_t(0), uint64_t(1)}) {
        cuda::MsmOptions opt;
        opt.accumulation = cuda::MsmAccumulation::kBatchAffine;
        opt.affine_round = round;
        opt.window_bits = 12;
        opt.affine_budget_bytes = budget;
        EXPECT_EQ(F::gpu_once(kp.points, *sc, opt), want)
            << (sc == &one_value ? "one value" : "few values") << ", round " << int(round) << ", budget " << budget;
      }
    }
  }
}

TYPED_TEST(GpuMsm, TrivialSizesAndAllZero) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  auto rng = F::rng(500);
  const auto kp = F::points(6, rng);
  std::vector<Fr> sc(kp.points.size(), Fr::zero());
  EXPECT_TRUE(F::gpu(kp.points, sc).is_identity());
  sc = random_scalars<Fr>(1, rng);
  const std::vector<typename F::A> one(kp.points.begin(), kp.points.begin() + 1);
  EXPECT_EQ(F::gpu(one, sc), F::P::from_affine(one[0]) * sc[0]);
  typename F::P out = F::P::generator();
  EXPECT_TRUE(TypeParam::run(nullptr, nullptr, 0, &out).ok());
  EXPECT_TRUE(out.is_identity());
}

TYPED_TEST(GpuMsm, ArgumentErrorsAreReportedNotThrown) {
  // No GPU needed: these are refused before any CUDA call.
  using F = TestFixture;
  std::vector<typename F::A> pts(4, F::A::identity());
  std::vector<typename F::Fr> sc(4, F::Fr::one());
  EXPECT_EQ(TypeParam::run(pts.data(), sc.data(), 4, nullptr).code, cuda::GpuErrc::kInvalidArgument);
  typename F::P out;
  EXPECT_EQ(TypeParam::run(nullptr, sc.data(), 4, &out).code, cuda::GpuErrc::kInvalidArgument);
  for (int c : {1, 23}) {  // window widths outside 2..22
    cuda::MsmOptions o;
    o.window_bits = c;
    const auto r = TypeParam::run(pts.data(), sc.data(), 4, &out, o);
    EXPECT_EQ(r.code, cuda::GpuErrc::kInvalidArgument) << "c = " << c << ": " << r.message;
  }
}

}  // namespace
}  // namespace zkmill::test
