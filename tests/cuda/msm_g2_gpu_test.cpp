// GPU G2 MSM (cuda/msm/msm.hpp: msm_g2_<curve>) against CPU references, for both curves: random
// scalars at 2^10, 2^14, 2^18 (exact value and the CPU Pippenger over G2) and 2^20 (exact value),
// skewed scalars (70% zero, 20% one, 10% random), forced window widths (huge buckets, several
// accumulation levels), repeated / opposite / infinite points, and argument errors. References:
// points of known discrete log ([a + i b] G2: the MSM is one scalar multiplication), the naive
// sum, and common/msm's msm<G2Params> on the same inputs. Every GPU test skips without a GPU.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/msm/pippenger.hpp"
#include "cuda/msm/msm.hpp"
#include "tests/cuda/cpu_reference.hpp"
#include "tests/support/gpu.hpp"

namespace {

using namespace zkmill;

struct Bn254G2Msm {
  using Curve = curves::Bn254;
  static cuda::MsmResult run(const Curve::G2Affine* p, const Curve::Fr* s, size_t n, Curve::G2* out,
                             cuda::MsmOptions o = {}) {
    return cuda::msm_g2_bn254(p, s, n, out, o);
  }
};
struct Bls12381G2Msm {
  using Curve = curves::Bls12381;
  static cuda::MsmResult run(const Curve::G2Affine* p, const Curve::Fr* s, size_t n, Curve::G2* out,
                             cuda::MsmOptions o = {}) {
    return cuda::msm_g2_bls12_381(p, s, n, out, o);
  }
};

template <class T>
class GpuMsmG2 : public ::testing::Test {
 protected:
  using C = typename T::Curve;
  using Fr = typename C::Fr;
  using G2 = typename C::G2;
  using A2 = typename C::G2Affine;
  using GP = typename C::G2Params;

  static G2 gpu(const std::vector<A2>& pts, const std::vector<Fr>& sc, cuda::MsmOptions o = {}) {
    G2 out = G2::generator();  // poison: a result that was never written shows up as wrong
    const cuda::MsmResult r = T::run(pts.data(), sc.data(), pts.size(), &out, o);
    EXPECT_TRUE(r.ok()) << cuda::to_string(r.code) << ": " << r.message;
    return out;
  }
  static G2 cpu_msm(const std::vector<A2>& pts, const std::vector<Fr>& sc) {
    return msm::msm<GP>(std::span<const A2>(pts), std::span<const Fr>(sc));
  }
  static auto points(size_t log_n, std::mt19937_64& rng) {
    return cuda_ref::progression_points<C, GP>(size_t(1) << log_n, rng);
  }
  void random_at(size_t log_n, uint64_t seed, bool with_cpu_msm) {
    std::mt19937_64 rng(seed);
    const auto kp = points(log_n, rng);
    const auto sc = cuda_ref::random_scalars<Fr>(kp.points.size(), rng);
    const G2 got = gpu(kp.points, sc);
    EXPECT_EQ(got, cuda_ref::expected_msm<C>(kp, sc)) << "n = 2^" << log_n;
    if (with_cpu_msm) {
      EXPECT_EQ(got, cpu_msm(kp.points, sc)) << "n = 2^" << log_n;
    }
  }
};
using MsmTypes = ::testing::Types<Bn254G2Msm, Bls12381G2Msm>;
TYPED_TEST_SUITE(GpuMsmG2, MsmTypes);

// Independent random points against the naive sum (no structure shared with the reference).
TYPED_TEST(GpuMsmG2, Small1kMatchesNaive) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  std::mt19937_64 rng(111);
  std::vector<typename C::G2Affine> pts(1024);
  for (auto& p : pts) p = (C::G2::generator() * C::Fr::random(rng)).to_affine();
  const auto sc = cuda_ref::random_scalars<typename C::Fr>(pts.size(), rng);
  EXPECT_EQ(TestFixture::gpu(pts, sc), (cuda_ref::naive_msm<C, typename C::G2Params>(pts, sc)));
}

TYPED_TEST(GpuMsmG2, Random2e10) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(10, 11, true);
}
TYPED_TEST(GpuMsmG2, Random2e14) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(14, 12, true);
}
TYPED_TEST(GpuMsmG2, Random2e18) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(18, 13, true);
}
TYPED_TEST(GpuMsmG2, Random2e20) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(20, 14, false);  // exact value only: the CPU G2 Pippenger takes seconds here
}

