// SPDX-License-Identifier: MIT
// Groth16 end to end on both curves: setup -> synthesize -> prove -> verify, plus the
// negative cases (tampered proof, wrong public input, unsatisfied witness, bad batch), in both
// bases of the key's H points (HBasis: monomial keys, as written before the basis field, must
// keep proving), and key files that claim the wrong basis or an unknown one.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
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
  ProvingKey<E> key(const std::string& circuit, uint64_t size, HBasis basis = HBasis::kCosetLagrange) {
    return setup_builtin<E>(circuit, size, ToxicWaste<Fr>::random(rng), util::ThreadPool::global(), basis);
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
  for (const HBasis basis : {HBasis::kCosetLagrange, HBasis::kMonomial}) {
    for (const char* circuit : {"chain", "merkle"}) {
      for (uint64_t size : {uint64_t(40), uint64_t(700)}) {
        auto pk = this->key(circuit, size, basis);
        ASSERT_EQ(pk.meta.h_basis, basis);
        PreparedVerifyingKey<E> pvk(pk.vk);
        for (uint64_t part : {0, 3}) {
          auto w = synthesize_builtin<E>(pk.meta, 11, part);
          auto proof = prove<E>(pk, w);
          auto inputs = public_inputs<E>(w);
          EXPECT_TRUE(pvk.verify(proof, inputs))
              << h_basis_name(basis) << " " << circuit << " size " << size << " partition " << part;
          // Wrong public input.
          auto bad = inputs;
          bad[0] += TestFixture::Fr::one();
          EXPECT_FALSE(pvk.verify(proof, bad)) << h_basis_name(basis);
        }
      }
    }
  }
}

// Setup's H points against a direct evaluation of their definition for fixed toxic waste:
// monomial H_i = tau^i Z(tau) / delta, coset Lagrange H_i = L_i(tau) Z(tau) / (delta (g^n - 1))
// with L_i(tau) = prod_(j != i) (tau - x_j) / (x_i - x_j) over x_j = g w^j (the product form, not
// setup's closed form). Every other section is the same in both keys.
TYPED_TEST(Groth16, SetupHPointsAreTheirDefinitionInBothBases) {
  using E = TypeParam;
  using Fr = typename TestFixture::Fr;
  const ToxicWaste<Fr> tw{Fr::from_u64(1234567), Fr::from_u64(11), Fr::from_u64(13), Fr::from_u64(17),
                          Fr::from_u64(19)};
  auto mono = setup_builtin<E>("chain", 40, tw, util::ThreadPool::global(), HBasis::kMonomial);
  auto lag = setup_builtin<E>("chain", 40, tw, util::ThreadPool::global(), HBasis::kCosetLagrange);
  const size_t n = size_t(1) << lag.meta.domain_log2;
  ASSERT_GE(n, 64u);
  ASSERT_EQ(lag.h.size(), n);
  ASSERT_EQ(mono.h.size(), n);
  const auto domain = poly::EvaluationDomain<Fr>::from_log_size(lag.meta.domain_log2);
  const Fr g = Fr::generator(), zt = tw.tau.pow(uint64_t(n)) - Fr::one();
  const Fr delta_inv = tw.delta.inverse(), gn1_inv = (g.pow(uint64_t(n)) - Fr::one()).inverse();
  std::vector<Fr> x(n);
  x[0] = g;
  for (size_t j = 1; j < n; ++j) x[j] = x[j - 1] * domain.omega();
  Fr tau_i = Fr::one();
  for (size_t i = 0; i < n; ++i, tau_i *= tw.tau) {
    Fr num = Fr::one(), den = Fr::one();
    for (size_t j = 0; j < n; ++j)
      if (j != i) num *= tw.tau - x[j], den *= x[i] - x[j];
    const Fr l_i = num * den.inverse();
    ASSERT_EQ(lag.h[i], (E::G1::generator() * (l_i * zt * delta_inv * gn1_inv)).to_affine()) << "coset H_" << i;
    ASSERT_EQ(mono.h[i], (E::G1::generator() * (tau_i * zt * delta_inv)).to_affine()) << "monomial H_" << i;
  }
  ASSERT_EQ(lag.a.size(), mono.a.size());
  for (size_t j = 0; j < lag.a.size(); ++j) ASSERT_EQ(lag.a[j], mono.a[j]);
  for (size_t j = 0; j < lag.l.size(); ++j) ASSERT_EQ(lag.l[j], mono.l[j]);
  EXPECT_EQ(lag.vk.ic, mono.vk.ic);
}

