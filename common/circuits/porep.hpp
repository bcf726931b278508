// SPDX-License-Identifier: MIT
// "porep": one partition of a Filecoin-PoRep-C2-shaped proof (docs/circuits.md states the
// shape and the real circuit it mirrors). Per partition, C challenges; challenge i proves
//
//  (1) data:    a depth-D binary SHA-256 path from the challenged node's data leaf to the
//               public data root (comm_d), directions = the low D bits of the challenge;
//  (2) labels:  for each layer l < L, label_l = trunc(SHA-256(replica_id || node field ||
//               S parent labels)), node field = (l as 4 bytes BE, index as 8 bytes BE, 20
//               zero bytes), the S slots filled with the P parents' layer-l labels repeated
//               in order (Filecoin's SDR hashes 14 parents' labels repeated to 37 slots);
//  (3) columns: the challenged node's column (its L labels, computed in (2)) and each
//               parent's column (L private labels, 253 bits each, the very bits hashed in
//               (2)) are hashed with Poseidon of width L + 1 and opened in an 8-ary
//               Poseidon tree of depth ceil(D / 3) to the public column root (comm_c).
//
// Public inputs: partition, comm_d, comm_c, replica_id, then the C challenge indices.
// Everything is derived from (seed, partition) by prf.hpp: the replica id, C distinct
// challenges in [0, 2^D), P parents per challenge (never a challenged node), the data and
// the columns of unchallenged nodes; the two trees are sparse, their unopened subtrees PRF
// values. Nodes are SHA-256 digests truncated to 253 bits (merkle_path.hpp), so a label is
// a field element and nearly every witness value is a bit, as in the real circuit.
//
// Sizing: the count is an exact-enough formula of (C, D, L, P, S, R) over unit costs
// counted once per field (a data level, a label, a Poseidon hash); for a target N we search
// all shapes and keep, among those within 2% of N, the one nearest Filecoin's (D 30, L 11,
// P 14, S 37). The smallest shape with real SHA-256 (one challenge, D = L = P = S = 1) is
// ~99.5k constraints. Where no real shape lands within 5% (below it, and between ~104.5k and
// ~113.6k), toy shapes: the same circuit with every SHA-256 compression reduced to R < 64
// rounds (sha256.hpp; not SHA-256 any more, but the same gadgets, wiring and witness shape),
// the most rounds that land within 2% of N, so --size reaches down to 2^12 without gaps.
// describe() prints the shape, and says so when it is a toy.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/circuits/gadgets/merkle_path.hpp"
#include "common/circuits/prf.hpp"

namespace zkmill::circuits {

struct PorepShape {
  uint64_t challenges = 1, depth = 1, layers = 1, parents = 1, slots = 1;
  uint64_t rounds = 64;  // per SHA-256 compression; < 64 only in toy shapes (see the top)
  friend bool operator==(const PorepShape&, const PorepShape&) = default;
};

template <class F>
class PorepCircuit final : public Circuit<F> {
 public:
  static constexpr std::string_view kName = "porep";
  static constexpr std::string_view kWitnessDomain = "zkmill/porep/witness/v1";
  // Filecoin PoRep C2, 32 GiB sector, per partition (docs/circuits.md).
  static constexpr PorepShape kFilecoin = {18, 30, 11, 14, 37};
  static constexpr uint64_t kMaxDepth = 30, kMaxLayers = 11, kMaxParents = 14, kMaxSlots = 64;
  static constexpr uint64_t kToyMax = 4;  // bound of every toy shape parameter (they stay under ~100k)

  PorepCircuit(uint64_t size, uint64_t seed, uint64_t partition)
      : PorepCircuit(shape_for(size), size, seed, partition) {}
  PorepCircuit(PorepShape shape, uint64_t size, uint64_t seed, uint64_t partition)
      : size_(size), seed_(seed), partition_(partition), s_(shape) {
    if (s_.challenges >= (uint64_t(1) << s_.depth)) throw std::invalid_argument("porep: more challenges than nodes");
    if (s_.slots < s_.parents) throw std::invalid_argument("porep: fewer label slots than parents");
    sha256::check_rounds(s_.rounds);
  }

