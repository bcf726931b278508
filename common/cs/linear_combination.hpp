// SPDX-License-Identifier: MIT
// R1CS variables and sparse linear combinations over a scalar field F, the vocabulary every
// constraint system and circuit speaks (bellman's design: an LC is a list of (variable, coeff)).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace zkmill::cs {

// A variable of the assignment z = (inputs ‖ aux). Input 0 is the constant ONE, allocated by
// every constraint system before synthesis starts. Packed into one word (top bit = aux) so a
// term stays 40 bytes and variables sort by (kind, index) as plain integers.
class Variable {
 public:
  enum class Kind : uint8_t { Input, Aux };

  constexpr Variable() = default;  // ONE: a default term is harmless rather than dangling
  static constexpr Variable input(uint64_t index) { return Variable(index); }
  static constexpr Variable aux(uint64_t index) { return Variable(index | kAuxBit); }
  static constexpr Variable one() { return input(0); }

  constexpr Kind kind() const { return (raw_ & kAuxBit) ? Kind::Aux : Kind::Input; }
  constexpr bool is_input() const { return !(raw_ & kAuxBit); }
  constexpr bool is_aux() const { return (raw_ & kAuxBit) != 0; }
  constexpr bool is_one() const { return raw_ == 0; }
  constexpr uint64_t index() const { return raw_ & ~kAuxBit; }
  constexpr uint64_t raw() const { return raw_; }  // total order: inputs first, then aux

  friend constexpr bool operator==(Variable a, Variable b) { return a.raw_ == b.raw_; }
  friend constexpr bool operator<(Variable a, Variable b) { return a.raw_ < b.raw_; }

 private:
  static constexpr uint64_t kAuxBit = uint64_t(1) << 63;
  constexpr explicit Variable(uint64_t raw) : raw_(raw) {}
  uint64_t raw_ = 0;
};

template <class F>
struct Term {
  Variable var;
  F coeff;
};

// coeff * var, so circuits can write `lc + k * one` or `x + term(k, one)`.
template <class F>
Term<F> term(const F& coeff, Variable v) {
  return Term<F>{v, coeff};
}
template <class F>
Term<F> operator*(const F& coeff, Variable v) {
  return Term<F>{v, coeff};
}

// A sparse linear combination sum coeff_i * var_i. Terms are kept in insertion order and
// duplicates are allowed (adding is then a plain append, as on the proving hot path);
// compact() merges them when a gadget needs bounded size. Up to kInline terms live inside
// the object: the proving CS builds several LCs per constraint and a heap allocation for
// each would cost as much as the field arithmetic they feed.
template <class F>
class LinearCombination {
 public:
  static constexpr size_t kInline = 16;
  using TermT = Term<F>;

  LinearCombination() = default;
  LinearCombination(Variable v) { push(TermT{v, F::one()}); }  // implicit: enforce(n, x, x, t)
  LinearCombination(const TermT& t) { push(t); }
  LinearCombination(const F& coeff, Variable v) { push(TermT{v, coeff}); }
  static LinearCombination constant(const F& c) { return LinearCombination(c, Variable::one()); }

  LinearCombination(const LinearCombination& o) { copy_from(o); }
  LinearCombination(LinearCombination&& o) noexcept { move_from(std::move(o)); }
  LinearCombination& operator=(const LinearCombination& o) {
    if (this != &o) {
      clear();
      copy_from(o);
    }
    return *this;
  }
  LinearCombination& operator=(LinearCombination&& o) noexcept {
    if (this != &o) {
      clear();
      move_from(std::move(o));
    }
    return *this;
  }
  ~LinearCombination() = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const TermT> terms() const { return {data(), size_}; }
  const TermT* begin() const { return data(); }
  const TermT* end() const { return data() + size_; }
  void clear() {
    size_ = 0;
    spilled_ = false;
    heap_.clear();
  }

  LinearCombination& add(const F& coeff, Variable v) {
    push(TermT{v, coeff});
    return *this;
  }
  LinearCombination& operator+=(Variable v) { return add(F::one(), v); }
  LinearCombination& operator-=(Variable v) { return add(-F::one(), v); }
  LinearCombination& operator+=(const TermT& t) { return add(t.coeff, t.var); }
  LinearCombination& operator-=(const TermT& t) { return add(-t.coeff, t.var); }
  LinearCombination& operator+=(const std::pair<F, Variable>& t) { return add(t.first, t.second); }
  LinearCombination& operator-=(const std::pair<F, Variable>& t) { return add(-t.first, t.second); }
  LinearCombination& operator+=(const LinearCombination& o) {
    for (const TermT& t : o.terms()) push(t);
    return *this;
  }
  LinearCombination& operator-=(const LinearCombination& o) {
    for (const TermT& t : o.terms()) push(TermT{t.var, -t.coeff});
    return *this;
  }
  LinearCombination& operator*=(const F& s) {
    TermT* d = data();
    for (size_t i = 0; i < size_; ++i) d[i].coeff *= s;
    return *this;
  }