// Both bases commit to the same h(tau) Z(tau) / delta, so for the same toxic waste, witness and
// r, s the two keys give the same proof bit for bit (a check that needs no pairing).
TYPED_TEST(Groth16, BothHBasesGiveTheSameProof) {
  using E = TypeParam;
  using Fr = typename TestFixture::Fr;
  for (const char* circuit : {"chain", "merkle"}) {
    std::mt19937_64 seeded(5);
    const auto tw = ToxicWaste<Fr>::random(seeded);
    auto mono = setup_builtin<E>(circuit, 300, tw, util::ThreadPool::global(), HBasis::kMonomial);
    auto lag = setup_builtin<E>(circuit, 300, tw, util::ThreadPool::global(), HBasis::kCosetLagrange);
    auto w = synthesize_builtin<E>(lag.meta, 8, 1);
    const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
    const auto p = prove_with_randomness<E>(lag, w, r, s);
    EXPECT_TRUE(p == prove_with_randomness<E>(mono, w, r, s)) << circuit;
    EXPECT_TRUE(PreparedVerifyingKey<E>(lag.vk).verify(p, public_inputs<E>(w))) << circuit;
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

// Copies the key file `from` to `to` with its metadata edited by `edit` and its H points under
// section `h_id`: a key as a build before the basis field wrote it, or one that lies about it.
template <class E, class Edit>
void rewrite_key(const std::string& from, const std::string& to, Edit&& edit, SectionId h_id) {
  using G1A = typename E::G1Affine;
  KeyFileReader in(from);
  KeyFileWriter out(to, E::kId);
  uint64_t n = 0;
  const auto m = in.section(SectionId::Meta, 1, &n);
  nlohmann::json j = nlohmann::json::parse(m.begin(), m.end());
  edit(j);
  const std::string text = j.dump();
  out.add_section(SectionId::Meta, 1, text.size(), {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  const std::pair<SectionId, uint32_t> rest[] = {{SectionId::Vk, 1},
                                                 {SectionId::Ic, sizeof(G1A)},
                                                 {SectionId::A, sizeof(G1A)},
                                                 {SectionId::BG1, sizeof(G1A)},
                                                 {SectionId::BG2, sizeof(typename E::G2Affine)},
                                                 {SectionId::L, sizeof(G1A)}};
  for (const auto& [id, size] : rest) {
    const auto bytes = in.section(id, size, &n);
    out.add_section(id, size, n, bytes);
  }
  const auto h = in.section(in.has(SectionId::H) ? SectionId::H : SectionId::HCosetLagrange, sizeof(G1A), &n);
  out.add_section(h_id, sizeof(G1A), n, h);
  out.finish();
}

// The basis on file: setup's key holds section 9 and says coset_lagrange; a key without the
// field (written before it) is monomial and proves; an unknown value is refused naming the file;
// a key whose points are in the other basis than it claims yields proofs the verifier rejects.
TYPED_TEST(Groth16, KeyFileHBasis) {
  using E = TypeParam;
  using Fr = typename TestFixture::Fr;
  const std::string dir = ::testing::TempDir() + "/zkmill_hbasis_" + E::kName;
  const auto tw = ToxicWaste<Fr>::random(this->rng);
  const auto lag = setup_builtin<E>("merkle", 200, tw, util::ThreadPool::global(), HBasis::kCosetLagrange);
  const auto mono = setup_builtin<E>("merkle", 200, tw, util::ThreadPool::global(), HBasis::kMonomial);
  lag.write(dir + ".lag");
  mono.write(dir + ".mono");
  {
    KeyFileReader r(dir + ".lag");
    EXPECT_TRUE(r.has(SectionId::HCosetLagrange));
    EXPECT_FALSE(r.has(SectionId::H)) << "a build before the basis field would read these points as monomial";
  }
  EXPECT_EQ(ProvingKey<E>::open(dir + ".lag").meta.h_basis, HBasis::kCosetLagrange);
  EXPECT_EQ(ProvingKey<E>::open(dir + ".mono").meta.h_basis, HBasis::kMonomial);
  auto w = synthesize_builtin<E>(lag.meta, 3, 2);
  const auto inputs = public_inputs<E>(w);
  PreparedVerifyingKey<E> pvk(lag.vk);
  auto verifies = [&](const std::string& path) { return pvk.verify(prove<E>(ProvingKey<E>::open(path), w), inputs); };
  EXPECT_TRUE(verifies(dir + ".lag"));
  EXPECT_TRUE(verifies(dir + ".mono"));

  // Written before the field: no h_basis, H in section 8.
  rewrite_key<E>(
      dir + ".mono", dir + ".old", [](nlohmann::json& j) { j.erase("h_basis"); }, SectionId::H);
  EXPECT_EQ(ProvingKey<E>::open(dir + ".old").meta.h_basis, HBasis::kMonomial);
  EXPECT_TRUE(verifies(dir + ".old"));

  // An unknown basis.
  rewrite_key<E>(
      dir + ".lag", dir + ".unknown", [](nlohmann::json& j) { j["h_basis"] = "coset_lagrange_v2"; },
      SectionId::HCosetLagrange);
  try {
    ProvingKey<E>::open(dir + ".unknown");
    FAIL() << "a key of an unknown H basis was opened";
  } catch (const KeyFileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(dir + ".unknown"), std::string::npos) << what;
    EXPECT_NE(what.find("coset_lagrange_v2"), std::string::npos) << what;
  }
  // Claims coset_lagrange, holds only section 8.
  rewrite_key<E>(
      dir + ".mono", dir + ".nosec", [](nlohmann::json& j) { j["h_basis"] = "coset_lagrange"; }, SectionId::H);
  EXPECT_THROW(ProvingKey<E>::open(dir + ".nosec"), KeyFileError);

  // Points of one basis labelled as the other: the prover cannot tell, the verifier does.
  rewrite_key<E>(
      dir + ".lag", dir + ".lie1", [](nlohmann::json& j) { j["h_basis"] = "monomial"; }, SectionId::H);
  rewrite_key<E>(
      dir + ".mono", dir + ".lie2", [](nlohmann::json& j) { j["h_basis"] = "coset_lagrange"; },
      SectionId::HCosetLagrange);
  EXPECT_FALSE(verifies(dir + ".lie1"));
  EXPECT_FALSE(verifies(dir + ".lie2"));
}

}  // namespace zkmill::test
