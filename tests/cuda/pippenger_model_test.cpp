// SPDX-License-Identifier: MIT
// A host model of the GPU MSM built from the same pieces the kernels use (plan, signed digits,
// XYZZ buckets through the carry-chain emulation, group running sums, window-sum outputs,
// combine_windows) and checked against a naive MSM: the algorithm is verified on any machine,
// leaving only the kernels' plumbing (sort, chunking, launches) to the GPU tests. The model also
// runs over precomputed copies of the points (t copies 2^(c W' j) P, made here on the CPU), and
// the plan's arithmetic for them is pinned (windows per copy, key and sentinel fit, limits).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/ec/g1.hpp"
#include "cuda/msm/accumulation.hpp"
#include "cuda/msm/pippenger_plan.hpp"
#include "tests/cuda/cpu_reference.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;
using cuda::pippenger::MsmPlan;

// t copies of the points, copy j = 2^(shift j) P (the layout Engine::precompute writes).
template <class C>
std::vector<typename C::G1Affine> host_copies(const std::vector<typename C::G1Affine>& pts, int t, int shift) {
  std::vector<typename C::G1Affine> all(pts);
  std::vector<typename C::G1> cur(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) cur[i] = C::G1::from_affine(pts[i]);
  for (int j = 1; j < t; ++j)
    for (size_t i = 0; i < pts.size(); ++i) {
      for (int k = 0; k < shift; ++k) cur[i] = cur[i].dbl();
      all.push_back(cur[i].to_affine());
    }
  return all;
}

// The model over plain points (t = 1) or over t precomputed copies made for width c.
template <class C>
typename C::G1 model_msm(const std::vector<typename C::G1Affine>& plain, const std::vector<typename C::Fr>& sc, int c,
                         int t = 1) {
  using G = cuda::curve::G1Device<C>;
  using B = typename G::Bucket;
  namespace pip = cuda::pippenger;
  pip::PointCopies pc;
  if (t > 1) pc = {t, c, uint32_t(plain.size())};
  const MsmPlan p = pip::make_plan(plain.size(), G::Fr::kBits, c, pc);
  const auto pts = host_copies<C>(plain, p.copies, pip::precompute_shift(G::Fr::kBits, p.c, p.copies));
  EXPECT_EQ(p.copies * p.windows >= p.scalar_windows && (p.copies - 1) * p.windows < p.scalar_windows, true)
      << "every copy holds at least one window";
  std::vector<std::pair<uint32_t, uint32_t>> kv;
  for (uint32_t i = 0; i < p.n; ++i) {
    const auto s = G::Fr::from_host(sc[i]).to_canonical();
    uint32_t carry = 0;
    for (int w = 0; w < p.scalar_windows; ++w) {
      bool neg = false;
      const uint32_t mag = pip::signed_digit(s.v, w, p.c, carry, neg);
      int j = 0, wp = 0;
      pip::copy_of_window(p, w, j, wp);
      EXPECT_LT(wp, p.windows);
      uint32_t key = 0, val = 0;
      pip::digit_key(p, wp, mag, neg, i + uint32_t(j) * p.stride, key, val);
      EXPECT_LT(uint64_t(key), uint64_t(1) << p.key_bits);
      kv.emplace_back(key, val);
    }
    EXPECT_EQ(carry, 0u) << "the top window must absorb the last carry";
  }
  std::sort(kv.begin(), kv.end());
  std::vector<B> buckets(p.total_buckets, B::infinity());
  for (auto [key, val] : kv) {
    if (key >= p.total_buckets) continue;
    const auto& a = pts[val & 0x7fffffffu];
    if (a.infinity) continue;
    auto y = G::Fq::from_host(a.y);
    if (val >> 31) y = -y;
    buckets[key].add_affine(G::Fq::from_host(a.x), y);
  }
  const uint32_t k = p.groups(), gsize = 1u << p.group_bits;
  std::vector<B> tri(size_t(p.windows) * k), run(size_t(p.windows) * k);
  for (uint32_t t = 0; t < tri.size(); ++t) {
    const uint32_t w = t / k, g = t % k;
    B r = B::infinity(), s = B::infinity();
    for (uint32_t j = gsize; j-- > 0;) {
      r.add(buckets[size_t(w) * p.buckets + size_t(g) * gsize + j]);
      s.add(r);
    }
    tri[t] = s;
    run[t] = r;
  }
  std::vector<typename C::G1> sums;
  for (int w = 0; w < p.windows; ++w)
    for (int o = 0; o < p.sums_per_window(); ++o) {
      B acc = B::infinity();
      for (uint32_t g = 0; g < k; ++g) {
        if (o == 0)
          acc.add(tri[size_t(w) * k + g]);
        else if ((g >> (o - 1)) & 1u)
          acc.add(run[size_t(w) * k + g]);
      }
      sums.push_back(G::to_host(acc));
    }
  return cuda::pippenger::combine_windows(p, sums.data());
}

