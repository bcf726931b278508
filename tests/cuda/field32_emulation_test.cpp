// SPDX-License-Identifier: MIT
// The GPU's field and curve arithmetic (cuda/ff/mont32.hpp, cuda/ff/fp2.hpp, cuda/ec/xyzz.hpp
// over G1 and G2) run on the host
// through the carry-chain emulation and checked against the CPU types. The device executes
// the same instruction sequences (PTX instead of emulation), so these tests catch carry and
// formula bugs on any machine; the GPU tests then check the PTX path end to end.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "cuda/ec/affine_pair.hpp"
#include "cuda/ec/g1.hpp"
#include "cuda/ec/g2.hpp"

namespace zkmill::test {
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
    for (uint32_t k : {0u, 1u, 2u, 17u, 24u, 30u, 31u})  // the NTT's n^-1 (cuda/ntt/ntt_impl.cuh)
      ASSERT_EQ(da.div_pow2(k).to_host(), a * H::from_u64(uint64_t(1) << k).inverse()) << "k = " << k;
    ASSERT_EQ(da.sqr().to_host(), a.square());
    ASSERT_EQ(da.dbl().to_host(), a.dbl());
    ASSERT_EQ(D::from_canonical(da.to_canonical()), da);
    const auto c = a.to_canonical();
    const D dc = da.to_canonical();
    for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(uint64_t(dc.v[2 * i]) | (uint64_t(dc.v[2 * i + 1]) << 32), c[i]);
  }
  for (int i = 0; i < 3; ++i) {
    const H a = i == 0 ? -H::one() : H::random(rng);
    EXPECT_EQ(D::from_host(a).inverse().to_host(), a.inverse());
  }
  EXPECT_TRUE(D::zero().inverse().is_zero());
  EXPECT_EQ(D::one().to_host(), H::one());
  EXPECT_TRUE(D::zero().is_zero());
}

// The dedicated squaring (Fp32::sqr_wide, then redc_wide) against the product it replaced:
// sqr_wide(a) == mul_wide(a, a) for any a < 2^(32N) (R - 1, R - p, 2^(32N-1), words of all
// ones or zeros at the row boundaries), and a.sqr() == a * a on reduced values, at the edges
// (0, 1, R mod p, p - 1, p - 2, p - 2^32, p - 2^(32(N-1)), (R - p) mod p) and many random ones.
TYPED_TEST(Fp32Emulation, SquareMatchesProduct) {
  using H = typename TypeParam::Host;
  using D = typename TypeParam::Dev;
  constexpr int N = D::N, W = D::kWide;
  constexpr auto K = cuda::field::mont32_constants<typename D::Params>();
  std::mt19937_64 rng(0x5a2);
  std::vector<std::array<uint32_t, N>> wide;  // any N words
  std::array<uint32_t, N> x{};
  wide.push_back(x);  // 0
  x[0] = 1;
  wide.push_back(x);  // 1
  x.fill(~0u);
  wide.push_back(x);  // R - 1
  cuda::field::sub_words<N, false>(x.data(), std::array<uint32_t, N>{}.data(), K.p);
  wide.push_back(x);  // R - p
  x.fill(0), x[N - 1] = 0x80000000u;
  wide.push_back(x);             // 2^(32N-1)
  for (int k = 0; k < N; ++k) {  // ones below word k, zeros from it, and the reverse
    for (int i = 0; i < N; ++i) x[size_t(i)] = i < k ? ~0u : 0u;
    wide.push_back(x);
    for (int i = 0; i < N; ++i) x[size_t(i)] = ~x[size_t(i)];
    wide.push_back(x);
  }
  for (int i = 0; i < 3000; ++i) {
    for (auto& w : x) w = uint32_t(rng());
    wide.push_back(x);
  }
  for (const auto& a : wide) {
    uint32_t in[N], sq[W], prod[W];
    std::memcpy(in, a.data(), sizeof in);
    D::sqr_wide(sq, in);
    D::mul_wide(prod, in, in);
    for (int i = 0; i < W; ++i) ASSERT_EQ(sq[i], prod[i]) << "word " << i;
  }

  // Reduced values, given by their stored (Montgomery) words.
  std::vector<D> vals = {D::zero(), D::one()};
  const auto below_p = [&](uint32_t word, uint32_t sub) {  // p - sub * 2^(32 word)
    D d;
    std::array<uint32_t, N> s{};
    s[size_t(word)] = sub;
    cuda::field::sub_words<N, false>(d.v, K.p, s.data());
    return d;
  };
  D unit = D::zero();
  unit.v[0] = 1;
  vals.push_back(unit);
  vals.push_back(below_p(0, 1));
  vals.push_back(below_p(0, 2));
  vals.push_back(below_p(1, 1));
  vals.push_back(below_p(N - 1, 1));
  D r_minus_p;  // the stored words R - p, reduced (R < 16 p for all four moduli)
  std::memcpy(r_minus_p.v, wide[3].data(), sizeof r_minus_p.v);
  for (int k = 0; k < 16; ++k) D::reduce_once(r_minus_p.v, r_minus_p.v);
  vals.push_back(r_minus_p);
  for (int i = 0; i < 5000; ++i) vals.push_back(D::from_host(H::random(rng)));
  for (const D& a : vals) {
    ASSERT_EQ(a.sqr(), a * a);
    ASSERT_EQ(a.sqr().to_host(), a.to_host().square());
  }
}

