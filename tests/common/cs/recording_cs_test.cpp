// SPDX-License-Identifier: MIT
// RecordingCS::run_parts on a thread pool: parts recorded at once give the one-thread recording
// exactly (rows, columns, values, density bitmaps, counts) however the parts' variables and
// rows fall across bitmap words and threads; parts that are not alike (another count of aux
// variables, constraints or non-zeros, an input, another part's variable, the outer CS used) are
// refused with a logic_error naming the part and what differs; a circuit without parts records
// the same with and without a pool. Bitmap::resize and or_at, which merge the parts' density.
#include "common/cs/recording_cs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;

namespace {

// How one part of PartsCircuit departs from the others (run_parts' contract).
enum class OddPart {
  kNone,
  kMoreAux,
  kFewerAux,
  kMoreConstraints,
  kMoreNonZeros,   // same variables and constraints, one more term in a row of B
  kInput,          // allocates an input
  kOtherPartsAux,  // a term names part 0's first variable instead of one of its own
  kOuterSystem,    // enforces a row on the circuit's CS instead of the one it is handed
};

// Inputs x, y and 5 aux variables before the parts (so the parts' slices start mid-word), then
// `parts` parts of `per_aux` aux variables and 5 constraints each; the rows use inputs, earlier
// variables, duplicates, zero coefficients and cancelling terms (density counts terms as
// written, rows merge them).
template <class F>
struct PartsCircuit {
  uint64_t parts = 9, per_aux = 7;
  OddPart odd = OddPart::kNone;
  uint64_t odd_part = 0;

  void synthesize(ConstraintSystem<F>& cs) const {
    using LC = LinearCombination<F>;
    const Variable x = cs.alloc_input("x", [] { return F::from_u64(3); });
    const Variable y = cs.alloc_input("y", [] { return F::from_u64(5); });
    std::vector<Variable> pre;
    for (uint64_t j = 0; j < 5; ++j) pre.push_back(cs.alloc("pre", [] { return F::one(); }));
    cs.enforce("pre", LC(pre[0]) + x, pre[1], pre[2]);
    // Part 0 runs first on every CS (on the recorder itself), so the odd part can find its variable.
    Variable part0_first{};
    cs.run_parts(parts, [&](ConstraintSystem<F>& pcs, uint64_t i) {
      const OddPart o = i == odd_part ? odd : OddPart::kNone;
      const uint64_t n = per_aux + (o == OddPart::kMoreAux) - (o == OddPart::kFewerAux);
      std::vector<Variable> own;
      for (uint64_t j = 0; j < n; ++j) own.push_back(pcs.alloc("own", [] { return F::one(); }));
      if (i == 0) part0_first = own[0];
      const F k = F::from_u64(i + 2);
      const Variable other = o == OddPart::kOtherPartsAux ? part0_first : own[1];
      pcs.enforce("a", own[0], LC(other) + own[2], LC(own[3]) + pre[i % 5]);
      pcs.enforce("b", LC(own[4]) + x + F::zero() * own[5], LC(y) + k * pre[(i + 1) % 5], own[1]);
      pcs.enforce("c", own[5], LC(own[0]) - own[0], LC());  // own[0] in B, no entry left
      LC b = LC(own[1]) + own[1] + pre[4];
      if (o == OddPart::kMoreNonZeros) b = b + x;
      pcs.enforce("d", LC(own[2]) + own[3] + own[4], b, LC(own[0]) + y);
      ConstraintSystem<F>& last = o == OddPart::kOuterSystem ? cs : pcs;
      last.enforce("e", LC(own[5]) + own[2], ConstraintSystem<F>::one(), k * own[3]);
      if (o == OddPart::kMoreConstraints) pcs.enforce("extra", own[0], own[0], own[0]);
      if (o == OddPart::kInput) (void)pcs.alloc_input("late", [] { return F::one(); });
    });
  }
};

template <class F, class Circuit>
R1CS<F> recording_of(const Circuit& c, util::ThreadPool* pool) {
  RecordingCS<F> rec(pool);
  c.synthesize(rec);
  return rec.finish();
}

// The attempt throws std::logic_error with every one of `says` in its message.
template <class Attempt>
void expect_refusal(Attempt&& attempt, const std::vector<std::string>& says) {
  try {
    attempt();
    ADD_FAILURE() << "accepted; expected a refusal saying '" << says.front() << "'";
  } catch (const std::logic_error& e) {
    for (const std::string& s : says) EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what();
  }
}

}  // namespace