template <class C>
class PippengerModel : public ::testing::Test {};
using CurveTypes = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(PippengerModel, CurveTypes);

TYPED_TEST(PippengerModel, MatchesNaiveForSeveralWindowWidths) {
  using C = TypeParam;
  std::mt19937_64 rng(11);
  auto kp = progression_points<C>(200, rng);
  kp.points[3] = kp.points[5];             // a repeated point
  kp.points[7] = C::G1Affine::identity();  // a point at infinity
  auto sc = random_scalars<typename C::Fr>(kp.points.size(), rng);
  sc[9] = -C::Fr::one();  // the largest scalar
  sc[10] = C::Fr::zero();
  const auto want = naive_msm<C>(kp.points, sc);
  for (int c : {0, 2, 3, 5, 8, 13}) EXPECT_EQ(model_msm<C>(kp.points, sc, c), want) << "c = " << c;
}

// Precomputed copies: t = 2, 3 and W (one window), with W not a multiple of t (an uneven last
// copy), at several widths, with bit-heavy scalars too (zeros never reach a bucket).
TYPED_TEST(PippengerModel, PrecomputedCopiesMatchNaive) {
  using C = TypeParam;
  std::mt19937_64 rng(14);
  auto kp = progression_points<C>(150, rng);
  kp.points[4] = C::G1Affine::identity();
  auto sc = random_scalars<typename C::Fr>(kp.points.size(), rng);
  sc[2] = -C::Fr::one();
  const auto want = naive_msm<C>(kp.points, sc);
  const auto bits = bit_heavy_scalars<typename C::Fr>(kp.points.size(), rng, 30, 30);
  const auto want_bits = naive_msm<C>(kp.points, bits);
  const int nbits = cuda::curve::G1Device<C>::Fr::kBits;
  for (int c : {3, 7, 13}) {
    const int w = cuda::pippenger::scalar_windows_for(nbits, c);
    for (int t : {2, 3, w}) {
      EXPECT_EQ(model_msm<C>(kp.points, sc, c, t), want) << "c = " << c << ", t = " << t;
      EXPECT_EQ(model_msm<C>(kp.points, bits, c, t), want_bits) << "bit-heavy, c = " << c << ", t = " << t;
    }
  }
}

TYPED_TEST(PippengerModel, SkewedScalars) {
  using C = TypeParam;
  std::mt19937_64 rng(12);
  const auto kp = progression_points<C>(300, rng);
  const auto sc = skewed_scalars<typename C::Fr>(kp.points.size(), rng);
  EXPECT_EQ(model_msm<C>(kp.points, sc, 0), expected_msm<C>(kp, sc));
}

TEST(PippengerPlan, SignedDigitsReconstructTheScalar) {
  std::mt19937_64 rng(13);
  using F = cuda::field::Fp32<ff::Bls12381FrParams>;
  for (int c = 2; c <= 22; ++c) {
    const MsmPlan p = cuda::pippenger::make_plan(1, F::kBits, c);
    for (int it = 0; it < 20; ++it) {
      const auto h = it == 0 ? -ff::Bls12381Fr::one() : ff::Bls12381Fr::random(rng);
      const auto s = F::from_host(h).to_canonical();
      // sum_w d_w 2^(cw), accumulated in the field.
      ff::Bls12381Fr acc = ff::Bls12381Fr::zero(), scale = ff::Bls12381Fr::one();
      const auto two_c = ff::Bls12381Fr::from_u64(uint64_t(1) << c);
      uint32_t carry = 0;
      for (int w = 0; w < p.windows; ++w) {
        bool neg = false;
        const uint32_t mag = cuda::pippenger::signed_digit(s.v, w, c, carry, neg);
        ASSERT_LE(mag, p.buckets);
        const auto d = ff::Bls12381Fr::from_u64(mag);
        acc += (neg ? -d : d) * scale;
        scale *= two_c;
      }
      ASSERT_EQ(carry, 0u);
      ASSERT_EQ(acc, h) << "c = " << c;
    }
  }
}