// Device Fq2 (over the 32-bit-limb Fq) against the CPU's tower::Fp2, both curves.
template <class P>
class Fp2Emulation : public ::testing::Test {};
using Fp2Types = ::testing::Types<ff::Bn254FqParams, ff::Bls12381FqParams>;
TYPED_TEST_SUITE(Fp2Emulation, Fp2Types);

TYPED_TEST(Fp2Emulation, MatchesCpuFq2) {
  using Fq = ff::Fp<TypeParam>;
  using H = tower::Fp2<Fq>;
  using D = cuda::field::Fp2<cuda::field::Fp32<TypeParam>>;
  static_assert(sizeof(D) == sizeof(H), "device Fq2 must have the CPU Fq2's bytes");
  static_assert(D::kWords * 4 == sizeof(H));
  std::mt19937_64 rng(0xf2);
  // Edge values (0, 1, u, -1, -u, components p-1), then uniform ones.
  std::vector<H> vals = {
      H::zero(), H::one(), H{Fq::zero(), Fq::one()}, -H::one(), H{Fq::zero(), -Fq::one()}, H{-Fq::one(), -Fq::one()}};
  for (int i = 0; i < 300; ++i) vals.push_back(H::random(rng));
  for (size_t k = 0; k < vals.size(); ++k) {
    const H a = vals[k];
    const D da = D::from_host(a);
    ASSERT_EQ(da.to_host(), a);
    for (int r = 0; r < 6; ++r) {
      const H b = r < 3 ? vals[(k + size_t(r)) % vals.size()] : H::random(rng);
      const D db = D::from_host(b);
      ASSERT_EQ((da * db).to_host(), a * b);
      ASSERT_EQ((da + db).to_host(), a + b);
      ASSERT_EQ((da - db).to_host(), a - b);
      ASSERT_EQ((db - da).to_host(), b - a);
      ASSERT_EQ(da == db, a == b);
    }
    ASSERT_EQ((-da).to_host(), -a);
    ASSERT_EQ(da.sqr().to_host(), a.square());
    ASSERT_EQ(da.dbl().to_host(), a.dbl());
    ASSERT_EQ(da.is_zero(), a.is_zero());
    // Same bytes: the words the CPU stores read back as the same element.
    uint32_t words[D::kWords];
    std::memcpy(words, &a, sizeof a);
    ASSERT_EQ(D::from_words(words), da);
  }
  for (int i = 0; i < 3; ++i) {
    const H a = i == 0 ? H{Fq::one(), Fq::one()} : H::random(rng);
    EXPECT_EQ(D::from_host(a).inverse().to_host(), a.inverse());
  }
  EXPECT_TRUE(D::zero().inverse().is_zero());
  EXPECT_EQ(D::one().to_host(), H::one());
  EXPECT_TRUE(D::zero().is_zero());
  EXPECT_FALSE(D::one().is_zero());
}