  std::string_view name() const override { return kName; }
  uint64_t size() const override { return size_; }
  uint64_t seed() const override { return seed_; }
  uint64_t partition() const override { return partition_; }
  const PorepShape& shape() const { return s_; }
  std::string describe() const override {
    return "porep: " + std::to_string(s_.challenges) + " challenge(s), data tree depth " + std::to_string(s_.depth) +
           ", " + std::to_string(s_.layers) + " layer(s), " + std::to_string(s_.parents) + " parent(s) in " +
           std::to_string(s_.slots) + " label slot(s), ~" + std::to_string(predicted_constraints(s_)) + " constraints" +
           (s_.rounds < sha256::kRounds
                ? " (toy size: SHA-256 reduced to " + std::to_string(s_.rounds) + " of 64 rounds per compression)"
                : std::string());
  }

  // ---- Sizing ----

  struct UnitCosts {
    uint64_t data_level = 0, label1 = 0, label2 = 0, label_block = 0;
    std::vector<uint64_t> poseidon;  // by width
  };
  // Counted once per number of rounds: 64 for real sizes (a static, as the shape search asks
  // millions of times), up to 63 others in a toy search.
  static const UnitCosts& unit_costs(uint64_t rounds = sha256::kRounds) {
    if (rounds == sha256::kRounds) {
      static const UnitCosts full = count_unit_costs(rounds);
      return full;
    }
    static std::mutex mu;
    static std::map<uint64_t, UnitCosts> toy;
    std::lock_guard lock(mu);
    if (auto it = toy.find(rounds); it != toy.end()) return it->second;
    return toy[rounds] = count_unit_costs(rounds);
  }
  static UnitCosts count_unit_costs(uint64_t rounds) {
    {
      UnitCosts c;
      {
        cs::CountingCS<F> cs;
        const auto cur = alloc_node(cs, "cur", Node32{});
        const Bit<F> dir = Bit<F>::alloc(cs, "dir", false);
        const uint64_t before = cs.num_constraints();
        const auto sib = alloc_node(cs, "sib", Node32{});
        sha256_merkle_root<F>(cs, cur, std::span(&sib, 1), std::span(&dir, 1), rounds);
        c.data_level = cs.num_constraints() - before;
      }
      auto label_cost = [rounds](uint64_t slots) {
        cs::CountingCS<F> cs;
        std::vector<Bit<F>> replica(256), idx(32);
        for (size_t i = 0; i < 256; ++i)
          replica[i] = i == 248 || i == 249 || i == 250 ? Bit<F>::constant(false) : Bit<F>::alloc(cs, "r", false);
        for (auto& b : idx) b = Bit<F>::alloc(cs, "i", false);
        std::vector<std::vector<Bit<F>>> parent(1, alloc_node(cs, "p", Node32{}));
        const uint64_t before = cs.num_constraints();
        label(cs, 5, replica, idx, parent, slots, rounds);
        return cs.num_constraints() - before;
      };
      c.label1 = label_cost(1);
      c.label2 = label_cost(2);
      c.label_block = label_cost(3) - c.label1;
      c.poseidon = poseidon_costs();
      return c;
    }
  }
  // Constraints of one Poseidon hash, by width (independent of the SHA-256 rounds).
  static const std::vector<uint64_t>& poseidon_costs() {
    static const std::vector<uint64_t> costs = [] {
      std::vector<uint64_t> c(Poseidon<F>::kMaxWidth + 1, 0);
      for (size_t w = 2; w <= Poseidon<F>::kMaxWidth; ++w) {
        cs::CountingCS<F> cs;
        std::vector<Num<F>> in;
        for (size_t i = 0; i + 1 < w; ++i) in.push_back(Num<F>::alloc(cs, "x", F::zero()));
        Poseidon<F>::instance(w).hash(cs, in);
        c[w] = cs.num_constraints();
      }
      return c;
    }();
    return costs;
  }
  static uint64_t label_cost(uint64_t slots, uint64_t rounds = sha256::kRounds) {
    const UnitCosts& u = unit_costs(rounds);
    return slots % 2 ? u.label1 + (slots - 1) / 2 * u.label_block : u.label2 + (slots - 2) / 2 * u.label_block;
  }
  static uint64_t column_path_cost(uint64_t depth) {
    uint64_t c = 0;
    for (uint64_t k = 0; 3 * k < depth; ++k) c += (3 * k + 1 < depth ? 1 : 0) + 4 + 8 + poseidon_costs()[9];
    return c;
  }
  // Constraints of one challenge (the formula mirrors synthesize(); the tests compare).
  static uint64_t challenge_cost(const PorepShape& s) {
    const UnitCosts& u = unit_costs(s.rounds);
    const uint64_t column = u.poseidon[s.layers + 1] + column_path_cost(s.depth) + 1;
    return 33 + 253 + s.depth * u.data_level + 1 + s.layers * label_cost(s.slots, s.rounds) +
           s.parents * (s.depth + 253 * s.layers) + (s.parents + 1) * column;
  }
  static uint64_t predicted_constraints(const PorepShape& s) { return 254 + s.challenges * challenge_cost(s); }
  // SHA-256 constraints (data paths and labels) as a share of the total.
  static double sha_fraction(const PorepShape& s) {
    const uint64_t sha =
        s.challenges * (s.depth * unit_costs(s.rounds).data_level + s.layers * label_cost(s.slots, s.rounds));
    return double(sha) / double(predicted_constraints(s));
  }

