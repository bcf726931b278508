// SPDX-License-Identifier: MIT
// The built-in circuits, per scalar field: satisfied at several sizes, a tampered value is
// named by its constraint path, sizes hit their target, the single-pass prover agrees with
// the recorded matrices, and everything is deterministic in (seed, partition).
#include <gtest/gtest.h>

#include "common/circuits/chain.hpp"
#include "common/circuits/circuit.hpp"
#include "common/circuits/merkle.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/cs/pce_matrices.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;
using namespace zkmill::circuits;

template <class F>
class Circuits : public ::testing::Test {
 protected:
  util::ThreadPool pool{2};
};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(Circuits, Fields);

TYPED_TEST(Circuits, SatisfiedAtSeveralSizes) {
  using F = TypeParam;
  for (std::string_view name : circuit_names())
    for (uint64_t size : {1u, 10u, 300u, 1000u, 5000u}) {
      auto c = make_circuit<F>(name, size, 11, 3);
      CheckingCS<F> cs;
      c->synthesize(cs);
      EXPECT_TRUE(cs.is_satisfied()) << name << " size " << size << ": " << cs.which_is_unsatisfied().value_or("");
      EXPECT_GE(cs.num_inputs(), 2u) << "ONE plus at least one public input";
      EXPECT_EQ(cs.inputs()[1], F::from_u64(3)) << "input 1 is the partition index";
    }
}

TYPED_TEST(Circuits, PublicOutputsMatchNativeComputation) {
  using F = TypeParam;
  ChainCircuit<F> chain(3000, 5, 9);
  CheckingCS<F> cs;
  chain.synthesize(cs);
  EXPECT_EQ(cs.inputs().back(), chain.native_output());
  MerkleCircuit<F> merkle(20000, 5, 9);
  CheckingCS<F> cs2;
  merkle.synthesize(cs2);
  ASSERT_TRUE(cs2.is_satisfied()) << cs2.which_is_unsatisfied().value_or("");
  EXPECT_EQ(cs2.inputs().back(), merkle.native_root());
}

// Every circuit's statement computed natively (what the coordinator checks a synth worker's
// report against) is exactly the inputs its synthesis allocates, for several instances.
TYPED_TEST(Circuits, PublicInputsAreTheSynthesizedInputsExactly) {
  using F = TypeParam;
  for (std::string_view name : circuit_names())
    for (uint64_t size : {10u, 3000u, name == "porep" ? 100000u : 20000u})
      for (auto [seed, partition] : {std::pair<uint64_t, uint64_t>{5, 0}, {5, 9}, {77, 9}}) {
        auto c = make_circuit<F>(name, size, seed, partition);
        CheckingCS<F> cs;
        c->synthesize(cs);
        const std::vector<F> want = c->public_inputs();
        ASSERT_EQ(cs.num_inputs(), want.size() + 1) << name << " size " << size;
        for (size_t i = 0; i < want.size(); ++i)
          EXPECT_EQ(cs.inputs()[i + 1], want[i]) << name << " size " << size << " seed " << seed << " input " << i + 1;
      }
}

