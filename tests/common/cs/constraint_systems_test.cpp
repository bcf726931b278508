// SPDX-License-Identifier: MIT
// Linear combinations and the three constraint systems on small hand-written circuits, per
// scalar field: exact density bitmaps, CSR contents, name paths, and shape checking.
#include <gtest/gtest.h>

#include <random>

#include "common/cs/checking_cs.hpp"
#include "common/cs/pce_matrices.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;

namespace {

// inputs ONE, x = 3, y = 5; aux w0 = 2, w1 = 7, w2 = 14, w3 = 17, w4 = 85.
//   c0  w0 * w1 = w2
//   c1  (x + w2) * ONE = w3
//   c2  (w3 + 0*w1) * y = w4          a zero coefficient does not make w1 dense in A
//   c3  w4 * (w0 - w0) = 0            cancelling terms still count (rule: as written)
// so aux_in_a = {w0, w2, w3, w4}, aux_in_b = {w0, w1}, input_in_b = {ONE, y}.
template <class F>
struct HandCircuit {
  bool break_c2 = false;
  void synthesize(ConstraintSystem<F>& cs) const {
    using LC = LinearCombination<F>;
    Namespace<F> ns(cs, "hand");
    Variable x = cs.alloc_input("x", [] { return F::from_u64(3); });
    Variable y = cs.alloc_input("y", [] { return F::from_u64(5); });
    Variable w0 = cs.alloc("w0", [] { return F::from_u64(2); });
    Variable w1 = cs.alloc("w1", [] { return F::from_u64(7); });
    Variable w2 = cs.alloc("w2", [] { return F::from_u64(14); });
    Variable w3 = cs.alloc("w3", [] { return F::from_u64(17); });
    Variable w4 = cs.alloc("w4", [&] { return F::from_u64(break_c2 ? 86 : 85); });
    cs.enforce("c0", w0, w1, w2);
    cs.enforce("c1", LC(x) + w2, cs.one(), w3);
    {
      Namespace<F> inner(cs, Name("block", 7));
      cs.enforce(Name("c", 2), LC(w3) + F::zero() * w1, y, w4);
    }
    cs.enforce("c3", w4, LC(w0) - w0, LC());
  }
};

}  // namespace

template <class F>
class ConstraintSystems : public ::testing::Test {};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(ConstraintSystems, Fields);

TYPED_TEST(ConstraintSystems, LinearCombinationAlgebra) {
  using F = TypeParam;
  using LC = LinearCombination<F>;
  std::mt19937_64 rng(1);
  Variable x = Variable::aux(0), y = Variable::aux(1), i1 = Variable::input(1);
  F k = F::random(rng), vx = F::random(rng), vy = F::random(rng), vi = F::random(rng);
  auto z = [&](Variable v) {
    if (v == x) return vx;
    if (v == y) return vy;
    return v == i1 ? vi : F::one();
  };
  LC lc = LC(x) + y - i1 + k * Variable::one() + std::pair{k, y};
  EXPECT_EQ(lc.size(), 5u);
  EXPECT_EQ(lc.evaluate(z), vx + vy - vi + k + k * vy);
  EXPECT_EQ((lc * k).evaluate(z), (vx + vy - vi + k + k * vy) * k);
  EXPECT_EQ((lc - lc).evaluate(z), F::zero());
  LC twice = lc + lc;
  twice.compact();
  EXPECT_EQ(twice.size(), 4u) << "x, y, i1, ONE";
  EXPECT_EQ(twice.evaluate(z), lc.evaluate(z).dbl());
  LC gone = lc - lc;
  gone.compact();
  EXPECT_TRUE(gone.empty());
  // Beyond the inline capacity, copies and moves keep every term.
  LC big;
  F expect = F::zero();
  for (uint64_t i = 0; i < 3 * LC::kInline; ++i) {
    big.add(F::from_u64(i + 1), Variable::aux(i % 2));
    expect += F::from_u64(i + 1) * (i % 2 ? vy : vx);
  }
  LC copy = big, moved = std::move(copy);
  EXPECT_EQ(moved.evaluate(z), expect);
  moved.compact();
  EXPECT_EQ(moved.size(), 2u);
  EXPECT_EQ(moved.evaluate(z), expect);
}

TYPED_TEST(ConstraintSystems, NamesFormatLazily) {
  EXPECT_EQ(Name("round", 17).str(), "round 17");
  EXPECT_EQ(Name("enforce x_next").str(), "enforce x_next");
  NamePath p;
  p.push("chain");
  p.push(Name("round", 17));
  EXPECT_EQ(p.with_leaf("enforce x_next"), "chain/round 17/enforce x_next");
  p.pop();
  EXPECT_EQ(p.str(), "chain");
}