  // choose_shape, remembered per target: a worker builds the circuit for every partition, and
  // the search visits ~600k shapes (more, and counts reduced-round costs, for a toy).
  static PorepShape shape_for(uint64_t target) {
    static std::mutex mu;
    static std::map<uint64_t, PorepShape> memo;
    {
      std::lock_guard lock(mu);
      if (auto it = memo.find(target); it != memo.end()) return it->second;
    }
    const PorepShape s = choose_shape(target);
    std::lock_guard lock(mu);
    return memo.emplace(target, s).first->second;
  }

  static PorepShape choose_shape(uint64_t target) {
    const double n = double(std::max<uint64_t>(target, 1));
    PorepShape best;
    double best_err = 1e300, best_dist = 1e300;
    auto dist = [](const PorepShape& s) {
      auto d = [](double a, double b) { return std::abs(std::log(a / b)); };
      return d(double(s.depth), 30) + d(double(s.layers), 11) + d(double(s.parents), 14) + d(double(s.slots), 37);
    };
    for (uint64_t d = 1; d <= kMaxDepth; ++d)
      for (uint64_t l = 1; l <= kMaxLayers; ++l)
        for (uint64_t p = 1; p <= kMaxParents; ++p)
          for (uint64_t sl = p; sl <= kMaxSlots; ++sl) {
            PorepShape s{1, d, l, p, sl};
            const double per = double(challenge_cost(s));
            const double c0 = std::max(1.0, std::floor((n - 254) / per));
            for (double c : {c0, c0 + 1}) {
              if (c >= std::ldexp(1.0, int(d))) continue;
              s.challenges = uint64_t(c);
              const double err = std::abs(double(predicted_constraints(s)) / n - 1);
              const double di = dist(s);
              // Within 2%: the most Filecoin-like shape; otherwise the nearest count.
              const bool ok = err <= 0.02, best_ok = best_err <= 0.02;
              if ((ok && (!best_ok || di < best_dist)) || (!ok && !best_ok && err < best_err)) {
                best = s;
                best_err = err;
                best_dist = di;
              }
            }
          }
    if (best_err <= 0.05) return best;
    // No real shape within 5% (below the smallest, or in the gap above it where one more label
    // slot costs ~20k): a toy, the most rounds that land within 2% (then the most
    // Filecoin-like shape of those), or failing that the nearest count of any.
    PorepShape nearest = best;
    double nearest_err = best_err;
    for (uint64_t r = sha256::kRounds - 1; r >= 1; --r) {
      bool found = false;
      best_dist = 1e300;
      for (uint64_t d = 1; d <= kToyMax; ++d)
        for (uint64_t l = 1; l <= kToyMax; ++l)
          for (uint64_t p = 1; p <= kToyMax; ++p)
            for (uint64_t sl = p; sl <= kToyMax; ++sl)
              for (uint64_t c = 1; c < (uint64_t(1) << d) && c <= kToyMax; ++c) {
                const PorepShape s{c, d, l, p, sl, r};
                const double err = std::abs(double(predicted_constraints(s)) / n - 1);
                if (err < nearest_err) {
                  nearest = s;
                  nearest_err = err;
                }
                if (err <= 0.02 && dist(s) < best_dist) {
                  best = s;
                  best_dist = dist(s);
                  found = true;
                }
              }
      if (found) return best;
    }
    return nearest;
  }