TYPED_TEST(Circuits, TamperedValueIsNamedByPath) {
  using F = TypeParam;
  ChainCircuit<F> chain(300, 1, 0);
  CheckingCS<F> cs(/*record_aux_names=*/true);
  cs.tamper_aux(3 + 3 * 17);  // x_next of round 17
  chain.synthesize(cs);
  EXPECT_EQ(cs.aux_name(3 + 3 * 17), "chain/round 17/x_next");
  EXPECT_EQ(cs.which_is_unsatisfied().value_or(""), "chain/round 17/enforce x_next");
  EXPECT_EQ(cs.unsatisfied_index().value(), 3u * 17 + 2);

  CheckingCS<F> cs_t;
  cs_t.tamper_aux(1 + 3 * 40);  // t of round 40
  chain.synthesize(cs_t);
  EXPECT_EQ(cs_t.which_is_unsatisfied().value_or(""), "chain/round 40/enforce t");

  // merkle: aux 0 is path 0's leaf, then sibling (1), direction (2), left (3) of level 0.
  // (A tampered direction bit may still be boolean, 0 -> 1, so tamper "left".)
  MerkleCircuit<F> merkle(3000, 1, 0);
  CheckingCS<F> cm(true);
  cm.tamper_aux(3);
  merkle.synthesize(cm);
  EXPECT_EQ(cm.aux_name(2), "merkle/path 0/level 0/direction");
  EXPECT_EQ(cm.which_is_unsatisfied().value_or(""), "merkle/path 0/level 0/swap");
  CheckingCS<F> cm2;
  cm2.tamper_aux(4);  // the first S-box's x2 in level 0's hash
  merkle.synthesize(cm2);
  EXPECT_EQ(cm2.which_is_unsatisfied().value_or(""), "merkle/path 0/level 0/hash/full round 0/sbox 0/x2 = x*x");
}

TYPED_TEST(Circuits, RecordedSizeIsCloseToTarget) {
  using F = TypeParam;
  for (uint64_t size : {3000u, 8192u, 20000u, 65536u}) {
    for (std::string_view name : circuit_names()) {
      if (name == "merkle" && size < 8192) continue;  // one level is ~300 constraints
      if (name == "porep") continue;                  // ~94k at least: porep_test.cpp sizes it
      auto c = make_circuit<F>(name, size, 0, 0);
      RecordingCS<F> rec;
      c->synthesize(rec);
      double rel = double(rec.num_constraints()) / double(size);
      EXPECT_NEAR(rel, 1.0, 0.03) << c->describe();
    }
  }
  MerkleCircuit<F> m(65536, 0, 0);
  RecordingCS<F> rec;
  m.synthesize(rec);
  EXPECT_EQ(rec.num_constraints(), m.expected_constraints());
  EXPECT_LE(m.depths().front(), MerkleCircuit<F>::kMaxDepth);
  EXPECT_EQ(ChainCircuit<F>(65536, 0, 0).rounds() * 3, 65535u);
}

TYPED_TEST(Circuits, ProverMatchesRecordedMatrices) {
  using F = TypeParam;
  for (std::string_view name : circuit_names()) {
    auto c = make_circuit<F>(name, 4000, 77, 2);
    RecordingCS<F> rec;
    c->synthesize(rec);
    R1CS<F> r = rec.finish();
    ProvingCS<F> prover;
    c->synthesize(prover);
    prover.finish();
    ASSERT_EQ(prover.num_constraints(), r.n_constraints);
    ASSERT_EQ(prover.num_aux(), r.n_aux);
    ASSERT_EQ(prover.a().size(), r.n_rows());
    // Precompiled constraint evaluation (the farm's path) gives ProvingCS's a, b, c bit for bit.
    const PceMatrices pce = PceMatrices::from_r1cs(
        r, {curve_of_scalar_field<F>(), std::string(name), 4000, r.n_inputs, r.n_aux, r.n_constraints});
    std::vector<F> va(r.n_rows()), vb(r.n_rows()), vc(r.n_rows());
    pce.multiply<F>(prover.inputs(), prover.aux(), va, vb, vc, this->pool);
    EXPECT_TRUE(std::ranges::equal(va, prover.a())) << name;
    EXPECT_TRUE(std::ranges::equal(vb, prover.b())) << name;
    EXPECT_TRUE(std::ranges::equal(vc, prover.c())) << name;
    for (size_t i = 0; i < r.n_rows(); ++i)
      ASSERT_EQ(prover.a()[i] * prover.b()[i], prover.c()[i]) << name << " row " << i;
    EXPECT_EQ(prover.aux_in_a(), r.aux_in_a) << name;
    EXPECT_EQ(prover.aux_in_b(), r.aux_in_b) << name;
    EXPECT_EQ(prover.input_in_b(), r.input_in_b) << name;
    // Row weight stays bounded (the Poseidon-style gadget materializes long state words;
    // porep's widest rows are its bit packings: a 253-bit node plus its sum, a 7-word add).
    size_t widest = 0;
    for (size_t i = 0; i < r.n_rows(); ++i) widest = std::max(widest, r.A.row_cols(i).size());
    EXPECT_LE(widest, name == "porep" ? 260u : 10u) << name;
  }
}

