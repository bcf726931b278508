// SPDX-License-Identifier: MIT
// Poseidon (Grassi, Khovratovich, Rechberger, Roy, Schofnegger, "Poseidon: A New Hash
// Function for Zero-Knowledge Proof Systems", USENIX Security 2021) with circomlib's
// parameters: S-box x^5, R_F = 8 full rounds (4 before, 4 after) around R_P partial rounds,
// R_P = 56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68 for widths t = 2..17.
// hash(x_1..x_n) permutes the state (0, x_1, .., x_n), t = n + 1, and returns word 0; a
// round adds constants, applies the S-box (to every word in a full round, to word 0 in a
// partial one) and multiplies by the MDS matrix, s'_i = sum_j M_ij s_j.
//
// Constants and MDS come from the paper's generation procedure (its reference script
// generate_parameters_grain.sage; docs/poseidon.md writes it out): an 80-bit Grain LFSR
// seeded with (field = 1, S-box = 0, n = bit length of p, t, R_F, R_P, thirty 1s), 160
// clocks discarded, output bits taken in pairs (the second bit when the first is 1);
// round constants are n-bit big-endian draws below p (others rejected), then 2t draws mod
// p give distinct x_0..x_{t-1}, y_0..y_{t-1} and the Cauchy MDS matrix M_ij = 1/(x_i + y_j).
// On BN254 (n = 254) this reproduces circomlib's poseidon_constants for every width, so the
// hash equals circomlib's Poseidon (tests/common/circuits/gadgets_test.cpp checks against
// circomlibjs and a circom witness). The first Cauchy candidate is taken: the reference
// script's extra MDS checks (its algorithms 1-3) are not re-run here; circomlib's matrices
// are that same first candidate. On BLS12-381 (n = 255) the same procedure gives that
// field's constants with circomlib's round numbers (no published instance to match).
//
// Gadget cost: 3 constraints per S-box (x2, x4, x5); constants and the MDS mix fold into
// linear combinations. In partial rounds words 1..t-1 grow by a term a round; a word past
// 2t terms is materialized (one constraint), bounding row weight at ~1 constraint a round.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/circuits/gadgets/num.hpp"

namespace zkmill::circuits {

template <class F>
class Poseidon {
 public:
  static constexpr size_t kMinWidth = 2, kMaxWidth = 17;
  static constexpr size_t kFullRounds = 8;
  static constexpr size_t kPartialRounds[kMaxWidth - 1] = {56, 57, 56, 60, 60, 63, 64, 63,
                                                           60, 66, 60, 65, 70, 60, 64, 68};

  // The instance of width t (built once, thread-safe).
  static const Poseidon& instance(size_t t) {
    if (t < kMinWidth || t > kMaxWidth)
      throw std::invalid_argument("Poseidon: width " + std::to_string(t) + " outside 2..17");
    static std::array<std::once_flag, kMaxWidth + 1> once;
    static std::array<std::unique_ptr<Poseidon>, kMaxWidth + 1> table;
    std::call_once(once[t], [t] { table[t].reset(new Poseidon(t)); });
    return *table[t];
  }

  size_t width() const { return t_; }
  size_t partial_rounds() const { return rp_; }
  size_t rounds() const { return kFullRounds + rp_; }
  const F& round_constant(size_t r, size_t i) const { return rc_[r * t_ + i]; }
  const F& mds(size_t i, size_t j) const { return mds_[i * t_ + j]; }
  bool is_full_round(size_t r) const { return r < kFullRounds / 2 || r >= kFullRounds / 2 + rp_; }

  // ---- Native ----
  void permute(std::span<F> s) const {
    std::vector<F> m(t_);
    for (size_t r = 0; r < rounds(); ++r) {
      for (size_t i = 0; i < t_; ++i) s[i] += round_constant(r, i);
      for (size_t i = 0; i < (is_full_round(r) ? t_ : 1); ++i) s[i] = s[i].square().square() * s[i];
      for (size_t i = 0; i < t_; ++i) {
        F acc = F::zero();
        for (size_t j = 0; j < t_; ++j) acc += mds(i, j) * s[j];
        m[i] = acc;
      }
      std::copy(m.begin(), m.end(), s.begin());
    }
  }
  // circomlib's Poseidon(inputs), inputs.size() == t - 1.
  F hash(std::span<const F> inputs) const {
    check_arity(inputs.size());
    std::vector<F> s(t_, F::zero());
    std::copy(inputs.begin(), inputs.end(), s.begin() + 1);
    permute(s);
    return s[0];
  }

