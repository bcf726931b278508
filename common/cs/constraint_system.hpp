// SPDX-License-Identifier: MIT
// The abstract constraint-system interface circuits synthesize against (bellman style), with
// zero-cost names, lazily evaluated witness values, namespaces, and the small shared pieces
// (density bitmaps, a counting CS) every implementation uses.
//
// Names cost nothing on the proving path: a Name is a string_view plus an optional integer
// ("round", 17), formatted to "round 17" only by an implementation that wants text (the
// checking CS, on a failure). Value callbacks are invoked only by implementations that need
// values; the recording CS never calls them, so a circuit may compute witness values inside
// its callbacks and pay nothing when only the shape is wanted.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/cs/linear_combination.hpp"
#include "common/util/cancellation.hpp"

namespace zkmill::cs {

// A constraint / variable / namespace name, formatted lazily. The string_view must outlive
// the call it is passed to (literals and callers' locals do); implementations that keep a
// name copy it.
class Name {
 public:
  constexpr Name(const char* text) : text_(text) {}
  constexpr Name(std::string_view text) : text_(text) {}
  Name(const std::string& text) : text_(text) {}
  constexpr Name(std::string_view text, uint64_t index) : text_(text), index_(index), has_index_(true) {}

  std::string_view text() const { return text_; }
  bool has_index() const { return has_index_; }
  uint64_t index() const { return index_; }

  void append_to(std::string& out) const {
    out.append(text_);
    if (has_index_) {
      if (!text_.empty()) out.push_back(' ');
      out.append(std::to_string(index_));
    }
  }
  std::string str() const {
    std::string s;
    append_to(s);
    return s;
  }

 private:
  std::string_view text_;
  uint64_t index_ = 0;
  bool has_index_ = false;
};

// Type-erased, non-owning view of a value callback; lives on the caller's stack for the
// duration of one alloc call, so erasing it costs no allocation.
template <class F>
class ValueSource {
 public:
  virtual F operator()() const = 0;

 protected:
  ~ValueSource() = default;
};

template <class F, class Fn>
class ValueFnRef final : public ValueSource<F> {
 public:
  explicit ValueFnRef(Fn& fn) : fn_(fn) {}
  F operator()() const override { return F(fn_()); }

 private:
  Fn& fn_;
};

template <class F>
class ConstraintSystem {
 public:
  using LC = LinearCombination<F>;
  virtual ~ConstraintSystem() = default;

  // A private (aux) variable; value_fn() -> F is called at most once, and only when
  // needs_values().
  template <class Fn>
  Variable alloc(Name name, Fn&& value_fn) {
    ValueFnRef<F, std::remove_reference_t<Fn>> v(value_fn);
    return alloc_aux_impl(name, v);
  }
  // A public input variable (input 0 is ONE, already allocated).
  template <class Fn>
  Variable alloc_input(Name name, Fn&& value_fn) {
    ValueFnRef<F, std::remove_reference_t<Fn>> v(value_fn);
    return alloc_input_impl(name, v);
  }

  // <a, z> * <b, z> = <c, z>.
  virtual void enforce(Name name, const LC& a, const LC& b, const LC& c) = 0;

  // The three sides of one constraint, as enforce_with's builders return them.
  struct Constraint {
    LC a, b, c;
  };
  // enforce() for hot gadgets: make() -> Constraint is called only when the CS looks at
  // constraints (needs_constraints()); a witness-only CS is handed empty combinations, so a
  // circuit that runs once per partition builds no linear combination at all there (at
  // PoRep scale that is most of the synthesis time: an LC is a few hundred bytes of terms).
  template <class Make>
  void enforce_with(Name name, Make&& make) {
    if (needs_constraints()) {
      const Constraint k = make();
      enforce(name, k.a, k.b, k.c);
    } else {
      const LC& empty = empty_lc();
      enforce(name, empty, empty, empty);
    }
  }

  virtual void push_namespace(Name) {}
  virtual void pop_namespace() {}
  // The "/"-joined namespace path, for implementations that track it ("" otherwise).
  virtual std::string current_path() const { return {}; }

  // Whether value callbacks will be called; circuits may skip native bookkeeping otherwise.
  virtual bool needs_values() const = 0;
  // Whether enforce() looks at its linear combinations. A witness-only CS (PCE: a, b, c come
  // from recorded matrices) ignores them, and a circuit may skip building them (enforce_with);
  // the variables it allocates, their values and the number of enforce() calls must stay the
  // same either way. Gadget outputs may then carry empty LCs, so no gadget may decide what to
  // allocate from an LC's contents when this is false (Poseidon replays a recorded schedule).
  virtual bool needs_constraints() const { return true; }

  static constexpr Variable one() { return Variable::one(); }

  // The last `k` parts of a circuit (nothing is allocated or enforced after them), which
  // allocate aux variables of their own (no inputs), the same number each, and enforce the same
  // number of constraints each (PoRep's challenges): part(cs, i) for i in [0, k), each on the
  // CS it is handed, whose variables it must use. This one runs them in order on *this; the
  // witness-only and recording CSs with a thread pool run them at once, each on a CS over its
  // own slice of the aux vector (their variables get the indices the sequential order gives,
  // so the witness and the recorded matrices are the same). A part may read inputs and the
  // variables allocated before the parts, never another part's.
  virtual void run_parts(uint64_t k, const std::function<void(ConstraintSystem&, uint64_t)>& part) {
    for (uint64_t i = 0; i < k; ++i) {
      util::throw_if_cancelled(stop_, "synthesis");
      part(*this, i);
    }
  }
  // A stop request ends the synthesis at the start of its next part (run_parts; a PoRep
  // partition's challenges) with util::Cancelled: a farm worker's synthesis of a cancelled
  // job's partition. Without one (the default) it never stops.
  void set_stop_token(std::stop_token stop) { stop_ = std::move(stop); }
  const std::stop_token& stop_token() const { return stop_; }