template <class F>
class RecordingParts : public ::testing::Test {
 protected:
  util::ThreadPool two{2}, four{4};
};
using RecordingFields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(RecordingParts, RecordingFields);

TYPED_TEST(RecordingParts, PartsAtOnceGiveTheOneThreadRecording) {
  using F = TypeParam;
  util::ThreadPool one_thread(1);
  // Slices of 7 (mid-word starts), 64 (whole words from an odd offset) and 100 variables; fewer,
  // as many and more parts than threads; one part (nothing to run at once).
  for (const uint64_t per_aux : {7, 64, 100})
    for (const uint64_t parts : {1, 2, 4, 13}) {
      PartsCircuit<F> c;
      c.parts = parts;
      c.per_aux = per_aux;
      const R1CS<F> want = recording_of<F>(c, nullptr);
      ASSERT_EQ(want.n_aux, 5 + parts * per_aux);
      ASSERT_EQ(want.n_constraints, 1 + 5 * parts);
      for (util::ThreadPool* p : {&one_thread, &this->two, &this->four}) {
        const R1CS<F> got = recording_of<F>(c, p);
        EXPECT_EQ(got.n_aux, want.n_aux);
        EXPECT_EQ(got.n_constraints, want.n_constraints);
        EXPECT_EQ(got.A.nnz() + got.B.nnz() + got.C.nnz(), want.A.nnz() + want.B.nnz() + want.C.nnz());
        EXPECT_TRUE(got == want) << parts << " parts of " << per_aux << " aux on " << p->size() << " threads";
      }
    }
  // The density rule across parts: every part marks pre 4 in B and own[0] in B by cancelling
  // terms; pre 0..4 in B by k * pre[(i + 1) % 5] only from parts that reach them.
  PartsCircuit<F> c;
  c.parts = 3;
  const R1CS<F> r = recording_of<F>(c, &this->two);
  EXPECT_TRUE(r.aux_in_b.test(4) && r.aux_in_b.test(1) && r.aux_in_b.test(2) && r.aux_in_b.test(3));
  EXPECT_FALSE(r.aux_in_b.test(0)) << "pre 0 is in B through part 4 only";
  for (uint64_t i = 0; i < 3; ++i) EXPECT_TRUE(r.aux_in_b.test(5 + 7 * i)) << "part " << i << "'s own[0]";
  EXPECT_TRUE(r.input_in_b.test(2)) << "y, from every part";
  EXPECT_FALSE(r.input_in_b.test(1)) << "x is never in B";
}

