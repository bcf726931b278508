// SPDX-License-Identifier: MIT
// Witness-only bundles end to end on the CPU prover: a partition shipped as inputs + packed
// aux and expanded with the circuit's PCE matrices (KEY.pce, recorded, written and mapped as
// the workers do) gives the bit-identical proof (same r, s) as the full bundle, and the proof
// verifies; for every built-in circuit, `porep` included, on both curves.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "common/cs/witness_expand.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::groth16;

template <class E>
class WitnessOnlyProve : public ::testing::Test {};
using Curves = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(WitnessOnlyProve, Curves);

TYPED_TEST(WitnessOnlyProve, ExpandedWitnessGivesTheBitIdenticalProof) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  std::mt19937_64 rng(5);
  for (const auto& name : circuits::circuit_names()) {
    const std::string circuit(name);
    auto pk = setup_builtin<E>(circuit, 300, ToxicWaste<Fr>::random(rng));
    PreparedVerifyingKey<E> pvk(pk.vk);
    // The matrices as workers get them: KEY.pce recorded, written and memory-mapped.
    const std::string path = ::testing::TempDir() + "witness-only-" + circuit + "-" + E::kName + ".pce";
    std::filesystem::remove(path);
    const cs::PceMatrices pce = load_or_build_pce<E>(path, pk.meta);
    for (uint64_t part : {0, 2}) {
      const auto full = synthesize_builtin<E>(pk.meta, 21, part);
      const auto packed = cs::WitnessBundle::pack_witness<Fr>(full.header(), pce.id(), full.template inputs<Fr>(),
                                                              full.template aux<Fr>());
      const auto expanded = cs::expand_witness<Fr>(cs::WitnessBundle::parse(packed.serialize()), pce);
      const Fr r = Fr::random(rng), s = Fr::random(rng);
      const auto p_full = prove_with_randomness<E>(pk, full, r, s);
      const auto p_witness = prove_with_randomness<E>(pk, expanded, r, s);
      EXPECT_TRUE(p_full == p_witness) << circuit << " partition " << part;
      EXPECT_TRUE(pvk.verify(p_witness, public_inputs<E>(expanded))) << circuit << " partition " << part;
      EXPECT_LT(packed.bytes().size(), full.bytes().size());
    }
  }
}

}  // namespace zkmill::test