TYPED_TEST(ConstraintSystems, DensityOnHandCircuit) {
  using F = TypeParam;
  HandCircuit<F> circuit;
  RecordingCS<F> rec;
  circuit.synthesize(rec);
  R1CS<F> r = rec.finish();
  ProvingCS<F> prover;
  circuit.synthesize(prover);
  prover.finish();

  auto bits = [](const Bitmap& b) {
    std::vector<size_t> out;
    for (size_t i = 0; i < b.size(); ++i)
      if (b.test(i)) out.push_back(i);
    return out;
  };
  EXPECT_EQ(bits(r.aux_in_a), (std::vector<size_t>{0, 2, 3, 4}));
  EXPECT_EQ(bits(r.aux_in_b), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(bits(r.input_in_b), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(prover.aux_in_a(), r.aux_in_a);
  EXPECT_EQ(prover.aux_in_b(), r.aux_in_b);
  EXPECT_EQ(prover.input_in_b(), r.input_in_b);

  // Shape: 4 constraints + 3 input rows; c3's B row merged to nothing, c2's zero dropped.
  EXPECT_EQ(r.n_inputs, 3u);
  EXPECT_EQ(r.n_aux, 5u);
  EXPECT_EQ(r.n_constraints, 4u);
  EXPECT_EQ(r.A.rows(), 7u);
  EXPECT_EQ(r.B.row_cols(3).size(), 0u);
  EXPECT_EQ(r.A.row_cols(2).size(), 1u);
  EXPECT_EQ(r.A.row_cols(1)[0], 1u) << "x is input 1, z position 1";
  EXPECT_EQ(r.A.row_cols(1)[1], 3u + 2u) << "w2 sits after the 3 inputs";
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.A.row_cols(4 + i).size(), 1u);
    EXPECT_EQ(r.A.row_cols(4 + i)[0], i) << "input row " << i << " is A = input_i";
    EXPECT_EQ(r.B.row_cols(4 + i).size(), 0u);
    EXPECT_EQ(r.C.row_cols(4 + i).size(), 0u);
  }

  // Values: a = (2, 17, 17, 85, 1, 3, 5), and the mat-vec agrees with the single pass.
  ASSERT_EQ(prover.a().size(), 7u);
  EXPECT_EQ(prover.a()[1], F::from_u64(17));
  EXPECT_EQ(prover.a()[5], F::from_u64(3));
  EXPECT_EQ(prover.b()[5], F::zero());
  util::ThreadPool pool(2);
  const PceMatrices pce =
      PceMatrices::from_r1cs(r, {curve_of_scalar_field<F>(), "tiny", 0, r.n_inputs, r.n_aux, r.n_constraints});
  std::vector<F> a(r.n_rows()), b(r.n_rows()), c(r.n_rows());
  pce.multiply<F>(prover.inputs(), prover.aux(), a, b, c, pool);
  EXPECT_TRUE(std::ranges::equal(a, prover.a()));
  EXPECT_TRUE(std::ranges::equal(b, prover.b()));
  EXPECT_TRUE(std::ranges::equal(c, prover.c()));
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(prover.a()[i] * prover.b()[i], prover.c()[i]) << "row " << i;

  // The bundle carries the same bitmaps.
  WitnessBundle wb = std::move(prover).into_bundle(CircuitId{}, 0);
  for (size_t j = 0; j < 5; ++j) {
    EXPECT_EQ(wb.aux_in_a(j), r.aux_in_a.test(j));
    EXPECT_EQ(wb.aux_in_b(j), r.aux_in_b.test(j));
  }
  for (size_t j = 0; j < 3; ++j) EXPECT_EQ(wb.input_in_b(j), r.input_in_b.test(j));
}

TYPED_TEST(ConstraintSystems, CheckingNamesFirstFailure) {
  using F = TypeParam;
  CheckingCS<F> ok;
  HandCircuit<F>{}.synthesize(ok);
  EXPECT_TRUE(ok.is_satisfied());
  EXPECT_FALSE(ok.which_is_unsatisfied().has_value());
  EXPECT_EQ(ok.num_constraints(), 4u);

  CheckingCS<F> bad;
  HandCircuit<F>{true}.synthesize(bad);
  EXPECT_FALSE(bad.is_satisfied());
  EXPECT_EQ(bad.which_is_unsatisfied().value(), "hand/block 7/c 2");
  EXPECT_EQ(bad.unsatisfied_index().value(), 2u);

  CheckingCS<F> tampered(/*record_aux_names=*/true);
  tampered.tamper_aux(2);  // w2: c0 (its definition) fails first
  HandCircuit<F>{}.synthesize(tampered);
  EXPECT_EQ(tampered.which_is_unsatisfied().value(), "hand/c0");
  EXPECT_EQ(tampered.aux_name(2), "hand/w2");
  EXPECT_THROW(ok.aux_name(0), std::logic_error) << "names are opt-in";
}

TYPED_TEST(ConstraintSystems, RecordingNeverAsksForValues) {
  using F = TypeParam;
  RecordingCS<F> rec;
  int calls = 0;
  Variable v = rec.alloc("v", [&] {
    ++calls;
    return F::one();
  });
  rec.alloc_input("i", [&] {
    ++calls;
    return F::one();
  });
  rec.enforce("e", v, v, v);
  EXPECT_EQ(calls, 0);
  EXPECT_THROW(rec.enforce("foreign", Variable::aux(9), v, v), std::logic_error);
}

TYPED_TEST(ConstraintSystems, ProvingWithShapeWritesInPlaceAndChecksIt) {
  using F = TypeParam;
  HandCircuit<F> circuit;
  RecordingCS<F> rec;
  circuit.synthesize(rec);
  R1CS<F> r = rec.finish();
  CircuitId id{};
  id[0] = 0xab;

  ProvingCS<F> grow;
  circuit.synthesize(grow);
  WitnessBundle copied = std::move(grow).into_bundle(id, 4);
  ProvingCS<F> in_place(ProvingCS<F>::shape_of(r));
  circuit.synthesize(in_place);
  WitnessBundle direct = std::move(in_place).into_bundle(id, 4);
  EXPECT_TRUE(std::ranges::equal(copied.bytes(), direct.bytes())) << "both storage modes give the same image";

  auto shape = ProvingCS<F>::shape_of(r);
  shape.n_aux -= 1;
  ProvingCS<F> too_small(shape);
  EXPECT_THROW(circuit.synthesize(too_small), std::logic_error);
  shape = ProvingCS<F>::shape_of(r);
  shape.n_constraints += 1;
  ProvingCS<F> too_big(shape);
  circuit.synthesize(too_big);
  EXPECT_THROW(too_big.finish(), std::logic_error);
}

}  // namespace zkmill::test
