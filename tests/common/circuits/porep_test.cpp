// SPDX-License-Identifier: MIT
// The "porep" circuit: satisfied for several seeds, partitions and sizes with the public
// inputs its native model computes; a single flipped witness bit is caught and named by the
// checking CS; --size lands within 5% of the target (counted without proving) from 2^12 up,
// with toy shapes (reduced-round SHA-256) only below the smallest real one, and the real
// proportions at Filecoin's size; the shape never depends on seed or partition; the
// challenges recorded (and their witness computed) on several threads give the one-thread
// result; and the witness is mostly bits.
#include "common/circuits/porep.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "common/circuits/circuit.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/cs/pce_matrices.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_cs.hpp"
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

// The name of the first constraint that fails once the aux variable named `path` is tampered
// with (1 added), or "" when every constraint still holds.
template <class F>
std::string first_failure_after_tampering(const PorepCircuit<F>& c, const std::string& path) {
  CheckingCS<F> cs;
  cs.tamper_aux(aux_named(c, path));
  c.synthesize(cs);
  return cs.which_is_unsatisfied().value_or("");
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

// The witness-only pass with a pool runs the challenges on several threads (run_parts): the
// inputs and aux it writes equal the one-thread pass's, value for value, for several shapes
// (more challenges than threads too), and the count checks pass (finish()).
TYPED_TEST(Porep, ChallengesOnSeveralThreadsGiveTheSequentialWitness) {
  using F = TypeParam;
  util::ThreadPool pool(3);
  for (const PorepShape& shape : {PorepShape{5, 4, 2, 3, 4, 2}, PorepShape{3, 2, 1, 2, 2, 3}}) {
    const PorepCircuit<F> c(shape, 0, 11, 2);
    RecordingCS<F> rec;
    c.synthesize(rec);
    const auto r1cs = rec.finish();
    auto witness = [&](util::ThreadPool* p) {
      std::vector<F> in(r1cs.n_inputs), aux(r1cs.n_aux);
      WitnessCS<F> cs(in, aux, r1cs.n_constraints, p);
      c.synthesize(cs);
      cs.finish();
      in.insert(in.end(), aux.begin(), aux.end());
      return in;
    };
    const std::vector<F> one_thread = witness(nullptr);
    EXPECT_TRUE(witness(&pool) == one_thread) << shape.challenges << " challenges";
    // And the same as the proving CS computes (the plain synthesis a synth worker falls back to).
    ProvingCS<F> pcs;
    c.synthesize(pcs);
    std::vector<F> plain(pcs.inputs().begin(), pcs.inputs().end());
    plain.insert(plain.end(), pcs.aux().begin(), pcs.aux().end());
    EXPECT_TRUE(plain == one_thread);
  }
}

// Recording with a pool records the challenges at once (RecordingCS::run_parts): the R1CS (counts,
// every row's columns and values in the one-thread order, density bitmaps) and the PCE file image
// encoded from it (what record_pce_image and zkmill setup write) equal the one-thread recording's
// on 2 and 3 threads, for shapes of several challenges, real and reduced-round SHA-256 (so the
// challenges are alike down to their non-zeros, as the pooled recording requires), and a sized
// one (below ~14M constraints --size gives one challenge: nothing runs at once).
TYPED_TEST(Porep, ChallengesRecordedOnSeveralThreadsGiveTheOneThreadRecording) {
  using F = TypeParam;
  util::ThreadPool two(2), three(3);
  const uint64_t sized = uint64_t(1) << 14;
  for (const auto& [shape, size] :
       {std::pair{PorepShape{5, 4, 2, 3, 4, 2}, uint64_t(0)}, std::pair{PorepShape{3, 2, 1, 2, 2, 3}, uint64_t(0)},
        std::pair{PorepShape{2, 3, 2, 2, 3}, uint64_t(0)}, std::pair{PorepCircuit<F>::shape_for(sized), sized}}) {
    const PorepCircuit<F> c(shape, size, 11, 2);
    auto record = [&](util::ThreadPool* pool) {
      RecordingCS<F> rec(pool);
      c.synthesize(rec);
      return rec.finish();
    };
    const R1CS<F> one = record(nullptr);
    const PceShape pce{curve_of_scalar_field<F>(), "porep", size, one.n_inputs, one.n_aux, one.n_constraints};
    const std::vector<uint8_t> image = PceMatrices::encode<F>(one, pce);
    for (util::ThreadPool* pool : {&two, &three}) {
      const R1CS<F> pooled = record(pool);
      EXPECT_EQ(pooled.n_aux, one.n_aux) << c.describe();
      EXPECT_EQ(pooled.n_constraints, one.n_constraints) << c.describe();
      EXPECT_TRUE(pooled == one) << c.describe() << " on " << pool->size() << " threads";
      EXPECT_TRUE(PceMatrices::encode<F>(pooled, pce) == image) << c.describe() << " on " << pool->size() << " threads";
    }
  }
}

TYPED_TEST(Porep, FlippedWitnessBitIsNamed) {
  using F = TypeParam;
  const PorepCircuit<F> c(PorepShape{2, 3, 2, 2, 3}, 0, 9, 0);
  const auto w = c.witness();
  // Flip a data-leaf bit that is 0 (tamper_aux adds 1: a 0 bit becomes a 1 bit, still boolean).
  size_t bit = 0;
  while ((w.challenges[1].data_leaf[bit / 8] >> (7 - bit % 8)) & 1) ++bit;
  {
    // The first use of the bit (ordering it against the sibling by the direction) fails.
    const bool right = w.challenges[1].index & 1;
    EXPECT_EQ(first_failure_after_tampering(c, "porep/challenge 1/data path/leaf/bit " + std::to_string(bit)),
              "porep/challenge 1/data path/level 0/" + std::string(right ? "right " : "left ") + std::to_string(bit));
  }
  // A parent's label bit feeds the challenged node's layer-1 label first: its SHA-256 fails.
  size_t pbit = 0;
  while ((w.challenges[0].columns[1][1][pbit / 8] >> (7 - pbit % 8)) & 1) ++pbit;
  {
    const std::string failed =
        first_failure_after_tampering(c, "porep/challenge 0/parent 0/label 1/bit " + std::to_string(pbit));
    EXPECT_EQ(failed.rfind("porep/challenge 0/label 1/block ", 0), 0u) << failed;
  }
  // A 1 bit of the replica id's decomposition made 2 breaks its booleanity.
  size_t rbit = 0;
  while (!((w.replica[rbit / 8] >> (rbit % 8)) & 1)) ++rbit;
  EXPECT_EQ(first_failure_after_tampering(c, "porep/replica_id bits/bit " + std::to_string(rbit)),
            "porep/replica_id bits/bit " + std::to_string(rbit));
}

TYPED_TEST(Porep, SizeLandsWithinFivePercent) {
  using F = TypeParam;
  // Counted by synthesis (no proving) where that is quick, by the formula beyond: every power
  // of two from 2^12 to 2^20, the sizes between them below the smallest real shape (toys, with
  // reduced-round SHA-256), and a few beyond.
  std::vector<uint64_t> sizes;
  for (unsigned k = 12; k <= 20; ++k) sizes.push_back(uint64_t(1) << k);
  for (uint64_t n = 5000; n < 120000; n = n * 5 / 4) sizes.push_back(n);
  sizes.push_back(uint64_t(3) << 20);
  for (uint64_t n : sizes) {
    const PorepCircuit<F> c(n, 3, 1);
    CountingCS<F> cs;
    c.synthesize(cs);
    std::printf("porep %llu: %llu constraints, %s\n", (unsigned long long)n, (unsigned long long)cs.num_constraints(),
                c.describe().c_str());
    EXPECT_NEAR(double(cs.num_constraints()) / double(n), 1.0, 0.05) << c.describe();
    EXPECT_NEAR(double(cs.num_constraints()) / double(PorepCircuit<F>::predicted_constraints(c.shape())), 1.0, 0.001)
        << "the sizing formula follows synthesize(): " << c.describe();
  }
  // No gap: every target from 2^12 to 2^17 in steps of 4% (the formula is exact, above).
  for (double n = 4096; n <= 131072; n *= 1.04) {
    const PorepShape s = PorepCircuit<F>::choose_shape(uint64_t(n));
    EXPECT_NEAR(double(PorepCircuit<F>::predicted_constraints(s)) / n, 1.0, 0.05) << uint64_t(n);
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
  // Real SHA-256 from the smallest real shape up; toys (fewer rounds) only below it.
  EXPECT_EQ(s.rounds, 64u);
  EXPECT_EQ(PorepCircuit<F>::choose_shape(1 << 17).rounds, 64u);
  EXPECT_LT(PorepCircuit<F>::choose_shape(1 << 12).rounds, 64u);
}

// A toy shape (reduced-round SHA-256) is the same circuit: satisfied, with the public inputs
// of its native model, and a flipped bit in a label is caught.
TYPED_TEST(Porep, ToyShapesAreSatisfiedAndCatchAFlippedBit) {
  using F = TypeParam;
  for (uint64_t size : {uint64_t(1) << 12, uint64_t(1) << 14, uint64_t(50000)}) {
    const PorepCircuit<F> c(size, 3, 1);
    ASSERT_LT(c.shape().rounds, 64u) << c.describe();
    EXPECT_NE(c.describe().find("toy size"), std::string::npos) << c.describe();
    CheckingCS<F> cs;
    c.synthesize(cs);
    ASSERT_TRUE(cs.is_satisfied()) << c.describe() << ": " << cs.which_is_unsatisfied().value_or("");
    const std::vector<F> want = c.public_inputs();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], want[i]) << "input " << i + 1;
  }
  // A parent's label bit that is 0 made 1 (still boolean): the label's hash fails, by name.
  const PorepCircuit<F> c(uint64_t(1) << 12, 3, 1);
  const auto w = c.witness();
  size_t bit = 0;
  while ((w.challenges[0].columns[1][0][bit / 8] >> (7 - bit % 8)) & 1) ++bit;
  const std::string failed =
      first_failure_after_tampering(c, "porep/challenge 0/parent 0/label 0/bit " + std::to_string(bit));
  EXPECT_EQ(failed.rfind("porep/challenge 0/label 0/block ", 0), 0u) << failed;
}