  // ---- Native witness ----

  struct Challenge {
    uint64_t index = 0;
    Node32 data_leaf{};
    std::vector<Node32> data_siblings;                           // D
    std::vector<uint64_t> parents;                               // P
    std::vector<std::vector<Node32>> columns;                    // P + 1 columns of L labels: [0] = challenged
    std::vector<std::vector<std::array<F, 8>>> column_children;  // per column, per level
  };
  struct Witness {
    Node32 replica{}, comm_d{};
    F comm_c;
    std::vector<Challenge> challenges;
  };

  Witness witness() const {
    const uint64_t key = prf_key(kWitnessDomain, seed_, partition_);
    auto node_from = [](PrfStream s) {
      Node32 n;
      for (size_t i = 0; i < 32; i += 8) {
        const uint64_t w = s();
        for (size_t j = 0; j < 8; ++j) n[i + j] = uint8_t(w >> (8 * j));
      }
      return truncate_node(n);
    };
    enum : uint64_t { kReplica = 1, kChallenges, kParents, kColumn, kDataLeaf, kDataDefault, kColumnDefault };
    auto nonce = [](uint64_t tag, uint64_t a, uint64_t b = 0) {
      return mix64(tag * 0x9e3779b97f4a7c15ull ^ mix64(a * 131 + b));
    };
    Witness w;
    w.replica = node_from(PrfStream(key, nonce(kReplica, 0)));
    w.replica[31] &= 0x1f;  // 253 bits: one decomposition per field element on both curves
    const uint64_t nodes = uint64_t(1) << s_.depth;
    std::vector<uint64_t> chosen;
    PrfStream cs_rng(key, nonce(kChallenges, 0));
    while (chosen.size() < s_.challenges) {
      const uint64_t c = cs_rng() % nodes;
      if (std::find(chosen.begin(), chosen.end(), c) == chosen.end()) chosen.push_back(c);
    }
    auto unchallenged_column = [&](uint64_t v) {
      std::vector<Node32> col(s_.layers);
      for (uint64_t l = 0; l < s_.layers; ++l) col[l] = node_from(PrfStream(key, nonce(kColumn, v, l)));
      return col;
    };
    for (uint64_t i = 0; i < s_.challenges; ++i) {
      Challenge ch;
      ch.index = chosen[i];
      ch.data_leaf = node_from(PrfStream(key, nonce(kDataLeaf, ch.index)));
      PrfStream pr(key, nonce(kParents, i));
      while (ch.parents.size() < s_.parents) {
        const uint64_t p = pr() % nodes;
        if (std::find(chosen.begin(), chosen.end(), p) == chosen.end()) ch.parents.push_back(p);
      }
      ch.columns.resize(s_.parents + 1);
      for (uint64_t j = 0; j < s_.parents; ++j) ch.columns[j + 1] = unchallenged_column(ch.parents[j]);
      for (uint64_t l = 0; l < s_.layers; ++l)
        ch.columns[0].push_back(native_label(w.replica, uint32_t(l), ch.index, ch.columns, l, s_.slots, s_.rounds));
      w.challenges.push_back(std::move(ch));
    }
    // The data tree: a sparse binary tree over the challenged leaves.
    std::vector<std::map<uint64_t, Node32>> data(s_.depth + 1);
    for (const Challenge& ch : w.challenges) data[0][ch.index] = ch.data_leaf;
    auto data_at = [&](uint64_t level, uint64_t idx) {
      auto it = data[level].find(idx);
      return it != data[level].end() ? it->second : node_from(PrfStream(key, nonce(kDataDefault, level, idx)));
    };
    for (uint64_t l = 0; l < s_.depth; ++l)
      for (const auto& [idx, v] : data[l])
        if (!data[l + 1].count(idx >> 1))
          data[l + 1][idx >> 1] = sha256_node(data_at(l, idx & ~1ull), data_at(l, idx | 1), s_.rounds);
    w.comm_d = data[s_.depth].at(0);
    for (Challenge& ch : w.challenges)
      for (uint64_t l = 0; l < s_.depth; ++l) ch.data_siblings.push_back(data_at(l, (ch.index >> l) ^ 1));
    // The column tree: 8-ary, sparse, leaves = Poseidon(column).
    const uint64_t height = column_height();
    std::vector<std::map<uint64_t, F>> col(height + 1);
    const auto& H = Poseidon<F>::instance(s_.layers + 1);
    for (const Challenge& ch : w.challenges)
      for (uint64_t j = 0; j <= s_.parents; ++j)
        col[0][j == 0 ? ch.index : ch.parents[j - 1]] = column_hash(H, ch.columns[j]);
    auto col_at = [&](uint64_t level, uint64_t idx) {
      auto it = col[level].find(idx);
      if (it != col[level].end()) return it->second;
      PrfStream s(key, nonce(kColumnDefault, level, idx));
      return F::random(s);
    };
    auto children_of = [&](uint64_t level, uint64_t parent) {
      std::array<F, 8> c;
      for (uint64_t j = 0; j < 8; ++j) c[j] = col_at(level, 8 * parent + j);
      return c;
    };
    for (uint64_t l = 0; l < height; ++l)
      for (const auto& [idx, v] : col[l])
        if (!col[l + 1].count(idx >> 3)) col[l + 1][idx >> 3] = poseidon_node<F>(children_of(l, idx >> 3));
    w.comm_c = col[height].at(0);
    for (Challenge& ch : w.challenges) {
      ch.column_children.resize(s_.parents + 1);
      for (uint64_t j = 0; j <= s_.parents; ++j) {
        const uint64_t leaf = j == 0 ? ch.index : ch.parents[j - 1];
        for (uint64_t l = 0; l < height; ++l) ch.column_children[j].push_back(children_of(l, leaf >> (3 * (l + 1))));
      }
    }
    return w;
  }