// The lazy-reduction pieces of Fp2's product (Fp32::mul_wide, redc_wide, sub_wide_mod_p2) on
// their own, at the extremes of their stated bounds: mul_wide against a plain schoolbook for
// operands up to 2^(32N) - 1; redc_wide against T_hi + T_lo R^-1 mod p up to T = p R - 1.
TYPED_TEST(Fp2Emulation, LazyReductionPieces) {
  using D = cuda::field::Fp32<TypeParam>;
  constexpr int N = D::N, W = D::kWide;
  constexpr auto K = cuda::field::mont32_constants<TypeParam>();
  std::mt19937_64 rng(0x1a2d);
  const auto rand_words = [&](uint32_t(&x)[N]) {
    for (int i = 0; i < N; ++i) x[i] = uint32_t(rng());
  };
  uint32_t ones[N], pm1[N], zero[N] = {};
  for (int i = 0; i < N; ++i) ones[i] = ~0u, pm1[i] = K.p[i];
  pm1[0] -= 1;  // p is odd
  for (int it = 0; it < 2000; ++it) {
    uint32_t a[N], b[N];
    rand_words(a), rand_words(b);
    if (it < 9) {
      const uint32_t* pick[3] = {ones, pm1, zero};
      std::memcpy(a, pick[it % 3], sizeof a), std::memcpy(b, pick[it / 3], sizeof b);
    }
    uint32_t t[W], ref[W] = {};
    D::mul_wide(t, a, b);
    for (int i = 0; i < N; ++i) {
      uint64_t carry = 0;
      for (int j = 0; j < N; ++j) {
        const uint64_t cur = uint64_t(a[i]) * b[j] + ref[i + j] + carry;
        ref[i + j] = uint32_t(cur), carry = cur >> 32;
      }
      ref[i + N] = uint32_t(carry);
    }
    for (int i = 0; i < W; ++i) ASSERT_EQ(t[i], ref[i]) << "word " << i << " case " << it;

    // T = T_hi R + T_lo with T_hi < p (T < p R): T_hi = p - 1 and T_lo = 2^(32N) - 1 first.
    uint32_t T[W];
    D hi, lo;
    std::memcpy(lo.v, it == 0 ? ones : a, sizeof lo.v);
    if (it == 0)
      std::memcpy(hi.v, pm1, sizeof hi.v);
    else
      hi = D::from_host(D::Host::random(rng));  // the stored words of a reduced value: < p
    std::memcpy(T, lo.v, sizeof lo.v), std::memcpy(T + N, hi.v, sizeof hi.v);
    D got;
    D::redc_wide(got.v, T);
    // T_lo mod p (T_lo < R < 16 p for both moduli), then T_lo R^-1 = mont_mul(T_lo, 1).
    for (int k = 0; k < 16; ++k) {
      D d;
      D::reduce_once(d.v, lo.v);
      if (d == lo) break;
      lo = d;
    }
    D unit = D::zero(), lo_r;
    unit.v[0] = 1;
    D::mont_mul(lo_r.v, lo.v, unit.v);
    ASSERT_EQ(got, lo_r + hi) << "case " << it;
  }
  // sub_wide_mod_p2 at x = 0, y = (p - 1)^2 (the largest difference) and the reverse.
  uint32_t sq[W], z[W] = {}, r[W], back[W];
  D::mul_wide(sq, pm1, pm1);
  D::sub_wide_mod_p2(r, z, sq);  // p^2 - (p - 1)^2 = 2p - 1
  cuda::field::add_words<W>(back, r, sq);
  for (int i = 0; i < W; ++i) ASSERT_EQ(back[i], K.p2[i]);
  D::sub_wide_mod_p2(r, sq, z);
  for (int i = 0; i < W; ++i) ASSERT_EQ(r[i], sq[i]);
}