  // Sorts by variable, merges duplicates and drops zero coefficients: the canonical form,
  // which bounds an LC by its number of distinct variables.
  void compact() {
    TermT* d = data();
    std::sort(d, d + size_, [](const TermT& x, const TermT& y) { return x.var < y.var; });
    size_t out = 0;
    for (size_t i = 0; i < size_;) {
      TermT acc = d[i];
      size_t j = i + 1;
      for (; j < size_ && d[j].var == acc.var; ++j) acc.coeff += d[j].coeff;
      if (!acc.coeff.is_zero()) d[out++] = acc;
      i = j;
    }
    size_ = out;
    if (spilled_) heap_.resize(out);
  }

  // <lc, z> given value_of(Variable) -> F. ONE's value is 1 by construction, and coefficients
  // of +-1 (most of them in practice) skip the multiplication.
  template <class ValueOf>
  F evaluate(ValueOf&& value_of) const {
    static const F kMinusOne = -F::one();
    F acc = F::zero();
    for (const TermT& t : terms()) {
      if (t.var.is_one()) {
        acc += t.coeff;
      } else if (t.coeff.is_one()) {
        acc += value_of(t.var);
      } else if (t.coeff == kMinusOne) {
        acc -= value_of(t.var);
      } else {
        acc += t.coeff * value_of(t.var);
      }
    }
    return acc;
  }

 private:
  const TermT* data() const { return spilled_ ? heap_.data() : inline_.t; }
  TermT* data() { return spilled_ ? heap_.data() : inline_.t; }

  void push(const TermT& t) {
    if (!spilled_) {
      if (size_ < kInline) {
        inline_.t[size_++] = t;
        return;
      }
      heap_.reserve(2 * kInline);
      heap_.assign(inline_.t, inline_.t + size_);
      spilled_ = true;
    }
    heap_.push_back(t);
    ++size_;
  }
  void copy_from(const LinearCombination& o) {
    if (o.spilled_) {
      heap_ = o.heap_;
      spilled_ = true;
    } else {
      std::copy_n(o.inline_.t, o.size_, inline_.t);
    }
    size_ = o.size_;
  }
  void move_from(LinearCombination&& o) {
    if (o.spilled_) {
      heap_ = std::move(o.heap_);
      spilled_ = true;
    } else {
      std::copy_n(o.inline_.t, o.size_, inline_.t);
    }
    size_ = o.size_;
    o.clear();
  }

  // Uninitialised inline storage: zeroing kInline field elements per LC would be pure waste.
  union Inline {
    Inline() {}
    TermT t[kInline];
  };
  Inline inline_;
  size_t size_ = 0;
  bool spilled_ = false;
  std::vector<TermT> heap_;
};

// Value-semantics operators: the left operand is taken by value so chains such as
// `lc + x - y + k * one` build in place without intermediate copies.
template <class F>
LinearCombination<F> operator+(LinearCombination<F> lc, Variable v) {
  return std::move(lc += v);
}
template <class F>
LinearCombination<F> operator-(LinearCombination<F> lc, Variable v) {
  return std::move(lc -= v);
}
template <class F>
LinearCombination<F> operator+(LinearCombination<F> lc, const Term<F>& t) {
  return std::move(lc += t);
}
template <class F>
LinearCombination<F> operator-(LinearCombination<F> lc, const Term<F>& t) {
  return std::move(lc -= t);
}
template <class F>
LinearCombination<F> operator+(LinearCombination<F> lc, const std::pair<F, Variable>& t) {
  return std::move(lc += t);
}
template <class F>
LinearCombination<F> operator-(LinearCombination<F> lc, const std::pair<F, Variable>& t) {
  return std::move(lc -= t);
}
template <class F>
LinearCombination<F> operator+(LinearCombination<F> lc, const LinearCombination<F>& o) {
  return std::move(lc += o);
}
template <class F>
LinearCombination<F> operator-(LinearCombination<F> lc, const LinearCombination<F>& o) {
  return std::move(lc -= o);
}
template <class F>
LinearCombination<F> operator*(LinearCombination<F> lc, const F& s) {
  return std::move(lc *= s);
}
template <class F>
LinearCombination<F> operator*(const F& s, LinearCombination<F> lc) {
  return std::move(lc *= s);
}
template <class F>
LinearCombination<F> operator-(LinearCombination<F> lc) {
  return std::move(lc *= -F::one());
}
// Variable on the left: x + k * one, x - t.
template <class F>
LinearCombination<F> operator+(Variable v, const Term<F>& t) {
  return LinearCombination<F>(v) + t;
}
template <class F>
LinearCombination<F> operator-(Variable v, const Term<F>& t) {
  return LinearCombination<F>(v) - t;
}
template <class F>
LinearCombination<F> operator+(const Term<F>& a, const Term<F>& b) {
  return LinearCombination<F>(a) + b;
}

}  // namespace zkmill::cs
