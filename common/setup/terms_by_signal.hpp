// SPDX-License-Identifier: MIT
// zkey new's view of a circuit: the terms of each matrix grouped by signal (BySignal), made
// across the pool. One serial scan reads only the three term counts of each constraint and
// keeps where each constraint starts (ConstraintIndex, 8 bytes a constraint); ranges of
// constraints are then read in parallel, twice: counting terms per signal, then placing them
// (a CSR transpose with atomic counters, each signal's terms put back in row order after).
// The serial walk it replaced (terms_by_signal_serial) stays as the reference the tests
// compare with, and as the one place a malformed file's error comes from: when any check of
// the parallel reading fails, the serial walk runs and throws the message it always has
// (the first bad constraint in file order, whichever thread saw a problem first).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <optional>
#include <string>
#include <vector>

#include "common/formats/circom_files.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::setup {

// The terms of one matrix grouped by signal: for signal s, [start[s], start[s+1]) of (row, tag).
// Circom's coefficients are mostly 1 and -1 (copies, sums) and +-2^k (bit decompositions:
// SHA-256's word packings sum 2^i b_i). A +-1 term costs one mixed addition of the affine
// Lagrange point. A +-2^k term reads the point 2^k L_row from a table made per (row, k) pair
// with one doubling chain per row (pow2_points): a packing row with k = 0..31 costs 31
// doublings once instead of 0 + 1 + ... + 31 = 496 spread over its terms, and its terms become
// mixed additions too. Only the remaining coefficients are stored and multiplied (mul_fr).
//
// tag = kind (top two bits) | negate (bit 29) | index (bits 0..28): kUnit: +-1; kPow2: +-2^k with
// (p2_row, p2_k)[index]; kOther: other[index].
template <class Fr>
struct BySignal {
  static constexpr uint32_t kUnit = 0, kPow2 = 1u << 30, kOther = 2u << 30, kKindMask = 3u << 30;
  static constexpr uint32_t kNeg = 1u << 29, kIndexMask = kNeg - 1;
  std::vector<uint64_t> start;
  std::vector<uint32_t> row, tag;
  std::vector<uint32_t> p2_row;  // the distinct (row, k) pairs, rows ascending, a row's together
  std::vector<uint8_t> p2_k;
  std::vector<Fr> other;
  uint64_t terms() const { return row.size(); }
  bool operator==(const BySignal&) const = default;
};

// k when v = 2^k (k >= 1), -1 otherwise.
template <class Fr>
int pow2_exponent(const Fr& v) {
  const auto c = v.to_canonical();
  int k = -1;
  for (size_t i = 0; i < c.size(); ++i) {
    if (!c[i]) continue;
    if (k >= 0 || (c[i] & (c[i] - 1))) return -1;
    k = int(64 * i) + std::countr_zero(c[i]);
  }
  return k >= 1 ? k : -1;
}

namespace detail {

// The tag of each term, read in file order within one stretch of rows: new (row, k) pairs and
// other coefficients are appended to the lists given. slot_row[mat][k] == row + 1 when pair
// (row, k) already has index slot_idx[mat][k] (a row's pairs are together, so one slot per k).
template <class Fr>
struct TermTagger {
  using T = BySignal<Fr>;
  const formats::R1csFile& r1cs;
  std::array<std::array<uint32_t, 256>, 3> slot_row{}, slot_idx{};
  const Fr minus_one = -Fr::one();

  explicit TermTagger(const formats::R1csFile& f) : r1cs(f) {}