  // ---- Gadget ----
  Num<F> hash(cs::ConstraintSystem<F>& cs, std::vector<Num<F>> inputs) const {
    check_arity(inputs.size());
    std::vector<Num<F>> s;
    s.reserve(t_);
    s.push_back(Num<F>::constant(F::zero()));
    for (Num<F>& x : inputs) s.push_back(std::move(x));
    permute(cs, s);
    return std::move(s[0]);
  }
  void permute(cs::ConstraintSystem<F>& cs, std::vector<Num<F>>& s) const {
    if (!cs.needs_constraints()) return permute_values(cs, s);
    permute_lcs(cs, s, nullptr);
  }

  // The state words materialized in partial rounds, as r * t + i in the order permute
  // allocates them. Which words grow past 2t terms depends on t and the constants alone: the
  // first round is full, so every input passes an S-box and leaves as one fresh variable
  // before any mixing, whatever its LC was. Recorded once by running the LC path.
  const std::vector<uint32_t>& materialization_schedule() const {
    std::call_once(schedule_once_, [this] {
      cs::CountingCS<F> counting;
      std::vector<Num<F>> s(t_);
      for (Num<F>& x : s) x = Num<F>::alloc(counting, "x", F::zero());
      permute_lcs(counting, s, &schedule_);
    });
    return schedule_;
  }

 private:
  explicit Poseidon(size_t t) : t_(t), rp_(kPartialRounds[t - 2]) { generate(); }

  void check_arity(size_t n) const {
    if (n + 1 != t_)
      throw std::invalid_argument("Poseidon: width " + std::to_string(t_) + " takes " + std::to_string(t_ - 1) +
                                  " inputs, got " + std::to_string(n));
  }

  // The Grain LFSR of the reference script: b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^
  // b_{i+23} ^ b_{i+13} ^ b_i, kept in an 80-bit ring.
  class Grain {
   public:
    Grain(size_t n, size_t t, size_t rf, size_t rp) {
      size_t k = 0;
      auto put = [&](uint64_t v, int width) {
        for (int i = width - 1; i >= 0; --i) bits_[k++] = (v >> i) & 1;
      };
      put(1, 2);   // field: GF(p)
      put(0, 4);   // S-box: x^alpha
      put(n, 12);  // field size in bits
      put(t, 12);
      put(rf, 10);
      put(rp, 10);
      put(0x3fffffff, 30);
      for (int i = 0; i < 160; ++i) clock();
    }
    bool next_bit() {
      for (;;) {
        const bool first = clock(), second = clock();
        if (first) return second;
      }
    }

   private:
    bool clock() {
      auto at = [&](size_t i) { return bits_[(pos_ + i) % 80]; };
      const bool b = at(62) ^ at(51) ^ at(38) ^ at(23) ^ at(13) ^ at(0);
      bits_[pos_] = b;  // overwrites b_i, which leaves the window
      pos_ = (pos_ + 1) % 80;
      return b;
    }
    std::array<bool, 80> bits_{};
    size_t pos_ = 0;
  };

  // n bits, most significant first, as little-endian limbs.
  static auto draw(Grain& g) {
    typename std::remove_cvref_t<decltype(F::modulus())> limbs{};
    for (size_t i = F::kBits; i-- > 0;)
      if (g.next_bit()) limbs[i / 64] |= uint64_t(1) << (i % 64);
    return limbs;
  }

  void generate() {
    Grain g(F::kBits, t_, kFullRounds, rp_);
    rc_.reserve(rounds() * t_);
    while (rc_.size() < rounds() * t_)
      if (std::optional<F> c = F::from_canonical(draw(g))) rc_.push_back(*c);
    for (;;) {
      std::vector<F> xy;
      for (size_t i = 0; i < 2 * t_; ++i) xy.push_back(reduce(draw(g)));
      bool ok = true;
      for (size_t i = 0; i < xy.size(); ++i)
        for (size_t j = 0; j < i; ++j) ok = ok && !(xy[i] == xy[j]);
      for (size_t i = 0; ok && i < t_; ++i)
        for (size_t j = 0; j < t_; ++j) ok = ok && !(xy[i] + xy[t_ + j]).is_zero();
      if (!ok) continue;  // the script draws again; never seen in practice
      mds_.resize(t_ * t_);
      for (size_t i = 0; i < t_; ++i)
        for (size_t j = 0; j < t_; ++j) mds_[i * t_ + j] = (xy[i] + xy[t_ + j]).inverse();
      return;
    }
  }
  // An n-bit integer mod p (it is below 2p, since p > 2^(n-1)).
  template <class L>
  static F reduce(const L& v) {
    if (std::optional<F> x = F::from_canonical(v)) return *x;
    L d{};
    uint64_t borrow = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      const unsigned __int128 diff = (unsigned __int128)v[i] - F::modulus()[i] - borrow;
      d[i] = uint64_t(diff);
      borrow = uint64_t(diff >> 64) ? 1 : 0;
    }
    return F::from_canonical(d).value();
  }

