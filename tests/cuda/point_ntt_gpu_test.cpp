// SPDX-License-Identifier: MIT
// GPU point IFFT (cuda/ntt/point_ntt.hpp, the transform of `powersoftau prepare phase2 --gpu`)
// against the CPU's setup::group_ifft on the same inputs, G1 and G2 of both curves: random
// points at powers 2^0 .. 2^10, inputs whose butterflies hit every exceptional case of the
// addition formulas (equal, opposite and infinite points, as tauG1's padded last power has),
// and argument errors. The CPU transform is checked against snarkjs by tests/interop. Skips
// without a GPU.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ec/fixed_base.hpp"
#include "common/setup/group_ops.hpp"
#include "cuda/ntt/point_ntt.hpp"
#include "tests/support/gpu.hpp"

namespace zkmill::test {
namespace {

template <class Curve, class GP>
struct PointNttGroup {
  using Fr = typename Curve::Fr;
  using C = GP;
};
using Bn254G1 = PointNttGroup<curves::Bn254, curves::Bn254::G1Params>;
using Bn254G2 = PointNttGroup<curves::Bn254, curves::Bn254::G2Params>;
using Bls12381G1 = PointNttGroup<curves::Bls12381, curves::Bls12381::G1Params>;
using Bls12381G2 = PointNttGroup<curves::Bls12381, curves::Bls12381::G2Params>;

template <class T>
class GpuPointIfft : public ::testing::Test {
 protected:
  using C = typename T::C;
  using Fr = typename T::Fr;
  using A = ec::Affine<C>;
  using J = ec::Jacobian<C>;

  // n random multiples of the generator.
  static std::vector<A> random_points(size_t n, std::mt19937_64& rng) {
    std::vector<Fr> k(n);
    for (auto& x : k) x = Fr::random(rng);
    const ec::FixedBaseTable<C> table(J::generator());
    return table.batch_mul(std::span<const Fr>(k));
  }

  // GPU and CPU transforms of `in` are the same points, every one (compared affine).
  static void check(const std::vector<A>& in, const char* what) {
    std::vector<J> cpu(in.size());
    for (size_t i = 0; i < in.size(); ++i) cpu[i] = J::from_affine(in[i]);
    setup::group_ifft<C>(cpu, util::ThreadPool::global());
    std::vector<J> gpu(in.size());
    uint64_t reported = 0;
    const auto r = cuda::group_ifft_gpu<C>(in.data(), gpu.data(), in.size(), 0, util::ThreadPool::global(),
                                           [&](uint64_t m) { reported += m; });
    ASSERT_TRUE(r.ok()) << cuda::to_string(r.code) << ": " << r.message;
    EXPECT_EQ(reported, setup::group_ifft_cost(in.size())) << what << ": progress units";
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(gpu[i].to_affine(), cpu[i].to_affine()) << what << ", n = " << in.size() << ", point " << i;
  }
};

using Groups = ::testing::Types<Bn254G1, Bn254G2, Bls12381G1, Bls12381G2>;
TYPED_TEST_SUITE(GpuPointIfft, Groups);

TYPED_TEST(GpuPointIfft, RandomPointsAtEveryPowerUpTo2To10) {
  ZKMILL_REQUIRE_GPU();
  std::mt19937_64 rng(19);
  for (size_t log_n : {0, 1, 2, 3, 4, 7, 10}) {
    const auto in = TestFixture::random_points(size_t(1) << log_n, rng);
    TestFixture::check(in, "random points");
    if (this->HasFatalFailure()) return;
  }
}

// Equal inputs make the first stages add P + P and P - P (doubling and infinity cases); the
// IFFT of a constant is (P, O, O, ...). Zero points, as tauG1's padded last power has, and
// opposite pairs cover the rest.
TYPED_TEST(GpuPointIfft, EqualOppositeAndInfinitePoints) {
  ZKMILL_REQUIRE_GPU();
  using A = typename TestFixture::A;
  std::mt19937_64 rng(20);
  const auto base = TestFixture::random_points(4, rng);
  const size_t n = 256;
  std::vector<A> constant(n, base[0]);
  TestFixture::check(constant, "constant points");
  if (this->HasFatalFailure()) return;
  std::vector<A> mixed(n);
  for (size_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0:
        mixed[i] = base[1];
        break;
      case 1:
        mixed[i] = -base[1];
        break;
      case 2:
        mixed[i] = A::identity();
        break;
      default:
        mixed[i] = base[i % 3 + 1];
    }
  }
  mixed[n - 1] = A::identity();
  TestFixture::check(mixed, "equal, opposite and infinite points");
  if (this->HasFatalFailure()) return;
  std::vector<A> zeros(n, A::identity());
  TestFixture::check(zeros, "all at infinity");
}

TYPED_TEST(GpuPointIfft, RejectsSizesThatAreNotPowersOfTwo) {
  ZKMILL_REQUIRE_GPU();
  using C = typename TestFixture::C;
  std::mt19937_64 rng(21);
  const auto in = TestFixture::random_points(6, rng);
  std::vector<typename TestFixture::J> out(6);
  const auto r = cuda::group_ifft_gpu<C>(in.data(), out.data(), 6, 0, util::ThreadPool::global(), nullptr);
  EXPECT_EQ(r.code, cuda::GpuErrc::kInvalidArgument);
  const auto z = cuda::group_ifft_gpu<C>(in.data(), out.data(), 0, 0, util::ThreadPool::global(), nullptr);
  EXPECT_EQ(z.code, cuda::GpuErrc::kInvalidArgument);
}

}  // namespace
}  // namespace zkmill::test
