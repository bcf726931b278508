// SPDX-License-Identifier: MIT
// "chain": a hash chain x_{i+1} = (x_i + k_i)^5, three multiplicative constraints a round.
//
//   round i:  t = (x_i + k_i)^2      "enforce t"       (x_i + k_i) * (x_i + k_i) = t
//             u = t^2                "enforce u"       t * t = u
//             x_{i+1} = u (x_i + k_i) "enforce x_next"  u * (x_i + k_i) = x_{i+1}
//
// In round 0 the offset is k_0 + partition (public input 1 enters the first LC), binding the
// partition index into the chain. x_0 is private, derived from (seed, partition); x_last is
// public input 2. Round constants k_i are counter-mode PRF outputs of a fixed domain string.
// rounds = max(1, size / 3), so the constraint count is 3 * rounds <= size (within 2).
// Shape: inputs (ONE, partition, x_last); aux x_0 = aux 0, then (t, u, x_next) = aux
// 3i+1, 3i+2, 3i+3 for round i < rounds - 1 (the last x_next is the input).
#pragma once

#include <algorithm>
#include <string>

#include "common/circuits/circuit.hpp"
#include "common/circuits/prf.hpp"

namespace zkmill::circuits {

template <class F>
class ChainCircuit final : public Circuit<F> {
 public:
  static constexpr std::string_view kName = "chain";
  static constexpr std::string_view kConstantsDomain = "zkmill/chain/round-constants/v1";
  static constexpr std::string_view kWitnessDomain = "zkmill/chain/witness/v1";

  ChainCircuit(uint64_t size, uint64_t seed, uint64_t partition)
      : size_(size), seed_(seed), partition_(partition), rounds_(std::max<uint64_t>(1, size / 3)) {}

  std::string_view name() const override { return kName; }
  uint64_t size() const override { return size_; }
  uint64_t seed() const override { return seed_; }
  uint64_t partition() const override { return partition_; }
  uint64_t rounds() const { return rounds_; }
  std::string describe() const override {
    return "chain: " + std::to_string(rounds_) + " rounds of x' = (x + k)^5, " + std::to_string(3 * rounds_) +
           " constraints";
  }

  static F round_constant(uint64_t i) {
    static const uint64_t key = prf_key(kConstantsDomain);
    return prf_field<F>(key, i);
  }
  static F initial_value(uint64_t seed, uint64_t partition) {
    return prf_field<F>(prf_key(kWitnessDomain, seed, partition), 0);
  }

  std::vector<F> public_inputs() const override { return {F::from_u64(partition_), native_output()}; }

  // The chain computed natively, for tests and for checking a proof's public input.
  F native_output() const {
    F x = initial_value(seed_, partition_);
    for (uint64_t i = 0; i < rounds_; ++i) {
      F xk = x + round_constant(i);
      if (i == 0) xk += F::from_u64(partition_);
      x = xk.square().square() * xk;
    }
    return x;
  }

  void synthesize(cs::ConstraintSystem<F>& cs) const override {
    using LC = cs::LinearCombination<F>;
    using cs::Name;
    using cs::Variable;
    cs::Namespace<F> ns(cs, "chain");
    const Variable one = cs::ConstraintSystem<F>::one();
    // Native values live in these locals and are updated only inside value callbacks, which
    // run in allocation order and only when the CS wants values: recording costs nothing.
    F x_val, xk_val, t_val, u_val;
    const Variable p = cs.alloc_input("partition", [&] { return F::from_u64(partition_); });
    Variable x = cs.alloc("x0", [&] { return x_val = initial_value(seed_, partition_); });
    // A witness-only CS (PCE) ignores the constraints: xk is then left empty. The other sides
    // are single variables, and passing xk twice by reference lets ProvingCS see a squaring.
    const bool lcs = cs.needs_constraints();
    for (uint64_t i = 0; i < rounds_; ++i) {
      cs::Namespace<F> round(cs, Name("round", i));
      const F k = round_constant(i);
      LC xk;
      if (lcs) {
        xk = LC(x) + k * one;
        if (i == 0) xk += p;
      }
      const Variable t = cs.alloc("t", [&] {
        xk_val = x_val + k;
        if (i == 0) xk_val += F::from_u64(partition_);
        return t_val = xk_val.square();
      });
      cs.enforce("enforce t", xk, xk, t);
      const Variable u = cs.alloc("u", [&] { return u_val = t_val.square(); });
      cs.enforce("enforce u", t, t, u);
      auto next = [&] { return x_val = u_val * xk_val; };
      const Variable x_next = i + 1 == rounds_ ? cs.alloc_input("x_last", next) : cs.alloc("x_next", next);
      cs.enforce("enforce x_next", u, xk, x_next);
      x = x_next;
    }
  }

 private:
  uint64_t size_, seed_, partition_, rounds_;
};

}  // namespace zkmill::circuits
