// SPDX-License-Identifier: MIT
// "merkle": membership proofs for a batch of Merkle paths under a two-to-one compression by
// circomlib's width-3 Poseidon permutation (gadgets/poseidon.hpp): state (capacity, left,
// right), output word 1, the capacity word carrying a level or fold tag (domain separation).
//
// Per path: a private leaf; per level a private sibling and a private direction bit b,
//   "booleanity"  b * (1 - b) = 0
//   "swap"        b * (sibling - cur) = left - cur     (left = b ? sibling : cur)
//                 right = cur + sibling - left          (free: a linear combination)
//   cur' = H(capacity, left, right), capacity = level tag (+ partition on level 0)
// Paths are folded into one public value, acc = root_0, acc = H(fold tag, acc, root_j),
// and "enforce root" binds acc to public input 2 (input 1 is the partition index, which
// also enters every path's first capacity word, so the statement depends on it).
//
// Sizing: a level costs H + 2 constraints (H per hash, measured once by counting), a fold
// H, the root 1. From the target size we pick the total number of levels L, split it into
// P = ceil(L / kMaxDepth) paths of nearly equal depth (<= 32), so the total lands within
// about half a level (H / 2 constraints) of the target once the target exceeds a level.
// Leaves, siblings and bits are drawn from (seed, partition) with one PRF stream per path.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/circuits/gadgets/poseidon.hpp"
#include "common/circuits/prf.hpp"

namespace zkmill::circuits {

template <class F>
class MerkleCircuit final : public Circuit<F> {
 public:
  static constexpr std::string_view kName = "merkle";
  static constexpr std::string_view kWitnessDomain = "zkmill/merkle/witness/v1";
  static constexpr uint64_t kMaxDepth = 32;

  MerkleCircuit(uint64_t size, uint64_t seed, uint64_t partition) : size_(size), seed_(seed), partition_(partition) {
    const int64_t h = int64_t(constraints_per_hash()), level = h + 2, target = int64_t(std::max<uint64_t>(size, 1));
    int64_t levels = 1, paths = 1;
    // Folds depend on the path count and the path count on the levels: iterate to a fixed
    // point (two or three steps in practice).
    for (int iter = 0; iter < 8; ++iter) {
      int64_t budget = target - 1 - (paths - 1) * h;
      int64_t l = std::max<int64_t>(1, std::llround(double(std::max<int64_t>(budget, 0)) / double(level)));
      int64_t p = (l + int64_t(kMaxDepth) - 1) / int64_t(kMaxDepth);
      if (l == levels && p == paths) break;
      levels = l;
      paths = p;
    }
    for (int64_t j = 0; j < paths; ++j) depths_.push_back(uint64_t(levels / paths + (j < levels % paths ? 1 : 0)));
  }

  std::string_view name() const override { return kName; }
  uint64_t size() const override { return size_; }
  uint64_t seed() const override { return seed_; }
  uint64_t partition() const override { return partition_; }
  const std::vector<uint64_t>& depths() const { return depths_; }
  uint64_t expected_constraints() const {
    uint64_t levels = 0;
    for (uint64_t d : depths_) levels += d;
    return levels * (constraints_per_hash() + 2) + (depths_.size() - 1) * constraints_per_hash() + 1;
  }
  std::string describe() const override {
    std::string s =
        "merkle: " + std::to_string(depths_.size()) + " path(s) of depth " + std::to_string(depths_.front());
    if (depths_.back() != depths_.front()) s += ".." + std::to_string(depths_.back());
    return s + ", " + std::to_string(constraints_per_hash()) + " constraints per hash, " +
           std::to_string(expected_constraints()) + " constraints";
  }

  // Constraints of one gadget hash, counted once per field.
  static uint64_t constraints_per_hash() {
    static const uint64_t n = [] {
      cs::CountingCS<F> counter;
      auto in = [&] {
        return Num<F>{cs::LinearCombination<F>(counter.alloc("in", [] { return F::zero(); })), F::zero()};
      };
      compress(counter, in(), in(), in());
      return counter.num_constraints();
    }();
    return n;
  }