TEST(PippengerPlan, OwnerOfFindsTheBucketOfEachChunk) {
  // chunk counts 2, 0, 0, 3, 1, 0 -> exclusive scan 0, 2, 2, 2, 5, 6 (+ total 6)
  const std::vector<uint32_t> off = {0, 2, 2, 2, 5, 6, 6};
  const uint32_t want[] = {0, 0, 3, 3, 3, 4};
  for (uint32_t j = 0; j < 6; ++j) EXPECT_EQ(cuda::pippenger::owner_of(off.data(), 6, j), want[j]) << j;
  // From a known lower bound (any b <= the answer with off[b] <= j), the same answer.
  for (uint32_t j = 0; j < 6; ++j)
    for (uint32_t lo = 0; lo <= want[j]; ++lo)
      if (off[lo] <= j) {
        EXPECT_EQ(cuda::pippenger::owner_of(off.data(), 6, j, lo), want[j]) << j << " from " << lo;
      }
}

TEST(PippengerPlan, WindowChoiceAndLimits) {
  const MsmPlan p24 = cuda::pippenger::make_plan(size_t(1) << 24, 255);
  EXPECT_EQ(p24.c, cuda::pippenger::kMaxAutoWindow);  // the measured best at 2^24 (cuda/bench/NOTES.md)
  EXPECT_LE(cuda::pippenger::make_plan(size_t(1) << 10, 255).c, 10);
  EXPECT_EQ(p24.windows, 255 / p24.c + 1);
  EXPECT_LT(uint64_t(p24.sentinel()), uint64_t(1) << p24.key_bits);
  // From 2^26 points the automatic width is the wider one measured best there, for both scalar
  // fields, and its digits still fit the sort (W * n < 2^32) and the sentinel its key.
  EXPECT_EQ(cuda::pippenger::make_plan(cuda::pippenger::kLargeWindowFrom - 1, 255).c, cuda::pippenger::kMaxAutoWindow);
  for (int bits : {254, 255})
    for (size_t n : {cuda::pippenger::kLargeWindowFrom, size_t(1) << 27, size_t(1) << 28}) {
      const MsmPlan p = cuda::pippenger::make_plan(n, bits);
      EXPECT_EQ(p.c, cuda::pippenger::kLargeWindow) << n;
      EXPECT_EQ(p.windows, bits / p.c + 1);
      EXPECT_LT(p.digits(), uint64_t(1) << 32);
      EXPECT_LT(uint64_t(p.sentinel()), uint64_t(1) << p.key_bits);
    }
  EXPECT_THROW(cuda::pippenger::make_plan(10, 255, 1), std::invalid_argument);
  EXPECT_THROW(cuda::pippenger::make_plan(10, 255, 23), std::invalid_argument);
}

