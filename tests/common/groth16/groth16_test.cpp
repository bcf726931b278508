// SPDX-License-Identifier: MIT
// Groth16 end to end on both curves: setup -> synthesize -> prove -> verify, plus the
// negative cases (tampered proof, wrong public input, unsatisfied witness, bad batch).
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"
#include "tests/common/ec/test_points.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::groth16;

template <class E>
class Groth16 : public ::testing::Test {
 protected:
  using Fr = typename E::Fr;
  std::mt19937_64 rng{77};
  ProvingKey<E> key(const std::string& circuit, uint64_t size) {
    return setup_builtin<E>(circuit, size, ToxicWaste<Fr>::random(rng));
  }
  // Proofs of partitions 0..count-1 of (pk's circuit, seed), with their statements.
  struct Statements {
    std::vector<Proof<E>> proofs;
    std::vector<std::vector<Fr>> inputs;
  };
  static Statements prove_partitions(const ProvingKey<E>& pk, uint64_t seed, uint64_t count) {
    Statements out;
    for (uint64_t p = 0; p < count; ++p) {
      auto w = synthesize_builtin<E>(pk.meta, seed, p);
      out.proofs.push_back(prove<E>(pk, w));
      out.inputs.push_back(public_inputs<E>(w));
    }
    return out;
  }
};

using Curves = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(Groth16, Curves);

TYPED_TEST(Groth16, ProveAndVerifyBothCircuitsSeveralSizes) {
  using E = TypeParam;
  for (const char* circuit : {"chain", "merkle"}) {
    for (uint64_t size : {uint64_t(40), uint64_t(700)}) {
      auto pk = this->key(circuit, size);
      PreparedVerifyingKey<E> pvk(pk.vk);
      for (uint64_t part : {0, 3}) {
        auto w = synthesize_builtin<E>(pk.meta, 11, part);
        auto proof = prove<E>(pk, w);
        auto inputs = public_inputs<E>(w);
        EXPECT_TRUE(pvk.verify(proof, inputs)) << circuit << " size " << size << " partition " << part;
        // Wrong public input.
        auto bad = inputs;
        bad[0] += TestFixture::Fr::one();
        EXPECT_FALSE(pvk.verify(proof, bad));
      }
    }
  }
}

TYPED_TEST(Groth16, TamperedProofsAreRejected) {
  using E = TypeParam;
  auto pk = this->key("chain", 100);
  PreparedVerifyingKey<E> pvk(pk.vk);
  auto w = synthesize_builtin<E>(pk.meta, 5, 1);
  auto proof = prove<E>(pk, w);
  auto inputs = public_inputs<E>(w);
  ASSERT_TRUE(pvk.verify(proof, inputs));
  auto g1 = E::G1::generator();
  auto t = proof;
  t.a = (E::G1::from_affine(t.a) + g1).to_affine();
  EXPECT_FALSE(pvk.verify(t, inputs));
  t = proof;
  t.c = (E::G1::from_affine(t.c) + g1).to_affine();
  EXPECT_FALSE(pvk.verify(t, inputs));
  t = proof;
  t.b = (E::G2::from_affine(t.b).dbl()).to_affine();
  EXPECT_FALSE(pvk.verify(t, inputs));
  t = proof;
  std::swap(t.a, t.c);
  EXPECT_FALSE(pvk.verify(t, inputs));
  // Too few inputs is an error, not a pass.
  EXPECT_THROW(pvk.verify(proof, std::span(inputs).first(inputs.size() - 1)), VerifyError);
}

TYPED_TEST(Groth16, FixedRandomnessIsDeterministicAndFreshRandomnessIsNot) {
  using E = TypeParam;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("merkle", 200);
  auto w = synthesize_builtin<E>(pk.meta, 9, 2);
  Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  auto p1 = prove_with_randomness<E>(pk, w, r, s);
  auto p2 = prove_with_randomness<E>(pk, w, r, s);
  EXPECT_EQ(p1, p2);
  auto p3 = prove<E>(pk, w);
  EXPECT_FALSE(p1 == p3);
  PreparedVerifyingKey<E> pvk(pk.vk);
  EXPECT_TRUE(pvk.verify(p3, public_inputs<E>(w)));
}

TYPED_TEST(Groth16, UnsatisfiedWitnessIsAnErrorNotAProof) {
  using E = TypeParam;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("chain", 60);
  auto w = synthesize_builtin<E>(pk.meta, 3, 0);
  auto bytes = w.serialize();
  auto broken = cs::WitnessBundle::parse(bytes);
  auto c = broken.template section_mut<Fr>(cs::Section::C);
  c[7] += Fr::one();
  broken.seal();
  try {
    prove<E>(pk, broken);
    FAIL() << "a proof was produced for an unsatisfied witness";
  } catch (const UnsatisfiedError& e) {
    EXPECT_EQ(e.row(), 7u);
  }
}

