// SPDX-License-Identifier: MIT
// GPU MSM over precomputed copies of its points (MsmOptions::precompute; pippenger_plan.hpp,
// PointCopies): t copies 2^(c W' j) P made on the device turn W windows into W' = ceil(W / t).
// One typed suite for G1 and G2 of both curves, against the exact value (points of known discrete
// log) for random and bit-heavy scalars (the bit-aware split: the 1-scalar sum reads copy 0), at
// sizes that are not powers of two, t = 1, 2, 3 and W (one window; W not a multiple of t gives an
// uneven last copy), small forced widths (buckets of hundreds of points) and the width chosen for
// the copies, each with XYZZ and with batch-affine accumulation. Skips cleanly without a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/msm/msm.hpp"
#include "cuda/msm/pippenger_plan.hpp"
#include "tests/cuda/cpu_reference.hpp"
#include "tests/support/gpu.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;

template <class CurveT, class PointT, class AffineT, class ParamsT, auto Entry>
struct PrecomputeGroup {
  using Curve = CurveT;
  using Point = PointT;
  using Affine = AffineT;
  using Params = ParamsT;
  // G2 costs ~4x G1 per point: its sizes are smaller.
  static constexpr bool kG2 = !std::is_same_v<PointT, typename CurveT::G1>;
  static std::vector<size_t> sizes() {
    if constexpr (kG2) {
      return {777, 2050};
    } else {
      return {1000, 5003};
    }
  }
  static cuda::MsmResult run(const Affine* p, const typename Curve::Fr* s, size_t n, Point* out,
                             const cuda::MsmOptions& o) {
    return Entry(p, s, n, out, o);
  }
};

using Bn = curves::Bn254;
using Bls = curves::Bls12381;
using Types = ::testing::Types<PrecomputeGroup<Bn, Bn::G1, Bn::G1Affine, Bn::G1Params, &cuda::msm_g1<Bn>>,
                               PrecomputeGroup<Bls, Bls::G1, Bls::G1Affine, Bls::G1Params, &cuda::msm_g1<Bls>>,
                               PrecomputeGroup<Bn, Bn::G2, Bn::G2Affine, Bn::G2Params, &cuda::msm_g2<Bn>>,
                               PrecomputeGroup<Bls, Bls::G2, Bls::G2Affine, Bls::G2Params, &cuda::msm_g2<Bls>>>;

template <class T>
class GpuMsmPrecompute : public ::testing::Test {
 protected:
  using C = typename T::Curve;
  using Fr = typename C::Fr;
  using P = typename T::Point;
  using GP = typename T::Params;

  // The MSM with both accumulations forced in turn; each must equal `want`.
  static void check(const KnownPoints<C, GP>& kp, const std::vector<Fr>& sc, cuda::MsmOptions o,
                    const std::string& what) {
    const auto want = expected_msm<C>(kp, sc);
    for (const auto acc : {cuda::MsmAccumulation::kXyzz, cuda::MsmAccumulation::kBatchAffine}) {
      o.accumulation = acc;
      P out = P::generator();  // poison: a result never written shows up as wrong
      const cuda::MsmResult r = T::run(kp.points.data(), sc.data(), kp.points.size(), &out, o);
      ASSERT_TRUE(r.ok()) << cuda::to_string(r.code) << ": " << r.message << " (" << what << ")";
      EXPECT_EQ(out, want) << what << (acc == cuda::MsmAccumulation::kXyzz ? ", XYZZ" : ", batch-affine");
    }
  }
};
TYPED_TEST_SUITE(GpuMsmPrecompute, Types);

// Random scalars: t = 1, 2, 3, W at forced narrow widths (W = 37 at c = 7, 23 at c = 11: neither
// a multiple of 2 or 3) and at the width chosen for the copies (c = 0).
TYPED_TEST(GpuMsmPrecompute, RandomScalarsEveryFactor) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  constexpr int bits = int(F::Fr::kBits);
  for (size_t n : TypeParam::sizes()) {
    std::mt19937_64 rng(500 + n);
    const auto kp = progression_points<typename F::C, typename F::GP>(n, rng);
    const auto sc = random_scalars<typename F::Fr>(n, rng);
    for (int c : {7, 11, 0})
      for (int t : {1, 2, 3, cuda::pippenger::scalar_windows_for(bits, c == 0 ? 16 : c), 64}) {
        cuda::MsmOptions o;
        o.window_bits = c;
        o.precompute = t;
        F::check(kp, sc, o, "n = " + std::to_string(n) + ", c = " + std::to_string(c) + ", t = " + std::to_string(t));
      }
  }
}

// The bit-aware split over copies: zeros dropped, ones summed from copy 0, the rest windowed; and
// the edges (only 0 and 1: no windows; one windowed scalar among ones).
TYPED_TEST(GpuMsmPrecompute, BitHeavyScalars) {
  ZKMILL_REQUIRE_GPU();
  using F = TestFixture;
  using Fr = typename F::Fr;
  const size_t n = TypeParam::sizes().back();
  std::mt19937_64 rng(600);
  const auto kp = progression_points<typename F::C, typename F::GP>(n, rng);
  std::vector<Fr> one_windowed(n, Fr::one());
  one_windowed[n / 3] = Fr::random(rng);
  const std::vector<std::pair<std::vector<Fr>, const char*>> cases = {
      {bit_heavy_scalars<Fr>(n, rng), "PoRep mix"},
      {bit_heavy_scalars<Fr>(n, rng, 50, 50), "only 0 and 1"},
      {one_windowed, "one windowed scalar among ones"}};
  for (const auto& [sc, what] : cases)
    for (int t : {2, 3, 64}) {
      cuda::MsmOptions o;
      o.window_bits = 5;
      o.precompute = t;
      F::check(kp, sc, o, std::string(what) + ", t = " + std::to_string(t));
    }
}

}  // namespace
}  // namespace zkmill::test