// Fp2's lazily reduced product against the three-Montgomery-product Karatsuba it replaced and
// the CPU's tower::Fp2, with both halves near p (where a0 + a1 and s = (a0 + a1)(b0 + b1) are
// largest and c0's v0 - v1 is most negative) and many random inputs.
TYPED_TEST(Fp2Emulation, LazyProductMatchesReducedKaratsuba) {
  using Fq = ff::Fp<TypeParam>;
  using H = tower::Fp2<Fq>;
  using F = cuda::field::Fp32<TypeParam>;
  using D = cuda::field::Fp2<F>;
  std::mt19937_64 rng(0x1a2e);
  const Fq m1 = -Fq::one(), m2 = -Fq::from_u64(2);
  std::vector<H> edge = {
      H::zero(), H::one(),  H{Fq::zero(), Fq::one()}, H{m1, Fq::zero()}, H{Fq::zero(), m1}, H{m1, m1},
      H{m1, m2}, H{m2, m1}, H{Fq::one(), m1},         H{m1, Fq::one()}};
  const auto check = [](const H& a, const H& b) {
    const D da = D::from_host(a), db = D::from_host(b);
    const F v0 = da.c0 * db.c0, v1 = da.c1 * db.c1;
    const D old{v0 - v1, (da.c0 + da.c1) * (db.c0 + db.c1) - v0 - v1};
    const D got = da * db;
    ASSERT_EQ(got, old);
    ASSERT_EQ(got.to_host(), a * b);
  };
  for (const H& a : edge)
    for (const H& b : edge) ASSERT_NO_FATAL_FAILURE(check(a, b));
  for (int i = 0; i < 20000; ++i) {
    const H a = H::random(rng);
    ASSERT_NO_FATAL_FAILURE(check(a, i % 4 == 0 ? edge[size_t(i / 4) % edge.size()] : H::random(rng)));
  }
}

// XYZZ formulas over G1 (Fq) and G2 (Fq2) against the CPU's Jacobian arithmetic.
template <class G>
class XyzzEmulation : public ::testing::Test {};
using GroupTypes =
    ::testing::Types<cuda::curve::Bn254G1, cuda::curve::Bls12381G1, cuda::curve::Bn254G2, cuda::curve::Bls12381G2>;
TYPED_TEST_SUITE(XyzzEmulation, GroupTypes);

TYPED_TEST(XyzzEmulation, MatchesCpuJacobian) {
  using G = TypeParam;
  using J = typename G::HostJacobian;
  using Fr = typename G::HostFr;
  std::mt19937_64 rng(7);
  for (int it = 0; it < 25; ++it) {
    const J p = J::generator() * Fr::random(rng), q = J::generator() * Fr::random(rng);
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

// The affine pair additions of the batch-affine MSM rounds (cuda/ec/affine_pair.hpp), with the
// inversion done here, against the CPU's group law: chord, tangent, P + (-P), infinity on
// either side and on both, and the kinds the rounds' two kernels must agree on.
TYPED_TEST(XyzzEmulation, AffinePairSumsMatchCpu) {
  using G = TypeParam;
  using J = typename G::HostJacobian;
  using Fr = typename G::HostFr;
  using A = typename G::Affine;
  using cuda::curve::PairKind;
  auto to_cpu = [](const A& a) {
    return G::to_host(a.is_infinity() ? G::Bucket::infinity() : G::Bucket::from_affine(a.x, a.y));
  };
  auto add = [](const A& p1, const A& p2) {
    const PairKind k = cuda::curve::pair_kind(p1, p2);
    const auto d = cuda::curve::pair_denominator(p1, p2, k);
    EXPECT_FALSE(d.is_zero());
    return cuda::curve::pair_sum(p1, p2, k, G::Fq::from_host(d.to_host().inverse()));
  };
  std::mt19937_64 rng(11);
  const A o = A::infinity();
  for (int it = 0; it < 10; ++it) {
    const J p = J::generator() * Fr::random(rng), q = J::generator() * Fr::random(rng);
    const A pa = G::to_device_affine(p.to_affine()), qa = G::to_device_affine(q.to_affine());
    A na = pa;
    na.y = -na.y;
    EXPECT_EQ(cuda::curve::pair_kind(pa, qa), PairKind::kAdd);
    EXPECT_EQ(to_cpu(add(pa, qa)), p + q);
    EXPECT_EQ(cuda::curve::pair_kind(pa, pa), PairKind::kDouble);
    EXPECT_EQ(to_cpu(add(pa, pa)), p.dbl());
    EXPECT_EQ(cuda::curve::pair_kind(pa, na), PairKind::kInfinity);
    EXPECT_TRUE(add(pa, na).is_infinity());
    EXPECT_EQ(to_cpu(add(pa, o)), p);
    EXPECT_EQ(to_cpu(add(o, qa)), q);
    EXPECT_TRUE(add(o, o).is_infinity());
    // A chain as a round would build it: ((p + q) + p) + (p + p).
    EXPECT_EQ(to_cpu(add(add(add(pa, qa), pa), add(pa, pa))), p + q + p + p.dbl());
  }
}

}  // namespace
}  // namespace zkmill::test
