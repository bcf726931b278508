// SPDX-License-Identifier: MIT
// A host model of the GPU MSM built from the same pieces the kernels use (plan, signed digits,
// XYZZ buckets through the carry-chain emulation, group running sums, window-sum outputs,
// combine_windows) and checked against a naive MSM: the algorithm is verified on any machine,
// leaving only the kernels' plumbing (sort, chunking, launches) to the GPU tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "cuda/ec/g1.hpp"
#include "cuda/msm/pippenger_plan.hpp"
#include "tests/cuda/cpu_reference.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;
using cuda::pippenger::MsmPlan;

template <class C>
typename C::G1 model_msm(const std::vector<typename C::G1Affine>& pts, const std::vector<typename C::Fr>& sc, int c) {
  using G = cuda::curve::G1Device<C>;
  using B = typename G::Bucket;
  const MsmPlan p = cuda::pippenger::make_plan(pts.size(), G::Fr::kBits, c);
  std::vector<std::pair<uint32_t, uint32_t>> kv;
  for (uint32_t i = 0; i < p.n; ++i) {
    const auto s = G::Fr::from_host(sc[i]).to_canonical();
    uint32_t carry = 0;
    for (int w = 0; w < p.windows; ++w) {
      bool neg = false;
      const uint32_t mag = cuda::pippenger::signed_digit(s.v, w, p.c, carry, neg);
      uint32_t key = 0, val = 0;
      cuda::pippenger::digit_key(p, w, mag, neg, i, key, val);
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

}  // namespace
}  // namespace zkmill::test