TYPED_TEST(RecordingParts, PartsNotAlikeAreRefusedByName) {
  using F = TypeParam;
  auto pooled = [&](OddPart odd, uint64_t part) {
    return [=, this] {
      PartsCircuit<F> c;
      c.odd = odd;
      c.odd_part = part;
      (void)recording_of<F>(c, &this->four);
    };
  };
  // A middle part, the last (its slice ends the arrays: nothing may be written past them).
  for (const uint64_t p : {3, 8}) {
    const std::string part = "part " + std::to_string(p) + " of 9 has ";
    expect_refusal(pooled(OddPart::kMoreAux, p),
                   {part + "8 aux variables, 5 constraints", "part 0 has 7 aux variables"});
    expect_refusal(pooled(OddPart::kFewerAux, p), {part + "6 aux variables, 5 constraints", "must be alike"});
    expect_refusal(pooled(OddPart::kMoreConstraints, p),
                   {part + "7 aux variables, 6 constraints", "part 0 has 7 aux variables, 5 constraints"});
    expect_refusal(pooled(OddPart::kMoreNonZeros, p),
                   {part + "7 aux variables, 5 constraints and ", "non-zeros in A/B/C"});
    expect_refusal(pooled(OddPart::kInput, p), {"part " + std::to_string(p) + " of 9 allocates an input"});
    expect_refusal(pooled(OddPart::kOtherPartsAux, p),
                   {"part " + std::to_string(p) + " of 9 uses aux variable 5 of another part"});
    expect_refusal(pooled(OddPart::kOuterSystem, p), {"enforce while run_parts records the parts"});
  }
  // Part 0 odd: every other part differs from it, and the lowest one is named.
  expect_refusal(pooled(OddPart::kMoreAux, 0), {"part 1 of 9 has 7 aux variables", "part 0 has 8 aux variables"});
  expect_refusal(pooled(OddPart::kInput, 0), {"part 0 of 9 allocates 1 input(s)"});
  // The exact counts in a non-zero mismatch: one more entry in B than part 0.
  {
    PartsCircuit<F> c;
    const R1CS<F> r = recording_of<F>(c, nullptr);
    const uint64_t a = r.A.nnz() - r.n_inputs, b = r.B.nnz(), cc = r.C.nnz();  // without the input rows
    auto per = [&](uint64_t total, uint64_t pre) { return std::to_string((total - pre) / 9); };
    const std::string part0 = per(a, 2) + "/" + per(b, 1) + "/" + per(cc, 1);
    const std::string part5 = per(a, 2) + "/" + std::to_string((b - 1) / 9 + 1) + "/" + per(cc, 1);
    const std::string counts = "7 aux variables, 5 constraints and ";
    expect_refusal(pooled(OddPart::kMoreNonZeros, 5),
                   {"part 5 of 9 has " + counts + part5 + " non-zeros in A/B/C; part 0 has " + counts + part0});
  }
  // A failed recording is spent: it cannot be finished into a matrix that is not whole.
  PartsCircuit<F> c;
  c.odd = OddPart::kMoreAux;
  c.odd_part = 2;
  RecordingCS<F> rec(&this->two);
  EXPECT_THROW(c.synthesize(rec), std::logic_error);
  expect_refusal([&] { (void)rec.finish(); }, {"finish() while run_parts records the parts, or after it failed"});
  // Without a pool the same circuits record (in order, nothing checked): the contract is what
  // lets a pool record them at once.
  for (const OddPart odd :
       {OddPart::kMoreAux, OddPart::kMoreNonZeros, OddPart::kOtherPartsAux, OddPart::kOuterSystem}) {
    PartsCircuit<F> oc;
    oc.odd = odd;
    oc.odd_part = 3;
    EXPECT_NO_THROW((void)recording_of<F>(oc, nullptr));
  }
}

// Circuits that do not call run_parts (all but porep) record the same with a pool; porep at a
// small size has one challenge, so nothing runs at once there either.
TYPED_TEST(RecordingParts, CircuitsWithoutPartsRecordTheSameWithAPool) {
  using F = TypeParam;
  for (std::string_view name : circuits::circuit_names())
    for (const uint64_t size : {300, 5000}) {
      const auto c = circuits::make_circuit<F>(name, size, 0, 0);
      EXPECT_TRUE(recording_of<F>(*c, &this->four) == recording_of<F>(*c, nullptr)) << name << " " << size;
    }
}

TEST(RecordingBitmap, ResizeAndOrAtKeepBitsPastTheSizeZero) {
  Bitmap m;
  for (int i = 0; i < 70; ++i) m.push_back(i % 3 == 0);
  m.resize(67);
  EXPECT_EQ(m.size(), 67u);
  EXPECT_EQ(m.words()[1], 0b100u) << "bit 66 kept, bit 69 dropped";
  m.resize(200);
  EXPECT_EQ(m.count(), 23u) << "0, 3, .., 66";
  EXPECT_FALSE(m.test(69));
  // ORs at every offset against a bit-by-bit reference.
  for (size_t offset = 0; offset < 130; ++offset) {
    Bitmap src;
    for (size_t i = 0; i < 70; ++i) src.push_back(i % 5 == 1 || i == 69);
    Bitmap dst(offset + 70), want(offset + 70);
    dst.set(offset / 2);
    want.set(offset / 2);
    for (size_t i = 0; i < 70; ++i)
      if (src.test(i)) want.set(offset + i);
    dst.or_at(offset, src);
    EXPECT_TRUE(dst == want) << offset;
  }
  Bitmap small(10), big(20);
  EXPECT_THROW(small.or_at(0, big), std::logic_error);
  EXPECT_THROW(big.or_at(11, small), std::logic_error);
  EXPECT_NO_THROW(big.or_at(10, small));
}

}  // namespace zkmill::test