// Reduced-round SHA-256 (toys only): 64 rounds is SHA-256 itself, fewer rounds differ from it
// and the gadget still equals the native function.
TYPED_TEST(Porep, ReducedRoundShaGadgetEqualsItsNativeModel) {
  using F = TypeParam;
  std::vector<uint8_t> msg(100);
  for (size_t i = 0; i < msg.size(); ++i) msg[i] = uint8_t(7 * i + 3);
  EXPECT_EQ(sha256::hash(msg, 64), sha256::hash(msg));
  for (size_t rounds : {1, 5, 16, 17, 63}) {
    CheckingCS<F> cs;
    const auto bits = sha256::alloc_bytes<F>(cs, "m", msg);
    const auto out = sha256::hash<F>(cs, bits, rounds);
    const auto native = sha256::hash(msg, rounds);
    EXPECT_TRUE(cs.is_satisfied()) << rounds;
    EXPECT_EQ(sha256::bytes_of<F>(out), std::vector<uint8_t>(native.begin(), native.end())) << rounds;
    EXPECT_NE(native, sha256::hash(msg)) << rounds;
  }
  EXPECT_THROW(sha256::hash(msg, 0), std::invalid_argument);
  EXPECT_THROW(sha256::hash(msg, 65), std::invalid_argument);
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