 protected:
  static const LC& empty_lc() {
    static const LC empty;
    return empty;
  }

  virtual Variable alloc_aux_impl(Name name, const ValueSource<F>& value) = 0;
  virtual Variable alloc_input_impl(Name name, const ValueSource<F>& value) = 0;

 private:
  std::stop_token stop_;
};

// RAII namespace: Namespace ns(cs, Name("round", i));
template <class F>
class Namespace {
 public:
  Namespace(ConstraintSystem<F>& cs, Name name) : cs_(cs) { cs_.push_namespace(name); }
  ~Namespace() { cs_.pop_namespace(); }
  Namespace(const Namespace&) = delete;
  Namespace& operator=(const Namespace&) = delete;

 private:
  ConstraintSystem<F>& cs_;
};

// The namespace stack as one string plus segment boundaries: push/pop are appends and
// truncations, so tracking costs one short formatting per namespace, never per constraint.
class NamePath {
 public:
  void push(Name n) {
    marks_.push_back(path_.size());
    if (!path_.empty()) path_.push_back('/');
    n.append_to(path_);
  }
  void pop() {
    if (marks_.empty()) return;
    path_.resize(marks_.back());
    marks_.pop_back();
  }
  const std::string& str() const { return path_; }
  std::string with_leaf(Name leaf) const {
    std::string s = path_;
    if (!s.empty()) s.push_back('/');
    leaf.append_to(s);
    return s;
  }

 private:
  std::string path_;
  std::vector<size_t> marks_;
};

// A growable bitmap, one bit per variable, stored as little-endian 64-bit words (the
// witness bundle's density layout); bits past size() are always zero.
class Bitmap {
 public:
  Bitmap() = default;
  explicit Bitmap(size_t bits) : words_((bits + 63) / 64, 0), bits_(bits) {}

  size_t size() const { return bits_; }
  void push_back(bool bit) {
    if ((bits_ & 63) == 0) words_.push_back(0);
    if (bit) words_.back() |= uint64_t(1) << (bits_ & 63);
    ++bits_;
  }
  void set(size_t i) { words_[i >> 6] |= uint64_t(1) << (i & 63); }
  // To `bits` bits: new ones are zero, and dropped ones are cleared from the last word.
  void resize(size_t bits) {
    words_.resize((bits + 63) / 64, 0);
    if (bits < bits_ && (bits & 63)) words_.back() &= (uint64_t(1) << (bits & 63)) - 1;
    bits_ = bits;
  }
  // ORs `src` into bits [offset, offset + src.size()), word by word (a recorder's parts mark
  // their own bitmaps, merged into the whole one afterwards; see RecordingCS::run_parts).
  void or_at(size_t offset, const Bitmap& src) {
    if (offset > bits_ || src.bits_ > bits_ - offset)
      throw std::logic_error("Bitmap::or_at: " + std::to_string(src.bits_) + " bits at " + std::to_string(offset) +
                             " do not fit in " + std::to_string(bits_));
    const size_t w = offset >> 6, s = offset & 63;
    // src's bits past its size() are zero, so nothing lands past [offset, offset + src.size()).
    for (size_t j = 0; j < src.words_.size(); ++j) {
      const uint64_t x = src.words_[j];
      if (x == 0) continue;
      words_[w + j] |= x << s;
      if (s != 0 && (x >> (64 - s)) != 0) words_[w + j + 1] |= x >> (64 - s);
    }
  }
  bool test(size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  size_t count() const {
    size_t n = 0;
    for (uint64_t w : words_) n += size_t(std::popcount(w));
    return n;
  }
  std::span<const uint64_t> words() const { return words_; }
  friend bool operator==(const Bitmap& a, const Bitmap& b) { return a.bits_ == b.bits_ && a.words_ == b.words_; }

 private:
  std::vector<uint64_t> words_;
  size_t bits_ = 0;
};

// Density rule shared by every implementation, so that setup (from the recorded shape) and
// the prover (from its own pass) always agree on which query bases an MSM needs: a variable
// is "in A" (resp. B) when some term of some A (resp. B) row names it with a non-zero
// coefficient, counting terms as the circuit wrote them (before duplicates are merged).
// ONE and the inputs are always in A through the input rows, so only aux-in-A, aux-in-B
// and input-in-B are tracked.
template <class F>
inline void mark_density(const LinearCombination<F>& lc, Bitmap* aux, Bitmap* inputs) {
  for (const Term<F>& t : lc.terms()) {
    if (t.coeff.is_zero()) continue;
    if (t.var.is_aux()) {
      if (aux) aux->set(t.var.index());
    } else if (inputs) {
      inputs->set(t.var.index());
    }
  }
}

// Counts variables and constraints without storing anything; used to size circuits.
template <class F>
class CountingCS final : public ConstraintSystem<F> {
 public:
  using LC = LinearCombination<F>;
  void enforce(Name, const LC&, const LC&, const LC&) override { ++constraints_; }
  bool needs_values() const override { return false; }
  uint64_t num_inputs() const { return inputs_; }
  uint64_t num_aux() const { return aux_; }
  uint64_t num_constraints() const { return constraints_; }

 protected:
  Variable alloc_aux_impl(Name, const ValueSource<F>&) override { return Variable::aux(aux_++); }
  Variable alloc_input_impl(Name, const ValueSource<F>&) override { return Variable::input(inputs_++); }

 private:
  uint64_t inputs_ = 1;  // ONE
  uint64_t aux_ = 0;
  uint64_t constraints_ = 0;
};

}  // namespace zkmill::cs