TYPED_TEST(Circuits, DeterministicInSeedAndPartition) {
  using F = TypeParam;
  auto bundle = [](std::string_view name, uint64_t seed, uint64_t partition) {
    auto c = make_circuit<F>(name, 2000, seed, partition);
    ProvingCS<F> p;
    c->synthesize(p);
    return std::move(p).into_bundle(CircuitId{}, partition);
  };
  for (std::string_view name : circuit_names()) {
    WitnessBundle a = bundle(name, 1, 4), b = bundle(name, 1, 4);
    EXPECT_TRUE(std::ranges::equal(a.bytes(), b.bytes())) << name;
    WitnessBundle other_part = bundle(name, 1, 5), other_seed = bundle(name, 2, 4);
    // The statement's derived value: chain's and merkle's last input, porep's data root
    // (input 2; its last inputs are challenge indices, which may coincide in a tiny tree).
    const size_t out = name == "porep" ? 2 : a.inputs<F>().size() - 1;
    EXPECT_NE(a.inputs<F>()[1], other_part.inputs<F>()[1]);
    EXPECT_NE(a.inputs<F>()[out], other_part.inputs<F>()[out]) << name << ": the public output differs per partition";
    EXPECT_NE(a.inputs<F>()[out], other_seed.inputs<F>()[out]) << name;
    EXPECT_EQ(a.n_aux(), other_seed.n_aux()) << "the shape does not depend on seed or partition";
  }
}

// merkle's compression is Poseidon(3)'s permutation (circomlib's constants, checked against
// circomlibjs in gadgets_test.cpp), output word 1: the gadget equals the native function.
TYPED_TEST(Circuits, MerkleCompressionGadgetMatchesNative) {
  using F = TypeParam;
  using M = MerkleCircuit<F>;
  std::mt19937_64 rng(3);
  F a = F::random(rng), b = F::random(rng), c = F::random(rng);
  CheckingCS<F> cs;
  auto in = [&](F v) { return Num<F>{LinearCombination<F>(cs.alloc("in", [&] { return v; })), v}; };
  Num<F> out = M::compress(cs, in(a), in(b), in(c));
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(out.value, M::compress(a, b, c));
  EXPECT_EQ(out.lc.evaluate([&](Variable v) { return cs.aux()[v.index()]; }), out.value);
  EXPECT_NE(M::compress(a, b, c), M::compress(a, c, b));
  EXPECT_NE(M::compress(a, b, c), M::compress(b, a, c)) << "the capacity word separates levels";
  std::array<F, 3> s{a, b, c};
  Poseidon<F>::instance(3).permute(s);
  EXPECT_EQ(M::compress(a, b, c), s[1]);
  // 81 S-boxes (8 full rounds of 3, 57 partial rounds of 1) of 3 constraints each, plus the
  // words materialized in partial rounds.
  EXPECT_GE(M::constraints_per_hash(), (8u * 3 + 57u) * 3);
}

TEST(CircuitRegistry, UnknownNameListsKnownOnes) {
  try {
    make_circuit<ff::Bn254Fr>("sha256", 100, 0, 0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown circuit 'sha256'; known circuits: chain, merkle, porep");
  }
  EXPECT_THROW(make_circuit<ff::Bls12381Fr>("chain", 0, 0, 0), std::invalid_argument);
  EXPECT_TRUE(is_known_circuit("chain"));
  EXPECT_FALSE(is_known_circuit("Chain"));
  EXPECT_EQ(make_circuit<ff::Bls12381Fr>("merkle", 100, 0, 0)->name(), "merkle");
}

}  // namespace zkmill::test
