// SPDX-License-Identifier: MIT
// Merkle inclusion gadgets for the two tree kinds of Filecoin's PoRep, and their native
// node functions:
//
//  * binary SHA-256 trees (the data tree): node = trunc(SHA-256(left || right)), where
//    trunc clears the three most significant bits of the digest's last byte so that every
//    node, read as a little-endian 32-byte integer, is below 2^253 < p on both curves
//    (Filecoin truncates two bits, which suffices for BLS12-381 but not for BN254). A level costs two SHA-256
//    compressions (the second over the constant padding block) plus 512 Ch constraints
//    that order (cur, sibling) by the direction bit.
//  * 8-ary Poseidon trees (the column tree): node = Poseidon_9(child_0..child_7). A level
//    takes the 8 children as private values and proves that the one at the path's position
//    (3 index bits, least significant first) is the current node: p = b0 b1 (1), the four
//    products of the two-bit selectors with b2 (4), sel_j (w_j - cur) = 0 (8), i.e. 13
//    constraints besides the hash.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/circuits/gadgets/poseidon.hpp"
#include "common/circuits/gadgets/sha256.hpp"

namespace zkmill::circuits {

using Node32 = std::array<uint8_t, 32>;

// ---- Native ----

inline Node32 truncate_node(Node32 d) {
  d[31] &= 0x1f;
  return d;
}
// `rounds` < 64: reduced-round SHA-256, for toy porep instances only (sha256.hpp).
inline Node32 sha256_node(const Node32& left, const Node32& right, size_t rounds = sha256::kRounds) {
  uint8_t buf[64];
  std::copy(left.begin(), left.end(), buf);
  std::copy(right.begin(), right.end(), buf + 32);
  return truncate_node(sha256::hash(buf, rounds));
}
// A truncated node as a field element (little-endian bytes).
template <class F>
F node_to_field(const Node32& n) {
  return F::from_bytes_le(n.data()).value();
}
template <class F>
F poseidon_node(std::span<const F, 8> children) {
  return Poseidon<F>::instance(9).hash(children);
}

// ---- Gadgets ----

// The 256 digest bits with the truncated positions (byte 31's three top bits) forced to 0.
template <class F>
std::vector<Bit<F>> truncate_bits(std::vector<Bit<F>> bits) {
  bits[248] = Bit<F>::constant(false);
  bits[249] = Bit<F>::constant(false);
  bits[250] = Bit<F>::constant(false);
  return bits;
}
// 256 bits in message order (a node's little-endian bytes, each byte MSB first) as the
// field element they denote: byte k bit j has weight 2^(8k + j).
template <class F>
Num<F> pack_node(std::span<const Bit<F>> bits) {
  Num<F> n{{}, F::zero()};
  for (size_t i = 0; i < 256; ++i) {
    const size_t weight = 8 * (i / 8) + (7 - i % 8);
    if (weight >= 253) continue;  // truncated away (constant 0)
    bits[i].add_to(n.lc, pow2<F>(weight));
    if (bits[i].value()) n.value += pow2<F>(weight);
  }
  return n;
}

template <class F>
std::vector<Bit<F>> sha256_node(cs::ConstraintSystem<F>& cs, std::span<const Bit<F>> left,
                                std::span<const Bit<F>> right, size_t rounds = sha256::kRounds) {
  std::vector<Bit<F>> msg(left.begin(), left.end());
  msg.insert(msg.end(), right.begin(), right.end());
  return truncate_bits(sha256::hash<F>(cs, msg, rounds));
}

// Root of a binary SHA-256 path: at level l, direction[l] = 1 puts the current node on the
// right. siblings[l] are 256 bits each.
template <class F>
std::vector<Bit<F>> sha256_merkle_root(cs::ConstraintSystem<F>& cs, std::vector<Bit<F>> cur,
                                       std::span<const std::vector<Bit<F>>> siblings, std::span<const Bit<F>> direction,
                                       size_t rounds = sha256::kRounds) {
  for (size_t l = 0; l < siblings.size(); ++l) {
    cs::Namespace<F> ns(cs, cs::Name("level", l));
    std::vector<Bit<F>> left(256), right(256);
    for (size_t i = 0; i < 256; ++i) {
      left[i] = Bit<F>::ch(cs, cs::Name("left", i), direction[l], siblings[l][i], cur[i]);
      right[i] = Bit<F>::ch(cs, cs::Name("right", i), direction[l], cur[i], siblings[l][i]);
    }
    cur = sha256_node<F>(cs, left, right, rounds);
  }
  return cur;
}

// One level of an 8-ary Poseidon path: `children` are the 8 native child values (the
// current node's among them at position idx = b0 + 2 b1 + 4 b2); returns the parent.
template <class F>
Num<F> poseidon8_level(cs::ConstraintSystem<F>& cs, const Num<F>& cur, std::span<const F, 8> children,
                       std::span<const Bit<F>, 3> idx) {
  using LC = cs::LinearCombination<F>;
  const cs::Variable one = cs::ConstraintSystem<F>::one();
  const Bit<F> p = Bit<F>::and_(cs, "b0 b1", idx[0], idx[1]);
  // q_k = [b0 + 2 b1 == k] as linear combinations of b0, b1 and p.
  std::array<LC, 4> q = {LC(one) - idx[0].lc() - idx[1].lc() + p.lc(), idx[0].lc() - p.lc(), idx[1].lc() - p.lc(),
                         p.lc()};
  std::array<LC, 8> sel;
  for (size_t k = 0; k < 4; ++k) {
    const bool qv = (size_t(idx[0].value()) + 2 * size_t(idx[1].value())) == k;
    const bool rv = qv && idx[2].value();
    const cs::Variable r = cs.alloc(cs::Name("select high", k), [&] { return rv ? F::one() : F::zero(); });
    cs.enforce(cs::Name("select high", k), q[k], idx[2].lc(), r);
    sel[k + 4] = LC(r);
    sel[k] = q[k] - r;
  }
  std::vector<Num<F>> w;
  w.reserve(8);
  for (size_t j = 0; j < 8; ++j) {
    w.push_back(Num<F>::alloc(cs, cs::Name("child", j), children[j]));
    cs.enforce(cs::Name("child at position", j), sel[j], w[j].lc - cur.lc, LC());
  }
  return Poseidon<F>::instance(9).hash(cs, std::move(w));
}

}  // namespace zkmill::circuits
