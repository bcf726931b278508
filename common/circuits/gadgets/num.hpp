// SPDX-License-Identifier: MIT
// A field-valued wire of a gadget: a linear combination together with its native value. The
// value is meaningful only when the constraint system wants values (cs.needs_values());
// gadgets skip the native arithmetic otherwise, so recording a shape costs no hashing.
#pragma once

#include "common/cs/constraint_system.hpp"

namespace zkmill::circuits {

template <class F>
struct Num {
  cs::LinearCombination<F> lc;
  F value;

  static Num constant(const F& c) { return Num{cs::LinearCombination<F>::constant(c), c}; }
  static Num of(cs::Variable v, const F& value) { return Num{cs::LinearCombination<F>(v), value}; }
  // A fresh private variable holding `value` (no constraint: the caller binds it).
  static Num alloc(cs::ConstraintSystem<F>& cs, cs::Name name, const F& value) {
    return of(cs.alloc(name, [&] { return value; }), value);
  }
};

}  // namespace zkmill::circuits
