// SPDX-License-Identifier: MIT
// Boolean wires and the one-bit operations every bit-level hash gadget is built from
// (after bellman's Boolean: a bit is a constant, an allocated variable, or the negation of
// one, so NOT and every operation with a constant operand are free linear rewiring).
//
// Costs (constraints), for variable operands:
//   alloc       1   x * (1 - x) = 0                        (booleanity)
//   xor         1   (2a) * b = a + b - c                   (c = a + b - 2ab)
//   and         1   a * b = c
//   ch          1   e * (f - g) = c - g                    (c = e ? f : g, SHA-256's Ch)
//   maj         2   m = b * c;  a * (b + c - 2m) = out - m  (SHA-256's Maj)
// Maj cannot take one constraint: on {0,1}^3 its multilinear form ab + ac + bc - 2abc has a
// cubic term, while one R1CS row equates a product of two affine forms (degree <= 2 after
// x^2 = x) with an affine form. With a constant operand maj reduces to one AND (or OR).
// Values are plain bools, computed always (cheaper than testing whether anyone wants them).
#pragma once

#include <cstdint>
#include <vector>

#include "common/circuits/gadgets/num.hpp"
#include "common/cs/constraint_system.hpp"

namespace zkmill::circuits {

template <class F>
class Bit {
 public:
  using LC = cs::LinearCombination<F>;
  using CS = cs::ConstraintSystem<F>;
  using K = typename CS::Constraint;

  Bit() = default;  // the constant 0
  static Bit constant(bool v) { return Bit(Kind::Constant, cs::Variable::one(), v); }
  // A new private bit, constrained boolean.
  static Bit alloc(CS& cs, cs::Name name, bool value) {
    const cs::Variable x = cs.alloc(name, [&] { return value ? F::one() : F::zero(); });
    cs.enforce_with(name, [&] { return K{x, LC(CS::one()) - x, LC()}; });
    return Bit(Kind::Var, x, value);
  }
  // A variable already constrained boolean elsewhere (e.g. a bit of a range-checked value).
  static Bit from_checked_variable(cs::Variable x, bool value) { return Bit(Kind::Var, x, value); }

  bool value() const { return value_; }
  bool is_constant() const { return kind_ == Kind::Constant; }
  cs::Variable variable() const { return var_; }

  // The bit as a linear combination over z: x, 1 - x, or the constant.
  LC lc() const { return lc_scaled(F::one()); }
  // coeff * bit, appended to `out` (packing words without temporaries).
  void add_to(LC& out, const F& coeff) const {
    switch (kind_) {
      case Kind::Constant:
        if (value_) out.add(coeff, CS::one());
        break;
      case Kind::Var:
        out.add(coeff, var_);
        break;
      case Kind::NotVar:
        out.add(coeff, CS::one());
        out.add(-coeff, var_);
        break;
    }
  }
  LC lc_scaled(const F& coeff) const {
    LC out;
    add_to(out, coeff);
    return out;
  }

  Bit operator!() const {
    switch (kind_) {
      case Kind::Constant:
        return constant(!value_);
      case Kind::Var:
        return Bit(Kind::NotVar, var_, !value_);
      case Kind::NotVar:
        return Bit(Kind::Var, var_, !value_);
    }
    return *this;
  }

  static Bit xor_(CS& cs, cs::Name name, const Bit& a, const Bit& b) {
    if (a.is_constant()) return a.value_ ? !b : b;
    if (b.is_constant()) return b.value_ ? !a : a;
    // Negations commute with xor: strip them, xor the variables, re-apply the parity.
    const bool flip = (a.kind_ == Kind::NotVar) != (b.kind_ == Kind::NotVar);
    const bool xv = (a.kind_ == Kind::NotVar) != a.value_, yv = (b.kind_ == Kind::NotVar) != b.value_;
    const bool cv = xv != yv;
    const cs::Variable c = cs.alloc(name, [&] { return cv ? F::one() : F::zero(); });
    cs.enforce_with(name, [&] { return K{LC(F::one() + F::one(), a.var_), b.var_, LC(a.var_) + b.var_ - c}; });
    const Bit out(Kind::Var, c, cv);
    return flip ? !out : out;
  }

  static Bit and_(CS& cs, cs::Name name, const Bit& a, const Bit& b) {
    if (a.is_constant()) return a.value_ ? b : constant(false);
    if (b.is_constant()) return b.value_ ? a : constant(false);
    const bool v = a.value_ && b.value_;
    const cs::Variable c = cs.alloc(name, [&] { return v ? F::one() : F::zero(); });
    cs.enforce_with(name, [&] { return K{a.lc(), b.lc(), c}; });
    return Bit(Kind::Var, c, v);
  }