  // The public inputs after ONE, natively (Circuit::public_inputs).
  std::vector<F> public_inputs() const override {
    const Witness w = witness();
    std::vector<F> in = {F::from_u64(partition_), node_to_field<F>(w.comm_d), w.comm_c, node_to_field<F>(w.replica)};
    for (const Challenge& ch : w.challenges) in.push_back(F::from_u64(ch.index));
    return in;
  }

  // ---- Synthesis ----

  void synthesize(cs::ConstraintSystem<F>& cs) const override {
    using cs::Name;
    using K = typename cs::ConstraintSystem<F>::Constraint;
    const cs::Variable one = cs::ConstraintSystem<F>::one();
    const bool lcs = cs.needs_constraints();  // false: witness-only (PCE), no LC is built
    const Witness w = witness();
    cs::Namespace<F> ns(cs, "porep");
    cs.alloc_input("partition", [&] { return F::from_u64(partition_); });
    const cs::Variable comm_d = cs.alloc_input("comm_d", [&] { return node_to_field<F>(w.comm_d); });
    const cs::Variable comm_c = cs.alloc_input("comm_c", [&] { return w.comm_c; });
    const F replica_f = node_to_field<F>(w.replica);
    const cs::Variable replica = cs.alloc_input("replica_id", [&] { return replica_f; });
    std::vector<cs::Variable> idx_inputs;
    for (uint64_t i = 0; i < s_.challenges; ++i)
      idx_inputs.push_back(cs.alloc_input(Name("challenge", i), [&] { return F::from_u64(w.challenges[i].index); }));

    // The replica id as 256 message-order bits (LE bytes, bits 253.. zero).
    const auto replica_le = to_bits_le(cs, "replica_id bits", Num<F>::of(replica, replica_f), 253);
    std::vector<Bit<F>> replica_bits(256, Bit<F>::constant(false));
    for (size_t b = 0; b < 253; ++b) replica_bits[8 * (b / 8) + 7 - b % 8] = replica_le[b];
    const auto& H = Poseidon<F>::instance(s_.layers + 1);

    // The challenges are alike and independent (each allocates its own variables, reading only
    // the inputs and the replica bits above) and come last: a witness-only CS with a pool runs
    // them on every core at once (run_parts), any other in order. (The part's `cs` shadows the outer one on purpose:
    // a part uses only the CS it is handed.)
    cs.run_parts(s_.challenges, [&](cs::ConstraintSystem<F>& cs, uint64_t i) {
      cs::Namespace<F> cns(cs, Name("challenge", i));
      const Challenge& ch = w.challenges[i];
      const auto idx = to_bits_le(cs, "index bits", Num<F>::of(idx_inputs[i], F::from_u64(ch.index)), 32);
      // (1) the data path.
      {
        cs::Namespace<F> dns(cs, "data path");
        const auto leaf = alloc_node(cs, "leaf", ch.data_leaf);
        std::vector<std::vector<Bit<F>>> sib;
        for (uint64_t l = 0; l < s_.depth; ++l) sib.push_back(alloc_node(cs, Name("sibling", l), ch.data_siblings[l]));
        const auto root = sha256_merkle_root<F>(cs, leaf, sib, std::span(idx).first(s_.depth), s_.rounds);
        cs.enforce_with("data root", [&] { return K{pack_node<F>(root).lc, one, comm_d}; });
      }
      // Parents: index bits and column labels (private).
      std::vector<std::vector<Bit<F>>> parent_idx(s_.parents);
      std::vector<std::vector<std::vector<Bit<F>>>> parent_labels(s_.parents);  // [parent][layer]
      for (uint64_t j = 0; j < s_.parents; ++j) {
        cs::Namespace<F> pns(cs, Name("parent", j));
        for (uint64_t b = 0; b < s_.depth; ++b)
          parent_idx[j].push_back(Bit<F>::alloc(cs, Name("index bit", b), (ch.parents[j] >> b) & 1));
        for (uint64_t l = 0; l < s_.layers; ++l)
          parent_labels[j].push_back(alloc_node(cs, Name("label", l), ch.columns[j + 1][l]));
      }
      // (2) the labels of the challenged node.
      std::vector<Num<F>> own_column;
      for (uint64_t l = 0; l < s_.layers; ++l) {
        cs::Namespace<F> lns(cs, Name("label", l));
        std::vector<std::vector<Bit<F>>> layer_parents;
        for (uint64_t j = 0; j < s_.parents; ++j) layer_parents.push_back(parent_labels[j][l]);
        own_column.push_back(
            pack_node<F>(label(cs, uint32_t(l), replica_bits, idx, layer_parents, s_.slots, s_.rounds), lcs));
      }
      // (3) the column openings.
      for (uint64_t j = 0; j <= s_.parents; ++j) {
        cs::Namespace<F> ons(cs, j == 0 ? Name("column") : Name("parent column", j - 1));
        std::vector<Num<F>> column;
        if (j == 0) {
          column = own_column;
        } else {
          for (const auto& bits : parent_labels[j - 1]) column.push_back(pack_node<F>(bits, lcs));
        }
        Num<F> cur;
        {
          cs::Namespace<F> hns(cs, "hash");
          cur = H.hash(cs, std::move(column));
        }
        const std::vector<Bit<F>>& bits = j == 0 ? idx : parent_idx[j - 1];
        for (uint64_t l = 0; 3 * l < s_.depth; ++l) {
          cs::Namespace<F> lns(cs, Name("level", l));
          std::array<Bit<F>, 3> pos;
          for (uint64_t k = 0; k < 3; ++k) pos[k] = 3 * l + k < s_.depth ? bits[3 * l + k] : Bit<F>::constant(false);
          cur = poseidon8_level<F>(cs, cur, ch.column_children[j][l], pos);
        }
        cs.enforce_with("column root", [&] { return K{cur.lc, one, comm_c}; });
      }
    });
  }

