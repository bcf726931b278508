// SPDX-License-Identifier: MIT
// A Poseidon-STYLE permutation (after Grassi et al., "Poseidon: A New Hash Function for
// Zero-Knowledge Proof Systems", USENIX Security 2021) and its R1CS gadget, used by the
// "merkle" circuit as realistic hashing work.
//
// It is NOT a standardized Poseidon instance and must not be used where one is expected:
// the shape follows the paper (width t = 3, x^5 S-box, R_F = 8 full rounds split 4 + 4
// around R_P = 57 partial rounds, a Cauchy MDS matrix, round = add constants, S-box, mix),
// but every constant is drawn from zkmill's own PRF keyed by a fixed domain string, with no
// Grain LFSR and no security analysis of this instance.
//
// Gadget cost: an S-box is 3 constraints (x2 = x*x, x4 = x2*x2, x5 = x4*x). Constants and
// the MDS mix are folded into linear combinations, which are free. In partial rounds the
// two un-S-boxed state words would otherwise grow by one term per round; when they exceed
// kMaxStateTerms they are materialized (one constraint each, `lc * 1 = v`), bounding the
// matrices' row weight at the price of a few constraints per hash.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/circuits/gadgets/num.hpp"
#include "common/circuits/prf.hpp"
#include "common/cs/constraint_system.hpp"

namespace zkmill::circuits {

template <class F>
class PoseidonStyle {
 public:
  static constexpr size_t kWidth = 3;
  static constexpr size_t kFullRounds = 8;
  static constexpr size_t kPartialRounds = 57;
  static constexpr size_t kRounds = kFullRounds + kPartialRounds;
  // Measured: synthesis time per hash is nearly flat for thresholds 3..8 (fewer terms, more
  // constraints); 4 gives 301 constraints per hash with rows of at most 6 terms.
  static constexpr size_t kMaxStateTerms = 4;
  static constexpr std::string_view kDomain = "zkmill/poseidon-style/t3-x5-rf8-rp57/v1";
  using State = std::array<F, kWidth>;

  // The one instance per field, built on first use (thread-safe static init).
  static const PoseidonStyle& instance() {
    static const PoseidonStyle p;
    return p;
  }

  const F& round_constant(size_t round, size_t i) const { return rc_[round][i]; }
  const F& mds(size_t i, size_t j) const { return mds_[i][j]; }

  static bool is_full_round(size_t r) { return r < kFullRounds / 2 || r >= kFullRounds / 2 + kPartialRounds; }

  // The permutation on native values.
  State permute(State s) const {
    for (size_t r = 0; r < kRounds; ++r) {
      for (size_t i = 0; i < kWidth; ++i) s[i] += rc_[r][i];
      for (size_t i = 0; i < (is_full_round(r) ? kWidth : 1); ++i) s[i] = s[i].square().square() * s[i];
      State m{};
      for (size_t i = 0; i < kWidth; ++i)
        for (size_t j = 0; j < kWidth; ++j) m[i] += mds_[i][j] * s[j];
      s = m;
    }
    return s;
  }
  // Two-to-one compression: state (capacity, left, right), output word 1.
  F hash2(const F& capacity, const F& left, const F& right) const { return permute({capacity, left, right})[1]; }

  // The gadget: permutes `state` in constraints and returns the output state.
  std::array<Num<F>, kWidth> permute(cs::ConstraintSystem<F>& cs, std::array<Num<F>, kWidth> s) const {
    const bool values = cs.needs_values();
    const cs::Variable one = cs::ConstraintSystem<F>::one();
    for (size_t r = 0; r < kRounds; ++r) {
      const bool full = is_full_round(r);
      cs::Namespace<F> ns(cs, full ? cs::Name("full round", r) : cs::Name("partial round", r));
      for (size_t i = 0; i < kWidth; ++i) {
        s[i].lc += rc_[r][i] * one;
        if (values) s[i].value += rc_[r][i];
      }
      for (size_t i = 0; i < (full ? kWidth : 1); ++i) s[i] = sbox(cs, s[i], i);
      mix(s, values);
      if (!full)
        for (size_t i = 1; i < kWidth; ++i)
          if (s[i].lc.size() > kMaxStateTerms) s[i] = materialize(cs, s[i], i);
    }
    return s;
  }
  Num<F> hash2(cs::ConstraintSystem<F>& cs, Num<F> capacity, Num<F> left, Num<F> right) const {
    auto out = permute(cs, {std::move(capacity), std::move(left), std::move(right)});
    return std::move(out[1]);
  }

