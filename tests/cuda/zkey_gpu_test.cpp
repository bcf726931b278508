// SPDX-License-Identifier: MIT
// GPU prover for snarkjs keys (cuda/groth16/zkey_prover.hpp) against the CPU zkey prover, on the
// committed circom/snarkjs fixtures of both curves (tests/interop/fixtures: multiplier, the
// circomlib poseidon, hashchain): bit-identical proofs for fixed r, s, verification against the
// key's and snarkjs's verifying keys, tampered proofs rejected, key-cache reuse, CPU-G2 mode,
// and wrong bundles as errors. BLS12-381 exercises the root permutation (snarkjs's root of
// unity is ours^k with k != 1), BN254 the plain path. ZKMILL_TEST_ZKEY=<zkey>:<wtns> adds a
// larger key (e.g. the 2^16 benchmark circuit, whose NTTs take several passes).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <utility>

#include "common/formats/circom_files.hpp"
#include "common/formats/zkey_prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"
#include "cuda/groth16/zkey_prover.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/gpu.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;

// One adapter per curve: the snarkjs fixture folder, and the generic GPU entry of that curve.
template <class Engine, const char* Dir>
struct ZkeyCurve {
  using E = Engine;
  static constexpr const char* kDir = Dir;
  template <class... Args>
  static cuda::GpuResult prove(Args&&... args) {
    return cuda::prove_gpu<E>(std::forward<Args>(args)...);  // <E>: a null `out` deduces nothing
  }
};
constexpr char kBn128[] = "bn128";
constexpr char kBls12381[] = "bls12381";
using ZkeyBn = ZkeyCurve<curves::Bn254, kBn128>;
using ZkeyBls = ZkeyCurve<curves::Bls12381, kBls12381>;

template <class T>
class GpuZkey : public ::testing::Test {
 protected:
  using E = typename T::E;
  using Fr = typename E::Fr;
  std::mt19937_64 rng{77};

  struct Loaded {
    formats::ZkeyProvingKey<E> pk;
    cs::WitnessBundle w;
  };
  static Loaded load(const std::string& zkey, const std::string& wtns) {
    auto pk = formats::load_zkey<E>(formats::ZkeyFile::open(zkey));
    auto values = formats::WtnsFile::open(wtns).values<Fr>();
    auto w = formats::synthesize_zkey<E>(pk, std::span<const Fr>(values));
    return {std::move(pk), std::move(w)};
  }
  static Loaded fixture_of(const char* circuit) {
    return load(interop_fixture(T::kDir, circuit, "zkey"), interop_fixture(T::kDir, circuit, "wtns"));
  }
  groth16::Proof<E> gpu(const Loaded& k, const Fr& r, const Fr& s, cuda::GpuProveTimings* t = nullptr,
                        const cuda::GpuProveOptions& o = {}) {
    groth16::Proof<E> p{};
    const cuda::GpuResult res = T::prove(k.pk, k.w, r, s, &p, t, o);
    EXPECT_TRUE(res.ok()) << cuda::to_string(res.code) << ": " << res.message;
    return p;
  }
  // GPU == CPU for fixed r, s; the proof verifies against the key's and snarkjs's vk; tampered
  // proofs and public signals do not.
  void check_against_cpu(const Loaded& k, const std::string& what, const std::string& vk_json) {
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    const auto cpu = formats::prove_zkey_with_randomness<E>(k.pk, k.w, r, s);
    const auto gpu = this->gpu(k, r, s);
    EXPECT_TRUE(gpu == cpu) << what;
    const auto pub = formats::zkey_public_signals<E>(k.w);
    groth16::PreparedVerifyingKey<E> pvk(k.pk.vk);
    EXPECT_TRUE(pvk.verify(gpu, pub)) << what;
    if (!vk_json.empty()) {
      groth16::PreparedVerifyingKey<E> theirs(
          groth16::snarkjs::vk_from_json<E>(groth16::snarkjs::read_json_file(vk_json)));
      EXPECT_TRUE(theirs.verify(gpu, pub)) << what;
    }
    auto tampered = gpu;
    tampered.c = tampered.a;
    EXPECT_FALSE(pvk.verify(tampered, pub)) << what;
    if (!pub.empty()) {
      auto bad_pub = pub;
      bad_pub[0] += Fr::one();
      EXPECT_FALSE(pvk.verify(gpu, bad_pub)) << what;
    }
  }
};

using ZkeyCurves = ::testing::Types<ZkeyBn, ZkeyBls>;
TYPED_TEST_SUITE(GpuZkey, ZkeyCurves);

TYPED_TEST(GpuZkey, SameProofAsCpuOnFixturesAndVerifies) {
  ZKMILL_REQUIRE_GPU();
  for (const char* circuit : {"multiplier", "poseidon", "hashchain"}) {
    const auto k = this->fixture_of(circuit);
    this->check_against_cpu(k, circuit, interop_fixture(TypeParam::kDir, circuit, "vk.json"));
  }
}