 private:
  uint64_t column_height() const { return (s_.depth + 2) / 3; }

  static F column_hash(const Poseidon<F>& H, const std::vector<Node32>& column) {
    std::vector<F> v;
    for (const Node32& n : column) v.push_back(node_to_field<F>(n));
    return H.hash(v);
  }

  // The 32-byte node field: layer (4 bytes BE), index (8 bytes BE), 20 zero bytes.
  static Node32 node_field(uint32_t layer, uint64_t index) {
    Node32 f{};
    for (int k = 0; k < 4; ++k) f[k] = uint8_t(layer >> (24 - 8 * k));
    for (int k = 0; k < 8; ++k) f[4 + k] = uint8_t(index >> (56 - 8 * k));
    return f;
  }
  static Node32 native_label(const Node32& replica, uint32_t layer, uint64_t index,
                             const std::vector<std::vector<Node32>>& columns, uint64_t l, uint64_t slots,
                             uint64_t rounds) {
    std::vector<uint8_t> msg(replica.begin(), replica.end());
    const Node32 f = node_field(layer, index);
    msg.insert(msg.end(), f.begin(), f.end());
    const uint64_t parents = columns.size() - 1;
    for (uint64_t k = 0; k < slots; ++k) {
      const Node32& p = columns[1 + k % parents][l];
      msg.insert(msg.end(), p.begin(), p.end());
    }
    return truncate_node(sha256::hash(msg, rounds));
  }
  // The label gadget: SHA-256 over replica bits, the node field, then `slots` parent labels.
  static std::vector<Bit<F>> label(cs::ConstraintSystem<F>& cs, uint32_t layer, const std::vector<Bit<F>>& replica_bits,
                                   const std::vector<Bit<F>>& idx32, const std::vector<std::vector<Bit<F>>>& parents,
                                   uint64_t slots, uint64_t rounds) {
    std::vector<Bit<F>> msg = replica_bits;
    std::vector<Bit<F>> field = sha256::constant_bytes<F>(node_field(layer, 0));
    for (size_t b = 0; b < 32; ++b) field[8 * (11 - b / 8) + 7 - b % 8] = idx32[b];  // index bytes 4..11, BE
    msg.insert(msg.end(), field.begin(), field.end());
    for (uint64_t k = 0; k < slots; ++k)
      msg.insert(msg.end(), parents[k % parents.size()].begin(), parents[k % parents.size()].end());
    return truncate_bits(sha256::hash<F>(cs, msg, rounds));
  }

  // A truncated node as 256 message-order bits: 253 allocated, the three truncated constant.
  static std::vector<Bit<F>> alloc_node(cs::ConstraintSystem<F>& cs, cs::Name name, const Node32& n) {
    cs::Namespace<F> ns(cs, name);
    std::vector<Bit<F>> bits(256, Bit<F>::constant(false));
    for (size_t i = 0; i < 256; ++i)
      if (i < 248 || i > 250) bits[i] = Bit<F>::alloc(cs, cs::Name("bit", i), (n[i / 8] >> (7 - i % 8)) & 1);
    return bits;
  }

  uint64_t size_, seed_, partition_;
  PorepShape s_;
};

}  // namespace zkmill::circuits
