// GPU G1 MSM (cuda/msm/msm.hpp) against CPU references, for both curves: random scalars at
// 2^10, 2^14, 2^18, skewed scalars (70% zero, 20% one), forced narrow windows (huge buckets,
// several accumulation levels), repeated / opposite / infinite points, and argument errors.
// References: exact values from points of known discrete log, the naive sum, and the CPU
// Pippenger (common/msm) on the same inputs.
// Every test skips cleanly where no GPU is present.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/msm/pippenger.hpp"
#include "cuda/msm/msm.hpp"
#include "tests/cuda/cpu_reference.hpp"
#include "tests/support/gpu.hpp"

namespace {

using namespace zkmill;

struct Bn254Msm {
  using Curve = curves::Bn254;
  static cuda::MsmResult run(const Curve::G1Affine* p, const Curve::Fr* s, size_t n, Curve::G1* out,
                             cuda::MsmOptions o = {}) {
    return cuda::msm_g1_bn254(p, s, n, out, o);
  }
};
struct Bls12381Msm {
  using Curve = curves::Bls12381;
  static cuda::MsmResult run(const Curve::G1Affine* p, const Curve::Fr* s, size_t n, Curve::G1* out,
                             cuda::MsmOptions o = {}) {
    return cuda::msm_g1_bls12_381(p, s, n, out, o);
  }
};

template <class T>
class GpuMsm : public ::testing::Test {
 protected:
  using C = typename T::Curve;
  using Fr = typename C::Fr;
  using G1 = typename C::G1;

  // GPU result for (points, scalars), failing the test on an error.
  static G1 gpu(const std::vector<typename C::G1Affine>& pts, const std::vector<Fr>& sc, cuda::MsmOptions o = {}) {
    G1 out = G1::generator();  // poison: a result that was never written shows up as wrong
    const cuda::MsmResult r = T::run(pts.data(), sc.data(), pts.size(), &out, o);
    EXPECT_TRUE(r.ok()) << cuda::to_string(r.code) << ": " << r.message;
    return out;
  }

  void random_at(size_t log_n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto kp = cuda_ref::progression_points<C>(size_t(1) << log_n, rng);
    const auto sc = cuda_ref::random_scalars<Fr>(kp.points.size(), rng);
    const G1 got = gpu(kp.points, sc);
    EXPECT_EQ(got, cuda_ref::expected_msm<C>(kp, sc)) << "n = 2^" << log_n;
    EXPECT_EQ(got, cpu_msm(kp.points, sc)) << "n = 2^" << log_n;
  }

  static G1 cpu_msm(const std::vector<typename C::G1Affine>& pts, const std::vector<Fr>& sc) {
    return msm::msm<typename C::G1Params>(std::span<const typename C::G1Affine>(pts), std::span<const Fr>(sc));
  }
};
using MsmTypes = ::testing::Types<Bn254Msm, Bls12381Msm>;
TYPED_TEST_SUITE(GpuMsm, MsmTypes);

// Independent random points against the naive sum (no structure shared with the reference).
TYPED_TEST(GpuMsm, Small1kMatchesNaive) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  std::mt19937_64 rng(101);
  std::vector<typename C::G1Affine> pts(1024);
  for (auto& p : pts) p = (C::G1::generator() * C::Fr::random(rng)).to_affine();
  const auto sc = cuda_ref::random_scalars<typename C::Fr>(pts.size(), rng);
  EXPECT_EQ(TestFixture::gpu(pts, sc), cuda_ref::naive_msm<C>(pts, sc));
}

TYPED_TEST(GpuMsm, Random2e10) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(10, 1);
}
TYPED_TEST(GpuMsm, Random2e14) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(14, 2);
}
TYPED_TEST(GpuMsm, Random2e18) {
  ZKMILL_REQUIRE_GPU();
  this->random_at(18, 3);
}

TYPED_TEST(GpuMsm, Skewed2e14And2e18) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  for (size_t log_n : {14, 18}) {
    std::mt19937_64 rng(200 + log_n);
    const auto kp = cuda_ref::progression_points<C>(size_t(1) << log_n, rng);
    const auto sc = cuda_ref::skewed_scalars<typename C::Fr>(kp.points.size(), rng);
    const auto got = TestFixture::gpu(kp.points, sc);
    EXPECT_EQ(got, cuda_ref::expected_msm<C>(kp, sc)) << "n = 2^" << log_n;
    EXPECT_EQ(got, TestFixture::cpu_msm(kp.points, sc)) << "n = 2^" << log_n;
  }
}