  // e ? f : g.
  static Bit ch(CS& cs, cs::Name name, const Bit& e, const Bit& f, const Bit& g) {
    if (e.is_constant()) return e.value_ ? f : g;
    if (f.is_constant() && g.is_constant()) {
      if (f.value_ == g.value_) return f;
      return f.value_ ? e : !e;
    }
    const bool v = e.value_ ? f.value_ : g.value_;
    const cs::Variable c = cs.alloc(name, [&] { return v ? F::one() : F::zero(); });
    cs.enforce_with(name, [&] { return K{e.lc(), f.lc() - g.lc(), LC(c) - g.lc()}; });
    return Bit(Kind::Var, c, v);
  }

  // Majority of three.
  static Bit maj(CS& cs, cs::Name name, const Bit& a, const Bit& b, const Bit& c) {
    // A constant operand k: maj(k, x, y) = k ? (x OR y) : (x AND y), and x OR y = !(!x AND !y).
    if (a.is_constant() || b.is_constant() || c.is_constant()) {
      const Bit& k = a.is_constant() ? a : b.is_constant() ? b : c;
      const Bit& x = a.is_constant() ? b : a;
      const Bit& y = a.is_constant() ? c : b.is_constant() ? c : b;
      return k.value_ ? !and_(cs, name, !x, !y) : and_(cs, name, x, y);
    }
    const bool mv = b.value_ && c.value_;
    const bool v = (a.value_ && b.value_) || (a.value_ && c.value_) || mv;
    const cs::Variable m = cs.alloc(name, [&] { return mv ? F::one() : F::zero(); });
    cs.enforce_with(name, [&] { return K{b.lc(), c.lc(), m}; });
    const cs::Variable out = cs.alloc(name, [&] { return v ? F::one() : F::zero(); });
    cs.enforce_with(name, [&] { return K{a.lc(), b.lc() + c.lc() - LC(F::one() + F::one(), m), LC(out) - m}; });
    return Bit(Kind::Var, out, v);
  }

  // a xor b xor c: two xors (free where an operand is constant).
  static Bit xor3(CS& cs, cs::Name name, const Bit& a, const Bit& b, const Bit& c) {
    // Constants first, so a constant operand never costs a constraint.
    if (a.is_constant()) return xor_(cs, name, xor_(cs, name, a, b), c);
    if (b.is_constant()) return xor_(cs, name, xor_(cs, name, b, a), c);
    return xor_(cs, name, xor_(cs, name, a, c), b);
  }

  // out = a when a and b are equal (for tests of gadgets: a * 1 = b on their LCs).
  static void enforce_equal(CS& cs, cs::Name name, const Bit& a, const Bit& b) {
    cs.enforce(name, a.lc() - b.lc(), CS::one(), LC());
  }

 private:
  enum class Kind : uint8_t { Constant, Var, NotVar };
  Bit(Kind k, cs::Variable v, bool value) : var_(v), value_(value), kind_(k) {}

  cs::Variable var_;
  bool value_ = false;
  Kind kind_ = Kind::Constant;
};

// 2^i as field elements, i < 256 (packing coefficients).
template <class F>
const F& pow2(size_t i) {
  static const std::vector<F> table = [] {
    std::vector<F> t(256);
    F x = F::one();
    for (F& e : t) {
      e = x;
      x = x + x;
    }
    return t;
  }();
  return table[i];
}

// sum_i 2^i bits[i] (bits little-endian).
template <class F>
cs::LinearCombination<F> pack_le(const std::vector<Bit<F>>& bits) {
  cs::LinearCombination<F> lc;
  for (size_t i = 0; i < bits.size(); ++i) bits[i].add_to(lc, pow2<F>(i));
  return lc;
}

// Little-endian decomposition of a field wire into n bits (n < the field's bit length, so
// the packing equation has exactly one solution): n booleanity constraints plus one packing
// constraint. Also a range check: the wire must be < 2^n.
template <class F>
std::vector<Bit<F>> to_bits_le(cs::ConstraintSystem<F>& cs, cs::Name name, const Num<F>& x, size_t n) {
  cs::Namespace<F> ns(cs, name);
  std::vector<Bit<F>> bits;
  bits.reserve(n);
  const auto canon = x.value.to_canonical();
  for (size_t i = 0; i < n; ++i) {
    const bool b = cs.needs_values() && ((canon[i / 64] >> (i % 64)) & 1);
    bits.push_back(Bit<F>::alloc(cs, cs::Name("bit", i), b));
  }
  cs.enforce_with("pack", [&] {
    return typename cs::ConstraintSystem<F>::Constraint{pack_le(bits), cs::ConstraintSystem<F>::one(), x.lc};
  });
  return bits;
}

}  // namespace zkmill::circuits