 private:
  PoseidonStyle() {
    const uint64_t rc_key = prf_key(kDomain, 1);
    for (size_t r = 0; r < kRounds; ++r)
      for (size_t i = 0; i < kWidth; ++i) rc_[r][i] = prf_field<F>(rc_key, r * kWidth + i);
    // Cauchy matrix M[i][j] = 1 / (x_i + y_j): MDS whenever the x_i are distinct, the y_j
    // are distinct and no x_i + y_j is zero, all checked (a failure would be a 2^-250 event).
    const uint64_t mds_key = prf_key(kDomain, 2);
    std::array<F, kWidth> x, y;
    for (size_t i = 0; i < kWidth; ++i) {
      x[i] = prf_field<F>(mds_key, i);
      y[i] = prf_field<F>(mds_key, kWidth + i);
    }
    for (size_t i = 0; i < kWidth; ++i)
      for (size_t j = 0; j < kWidth; ++j) {
        if ((i != j && (x[i] == x[j] || y[i] == y[j])) || (x[i] + y[j]).is_zero())
          throw std::logic_error("PoseidonStyle: degenerate Cauchy matrix");
        mds_[i][j] = (x[i] + y[j]).inverse();
      }
  }

  // s <- M s on linear combinations (and values). The three inputs share most variables,
  // so their terms are gathered and sorted once and each distinct variable's output
  // coefficients computed from its three input coefficients: one sort per round instead
  // of nine scaled LC copies and three compactions (this was the gadget's main cost).
  void mix(std::array<Num<F>, kWidth>& s, bool values) const {
    struct Entry {
      cs::Variable var;
      size_t j;
      F coeff;
    };
    thread_local std::vector<Entry> gathered;  // reused: no allocation per round
    gathered.clear();
    for (size_t j = 0; j < kWidth; ++j)
      for (const cs::Term<F>& t : s[j].lc.terms()) gathered.push_back({t.var, j, t.coeff});
    std::sort(gathered.begin(), gathered.end(), [](const Entry& a, const Entry& b) { return a.var < b.var; });
    if (values) {
      State v{};
      for (size_t i = 0; i < kWidth; ++i)
        for (size_t j = 0; j < kWidth; ++j) v[i] += mds_[i][j] * s[j].value;
      for (size_t i = 0; i < kWidth; ++i) s[i].value = v[i];
    }
    for (size_t i = 0; i < kWidth; ++i) s[i].lc.clear();
    for (size_t k = 0; k < gathered.size();) {
      const cs::Variable var = gathered[k].var;
      State c{};
      bool present[kWidth] = {};
      for (; k < gathered.size() && gathered[k].var == var; ++k) {
        c[gathered[k].j] += gathered[k].coeff;
        present[gathered[k].j] = true;
      }
      for (size_t i = 0; i < kWidth; ++i) {
        F out = F::zero();
        for (size_t j = 0; j < kWidth; ++j)
          if (present[j]) out += mds_[i][j] * c[j];
        if (!out.is_zero()) s[i].lc.add(out, var);
      }
    }
  }

  static Num<F> sbox(cs::ConstraintSystem<F>& cs, const Num<F>& in, size_t i) {
    cs::Namespace<F> ns(cs, cs::Name("sbox", i));
    F x2, x4, x5;
    const cs::Variable v2 = cs.alloc("x2", [&] { return x2 = in.value.square(); });
    cs.enforce("x2 = x*x", in.lc, in.lc, v2);
    const cs::Variable v4 = cs.alloc("x4", [&] { return x4 = x2.square(); });
    cs.enforce("x4 = x2*x2", v2, v2, v4);
    const cs::Variable v5 = cs.alloc("x5", [&] { return x5 = x4 * in.value; });
    cs.enforce("x5 = x4*x", v4, in.lc, v5);
    return Num<F>{cs::LinearCombination<F>(v5), x5};
  }

  static Num<F> materialize(cs::ConstraintSystem<F>& cs, const Num<F>& in, size_t i) {
    const cs::Variable v = cs.alloc(cs::Name("state", i), [&] { return in.value; });
    cs.enforce(cs::Name("materialize state", i), in.lc, cs::ConstraintSystem<F>::one(), v);
    return Num<F>{cs::LinearCombination<F>(v), in.value};
  }

  std::array<std::array<F, kWidth>, kRounds> rc_;
  std::array<std::array<F, kWidth>, kWidth> mds_;
};

}  // namespace zkmill::circuits