TYPED_TEST(Groth16, BatchVerifyRejectsOneBadProofInSixteen) {
  using E = TypeParam;
  auto pk = this->key("chain", 30);
  PreparedVerifyingKey<E> pvk(pk.vk);
  auto [proofs, inputs] = TestFixture::prove_partitions(pk, 21, 16);
  EXPECT_TRUE(pvk.verify_batch(proofs, inputs));
  auto bad_inputs = inputs;
  bad_inputs[9][1] += E::Fr::one();
  EXPECT_FALSE(pvk.verify_batch(proofs, bad_inputs));
  auto bad_proofs = proofs;
  std::swap(bad_proofs[3], bad_proofs[4]);  // each proof valid, but for the other statement
  EXPECT_FALSE(pvk.verify_batch(bad_proofs, inputs));
}

// The coordinator decodes proofs without the subgroup tests (serde::Validation::
// SkipSubgroupCheck) because verify and verify_batch make them: a B on the twist but outside
// G2 (or, on BLS12-381, an A outside G1) must be refused there, alone and in a batch.
TYPED_TEST(Groth16, VerifyRefusesPointsOutsideTheSubgroupsThatDecodingSkipped) {
  using E = TypeParam;
  auto pk = this->key("chain", 30);
  PreparedVerifyingKey<E> pvk(pk.vk);
  auto [proofs, inputs] = TestFixture::prove_partitions(pk, 5, 3);
  std::mt19937_64 rng(77);
  auto bad = proofs;
  bad[1].b = random_curve_point<typename E::G2Params>(rng);
  ASSERT_TRUE(bad[1].b.is_on_curve());
  ASSERT_FALSE(ec::is_in_subgroup(bad[1].b));
  const auto json = snarkjs::proof_to_json(bad[1]);
  EXPECT_THROW(snarkjs::proof_from_json<E>(json), serde::DecodeError);
  const auto decoded = snarkjs::proof_from_json<E>(json, "proof", serde::Validation::SkipSubgroupCheck);
  EXPECT_FALSE(pvk.verify(decoded, inputs[1]));
  EXPECT_FALSE(pvk.verify_batch(bad, inputs));
  EXPECT_TRUE(pvk.verify(proofs[1], inputs[1]));
  EXPECT_TRUE(pvk.verify_batch(proofs, inputs));
  if constexpr (std::is_same_v<E, curves::Bls12381>) {  // BN254's G1 has cofactor 1
    auto bad_a = proofs;
    bad_a[2].a = random_curve_point<typename E::G1Params>(rng);
    ASSERT_FALSE(ec::is_in_subgroup(bad_a[2].a));
    EXPECT_FALSE(pvk.verify(bad_a[2], inputs[2]));
    EXPECT_FALSE(pvk.verify_batch(bad_a, inputs));
  }
}

TYPED_TEST(Groth16, KeyFileRoundTripAndRejections) {
  using E = TypeParam;
  auto pk = this->key("chain", 50);
  std::string path = ::testing::TempDir() + "/zkmill_key_" + E::kName + ".pk";
  pk.write(path);
  auto loaded = ProvingKey<E>::open(path);
  EXPECT_EQ(loaded.meta.n_aux, pk.meta.n_aux);
  ASSERT_EQ(loaded.a.size(), pk.a.size());
  for (size_t i = 0; i < pk.a.size(); ++i) ASSERT_EQ(loaded.a[i], pk.a[i]);
  for (size_t i = 0; i < pk.b_g2.size(); ++i) ASSERT_EQ(loaded.b_g2[i], pk.b_g2[i]);
  EXPECT_EQ(loaded.vk.delta_g2, pk.vk.delta_g2);
  // The mapped key proves and verifies.
  auto w = synthesize_builtin<E>(loaded.meta, 1, 0);
  PreparedVerifyingKey<E> pvk(loaded.vk);
  EXPECT_TRUE(pvk.verify(prove<E>(loaded, w), public_inputs<E>(w)));

  // Truncated.
  {
    std::ifstream in(path, std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(path + ".trunc", std::ios::binary).write(all.data(), std::streamsize(all.size() - 100));
    try {
      ProvingKey<E>::open(path + ".trunc");
      FAIL();
    } catch (const KeyFileError& e) {
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    // Another version.
    std::string v2 = all;
    v2[8] = 2;
    std::ofstream(path + ".v2", std::ios::binary).write(v2.data(), std::streamsize(v2.size()));
    try {
      ProvingKey<E>::open(path + ".v2");
      FAIL();
    } catch (const KeyFileError& e) {
      EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos) << e.what();
    }
  }
  // Another curve.
  using Other = std::conditional_t<std::is_same_v<E, curves::Bn254>, curves::Bls12381, curves::Bn254>;
  try {
    ProvingKey<Other>::open(path);
    FAIL();
  } catch (const KeyFileError& e) {
    EXPECT_NE(std::string(e.what()).find("curve"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ProvingKey<E>::open(path + ".missing"), std::runtime_error);
}

}  // namespace zkmill::test