  template <class V>
  uint32_t index(const V& v, const char* what) const {
    if (v.size() > T::kIndexMask)
      r1cs.file().fail(std::string("more than 2^29 ") + what + " in one matrix (not supported)");
    return uint32_t(v.size());
  }
  uint32_t operator()(uint32_t c, uint32_t mat, const Fr& v, std::vector<uint32_t>& p2_row, std::vector<uint8_t>& p2_k,
                      std::vector<Fr>& other) {
    if (v.is_one()) return T::kUnit;
    if (v == minus_one) return T::kUnit | T::kNeg;
    uint32_t neg = 0;
    int k = pow2_exponent(v);
    if (k < 0 && (k = pow2_exponent(-v)) >= 0) neg = T::kNeg;
    if (k > 0 && k < 256) {
      if (slot_row[mat][k] != c + 1) {
        slot_row[mat][k] = c + 1;
        slot_idx[mat][k] = index(p2_row, "(row, power of two) pairs");
        p2_row.push_back(c);
        p2_k.push_back(uint8_t(k));
      }
      return T::kPow2 | neg | slot_idx[mat][k];
    }
    const uint32_t i = index(other, "coefficients other than +-1 and +-2^k");
    other.push_back(v);
    return T::kOther | i;
  }
};

inline uint32_t load_u32_le(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Whether Fr::from_bytes_le would accept these bytes (a value below r), without its product.
template <class Fr>
bool canonical_le(const uint8_t* p) {
  const auto& r = Fr::modulus();
  for (size_t i = r.size(); i-- > 0;) {
    uint64_t w = 0;
    for (int j = 7; j >= 0; --j) w = w << 8 | p[8 * i + size_t(j)];
    if (w != r[i]) return w < r[i];
  }
  return false;  // == r
}

// Runs the serial, checked walk for its error message; [[noreturn]]: the parallel reading only
// gets here after one of its checks failed, so the serial walk must fail too.
template <class Fr>
[[noreturn]] void refuse(const formats::R1csFile& r1cs) {
  r1cs.for_each_term<Fr>([](uint32_t, uint32_t, uint32_t, const Fr&) {}, [](uint32_t, uint32_t) {});
  r1cs.file().fail("constraints section: refused by the parallel reading but not by the serial one (a bug)");
}

// start[s + 1] holding signal s's count: made the group bounds (prefix sums), row and tag sized
// to the total; returns each group's first free slot, per matrix.
template <class Fr>
std::array<std::vector<uint64_t>, 3> place_counts(std::array<BySignal<Fr>, 3>& t) {
  std::array<std::vector<uint64_t>, 3> next;
  for (int k = 0; k < 3; ++k) {
    auto& m = t[k];
    const size_t n_vars = m.start.size() - 1;
    for (size_t s = 0; s < n_vars; ++s) m.start[s + 1] += m.start[s];
    m.row.resize(m.start[n_vars]);
    m.tag.resize(m.start[n_vars]);
    next[k].assign(m.start.begin(), m.start.end() - 1);
  }
  return next;
}

}  // namespace detail

// Two serial passes over the mapped r1cs (count per signal, then place), its pages dropped
// after each: the reference for terms_by_signal (the tests), as zkey new made it before.
template <class Fr>
std::array<BySignal<Fr>, 3> terms_by_signal_serial(const formats::R1csFile& r1cs) {
  using T = BySignal<Fr>;
  const uint32_t n_vars = r1cs.header().n_wires;
  std::array<T, 3> t;
  for (auto& m : t) m.start.assign(size_t(n_vars) + 1, 0);
  const auto no_row_end = [](uint32_t, uint32_t) {};
  r1cs.for_each_term<Fr>([&](uint32_t, uint32_t mat, uint32_t w, const Fr&) { ++t[mat].start[w + 1]; }, no_row_end);
  const auto sec = r1cs.file().section(2, "constraints");
  r1cs.file().release(sec);
  auto at = detail::place_counts(t);
  detail::TermTagger<Fr> tagger(r1cs);
  r1cs.for_each_term<Fr>(
      [&](uint32_t c, uint32_t mat, uint32_t w, const Fr& v) {
        auto& m = t[mat];
        const uint64_t pos = at[mat][w]++;
        m.row[pos] = c;
        m.tag[pos] = tagger(c, mat, v, m.p2_row, m.p2_k, m.other);
      },
      no_row_end);
  r1cs.file().release(sec);
  return t;
}

// Where each constraint starts in the constraints section: constraint c is [at[c], at[c + 1]).
class ConstraintIndex {
 public:
  // One serial scan of the term counts; the file's own error (FormatError, as
  // R1csFile::for_each_term words it) when the counts do not tile the section exactly, or when
  // the file's field is not Fr.
  template <class Fr>
  static ConstraintIndex scan(const formats::R1csFile& r1cs) {
    const auto& hd = r1cs.header();
    if (cs::curve_of_scalar_field<Fr>() != hd.curve) detail::refuse<Fr>(r1cs);
    ConstraintIndex ix;
    ix.sec_ = r1cs.file().section(2, "constraints");
    ix.n8_ = hd.n8;
    ix.n_wires_ = hd.n_wires;
    const uint64_t size = ix.sec_.size(), stride = 4 + uint64_t(hd.n8);
    ix.at_.resize(size_t(hd.n_constraints) + 1);
    uint64_t pos = 0;
    for (uint32_t c = 0; c < hd.n_constraints; ++c) {
      ix.at_[c] = pos;
      for (int mat = 0; mat < 3; ++mat) {
        if (size - pos < 4) detail::refuse<Fr>(r1cs);
        const uint64_t k = detail::load_u32_le(ix.sec_.data() + pos);
        pos += 4;
        if (k * stride > size - pos) detail::refuse<Fr>(r1cs);
        pos += k * stride;
      }
    }
    ix.at_[hd.n_constraints] = pos;
    if (pos != size) detail::refuse<Fr>(r1cs);
    return ix;
  }

