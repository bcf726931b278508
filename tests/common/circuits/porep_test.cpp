// SPDX-License-Identifier: MIT
// The "porep" circuit: satisfied for several seeds, partitions and sizes with the public
// inputs its native model computes; a single flipped witness bit is caught and named by the
// checking CS; --size lands within 5% of the target (counted without proving) with the
// real proportions at Filecoin's size; the shape never depends on seed or partition; and
// the witness is mostly bits.
#include "common/circuits/porep.hpp"

#include <gtest/gtest.h>

#include "common/circuits/circuit.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;
using namespace zkmill::circuits;

template <class F>
class Porep : public ::testing::Test {};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(Porep, Fields);

namespace {
// The aux index allocated under `path`, from a name-recording run.
template <class F>
uint64_t aux_named(const PorepCircuit<F>& c, const std::string& path) {
  CheckingCS<F> cs(/*record_aux_names=*/true);
  c.synthesize(cs);
  for (uint64_t i = 0; i < cs.num_aux(); ++i)
    if (cs.aux_name(i) == path) return i;
  ADD_FAILURE() << "no aux variable " << path;
  return 0;
}
}  // namespace

TYPED_TEST(Porep, SatisfiedForSeveralSeedsAndSizes) {
  using F = TypeParam;
  for (uint64_t size : {100000u, 300000u})
    for (uint64_t seed : {1u, 77u}) {
      const PorepCircuit<F> c(size, seed, seed % 3);
      CheckingCS<F> cs;
      c.synthesize(cs);
      ASSERT_TRUE(cs.is_satisfied()) << c.describe() << ": " << cs.which_is_unsatisfied().value_or("");
      const std::vector<F> want = c.public_inputs();
      ASSERT_EQ(cs.num_inputs(), want.size() + 1);
      for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], want[i]) << "input " << i + 1;
      EXPECT_EQ(cs.inputs()[1], F::from_u64(seed % 3)) << "input 1 is the partition index";
      EXPECT_EQ(cs.num_inputs(), 5 + c.shape().challenges) << "ONE, partition, comm_d, comm_c, replica_id, challenges";
    }
  // A several-challenge shape with D not a multiple of 3 (a partial top level in the column tree).
  const PorepCircuit<F> c(PorepShape{3, 4, 2, 3, 4}, 0, 5, 1);
  CheckingCS<F> cs;
  c.synthesize(cs);
  EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  // Partitions differ: another partition is another statement.
  EXPECT_NE(PorepCircuit<F>(100000, 1, 0).public_inputs()[1], PorepCircuit<F>(100000, 1, 1).public_inputs()[1]);
}

TYPED_TEST(Porep, FlippedWitnessBitIsNamed) {
  using F = TypeParam;
  const PorepCircuit<F> c(PorepShape{2, 3, 2, 2, 3}, 0, 9, 0);
  const auto w = c.witness();
  // Flip a data-leaf bit that is 0 (tamper_aux adds 1: a 0 bit becomes a 1 bit, still boolean).
  size_t bit = 0;
  while ((w.challenges[1].data_leaf[bit / 8] >> (7 - bit % 8)) & 1) ++bit;
  {
    CheckingCS<F> cs;
    cs.tamper_aux(aux_named(c, "porep/challenge 1/data path/leaf/bit " + std::to_string(bit)));
    c.synthesize(cs);
    // The first use of the bit (ordering it against the sibling by the direction) fails.
    const bool right = w.challenges[1].index & 1;
    EXPECT_EQ(cs.which_is_unsatisfied().value_or(""),
              "porep/challenge 1/data path/level 0/" + std::string(right ? "right " : "left ") + std::to_string(bit));
  }
  // A parent's label bit feeds the challenged node's layer-1 label first: its SHA-256 fails.
  size_t pbit = 0;
  while ((w.challenges[0].columns[1][1][pbit / 8] >> (7 - pbit % 8)) & 1) ++pbit;
  {
    CheckingCS<F> cs;
    cs.tamper_aux(aux_named(c, "porep/challenge 0/parent 0/label 1/bit " + std::to_string(pbit)));
    c.synthesize(cs);
    EXPECT_EQ(cs.which_is_unsatisfied().value_or("").rfind("porep/challenge 0/label 1/block ", 0), 0u)
        << cs.which_is_unsatisfied().value_or("");
  }
  // A 1 bit of the replica id's decomposition made 2 breaks its booleanity.
  size_t rbit = 0;
  while (!((w.replica[rbit / 8] >> (rbit % 8)) & 1)) ++rbit;
  {
    CheckingCS<F> cs;
    cs.tamper_aux(aux_named(c, "porep/replica_id bits/bit " + std::to_string(rbit)));
    c.synthesize(cs);
    EXPECT_EQ(cs.which_is_unsatisfied().value_or(""), "porep/replica_id bits/bit " + std::to_string(rbit));
  }
}

