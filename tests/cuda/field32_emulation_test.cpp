// The GPU's field and curve arithmetic (cuda/ff/mont32.hpp, cuda/ec/xyzz.hpp) run on the host
// through the carry-chain emulation and checked against the CPU types. The device executes
// the same instruction sequences (PTX instead of emulation), so these tests catch carry and
// formula bugs on any machine; the GPU tests then check the PTX path end to end.
#include <gtest/gtest.h>

#include <random>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "cuda/ec/g1.hpp"

namespace {

using namespace zkmill;

template <class P>
struct FieldCase {
  using Host = ff::Fp<P>;
  using Dev = cuda::field::Fp32<P>;
};

template <class T>
class Fp32Emulation : public ::testing::Test {};
using FieldTypes = ::testing::Types<FieldCase<ff::Bls12381FqParams>, FieldCase<ff::Bls12381FrParams>,
                                    FieldCase<ff::Bn254FqParams>, FieldCase<ff::Bn254FrParams>>;
TYPED_TEST_SUITE(Fp32Emulation, FieldTypes);

TYPED_TEST(Fp32Emulation, MatchesCpuField) {
  using H = typename TypeParam::Host;
  using D = typename TypeParam::Dev;
  std::mt19937_64 rng(0x5eed);
  // Edge values first (0, 1, -1, 2), then uniform ones.
  std::vector<H> vals = {H::zero(), H::one(), -H::one(), H::from_u64(2), -H::from_u64(2)};
  for (int i = 0; i < 400; ++i) vals.push_back(H::random(rng));
  for (const H& a : vals) {
    for (int r = 0; r < 8; ++r) {
      const H b = (r < 5 && r < int(vals.size())) ? vals[size_t(r)] : H::random(rng);
      const D da = D::from_host(a), db = D::from_host(b);
      ASSERT_EQ((da * db).to_host(), a * b);
      ASSERT_EQ((da + db).to_host(), a + b);
      ASSERT_EQ((da - db).to_host(), a - b);
      ASSERT_EQ((db - da).to_host(), b - a);
    }
    const D da = D::from_host(a);
    ASSERT_EQ((-da).to_host(), -a);
    ASSERT_EQ(da.sqr().to_host(), a.square());
    ASSERT_EQ(da.dbl().to_host(), a.dbl());
    ASSERT_EQ(D::from_canonical(da.to_canonical()), da);
    const auto c = a.to_canonical();
    const D dc = da.to_canonical();
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_EQ(uint64_t(dc.v[2 * i]) | (uint64_t(dc.v[2 * i + 1]) << 32), c[i]);
  }
  for (int i = 0; i < 3; ++i) {
    const H a = i == 0 ? -H::one() : H::random(rng);
    EXPECT_EQ(D::from_host(a).inverse().to_host(), a.inverse());
  }
  EXPECT_TRUE(D::zero().inverse().is_zero());
  EXPECT_EQ(D::one().to_host(), H::one());
  EXPECT_TRUE(D::zero().is_zero());
}

template <class Curve>
class XyzzEmulation : public ::testing::Test {};
using CurveTypes = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(XyzzEmulation, CurveTypes);

TYPED_TEST(XyzzEmulation, MatchesCpuJacobian) {
  using C = TypeParam;
  using G = cuda::curve::G1Device<C>;
  using J = typename C::G1;
  std::mt19937_64 rng(7);
  for (int it = 0; it < 40; ++it) {
    const J p = J::generator() * C::Fr::random(rng), q = J::generator() * C::Fr::random(rng);
    const auto pa = p.to_affine(), qa = q.to_affine();
    const auto xp = G::from_host(pa), xq = G::from_host(qa);
    const auto qx = G::Fq::from_host(qa.x), qy = G::Fq::from_host(qa.y);

    auto s = xp;
    s.add_affine(qx, qy);  // madd-2008-s
    EXPECT_EQ(G::to_host(s), p + q);
    s = xp;
    s.add(xq);  // add-2008-s
    EXPECT_EQ(G::to_host(s), p + q);
    // A non-normalised accumulator (ZZ != 1) on both formulas.
    auto big = xp;
    big.add_affine(qx, qy);
    auto t = big;
    t.add_affine(qx, qy);
    EXPECT_EQ(G::to_host(t), p + q + q);
    t = big;
    t.add(big);
    EXPECT_EQ(G::to_host(t), (p + q).dbl());
    EXPECT_EQ(G::to_host(big.dbl()), (p + q).dbl());

    // Exceptional cases: P + P, P + (-P), infinity on either side.
    t = big;
    auto bigneg = big;
    bigneg.Y = -bigneg.Y;
    t.add(bigneg);
    EXPECT_TRUE(t.is_infinity());
    t = xq;
    t.add_affine(qx, qy);
    EXPECT_EQ(G::to_host(t), q.dbl());
    t = xq;
    t.add_affine(qx, -qy);
    EXPECT_TRUE(t.is_infinity());
    t = G::Bucket::infinity();
    t.add_affine(qx, qy);
    EXPECT_EQ(G::to_host(t), q);
    t = G::Bucket::infinity();
    t.add(big);
    EXPECT_EQ(G::to_host(t), p + q);
    t = big;
    t.add(G::Bucket::infinity());
    EXPECT_EQ(G::to_host(t), p + q);
  }
  EXPECT_TRUE(G::to_host(G::Bucket::infinity()).is_identity());
}

}  // namespace