TYPED_TEST(GpuZkey, ZeroBlindersAndCpuG2MatchToo) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  const auto k = this->fixture_of("poseidon");
  EXPECT_TRUE(this->gpu(k, Fr::zero(), Fr::zero()) ==
              formats::prove_zkey_with_randomness<E>(k.pk, k.w, Fr::zero(), Fr::zero()));
  cuda::GpuProveOptions o;
  o.g2_on_cpu = true;
  cuda::GpuProveTimings t;
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  EXPECT_TRUE(this->gpu(k, r, s, &t, o) == formats::prove_zkey_with_randomness<E>(k.pk, k.w, r, s));
  EXPECT_FALSE(t.g2_on_gpu);
}

TYPED_TEST(GpuZkey, KeyStaysResidentUnderItsFileId) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  const std::string path = interop_fixture(TypeParam::kDir, "hashchain", "zkey");
  const auto k = this->load(path, interop_fixture(TypeParam::kDir, "hashchain", "wtns"));
  cuda::GpuProveOptions o;
  o.key_id = cuda::zkey_cache_id(path);
  ASSERT_FALSE(o.key_id.empty());
  EXPECT_NE(o.key_id.find("hashchain.zkey"), std::string::npos) << o.key_id;
  EXPECT_TRUE(cuda::zkey_cache_id(path + ".missing").empty());
  cuda::KeyCacheStats s0{}, s1{};
  ASSERT_TRUE(cuda::key_cache_stats(0, &s0).ok());
  cuda::GpuProveTimings t1, t2;
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const auto p1 = this->gpu(k, r, s, &t1, o);
  const auto p2 = this->gpu(k, s, r, &t2, o);
  ASSERT_TRUE(cuda::key_cache_stats(0, &s1).ok());
  EXPECT_TRUE(t2.key_cache_hit);
  EXPECT_LE(s1.uploads, s0.uploads + 1);
  EXPECT_TRUE(p1 == formats::prove_zkey_with_randomness<E>(k.pk, k.w, r, s));
  EXPECT_TRUE(p2 == formats::prove_zkey_with_randomness<E>(k.pk, k.w, s, r));
}

TYPED_TEST(GpuZkey, WrongBundlesAreErrorsNotProofs) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  const auto k = this->fixture_of("multiplier");
  const auto other = this->fixture_of("poseidon");
  groth16::Proof<E> p{};
  // Another circuit's bundle: wrong shape.
  auto res = TypeParam::prove(k.pk, other.w, Fr::one(), Fr::one(), &p);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  EXPECT_NE(res.message.find("shape"), std::string::npos) << res.message;
  // A native bundle of the right curve: wrong kind.
  cs::BundleHeader h = k.w.header();
  h.kind = cs::BundleKind::Native;
  auto native = cs::WitnessBundle::allocate(h);
  native.seal();
  res = TypeParam::prove(k.pk, native, Fr::one(), Fr::one(), &p);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  EXPECT_NE(res.message.find("kind"), std::string::npos) << res.message;
  // Null output, bad device index.
  res = TypeParam::prove(k.pk, k.w, Fr::one(), Fr::one(), nullptr);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument);
  cuda::GpuProveOptions o;
  o.device = 99;
  res = TypeParam::prove(k.pk, k.w, Fr::one(), Fr::one(), &p, nullptr, o);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  // A bundle whose c is not a o b (corrupted in transit, say) is refused, not proved.
  auto broken = cs::WitnessBundle::parse(k.w.serialize());
  broken.template section_mut<Fr>(cs::Section::C)[1] += Fr::one();
  broken.seal();
  res = TypeParam::prove(k.pk, broken, Fr::one(), Fr::one(), &p);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  // The context still works afterwards.
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  EXPECT_TRUE(this->gpu(k, r, s) == formats::prove_zkey_with_randomness<E>(k.pk, k.w, r, s));
}

// ZKMILL_TEST_ZKEY=<zkey>:<wtns> of this curve (skipped when unset or of the other curve).
TYPED_TEST(GpuZkey, LargeKeyFromEnvironment) {
  ZKMILL_REQUIRE_GPU();
  const char* env = std::getenv("ZKMILL_TEST_ZKEY");
  if (env == nullptr) GTEST_SKIP() << "ZKMILL_TEST_ZKEY=<zkey>:<wtns> not set";
  const std::string spec = env;
  const size_t colon = spec.find(':');
  ASSERT_NE(colon, std::string::npos) << "ZKMILL_TEST_ZKEY must be <zkey>:<wtns>";
  const std::string zkey = spec.substr(0, colon), wtns = spec.substr(colon + 1);
  if (formats::ZkeyFile::open(zkey).curve() != TestFixture::E::kId) GTEST_SKIP() << zkey << " is of the other curve";
  const auto k = this->load(zkey, wtns);
  this->check_against_cpu(k, zkey, "");
}

}  // namespace
}  // namespace zkmill::test