  uint32_t constraints() const { return uint32_t(at_.size() - 1); }
  std::span<const uint8_t> section() const { return sec_; }

  // term(constraint, matrix, wire, coefficient) for constraints [c0, c1) in file order; false
  // (and nothing more read) at the first wire >= nWires or coefficient >= r.
  template <class Fr, class Term>
  bool walk(uint32_t c0, uint32_t c1, Term&& term) const {
    return visit<Fr, true>(c0, c1, term);
  }
  // The same checks, and count(matrix, wire) per term: the coefficients compared with r, not
  // converted (a Montgomery product each, most of what a full walk costs).
  template <class Fr, class Count>
  bool count(uint32_t c0, uint32_t c1, Count&& count) const {
    return visit<Fr, false>(c0, c1, count);
  }

 private:
  template <class Fr, bool kDecode, class Fn>
  bool visit(uint32_t c0, uint32_t c1, Fn& fn) const {
    const uint32_t stride = 4 + n8_;
    for (uint32_t c = c0; c < c1; ++c) {
      const uint8_t* p = sec_.data() + at_[c];
      for (uint32_t mat = 0; mat < 3; ++mat) {
        const uint32_t k = detail::load_u32_le(p);
        p += 4;
        for (uint32_t i = 0; i < k; ++i, p += stride) {
          const uint32_t w = detail::load_u32_le(p);
          if (w >= n_wires_) return false;
          if constexpr (kDecode) {
            const auto v = Fr::from_bytes_le(p + 4);
            if (!v) return false;
            fn(c, mat, w, *v);
          } else {
            if (!detail::canonical_le<Fr>(p + 4)) return false;
            fn(mat, w);
          }
        }
      }
    }
    return true;
  }

