// SPDX-License-Identifier: MIT
// Precompiled constraint evaluation: the witness-only synthesis plus the mat-vec over the
// recorded, encoded, written and re-opened matrices gives ProvingCS's a, b, c and density maps
// bit for bit on every built-in circuit and both fields; and a PCE file that is truncated,
// corrupted, of another version or for another circuit shape is refused with a reason.
#include "common/cs/pce_matrices.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/circuits/circuit.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_cs.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;

namespace {

std::string temp_path(const std::string& leaf) {
  auto dir = std::filesystem::temp_directory_path() / ("zkmill-pce-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / leaf).string();
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
void write_all(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

template <class F>
PceShape shape_of(std::string_view name, uint64_t size, const R1CS<F>& r) {
  return {curve_of_scalar_field<F>(), std::string(name), size, r.n_inputs, r.n_aux, r.n_constraints};
}

// The reference mat-vec: m's CSR rows multiplied out term by term, serially, with every
// coefficient as the field element the recorder kept; columns below in.size() are inputs.
template <class F>
std::vector<F> reference_product(const CsrMatrix<F>& m, const std::vector<F>& in, const std::vector<F>& aux) {
  std::vector<F> out(m.rows(), F::zero());
  for (size_t row = 0; row < m.rows(); ++row)
    for (size_t k = 0; k < m.row_cols(row).size(); ++k) {
      const uint32_t col = m.row_cols(row)[k];
      out[row] += m.row_vals(row)[k] * (col < in.size() ? in[col] : aux[col - in.size()]);
    }
  return out;
}

}  // namespace

template <class F>
class Pce : public ::testing::Test {
 protected:
  util::ThreadPool pool{3};
};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(Pce, Fields);

TYPED_TEST(Pce, EqualsPlainSynthesisBitForBit) {
  using F = TypeParam;
  for (std::string_view name : circuits::circuit_names()) {
    for (uint64_t size : {uint64_t(300), uint64_t(9000)}) {
      auto shape_circuit = circuits::make_circuit<F>(name, size, 0, 0);
      RecordingCS<F> rec;
      shape_circuit->synthesize(rec);
      const R1CS<F> r1cs = rec.finish();
      const PceShape shape = shape_of(name, size, r1cs);
      const std::string path = temp_path(std::string(name) + "-" + std::to_string(size) + ".pce");
      PceMatrices::write_file(path, PceMatrices::encode<F>(r1cs, shape));
      const PceMatrices pce = PceMatrices::open(path, shape);
      EXPECT_EQ(pce.n_rows(), r1cs.n_rows());
      EXPECT_EQ(pce.nnz(), r1cs.A.nnz() + r1cs.B.nnz() + r1cs.C.nnz());
      for (uint64_t seed : {1, 99})
        for (uint64_t part : {0, 5}) {
          auto c = circuits::make_circuit<F>(name, size, seed, part);
          ProvingCS<F> plain;
          c->synthesize(plain);
          plain.finish();
          std::vector<F> in(r1cs.n_inputs), aux(r1cs.n_aux), a(r1cs.n_rows()), b(r1cs.n_rows()), cc(r1cs.n_rows());
          WitnessCS<F> wcs(in, aux, r1cs.n_constraints);
          c->synthesize(wcs);
          wcs.finish();
          pce.multiply<F>(in, aux, a, b, cc, this->pool);
          const std::string what =
              std::string(name) + " size " + std::to_string(size) + " seed " + std::to_string(seed);
          EXPECT_TRUE(std::ranges::equal(in, plain.inputs())) << what;
          EXPECT_TRUE(std::ranges::equal(aux, plain.aux())) << what;
          EXPECT_TRUE(std::ranges::equal(a, plain.a())) << what;
          EXPECT_TRUE(std::ranges::equal(b, plain.b())) << what;
          EXPECT_TRUE(std::ranges::equal(cc, plain.c())) << what;
        }
      EXPECT_TRUE(std::ranges::equal(pce.density(0), r1cs.aux_in_a.words()));
      EXPECT_TRUE(std::ranges::equal(pce.density(1), r1cs.aux_in_b.words()));
      EXPECT_TRUE(std::ranges::equal(pce.density(2), r1cs.input_in_b.words()));
    }
  }
}

// Every coefficient kind (+1, -1, table entries, repeated ones, on ONE and on variables) on a
// hand-made R1CS, against the recorded rows multiplied out term by term.
TYPED_TEST(Pce, CompactCoefficientsOnRandomMatrices) {
  using F = TypeParam;
  std::mt19937_64 rng(5);
  RecordingCS<F> rec;
  std::vector<Variable> vars{Variable::one()};
  for (int i = 0; i < 3; ++i) vars.push_back(rec.alloc_input("in", [] { return F::zero(); }));
  for (int i = 0; i < 200; ++i) vars.push_back(rec.alloc("x", [] { return F::zero(); }));
  const F small[] = {F::one(), -F::one(), F::from_u64(2), F::from_u64(1u << 20), -F::from_u64(3), F::random(rng)};
  auto random_lc = [&] {
    LinearCombination<F> lc;
    for (size_t t = 0, n = rng() % 6; t < n; ++t) lc += term(small[rng() % 6], vars[rng() % vars.size()]);
    return lc;
  };
  for (int row = 0; row < 500; ++row) rec.enforce("r", random_lc(), random_lc(), random_lc());
  const R1CS<F> r = rec.finish();
  const PceShape shape = shape_of("random", 0, r);
  const PceMatrices pce = PceMatrices::from_image(PceMatrices::encode<F>(r, shape), shape, "random");
  std::vector<F> in(r.n_inputs), aux(r.n_aux);
  in[0] = F::one();
  for (size_t i = 1; i < in.size(); ++i) in[i] = F::random(rng);
  for (auto& x : aux) x = rng() % 3 == 0 ? F::one() : F::random(rng);
  std::vector<F> a(r.n_rows()), b(r.n_rows()), c(r.n_rows());
  pce.multiply<F>(in, aux, a, b, c, this->pool);
  EXPECT_EQ(a, reference_product(r.A, in, aux));
  EXPECT_EQ(b, reference_product(r.B, in, aux));
  EXPECT_EQ(c, reference_product(r.C, in, aux));
}

// The bit-aware mat-vec on random sparse matrices: rows of 0 to 600 entries (short rows take
// the field-element path, long ones the lazy WideSum path), every coefficient class (+1, -1,
// powers of two, small negatives, random, on ONE, inputs and aux) over a witness of zeros,
// ones, p - 1 and random values, so each (coefficient, value) class pair, the +-1 count past
// the lookup table and the wide sum's folding all occur; against the term-by-term reference.
TYPED_TEST(Pce, BitAwareMatVecOnRandomSparseMatricesEqualsTheReference) {
  using F = TypeParam;
  for (uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 rng(seed);
    RecordingCS<F> rec;
    std::vector<Variable> vars{Variable::one()};
    for (int i = 0; i < 4; ++i) vars.push_back(rec.alloc_input("in", [] { return F::zero(); }));
    for (int i = 0; i < 3000; ++i) vars.push_back(rec.alloc("x", [] { return F::zero(); }));
    const F coeffs[] = {F::one(),        -F::one(),       F::from_u64(2), F::from_u64(uint64_t(1) << 31),
                        -F::from_u64(3), -F::from_u64(2), F::random(rng), F::random(rng)};
    auto random_lc = [&](size_t n, bool ones_only) {
      LinearCombination<F> lc;
      for (size_t t = 0; t < n; ++t)
        lc += term(ones_only ? (rng() & 1 ? F::one() : -F::one()) : coeffs[rng() % 8], vars[rng() % vars.size()]);
      return lc;
    };
    auto length = [&] {
      switch (rng() % 4) {
        case 0:
          return size_t(rng() % 3);
        case 1:
          return size_t(rng() % 12);
        case 2:
          return size_t(rng() % 80);
        default:
          return size_t(rng() % 600);
      }
    };
    for (int row = 0; row < 400; ++row) {
      const bool ones_only = rng() % 5 == 0;
      rec.enforce("r", random_lc(length(), ones_only), random_lc(length(), ones_only), random_lc(length(), false));
    }
    const R1CS<F> r = rec.finish();
    const PceShape shape = shape_of("random", 0, r);
    const PceMatrices pce = PceMatrices::from_image(PceMatrices::encode<F>(r, shape), shape, "random");
    // Mostly bits (as in PoRep), some p - 1 (the largest value: stresses the lazy sum) and
    // random values. inputs[0] is ONE.
    std::vector<F> in(r.n_inputs), aux(r.n_aux);
    auto value = [&]() {
      const uint64_t k = rng() % 10;
      return k < 4 ? F::zero() : k < 8 ? F::one() : k == 8 ? -F::one() : F::random(rng);
    };
    in[0] = F::one();
    for (size_t i = 1; i < in.size(); ++i) in[i] = value();
    for (auto& x : aux) x = value();
    // Long rows of +1 on variables equal to one: a count past the small-multiple table.
    for (size_t i = 0; i < 400; ++i) aux[i] = F::one();
    std::vector<F> a(r.n_rows()), b(r.n_rows()), c(r.n_rows());
    pce.multiply<F>(in, aux, a, b, c, this->pool);
    EXPECT_EQ(a, reference_product(r.A, in, aux)) << "seed " << seed;
    EXPECT_EQ(b, reference_product(r.B, in, aux)) << "seed " << seed;
    EXPECT_EQ(c, reference_product(r.C, in, aux)) << "seed " << seed;
  }
}

// Rows of 300 entries +-1 on variables equal to one (a count past the small-multiple lookup,
// converted by from_i64) and a row of 400 times p - 1 (the lazy sum's largest terms).
TYPED_TEST(Pce, LongRowsOfOnesAndExtremeValuesEqualTheFieldSum) {
  using F = TypeParam;
  RecordingCS<F> rec;
  std::vector<Variable> x;
  for (int i = 0; i < 700; ++i) x.push_back(rec.alloc("x", [] { return F::zero(); }));
  LinearCombination<F> plus, minus, big;
  for (int i = 0; i < 300; ++i) plus += x[size_t(i)];
  for (int i = 0; i < 300; ++i) minus -= x[size_t(i)];
  for (int i = 300; i < 700; ++i) big += x[size_t(i)];  // p - 1, 400 times: the lazy sum folds
  rec.enforce("r", plus, minus, big);
  const R1CS<F> r = rec.finish();
  const PceShape shape = shape_of("ones", 0, r);
  const PceMatrices pce = PceMatrices::from_image(PceMatrices::encode<F>(r, shape), shape, "ones");
  std::vector<F> in{F::one()}, aux(r.n_aux, F::one());
  for (size_t i = 300; i < 700; ++i) aux[i] = -F::one();
  std::vector<F> a(r.n_rows()), b(r.n_rows()), c(r.n_rows());
  pce.multiply<F>(in, aux, a, b, c, this->pool);
  EXPECT_EQ(a[0], F::from_u64(300));
  EXPECT_EQ(b[0], -F::from_u64(300));
  EXPECT_EQ(c[0], -F::from_u64(400));
}

// WideSum (the lazy accumulator of long rows) against plain field additions on random and
// extreme terms (0, 1, p - 1, masked), for sums of 1 to 5000 terms.
TYPED_TEST(Pce, WideSumEqualsFieldAdditions) {
  using F = TypeParam;
  std::mt19937_64 rng(11);
  for (size_t n : {1u, 2u, 3u, 9u, 64u, 257u, 5000u}) {
    for (int trial = 0; trial < 20; ++trial) {
      pce_detail::WideSum<F> wide;
      F sum = F::zero();
      for (size_t i = 0; i < n; ++i) {
        const uint64_t k = rng() % 6;
        const F t = k == 0 ? F::zero() : k == 1 ? F::one() : k < 4 ? -F::one() : F::random(rng);
        switch (rng() % 3) {
          case 0:
            wide.add(t);
            sum += t;
            break;
          case 1:
            wide.sub(t);
            sum -= t;
            break;
          default: {
            const bool on = rng() & 1;
            wide.add_masked(t, on ? ~uint64_t(0) : 0);
            if (on) sum += t;
          }
        }
      }
      EXPECT_EQ(wide.value(), sum) << n << " terms, trial " << trial;
    }
  }
}

class PceFile : public ::testing::Test {
 protected:
  using F = ff::Bn254Fr;
  void SetUp() override {
    auto c = circuits::make_circuit<F>("chain", 600, 0, 0);
    RecordingCS<F> rec;
    c->synthesize(rec);
    const R1CS<F> r = rec.finish();
    shape = shape_of("chain", 600, r);
    good = PceMatrices::encode<F>(r, shape);
    path = temp_path("bad.pce");
  }
  // open() on `bytes` must throw a PceError whose message contains `reason` and the path.
  void expect_refused(const std::vector<uint8_t>& bytes, const std::string& reason, const PceShape* other = nullptr) {
    write_all(path, bytes);
    try {
      (void)PceMatrices::open(path, other ? *other : shape);
      ADD_FAILURE() << "accepted a file that should be refused (" << reason << ")";
    } catch (const PceError& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  PceShape shape;
  std::vector<uint8_t> good;
  std::string path;
};

TEST_F(PceFile, IntactFileOpens) {
  write_all(path, good);
  EXPECT_NO_THROW((void)PceMatrices::open(path, shape));
  EXPECT_EQ(read_all(path).size(), good.size());
}

TEST_F(PceFile, MissingFileIsRefused) {
  std::filesystem::remove(path);
  EXPECT_THROW((void)PceMatrices::open(path, shape), PceError);
}

TEST_F(PceFile, TruncatedFileIsRefused) {
  for (size_t keep : {size_t(0), size_t(100), good.size() / 2, good.size() - 8, good.size() - 1}) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + ptrdiff_t(keep));
    expect_refused(cut, "truncated");
  }
}

TEST_F(PceFile, CorruptedByteAnywhereIsRefused) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 40; ++i) {
    std::vector<uint8_t> bad = good;
    const size_t at = PceHeader::kSize + rng() % (bad.size() - PceHeader::kSize);
    bad[at] ^= uint8_t(1 + rng() % 255);
    expect_refused(bad, "corrupted");
  }
  std::vector<uint8_t> bad = good;
  bad[150] ^= 1;  // the stored checksum itself
  expect_refused(bad, "checksum");
  bad = good;
  bad[0] = 'X';
  expect_refused(bad, "not a zkmill PCE file");
}

TEST_F(PceFile, OtherVersionIsRefused) {
  std::vector<uint8_t> bad = good;
  bad[8] = uint8_t(PceMatrices::kVersion + 1);
  expect_refused(bad, "PCE version 2, this build reads version 1");
}

TEST_F(PceFile, OtherCircuitOrCurveIsRefused) {
  for (int k = 0; k < 4; ++k) {
    PceShape other = shape;
    if (k == 0) other.circuit = "merkle";
    if (k == 1) other.size = 601;
    if (k == 2) other.curve = CurveId::Bls12_381;
    if (k == 3) other.n_aux += 3;
    expect_refused(good, "recorded for circuit 'chain' size 600", &other);
  }
}

TEST_F(PceFile, CircuitThatDoesNotMatchTheShapeIsRefused) {
  // A witness CS sized for 600 constraints fed the 900-constraint chain.
  auto c = circuits::make_circuit<F>("chain", 900, 1, 0);
  std::vector<F> in(shape.n_inputs), aux(shape.n_aux);
  WitnessCS<F> wcs(in, aux, shape.n_constraints);
  EXPECT_THROW(c->synthesize(wcs), std::logic_error);
}

}  // namespace zkmill::test