// The plan over precomputed copies: W' = ceil(W / t) windows with buckets (the last copy may hold
// fewer), W digits per scalar, keys and sentinel within key_bits, the width theirs, and the
// limits refused with a message that names them.
TEST(PippengerPlan, PrecomputedCopies) {
  namespace pip = cuda::pippenger;
  for (int bits : {254, 255})
    for (int c : {2, 5, 13, 16, 20, 22}) {
      const int w = pip::scalar_windows_for(bits, c);
      EXPECT_EQ(w, bits / c + 1);
      for (int t : {1, 2, 3, 4, w - 1, w, w + 5}) {
        const int copies = pip::precompute_copies(bits, c, t);
        // The fewest copies for the windows t gives: t itself when it divides W, W at most.
        const int wp_t = (w + std::max(t, 1) - 1) / std::max(t, 1);
        EXPECT_EQ(copies, t <= 1 ? 1 : (w + wp_t - 1) / wp_t);
        EXPECT_LE(copies, std::min(t, w));
        if (w % t == 0) {
          EXPECT_EQ(copies, t);
        }
        if (copies <= 1) continue;
        const size_t n = size_t(1) << 20;
        const MsmPlan p = pip::make_plan(n - 7, bits, 9 /* ignored: the copies' width */, {copies, c, uint32_t(n)});
        EXPECT_EQ(p.c, c);
        EXPECT_EQ(p.copies, copies);
        EXPECT_EQ(p.stride, uint32_t(n));
        EXPECT_EQ(p.scalar_windows, w);
        EXPECT_EQ(p.windows, (w + copies - 1) / copies);
        EXPECT_EQ(p.total_buckets, uint32_t(p.windows) << (c - 1));
        EXPECT_EQ(p.digits(), uint64_t(w) * (n - 7));
        EXPECT_LT(uint64_t(p.sentinel()), uint64_t(1) << p.key_bits);
        EXPECT_LT(uint64_t(p.total_buckets) - 1, uint64_t(p.sentinel()));
        EXPECT_EQ(pip::precompute_shift(bits, c, copies), c * p.windows);
        int j = 0, wp = 0;
        pip::copy_of_window(p, w - 1, j, wp);  // the top window: in the last copy
        EXPECT_EQ(j, copies - 1);
        EXPECT_LT(wp, p.windows);
      }
    }
  EXPECT_EQ(pip::precompute_shift(255, 16, 1), 0);
  // Copies take c = 20 from 2^24 points (measured best there), at most 16 below (16 at 2^20..2^22).
  for (int bits : {254, 255}) {
    EXPECT_EQ(pip::precompute_window(size_t(1) << 24, bits, 99), pip::kPrecomputeLargeWindow);
    EXPECT_EQ(pip::precompute_window(size_t(1) << 22, bits, 99), pip::kMaxAutoWindow);
    EXPECT_EQ(pip::precompute_window(size_t(1) << 20, bits, 99), pip::kMaxAutoWindow);
    EXPECT_LE(pip::precompute_window(1000, bits, 99), pip::kMaxAutoWindow);
  }
  EXPECT_EQ(pip::precompute_window(size_t(1) << 24, 255, 1), pip::make_plan(size_t(1) << 24, 255).c);
  // copies_for, what the prover, msm_g1/g2 and the bench ask: plain for t <= 1, else the width
  // chosen (or given) and the fewest copies for t's windows, over all n points.
  EXPECT_EQ(pip::copies_for(size_t(1) << 24, 255, 1).copies, 1);
  for (int t : {2, 7, 64}) {
    const pip::PointCopies pc = pip::copies_for(size_t(1) << 24, 255, t);
    EXPECT_EQ(pc.c, pip::kPrecomputeLargeWindow);
    EXPECT_EQ(pc.copies, pip::precompute_copies(255, pc.c, t));
    EXPECT_EQ(pc.n, uint32_t(1) << 24);
    const pip::PointCopies forced = pip::copies_for(5000, 254, t, 7);
    EXPECT_EQ(forced.c, 7);
    EXPECT_EQ(forced.copies, pip::precompute_copies(254, 7, t));
  }
  // t * n >= 2^31 points, more scalars than points per copy, more copies than windows, a bad width.
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  const uint32_t big = uint32_t(1) << 28;
  EXPECT_NE(message([&] { (void)pip::make_plan(1000, 255, 0, {8, 20, big}); }).find("2^31"), std::string::npos);
  EXPECT_NO_THROW((void)pip::make_plan(1000, 255, 0, {7, 20, big}));
  EXPECT_NE(message([&] {
              (void)pip::make_plan(101, 255, 0, {2, 16, 100});
            }).find("precomputed points"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)pip::make_plan(100, 255, 0, {17, 16, 100}); }).find("windows"), std::string::npos);
  EXPECT_THROW((void)pip::make_plan(100, 255, 0, {2, 23, 100}), std::invalid_argument);
}

// ZKMILL_GPU_MSM_PRECOMPUTE's parser: unset is 0 (off), 1..64 taken, anything else refused by name.
TEST(PippengerPlan, PrecomputeEnvParser) {
  namespace pip = cuda::pippenger;
  EXPECT_EQ(pip::parse_precompute_env(nullptr), 0);
  EXPECT_EQ(pip::parse_precompute_env(""), 0);
  EXPECT_EQ(pip::parse_precompute_env("13"), 13);
  for (const char* bad : {"0", "65", "-1", "2x", "x"}) {
    try {
      (void)pip::parse_precompute_env(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ZKMILL_GPU_MSM_PRECOMPUTE"), std::string::npos);
    }
  }
  EXPECT_EQ(pip::precompute_factor(5), 5);
}

}  // namespace
}  // namespace zkmill::test