  // The LC path (recording, proving, checking); appends materialized words to *schedule.
  void permute_lcs(cs::ConstraintSystem<F>& cs, std::vector<Num<F>>& s, std::vector<uint32_t>* schedule) const {
    const bool values = cs.needs_values();
    const cs::Variable one = cs::ConstraintSystem<F>::one();
    for (size_t r = 0; r < rounds(); ++r) {
      const bool full = is_full_round(r);
      cs::Namespace<F> ns(cs, full ? cs::Name("full round", r) : cs::Name("partial round", r));
      for (size_t i = 0; i < t_; ++i) {
        s[i].lc.add(round_constant(r, i), one);
        if (values) s[i].value += round_constant(r, i);
      }
      for (size_t i = 0; i < (full ? t_ : 1); ++i) s[i] = sbox(cs, s[i], i);
      mix(s, values);
      if (!full)
        for (size_t i = 1; i < t_; ++i)
          if (s[i].lc.size() > 2 * t_) {
            s[i] = materialize(cs, s[i], i);
            if (schedule) schedule->push_back(uint32_t(r * t_ + i));
          }
    }
  }

  // The witness-only path: the same allocations and enforce() calls in the same order, the
  // values computed natively, no linear combination built (the outputs' LCs are empty).
  void permute_values(cs::ConstraintSystem<F>& cs, std::vector<Num<F>>& s) const {
    const std::vector<uint32_t>& schedule = materialization_schedule();
    size_t next = 0;
    std::vector<F> v(t_), m(t_);
    for (size_t i = 0; i < t_; ++i) v[i] = s[i].value;
    for (size_t r = 0; r < rounds(); ++r) {
      const bool full = is_full_round(r);
      cs::Namespace<F> ns(cs, full ? cs::Name("full round", r) : cs::Name("partial round", r));
      for (size_t i = 0; i < t_; ++i) v[i] += round_constant(r, i);
      for (size_t i = 0; i < (full ? t_ : 1); ++i) v[i] = sbox_value(cs, v[i], i);
      for (size_t i = 0; i < t_; ++i) {
        F acc = F::zero();
        for (size_t j = 0; j < t_; ++j) acc += mds(i, j) * v[j];
        m[i] = acc;
      }
      std::swap(v, m);
      for (; next < schedule.size() && schedule[next] / t_ == r; ++next) {
        const size_t i = schedule[next] % t_;
        cs.alloc(cs::Name("state", i), [&] { return v[i]; });
        count_constraint(cs, cs::Name("materialize state", i));
      }
    }
    for (size_t i = 0; i < t_; ++i) s[i] = Num<F>{{}, v[i]};
  }
  static F sbox_value(cs::ConstraintSystem<F>& cs, const F& x, size_t i) {
    cs::Namespace<F> ns(cs, cs::Name("sbox", i));
    const F x2 = x.square(), x4 = x2.square(), x5 = x4 * x;
    cs.alloc("x2", [&] { return x2; });
    count_constraint(cs, "x2 = x*x");
    cs.alloc("x4", [&] { return x4; });
    count_constraint(cs, "x4 = x2*x2");
    cs.alloc("x5", [&] { return x5; });
    count_constraint(cs, "x5 = x4*x");
    return x5;
  }
  // A constraint of the witness-only path (only reached when !cs.needs_constraints(), so the
  // empty builder is never called).
  static void count_constraint(cs::ConstraintSystem<F>& cs, cs::Name name) {
    cs.enforce_with(name, [] { return typename cs::ConstraintSystem<F>::Constraint{}; });
  }

  void mix(std::vector<Num<F>>& s, bool values) const {
    std::vector<Num<F>> out(t_);
    for (size_t i = 0; i < t_; ++i) {
      for (size_t j = 0; j < t_; ++j)
        for (const cs::Term<F>& term : s[j].lc.terms()) out[i].lc.add(mds(i, j) * term.coeff, term.var);
      out[i].lc.compact();
      if (values) {
        F acc = F::zero();
        for (size_t j = 0; j < t_; ++j) acc += mds(i, j) * s[j].value;
        out[i].value = acc;
      }
    }
    s = std::move(out);
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
    return Num<F>::of(v5, x5);
  }
  static Num<F> materialize(cs::ConstraintSystem<F>& cs, const Num<F>& in, size_t i) {
    const cs::Variable v = cs.alloc(cs::Name("state", i), [&] { return in.value; });
    cs.enforce(cs::Name("materialize state", i), in.lc, cs::ConstraintSystem<F>::one(), v);
    return Num<F>::of(v, in.value);
  }

  size_t t_, rp_;
  std::vector<F> rc_, mds_;
  mutable std::once_flag schedule_once_;
  mutable std::vector<uint32_t> schedule_;
};

}  // namespace zkmill::circuits