// Narrow windows put thousands of points in each bucket: several chunk levels per bucket.
TYPED_TEST(GpuMsm, ForcedWindowWidths) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  std::mt19937_64 rng(300);
  const auto kp = cuda_ref::progression_points<C>(size_t(1) << 13, rng);
  const auto sc = cuda_ref::random_scalars<typename C::Fr>(kp.points.size(), rng);
  const auto want = cuda_ref::expected_msm<C>(kp, sc);
  for (int c : {2, 4, 7, 12, 17, 22}) {
    cuda::MsmOptions o;
    o.window_bits = c;
    EXPECT_EQ(TestFixture::gpu(kp.points, sc, o), want) << "c = " << c;
  }
}

// Repeated points (bucket doublings), opposite points (cancellation), points at infinity,
// zero scalars, the scalar -1.
TYPED_TEST(GpuMsm, ExceptionalPoints) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  using Fr = typename C::Fr;
  std::mt19937_64 rng(400);
  const auto p = (C::G1::generator() * Fr::random(rng)).to_affine();
  const auto q = (C::G1::generator() * Fr::random(rng)).to_affine();
  std::vector<typename C::G1Affine> pts;
  std::vector<Fr> sc;
  for (int i = 0; i < 3000; ++i) {
    const int kind = i % 5;
    pts.push_back(kind == 0 ? p : kind == 1 ? -p : kind == 2 ? q : kind == 3 ? C::G1Affine::identity() : p);
    // Few distinct scalars: equal digits put equal points in the same bucket.
    sc.push_back(i % 7 == 0 ? Fr::zero() : (i % 3 == 0 ? -Fr::one() : Fr::from_u64(uint64_t(i % 4 + 1))));
  }
  EXPECT_EQ(TestFixture::gpu(pts, sc), cuda_ref::naive_msm<C>(pts, sc));
  cuda::MsmOptions o;
  o.window_bits = 3;
  EXPECT_EQ(TestFixture::gpu(pts, sc, o), cuda_ref::naive_msm<C>(pts, sc));
}

TYPED_TEST(GpuMsm, TrivialSizesAndAllZero) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  using Fr = typename C::Fr;
  std::mt19937_64 rng(500);
  const auto kp = cuda_ref::progression_points<C>(64, rng);
  std::vector<Fr> sc(64, Fr::zero());
  EXPECT_TRUE(TestFixture::gpu(kp.points, sc).is_identity());
  sc = cuda_ref::random_scalars<Fr>(1, rng);
  const std::vector<typename C::G1Affine> one(kp.points.begin(), kp.points.begin() + 1);
  EXPECT_EQ(TestFixture::gpu(one, sc), C::G1::from_affine(one[0]) * sc[0]);
  typename C::G1 out = C::G1::generator();
  EXPECT_TRUE(TypeParam::run(nullptr, nullptr, 0, &out).ok());
  EXPECT_TRUE(out.is_identity());
}

TYPED_TEST(GpuMsm, ArgumentErrorsAreReportedNotThrown) {
  // No GPU needed: these are refused before any CUDA call.
  using C = typename TestFixture::C;
  std::vector<typename C::G1Affine> pts(4, C::G1Affine::identity());
  std::vector<typename C::Fr> sc(4, C::Fr::one());
  EXPECT_EQ(TypeParam::run(pts.data(), sc.data(), 4, nullptr).code, cuda::GpuErrc::kInvalidArgument);
  typename C::G1 out;
  EXPECT_EQ(TypeParam::run(nullptr, sc.data(), 4, &out).code, cuda::GpuErrc::kInvalidArgument);
  cuda::MsmOptions o;
  o.window_bits = 1;
  const auto r = TypeParam::run(pts.data(), sc.data(), 4, &out, o);
  EXPECT_EQ(r.code, cuda::GpuErrc::kInvalidArgument) << r.message;
}

}  // namespace
