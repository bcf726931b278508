// SPDX-License-Identifier: MIT
// zkey new's parallel grouping of an r1cs's terms by signal (terms_by_signal.hpp) against the
// serial walk it replaced, on random circuits written out as .r1cs bytes: the same vectors for
// every pool size (one thread, a few, more threads than constraints), with empty linear
// combinations, empty constraints, signals in no constraint, no constraints at all; and for a
// malformed file the same error as the serial walk (the first bad constraint in file order),
// however many threads read it and whichever of them meets a problem first.
#include "common/setup/terms_by_signal.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/curves/bn254.hpp"

namespace zkmill::test {
namespace {

using Fr = curves::Bn254::Fr;
using Limbs = std::remove_cvref_t<decltype(Fr::modulus())>;

struct Term {
  uint32_t wire;
  Limbs value;  // canonical, or >= r for a malformed file
};
using Lc = std::vector<Term>;
struct Circuit {
  uint32_t n_wires = 0;
  std::vector<std::array<Lc, 3>> rows;
};

void put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
void put64(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
void put_limbs(std::vector<uint8_t>& b, const Limbs& v) {
  for (auto l : v) put64(b, l);
}

// The .r1cs file (version 1: header, constraints, wire-to-label map); `extra` bytes appended
// to the constraints section, `cut` bytes taken off its end.
std::vector<uint8_t> r1cs_bytes(const Circuit& c, size_t extra = 0, size_t cut = 0) {
  std::vector<uint8_t> hdr, cons, labels, f;
  put32(hdr, 32);
  put_limbs(hdr, Fr::modulus());
  put32(hdr, c.n_wires);
  put32(hdr, 1);  // one public output
  put32(hdr, 0);
  put32(hdr, 0);
  put64(hdr, c.n_wires);
  put32(hdr, uint32_t(c.rows.size()));
  for (const auto& row : c.rows)
    for (const auto& lc : row) {
      put32(cons, uint32_t(lc.size()));
      for (const auto& t : lc) {
        put32(cons, t.wire);
        put_limbs(cons, t.value);
      }
    }
  cons.resize(cons.size() + extra, 0);
  cons.resize(cons.size() - cut);
  for (uint32_t w = 0; w < c.n_wires; ++w) put64(labels, w);
  f.insert(f.end(), {'r', '1', 'c', 's'});
  put32(f, 1);
  put32(f, 3);
  uint32_t type = 1;
  for (const auto* s : {&hdr, &cons, &labels}) {
    put32(f, type++);
    put64(f, s->size());
    f.insert(f.end(), s->begin(), s->end());
  }
  return f;
}

// Coefficients as circom writes them: mostly +-1 and +-2^k, some others (0 included). A wire
// appears at most once per linear combination; the last wire is in no constraint.
Circuit random_circuit(std::mt19937_64& rng, uint32_t n_wires, uint32_t rows, uint32_t max_terms) {
  Circuit c;
  c.n_wires = n_wires;
  c.rows.resize(rows);
  std::vector<uint32_t> wires(n_wires - 1);
  for (uint32_t w = 0; w + 1 < n_wires; ++w) wires[w] = w;
  for (auto& row : c.rows)
    for (auto& lc : row) {
      const uint32_t k = std::min<uint32_t>(uint32_t(rng() % (max_terms + 1)), n_wires - 1);
      std::shuffle(wires.begin(), wires.end(), rng);
      for (uint32_t i = 0; i < k; ++i) {
        Fr v;
        switch (rng() % 6) {
          case 0:
            v = Fr::one();
            break;
          case 1:
            v = -Fr::one();
            break;
          case 2:
          case 3: {
            Fr p = Fr::one();
            for (uint64_t e = 1 + rng() % 40; e; --e) p = p + p;
            v = rng() % 2 ? p : -p;
            break;
          }
          case 4:
            v = Fr::zero();
            break;
          default:
            v = Fr::random(rng);
        }
        lc.push_back({wires[i], v.to_canonical()});
      }
    }
  return c;
}

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const formats::FormatError& e) {
    return e.what();
  }
  return "";
}

const std::vector<size_t> kPools{1, 2, 3, 8, 33};

TEST(TermsBySignal, ParallelEqualsSerial) {
  std::mt19937_64 rng(19);
  struct Shape {
    uint32_t wires, rows, max_terms;
  };
  // Empty circuit; fewer rows than threads; rows with empty combinations (max 0..2 terms);
  // wide and long ones.
  for (const Shape s :
       {Shape{2, 0, 3}, Shape{5, 3, 2}, Shape{9, 20, 0}, Shape{40, 300, 2}, Shape{300, 2000, 6}, Shape{3000, 700, 40}})
    for (size_t threads : kPools) {
      const auto bytes = r1cs_bytes(random_circuit(rng, s.wires, s.rows, s.max_terms));
      const auto r1cs = formats::R1csFile::parse(bytes, "t.r1cs");
      util::ThreadPool pool(threads);
      const auto serial = setup::terms_by_signal_serial<Fr>(r1cs);
      const auto par = setup::terms_by_signal<Fr>(r1cs, setup::ConstraintIndex::scan<Fr>(r1cs), pool);
      for (int m = 0; m < 3; ++m) {
        EXPECT_EQ(par[m], serial[m]) << s.wires << " wires, " << s.rows << " rows, matrix " << m << ", " << threads
                                     << " threads";
        // The last wire is in no constraint: an empty group.
        EXPECT_EQ(par[m].start[s.wires], par[m].start[s.wires - 1]);
      }
    }
}

TEST(TermsBySignal, SameErrorAsTheSerialWalk) {
  std::mt19937_64 rng(7);
  const Circuit good = random_circuit(rng, 50, 400, 4);
  Limbs too_big = Fr::modulus();
  // A bad wire and a bad coefficient: alone, the later first, both; truncated and padded sections.
  auto first_term = [](Circuit& c, uint32_t row) -> Term& {
    for (auto& lc : c.rows[row])
      if (!lc.empty()) return lc.front();
    c.rows[row][2].push_back({0, Fr::one().to_canonical()});
    return c.rows[row][2].front();
  };
  std::vector<std::vector<uint8_t>> bad;
  for (uint32_t row : {0u, 133u, 399u}) {
    Circuit c = good;
    first_term(c, row).wire = 50;
    bad.push_back(r1cs_bytes(c));
    c = good;
    first_term(c, row).value = too_big;
    bad.push_back(r1cs_bytes(c));
  }
  // Values just above r and the largest encodable: the range check compares limb by limb.
  Limbs r_plus_1 = Fr::modulus(), all_ones = Fr::modulus();
  r_plus_1[0] += 1;
  for (auto& limb : all_ones) limb = ~uint64_t(0);
  for (const Limbs& v : {r_plus_1, all_ones}) {
    Circuit c = good;
    first_term(c, 250).value = v;
    bad.push_back(r1cs_bytes(c));
  }
  {
    Circuit c = good;
    first_term(c, 371).wire = 1000;
    first_term(c, 12).value = too_big;
    bad.push_back(r1cs_bytes(c));
    first_term(c, 5).wire = 77;
    bad.push_back(r1cs_bytes(c));
  }
  bad.push_back(r1cs_bytes(good, 0, 3));
  bad.push_back(r1cs_bytes(good, 0, 40));
  bad.push_back(r1cs_bytes(good, 5, 0));
  {
    // A bad wire before a truncated count: the bad wire is what the serial walk meets first.
    Circuit c = good;
    first_term(c, 20).wire = 51;
    bad.push_back(r1cs_bytes(c, 0, 100));
  }
  for (size_t i = 0; i < bad.size(); ++i) {
    const auto r1cs = formats::R1csFile::parse(bad[i], "bad.r1cs");
    const std::string want = error_of([&] { setup::terms_by_signal_serial<Fr>(r1cs); });
    ASSERT_NE(want, "") << "case " << i;
    EXPECT_EQ(want.rfind("bad.r1cs: ", 0), 0u) << want;
    for (size_t threads : kPools)
      for (int rep = 0; rep < 3; ++rep) {
        util::ThreadPool pool(threads);
        const std::string got = error_of([&] {
          const auto ix = setup::ConstraintIndex::scan<Fr>(r1cs);
          setup::terms_by_signal<Fr>(r1cs, ix, pool);
        });
        EXPECT_EQ(got, want) << "case " << i << ", " << threads << " threads";
      }
  }
}

}  // namespace
}  // namespace zkmill::test
