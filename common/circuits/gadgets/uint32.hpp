// SPDX-License-Identifier: MIT
// 32-bit words as 32 Bit wires (little-endian: bits[0] is the least significant), the
// vocabulary of SHA-256. Rotations and shifts are free (they only renumber wires; a shift
// brings in constant zeros); xor/and cost one constraint per variable bit pair, Ch one per
// bit, Maj two per bit (boolean.hpp explains why not one).
//
// Addition mod 2^32 packs any number of operands into one equation (bellman's addmany):
// with k variable operands the integer sum S < k 2^32 + K (K the folded constants mod 2^32)
// fits in w = bitlen(max S) bits, so we allocate the w result bits (w booleanity
// constraints) and enforce sum_j sum_i 2^i x_ji + K = sum_i 2^i r_i (one constraint, exact
// over the field since 2^w is far below p); the low 32 bits are the result. A 2-operand
// add costs 34 constraints, a 7-operand add 36, instead of ~32 per pairwise add.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "common/circuits/gadgets/boolean.hpp"

namespace zkmill::circuits {

template <class F>
class UInt32 {
 public:
  using B = Bit<F>;
  using CS = cs::ConstraintSystem<F>;

  UInt32() : UInt32(constant(0)) {}
  static UInt32 constant(uint32_t v) {
    UInt32 w(v);
    for (size_t i = 0; i < 32; ++i) w.bits_[i] = B::constant((v >> i) & 1);
    return w;
  }
  // A new private word: 32 booleanity constraints.
  static UInt32 alloc(CS& cs, cs::Name name, uint32_t v) {
    cs::Namespace<F> ns(cs, name);
    UInt32 w(v);
    for (size_t i = 0; i < 32; ++i) w.bits_[i] = B::alloc(cs, cs::Name("bit", i), (v >> i) & 1);
    return w;
  }
  // From 32 bits in big-endian order (a message's bit stream: SHA-256 reads words that way).
  static UInt32 from_bits_be(std::span<const B> bits) {
    UInt32 w(0);
    uint32_t v = 0;
    for (size_t i = 0; i < 32; ++i) {
      w.bits_[31 - i] = bits[i];
      v = (v << 1) | uint32_t(bits[i].value());
    }
    w.value_ = v;
    return w;
  }
  void append_bits_be(std::vector<B>& out) const {
    for (size_t i = 32; i-- > 0;) out.push_back(bits_[i]);
  }

  uint32_t value() const { return value_; }
  const std::array<B, 32>& bits() const { return bits_; }
  bool is_constant() const {
    for (const B& b : bits_)
      if (!b.is_constant()) return false;
    return true;
  }

  UInt32 rotr(unsigned n) const {
    n %= 32;
    UInt32 w(std::rotr(value_, int(n)));
    for (size_t i = 0; i < 32; ++i) w.bits_[i] = bits_[(i + n) % 32];
    return w;
  }
  UInt32 shr(unsigned n) const {
    UInt32 w(n >= 32 ? 0 : value_ >> n);
    for (size_t i = 0; i < 32; ++i) w.bits_[i] = i + n < 32 ? bits_[i + n] : B::constant(false);
    return w;
  }
  UInt32 operator~() const {
    UInt32 w(~value_);
    for (size_t i = 0; i < 32; ++i) w.bits_[i] = !bits_[i];
    return w;
  }

  static UInt32 xor_(CS& cs, cs::Name name, const UInt32& a, const UInt32& b) {
    return bitwise(cs, name, a.value_ ^ b.value_,
                   [&](cs::Name n, size_t i) { return B::xor_(cs, n, a.bits_[i], b.bits_[i]); });
  }
  static UInt32 and_(CS& cs, cs::Name name, const UInt32& a, const UInt32& b) {
    return bitwise(cs, name, a.value_ & b.value_,
                   [&](cs::Name n, size_t i) { return B::and_(cs, n, a.bits_[i], b.bits_[i]); });
  }
  static UInt32 xor3(CS& cs, cs::Name name, const UInt32& a, const UInt32& b, const UInt32& c) {
    return bitwise(cs, name, a.value_ ^ b.value_ ^ c.value_,
                   [&](cs::Name n, size_t i) { return B::xor3(cs, n, a.bits_[i], b.bits_[i], c.bits_[i]); });
  }
  // SHA-256 Ch(e, f, g) = (e AND f) XOR (NOT e AND g): one constraint per variable bit.
  static UInt32 ch(CS& cs, cs::Name name, const UInt32& e, const UInt32& f, const UInt32& g) {
    return bitwise(cs, name, (e.value_ & f.value_) ^ (~e.value_ & g.value_),
                   [&](cs::Name n, size_t i) { return B::ch(cs, n, e.bits_[i], f.bits_[i], g.bits_[i]); });
  }
  // SHA-256 Maj(a, b, c) = (a AND b) XOR (a AND c) XOR (b AND c).
  static UInt32 maj(CS& cs, cs::Name name, const UInt32& a, const UInt32& b, const UInt32& c) {
    return bitwise(cs, name, (a.value_ & b.value_) ^ (a.value_ & c.value_) ^ (b.value_ & c.value_),
                   [&](cs::Name n, size_t i) { return B::maj(cs, n, a.bits_[i], b.bits_[i], c.bits_[i]); });
  }

  // (sum of operands) mod 2^32 in one packed equation (see the file comment).
  static UInt32 addmany(CS& cs, cs::Name name, std::span<const UInt32> operands) {
    uint64_t constant_sum = 0, value_sum = 0, n_var = 0;
    for (const UInt32& w : operands) {
      value_sum += w.value_;
      if (w.is_constant())
        constant_sum += w.value_;
      else
        ++n_var;
    }
    const uint32_t result = uint32_t(value_sum);
    if (n_var == 0) return constant(result);
    constant_sum &= 0xffffffffu;
    const uint64_t max_sum = n_var * 0xffffffffull + constant_sum;
    const size_t width = size_t(std::bit_width(max_sum));
    // The integer the result bits hold: the variable operands plus the reduced constant.
    uint64_t var_sum = 0;
    for (const UInt32& w : operands)
      if (!w.is_constant()) var_sum += w.value_;
    const uint64_t total = var_sum + constant_sum;
    cs::Namespace<F> ns(cs, name);
    std::vector<B> r;
    r.reserve(width);
    for (size_t i = 0; i < width; ++i) r.push_back(B::alloc(cs, cs::Name("sum bit", i), (total >> i) & 1));
    cs.enforce_with("packed sum", [&] {
      cs::LinearCombination<F> lhs;
      for (const UInt32& w : operands)
        if (!w.is_constant())
          for (size_t i = 0; i < 32; ++i) w.bits_[i].add_to(lhs, pow2<F>(i));
      if (constant_sum) lhs.add(F::from_u64(constant_sum), CS::one());
      return typename CS::Constraint{std::move(lhs), CS::one(), pack_le(r)};
    });
    UInt32 out(result);
    for (size_t i = 0; i < 32; ++i) out.bits_[i] = r[i];
    return out;
  }

 private:
  explicit UInt32(uint32_t v) : value_(v) {}

  template <class Op>
  static UInt32 bitwise(CS& cs, cs::Name name, uint32_t value, Op&& op) {
    cs::Namespace<F> ns(cs, name);
    UInt32 w(value);
    for (size_t i = 0; i < 32; ++i) w.bits_[i] = op(cs::Name("bit", i), i);
    return w;
  }

  std::array<B, 32> bits_;
  uint32_t value_ = 0;
};

}  // namespace zkmill::circuits