  // The compression H(capacity, left, right): Poseidon(3)'s permutation, output word 1.
  static F compress(const F& capacity, const F& left, const F& right) {
    std::array<F, 3> s{capacity, left, right};
    Poseidon<F>::instance(3).permute(s);
    return s[1];
  }
  static Num<F> compress(cs::ConstraintSystem<F>& cs, Num<F> capacity, Num<F> left, Num<F> right) {
    std::vector<Num<F>> s;
    s.reserve(3);
    s.push_back(std::move(capacity));
    s.push_back(std::move(left));
    s.push_back(std::move(right));
    Poseidon<F>::instance(3).permute(cs, s);
    return std::move(s[1]);
  }

  static F level_tag(uint64_t level) { return F::from_u64(level + 1); }
  static F fold_tag() { return F::from_u64(uint64_t(1) << 32); }

  std::vector<F> public_inputs() const override { return {F::from_u64(partition_), native_root()}; }

  // The public root computed natively (same PRF draws as synthesize).
  F native_root() const {
    const uint64_t key = prf_key(kWitnessDomain, seed_, partition_);
    F acc;
    for (size_t j = 0; j < depths_.size(); ++j) {
      PrfStream rng(key, j);
      F cur = F::random(rng);
      for (uint64_t l = 0; l < depths_[j]; ++l) {
        F sib = F::random(rng);
        bool bit = rng() & 1;
        F cap = level_tag(l) + (l == 0 ? F::from_u64(partition_) : F::zero());
        cur = bit ? compress(cap, sib, cur) : compress(cap, cur, sib);
      }
      acc = j == 0 ? cur : compress(fold_tag(), acc, cur);
    }
    return acc;
  }

  void synthesize(cs::ConstraintSystem<F>& cs) const override {
    using LC = cs::LinearCombination<F>;
    using cs::Name;
    using cs::Variable;
    const bool values = cs.needs_values();
    const Variable one = cs::ConstraintSystem<F>::one();
    cs::Namespace<F> ns(cs, "merkle");
    const F partition_val = F::from_u64(partition_);
    const Variable p = cs.alloc_input("partition", [&] { return partition_val; });
    const uint64_t key = prf_key(kWitnessDomain, seed_, partition_);
    Num<F> acc;
    for (size_t j = 0; j < depths_.size(); ++j) {
      cs::Namespace<F> path_ns(cs, Name("path", j));
      PrfStream rng(key, j);
      F leaf_val;
      if (values) leaf_val = F::random(rng);
      Num<F> cur{LC(cs.alloc("leaf", [&] { return leaf_val; })), leaf_val};
      for (uint64_t l = 0; l < depths_[j]; ++l) {
        cs::Namespace<F> level_ns(cs, Name("level", l));
        F sib_val;
        bool bit = false;
        if (values) {
          sib_val = F::random(rng);
          bit = rng() & 1;
        }
        const Variable sib = cs.alloc("sibling", [&] { return sib_val; });
        const Variable b = cs.alloc("direction", [&] { return bit ? F::one() : F::zero(); });
        cs.enforce("booleanity", b, LC(one) - b, LC());
        const F left_val = bit ? sib_val : cur.value;
        const Variable left = cs.alloc("left", [&] { return left_val; });
        cs.enforce("swap", b, LC(sib) - cur.lc, LC(left) - cur.lc);
        Num<F> right{cur.lc + sib - left, bit ? cur.value : sib_val};
        Num<F> cap{LC::constant(level_tag(l)), level_tag(l)};
        if (l == 0) {
          cap.lc += p;
          cap.value += partition_val;
        }
        cs::Namespace<F> hash_ns(cs, "hash");
        cur = compress(cs, std::move(cap), Num<F>{LC(left), left_val}, std::move(right));
      }
      if (j == 0) {
        acc = std::move(cur);
      } else {
        cs::Namespace<F> fold_ns(cs, Name("fold", j));
        acc = compress(cs, Num<F>{LC::constant(fold_tag()), fold_tag()}, std::move(acc), std::move(cur));
      }
    }
    const Variable root = cs.alloc_input("root", [&] { return acc.value; });
    cs.enforce("enforce root", acc.lc, one, root);
  }

 private:
  uint64_t size_, seed_, partition_;
  std::vector<uint64_t> depths_;
};

}  // namespace zkmill::circuits