  std::span<const uint8_t> sec_;
  std::vector<uint64_t> at_;
  uint32_t n8_ = 0, n_wires_ = 0;
};

// terms_by_signal_serial's result, made across the pool: the same vectors, element for element,
// when no wire appears twice in one linear combination (circom never writes that; if a file
// does, that signal's terms of that row come in tag order rather than file order: the same sum).
template <class Fr>
std::array<BySignal<Fr>, 3> terms_by_signal(const formats::R1csFile& r1cs, const ConstraintIndex& ix,
                                            util::ThreadPool& pool) {
  using T = BySignal<Fr>;
  const uint32_t n_vars = r1cs.header().n_wires, m = ix.constraints();
  std::array<T, 3> t;
  for (auto& mt : t) mt.start.assign(size_t(n_vars) + 1, 0);
  // Contiguous ranges of constraints, a few per thread; strictly increasing bounds (R <= m).
  const size_t R = std::min<size_t>(m, pool.size() * 8);
  std::vector<uint32_t> bounds(R + 1);
  for (size_t r = 0; r <= R; ++r) bounds[r] = uint32_t(uint64_t(m) * r / std::max<size_t>(R, 1));

  // Pass 1: count and check. Relaxed atomic increments: only the totals matter.
  std::atomic<bool> bad{false};
  pool.run_tasks(R, [&](size_t r) {
    const bool ok = ix.count<Fr>(bounds[r], bounds[r + 1], [&](uint32_t mat, uint32_t w) {
      std::atomic_ref<uint64_t>(t[mat].start[w + 1]).fetch_add(1, std::memory_order_relaxed);
    });
    if (!ok) bad.store(true, std::memory_order_relaxed);
  });
  if (bad.load()) detail::refuse<Fr>(r1cs);
  r1cs.file().release(ix.section());
  auto cursor = detail::place_counts(t);

  // Pass 2: place each term; a range's (row, k) pairs and other coefficients go to lists of its
  // own, indexed from 0, in file order (so, concatenated in range order, they are the serial ones).
  struct Lists {
    std::vector<uint32_t> p2_row;
    std::vector<uint8_t> p2_k;
    std::vector<Fr> other;
  };
  std::vector<std::array<Lists, 3>> lists(R);
  pool.run_tasks(R, [&](size_t r) {
    detail::TermTagger<Fr> tagger(r1cs);
    auto& own = lists[r];
    ix.walk<Fr>(bounds[r], bounds[r + 1], [&](uint32_t c, uint32_t mat, uint32_t w, const Fr& v) {
      auto& mt = t[mat];
      const uint64_t pos = std::atomic_ref<uint64_t>(cursor[mat][w]).fetch_add(1, std::memory_order_relaxed);
      mt.row[pos] = c;
      mt.tag[pos] = tagger(c, mat, v, own[mat].p2_row, own[mat].p2_k, own[mat].other);
    });
  });
  r1cs.file().release(ix.section());
  cursor = {};

  // Each range's first index in the concatenated lists; the index limit as the serial walk has it.
  std::array<std::vector<uint32_t>, 3> p2_base, other_base;
  for (int k = 0; k < 3; ++k) {
    uint64_t np2 = 0, nother = 0;
    for (size_t r = 0; r < R; ++r) {
      p2_base[k].push_back(uint32_t(np2));
      other_base[k].push_back(uint32_t(nother));
      np2 += lists[r][k].p2_row.size();
      nother += lists[r][k].other.size();
      if (np2 > uint64_t(T::kIndexMask) + 1)
        r1cs.file().fail("more than 2^29 (row, power of two) pairs in one matrix (not supported)");
      if (nother > uint64_t(T::kIndexMask) + 1)
        r1cs.file().fail("more than 2^29 coefficients other than +-1 and +-2^k in one matrix (not supported)");
    }
    t[k].p2_row.resize(np2);
    t[k].p2_k.resize(np2);
    t[k].other.resize(nother);
  }
  pool.run_tasks(3 * R, [&](size_t i) {
    const size_t k = i / R, r = i % R;
    auto& own = lists[r][k];
    std::copy(own.p2_row.begin(), own.p2_row.end(), t[k].p2_row.begin() + p2_base[k][r]);
    std::copy(own.p2_k.begin(), own.p2_k.end(), t[k].p2_k.begin() + p2_base[k][r]);
    std::copy(own.other.begin(), own.other.end(), t[k].other.begin() + other_base[k][r]);
    own = Lists{};
  });

  // Per signal: indices made global (the row says which range tagged the term), then the terms
  // sorted by (row, tag), undoing the order the atomic cursors handed out.
  for (int k = 0; k < 3; ++k) {
    auto& mt = t[k];
    pool.parallel_for(
        n_vars,
        [&](size_t s0, size_t s1) {
          std::vector<uint64_t> keys;
          for (size_t s = s0; s < s1; ++s) {
            const uint64_t b = mt.start[s], e = mt.start[s + 1];
            for (uint64_t j = b; j < e; ++j) {
              const uint32_t kind = mt.tag[j] & T::kKindMask;
              if (kind == T::kUnit) continue;
              const size_t r = size_t(std::upper_bound(bounds.begin(), bounds.end(), mt.row[j]) - bounds.begin()) - 1;
              mt.tag[j] += kind == T::kPow2 ? p2_base[k][r] : other_base[k][r];
            }
            // Terms from one range are in row order already (a range is walked in file order):
            // only signals used across ranges need the sort.
            bool ordered = true;
            for (uint64_t j = b + 1; j < e && ordered; ++j) ordered = mt.row[j - 1] < mt.row[j];
            if (ordered) continue;
            keys.resize(e - b);
            for (uint64_t j = b; j < e; ++j) keys[j - b] = uint64_t(mt.row[j]) << 32 | mt.tag[j];
            std::sort(keys.begin(), keys.end());
            for (uint64_t j = b; j < e; ++j) {
              mt.row[j] = uint32_t(keys[j - b] >> 32);
              mt.tag[j] = uint32_t(keys[j - b]);
            }
          }
        },
        1024);
  }
  return t;
}

}  // namespace zkmill::setup