TYPED_TEST(Porep, SizeLandsWithinFivePercent) {
  using F = TypeParam;
  // Counted by synthesis (no proving) where that is quick, by the formula beyond.
  for (uint64_t n : {uint64_t(1) << 17, uint64_t(1) << 18, uint64_t(1) << 20, uint64_t(3) << 20}) {
    const PorepCircuit<F> c(n, 3, 1);
    CountingCS<F> cs;
    c.synthesize(cs);
    EXPECT_NEAR(double(cs.num_constraints()) / double(n), 1.0, 0.05) << c.describe();
    EXPECT_NEAR(double(cs.num_constraints()) / double(PorepCircuit<F>::predicted_constraints(c.shape())), 1.0, 0.001)
        << "the sizing formula follows synthesize(): " << c.describe();
  }
  for (uint64_t n : {uint64_t(1) << 22, uint64_t(1) << 24, uint64_t(1) << 27, uint64_t(130'300'000)}) {
    const PorepShape s = PorepCircuit<F>::choose_shape(n);
    EXPECT_NEAR(double(PorepCircuit<F>::predicted_constraints(s)) / double(n), 1.0, 0.05) << n;
  }
  // At Filecoin's size: Filecoin's tree depth, layers and parents, and SHA-256 ~95%.
  const PorepShape s = PorepCircuit<F>::choose_shape(130'300'000);
  EXPECT_EQ(s.depth, 30u);
  EXPECT_EQ(s.layers, 11u);
  EXPECT_EQ(s.parents, 14u);
  EXPECT_GE(PorepCircuit<F>::sha_fraction(s), 0.94);
}

TYPED_TEST(Porep, ShapeIndependentOfSeedAndPartition) {
  using F = TypeParam;
  RecordingCS<F> a, b;
  PorepCircuit<F>(200000, 1, 0).synthesize(a);
  PorepCircuit<F>(200000, 99, 7).synthesize(b);
  const R1CS<F> ra = a.finish(), rb = b.finish();
  EXPECT_EQ(ra.n_constraints, rb.n_constraints);
  EXPECT_EQ(ra.n_aux, rb.n_aux);
  EXPECT_TRUE(ra.aux_in_a == rb.aux_in_a);
  EXPECT_TRUE(ra.aux_in_b == rb.aux_in_b);
}

TYPED_TEST(Porep, WitnessIsMostlyBits) {
  using F = TypeParam;
  ProvingCS<F> p;
  PorepCircuit<F>(300000, 4, 2).synthesize(p);
  p.finish();
  uint64_t bits = 0;
  for (const F& v : p.aux()) bits += v.is_zero() || v.is_one();
  const double frac = double(bits) / double(p.num_aux());
  EXPECT_GE(frac, 0.95) << bits << " of " << p.num_aux();
  std::printf("porep 300000: %.4f of %llu aux values are 0/1\n", frac, (unsigned long long)p.num_aux());
}

}  // namespace zkmill::test