TYPED_TEST(GpuMsmG2, Skewed2e14And2e18) {
  ZKMILL_REQUIRE_GPU();
  for (size_t log_n : {14, 18}) {
    std::mt19937_64 rng(210 + log_n);
    const auto kp = TestFixture::points(log_n, rng);
    const auto sc = cuda_ref::skewed_scalars<typename TestFixture::Fr>(kp.points.size(), rng);
    const auto got = TestFixture::gpu(kp.points, sc);
    EXPECT_EQ(got, cuda_ref::expected_msm<typename TestFixture::C>(kp, sc)) << "n = 2^" << log_n;
    EXPECT_EQ(got, TestFixture::cpu_msm(kp.points, sc)) << "n = 2^" << log_n;
  }
}

// Narrow windows put thousands of points in each bucket: several chunk levels per bucket.
TYPED_TEST(GpuMsmG2, ForcedWindowWidths) {
  ZKMILL_REQUIRE_GPU();
  std::mt19937_64 rng(310);
  const auto kp = TestFixture::points(12, rng);
  const auto sc = cuda_ref::random_scalars<typename TestFixture::Fr>(kp.points.size(), rng);
  const auto want = cuda_ref::expected_msm<typename TestFixture::C>(kp, sc);
  for (int c : {2, 5, 12, 17}) {
    cuda::MsmOptions o;
    o.window_bits = c;
    EXPECT_EQ(TestFixture::gpu(kp.points, sc, o), want) << "c = " << c;
  }
}

// Repeated points (bucket doublings), opposite points (cancellation), points at infinity,
// zero scalars, the scalar -1.
TYPED_TEST(GpuMsmG2, ExceptionalPoints) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  using Fr = typename C::Fr;
  std::mt19937_64 rng(410);
  const auto p = (C::G2::generator() * Fr::random(rng)).to_affine();
  const auto q = (C::G2::generator() * Fr::random(rng)).to_affine();
  std::vector<typename C::G2Affine> pts;
  std::vector<Fr> sc;
  for (int i = 0; i < 1500; ++i) {
    const int kind = i % 5;
    pts.push_back(kind == 0 ? p : kind == 1 ? -p : kind == 2 ? q : kind == 3 ? C::G2Affine::identity() : p);
    sc.push_back(i % 7 == 0 ? Fr::zero() : (i % 3 == 0 ? -Fr::one() : Fr::from_u64(uint64_t(i % 4 + 1))));
  }
  const auto want = cuda_ref::naive_msm<C, typename C::G2Params>(pts, sc);
  EXPECT_EQ(TestFixture::gpu(pts, sc), want);
  cuda::MsmOptions o;
  o.window_bits = 3;
  EXPECT_EQ(TestFixture::gpu(pts, sc, o), want);
  // p and -p with equal scalars only: the exact sum is the identity.
  std::vector<typename C::G2Affine> pair = {p, -p, p, -p};
  std::vector<Fr> same(4, Fr::from_u64(5));
  EXPECT_TRUE(TestFixture::gpu(pair, same).is_identity());
}

TYPED_TEST(GpuMsmG2, TrivialSizesAndAllZero) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  using Fr = typename C::Fr;
  std::mt19937_64 rng(510);
  const auto kp = TestFixture::points(6, rng);
  std::vector<Fr> sc(kp.points.size(), Fr::zero());
  EXPECT_TRUE(TestFixture::gpu(kp.points, sc).is_identity());
  sc = cuda_ref::random_scalars<Fr>(1, rng);
  const std::vector<typename C::G2Affine> one(kp.points.begin(), kp.points.begin() + 1);
  EXPECT_EQ(TestFixture::gpu(one, sc), C::G2::from_affine(one[0]) * sc[0]);
  typename C::G2 out = C::G2::generator();
  EXPECT_TRUE(TypeParam::run(nullptr, nullptr, 0, &out).ok());
  EXPECT_TRUE(out.is_identity());
}

TYPED_TEST(GpuMsmG2, ArgumentErrorsAreReportedNotThrown) {
  // No GPU needed: these are refused before any CUDA call.
  using C = typename TestFixture::C;
  std::vector<typename C::G2Affine> pts(4, C::G2Affine::identity());
  std::vector<typename C::Fr> sc(4, C::Fr::one());
  EXPECT_EQ(TypeParam::run(pts.data(), sc.data(), 4, nullptr).code, cuda::GpuErrc::kInvalidArgument);
  typename C::G2 out;
  EXPECT_EQ(TypeParam::run(nullptr, sc.data(), 4, &out).code, cuda::GpuErrc::kInvalidArgument);
  cuda::MsmOptions o;
  o.window_bits = 23;
  const auto r = TypeParam::run(pts.data(), sc.data(), 4, &out, o);
  EXPECT_EQ(r.code, cuda::GpuErrc::kInvalidArgument) << r.message;
}

}  // namespace
