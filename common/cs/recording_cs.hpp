// SPDX-License-Identifier: MIT
// The recording constraint system: synthesizes a circuit once without values and keeps its
// R1CS shape (sparse A, B, C in CSR form) for setup, and for precompiled constraint
// evaluation (pce_matrices.hpp: the recording encoded into a file, then witness + sparse
// mat-vec), which must agree bit for bit with ProvingCS.
//
// Rows: the circuit's constraints in order, then one row per public input i (ONE included):
// A = input_i, B = 0, C = 0. This is bellman's "inputs enforce" convention: it makes the
// A-polynomials of the inputs linearly independent (so a proof cannot shift weight between
// public inputs) and lets the prover's a-vector carry the inputs; both RecordingCS and
// ProvingCS append these rows, so n_rows = n_constraints + n_inputs everywhere.
//
// Given a thread pool, run_parts() records a circuit's like parts (PoRep's challenges: nearly
// all of its constraints; 130M of them take ~2 min on one core) on every core. Part 0 runs on
// *this, in order, and so measures a part: its aux variables, constraints and non-zeros of A, B
// and C. The matrices and bitmaps then grow by k - 1 times that, and parts 1..k-1 run at once,
// each on a PartRecorder that writes its rows straight into its slice, at the offsets the
// one-thread order gives (its aux variables numbered from aux0 + i * per_aux), and marks
// density in bitmaps of its own, OR-ed in afterwards (parts share the words at their slices'
// edges, and all may mark the variables made before the parts). So the recording is the
// one-thread recording bit for bit, and no second copy of the matrices (tens of GB at that
// scale) is ever held. The slices are laid out for like parts, so a part whose counts differ
// from part 0's, that allocates an input or that uses another part's variable is refused with a
// std::logic_error naming it, and the recorder is spent: run_parts' contract is the circuit's
// to keep, and every built-in circuit that has parts keeps it (tests/common/circuits).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/cs/constraint_system.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::cs {

// The allocator of the recorded matrices' arrays: std::allocator's memory, but resize() leaves
// the new elements as they are instead of zeroing them (every other construction, push_back's
// copies, as usual). run_parts grows the arrays to their final size, and the parts then write
// every new element (grow() says why every one): zeroing them first wrote all of that memory
// once more, on the pool, before the parts (at 130M constraints ~25 GB). Only for trivially
// copyable and destructible T (integers, field elements): such types are implicit-lifetime, so
// the allocation itself creates their objects and an element is well-defined before a part
// assigns it; it is not read before.
template <class T>
struct NoInitAllocator {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  using value_type = T;
  NoInitAllocator() = default;
  template <class U>
  constexpr NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  template <class U>
  void construct(U*) noexcept {}  // value-initialization (resize): left as allocated
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::construct_at(p, std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const NoInitAllocator<U>&) const noexcept {
    return true;
  }
};
template <class T>
using RecordedArray = std::vector<T, NoInitAllocator<T>>;

// CSR: row r's entries are [row_ptr[r], row_ptr[r+1]) of col/val. A column indexes
// z = (inputs ‖ aux): col < n_inputs is input col, otherwise aux col - n_inputs. Within a
// row, columns are strictly increasing (duplicates merged, zero coefficients dropped).
template <class F>
struct CsrMatrix {
  RecordedArray<uint64_t> row_ptr{0};
  RecordedArray<uint32_t> col;
  RecordedArray<F> val;

  size_t rows() const { return row_ptr.size() - 1; }
  size_t nnz() const { return col.size(); }
  std::span<const uint32_t> row_cols(size_t r) const { return {col.data() + row_ptr[r], row_ptr[r + 1] - row_ptr[r]}; }
  std::span<const F> row_vals(size_t r) const { return {val.data() + row_ptr[r], row_ptr[r + 1] - row_ptr[r]}; }
  friend bool operator==(const CsrMatrix&, const CsrMatrix&) = default;
};

template <class F>
struct R1CS {
  uint64_t n_inputs = 0;  // ONE included
  uint64_t n_aux = 0;
  uint64_t n_constraints = 0;             // the circuit's own, without the input rows
  CsrMatrix<F> A, B, C;                   // n_rows() rows each
  Bitmap aux_in_a, aux_in_b, input_in_b;  // density, by the rule in constraint_system.hpp

  uint64_t n_rows() const { return n_constraints + n_inputs; }
  uint64_t n_variables() const { return n_inputs + n_aux; }
  // Every count, row, column, value and density bit (a pooled recording equals one thread's).
  friend bool operator==(const R1CS&, const R1CS&) = default;
};

template <class F>
class RecordingCS final : public ConstraintSystem<F> {
 public:
  using LC = LinearCombination<F>;

  // With `pool` (2 or more threads), run_parts() records the parts at once on it.
  explicit RecordingCS(util::ThreadPool* pool = nullptr) : pool_(pool) {}

  void enforce(Name, const LC& a, const LC& b, const LC& c) override {
    if (state_ != State::kRecording) [[unlikely]]
      refuse_use("enforce");
    // Rows first: they check every variable, so the marks below stay inside the bitmaps.
    append_row(r_.A, a);
    append_row(r_.B, b);
    append_row(r_.C, c);
    mark_density(a, &r_.aux_in_a, nullptr);
    mark_density(b, &r_.aux_in_b, &r_.input_in_b);
    ++r_.n_constraints;
  }
  bool needs_values() const override { return false; }

  void run_parts(uint64_t k, const std::function<void(ConstraintSystem<F>&, uint64_t)>& part) override {
    if (pool_ == nullptr || pool_->size() < 2 || k < 2) return ConstraintSystem<F>::run_parts(k, part);
    if (state_ != State::kRecording) refuse_use("run_parts");
    PartsLayout l;
    l.k = k;
    l.n_inputs = r_.n_inputs;
    l.aux0 = r_.n_aux;
    l.k0 = r_.n_constraints;
    for (size_t m = 0; m < 3; ++m) l.nnz0[m] = matrix(m).nnz();
    part(*this, 0);
    if (r_.n_inputs != l.n_inputs)
      throw std::logic_error("RecordingCS: part 0 of " + std::to_string(k) + " allocates " +
                             std::to_string(r_.n_inputs - l.n_inputs) + " input(s); parts allocate aux variables only");
    l.per.aux = r_.n_aux - l.aux0;
    l.per.constraints = r_.n_constraints - l.k0;
    for (size_t m = 0; m < 3; ++m) l.per.nnz[m] = matrix(m).nnz() - l.nnz0[m];
    const uint64_t more = k - 1;
    if (l.per.aux != 0 && more > (kAuxTag - r_.n_aux) / l.per.aux)
      throw std::length_error("RecordingCS: too many aux variables");

    // From here until every part has been checked and merged, the recorder refuses any other
    // use (a part that wrote to the outer CS would race), and stays spent if a part fails.
    state_ = State::kParts;
    // The nine arrays grow on the pool, the values (8x the columns) first: a reallocation copies
    // what part 0 and the rows before it wrote on one thread. The new room is not zeroed
    // (grow()): its pages are first touched by the parts that write them, at once. The capacity
    // includes finish()'s input rows (one entry of A each), which would otherwise reallocate,
    // copying A whole.
    const uint64_t inputs = l.n_inputs;
    pool_->run_tasks(9, [&](size_t t) {
      CsrMatrix<F>& mx = matrix(t % 3);
      if (t < 3)
        grow(mx.val, more * l.per.nnz[t], t == 0 ? inputs : 0);
      else if (t < 6)
        grow(mx.col, more * l.per.nnz[t - 3], t == 3 ? inputs : 0);
      else
        grow(mx.row_ptr, more * l.per.constraints, inputs);
    });
    const uint64_t n_aux = r_.n_aux + more * l.per.aux;
    r_.aux_in_a.resize(n_aux);
    r_.aux_in_b.resize(n_aux);
    std::vector<std::unique_ptr<PartRecorder>> parts(more);
    std::vector<std::exception_ptr> failed(more);
    pool_->run_tasks(more, [&](size_t t) {
      try {
        auto p = std::make_unique<PartRecorder>(r_, l, t + 1);
        part(*p, t + 1);
        p->check();
        parts[t] = std::move(p);
      } catch (...) {
        failed[t] = std::current_exception();
      }
    });
    for (const auto& e : failed)  // the lowest part's failure, whichever thread finished first
      if (e) std::rethrow_exception(e);
    for (const auto& p : parts) p->merge_density(r_);
    r_.n_aux = n_aux;
    r_.n_constraints += more * l.per.constraints;
    state_ = State::kRecording;
  }

  uint64_t num_inputs() const { return r_.n_inputs; }
  uint64_t num_aux() const { return r_.n_aux; }
  uint64_t num_constraints() const { return r_.n_constraints; }

  // Appends the input rows and renumbers columns into z order; the recorder is spent.
  R1CS<F> finish() {
    if (state_ == State::kFinished) throw std::logic_error("RecordingCS: finish() called twice");
    if (state_ != State::kRecording) refuse_use("finish()");
    state_ = State::kFinished;
    if (r_.n_inputs + r_.n_aux > std::numeric_limits<uint32_t>::max())
      throw std::length_error("RecordingCS: " + std::to_string(r_.n_inputs + r_.n_aux) +
                              " variables exceed the 32-bit column index");
    // While recording, the input count was still growing, so columns were tagged
    // (kAuxTag | aux index, or input index); now that it is final, map to z positions.
    for (CsrMatrix<F>* m : {&r_.A, &r_.B, &r_.C})
      for (uint32_t& col : m->col) col = (col & kAuxTag) ? uint32_t(r_.n_inputs + (col & ~kAuxTag)) : col;
    for (uint64_t i = 0; i < r_.n_inputs; ++i) {
      r_.A.col.push_back(uint32_t(i));
      r_.A.val.push_back(F::one());
      for (CsrMatrix<F>* m : {&r_.A, &r_.B, &r_.C}) m->row_ptr.push_back(m->col.size());
    }
    return std::move(r_);
  }

 protected:
  Variable alloc_aux_impl(Name, const ValueSource<F>&) override {
    if (state_ != State::kRecording) [[unlikely]]
      refuse_use("alloc");
    if (r_.n_aux >= kAuxTag) throw std::length_error("RecordingCS: too many aux variables");
    r_.aux_in_a.push_back(false);
    r_.aux_in_b.push_back(false);
    return Variable::aux(r_.n_aux++);
  }
  Variable alloc_input_impl(Name, const ValueSource<F>&) override {
    if (state_ != State::kRecording) [[unlikely]]
      refuse_use("alloc_input");
    if (r_.n_inputs >= kAuxTag) throw std::length_error("RecordingCS: too many inputs");
    r_.input_in_b.push_back(false);
    return Variable::input(r_.n_inputs++);
  }

 private:
  static constexpr uint32_t kAuxTag = uint32_t(1) << 31;

  struct Entry {
    uint32_t col;
    F val;
  };

  // lc as one CSR row: emit(col, val) for each entry in column order, the columns tagged
  // (tag(var), which also checks the variable), duplicates merged, zeros dropped.
  template <class Tag, class Emit>
  static void sorted_row(const LC& lc, std::vector<Entry>& scratch, Tag&& tag, Emit&& emit) {
    scratch.clear();
    for (const Term<F>& t : lc.terms()) scratch.push_back({tag(t.var), t.coeff});
    // Tagged order is z order (inputs, then aux), so sorting here leaves rows sorted after
    // finish(). Rows are short; std::sort runs insertion sort on them.
    std::sort(scratch.begin(), scratch.end(), [](const Entry& x, const Entry& y) { return x.col < y.col; });
    for (size_t i = 0; i < scratch.size();) {
      Entry e = scratch[i];
      size_t j = i + 1;
      for (; j < scratch.size() && scratch[j].col == e.col; ++j) e.val += scratch[j].val;
      if (!e.val.is_zero()) emit(e.col, e.val);
      i = j;
    }
  }

  [[noreturn]] static void never_allocated() {
    throw std::logic_error("RecordingCS: constraint uses a variable that was never allocated here");
  }

  void append_row(CsrMatrix<F>& m, const LC& lc) {
    sorted_row(
        lc, scratch_,
        [this](Variable v) {
          if (v.index() >= (v.is_aux() ? r_.n_aux : r_.n_inputs)) never_allocated();
          return v.is_aux() ? uint32_t(kAuxTag | v.index()) : uint32_t(v.index());
        },
        [&m](uint32_t col, const F& val) {
          m.col.push_back(col);
          m.val.push_back(val);
        });
    m.row_ptr.push_back(m.col.size());
  }

  CsrMatrix<F>& matrix(size_t m) { return m == 0 ? r_.A : m == 1 ? r_.B : r_.C; }

  // Exactly `by` more elements, not zeroed (NoInitAllocator), and room for `spare` more: no
  // doubling's slack on arrays of many GB. run_parts grows each array by k - 1 parts' rows or
  // entries, and part p (1..k-1) writes the row ends [k0 + p c + 1, k0 + (p + 1) c] and the
  // entries [nnz0 + p e, nnz0 + (p + 1) e) for c and e its counts (put_row): together exactly the
  // new elements, once each, when every part has part 0's counts. A part that does not (check())
  // or that throws leaves the recorder spent (kParts), and a spent recorder hands out nothing
  // of r_ (finish() refuses), so an element no part wrote is never read.
  template <class T>
  static void grow(RecordedArray<T>& v, uint64_t by, uint64_t spare) {
    v.reserve(v.size() + by + spare);
    v.resize(v.size() + by);
  }

  // What one part adds: part 0's counts, which every other part must match.
  struct PartCounts {
    uint64_t aux = 0, constraints = 0;
    std::array<uint64_t, 3> nnz{};  // A, B, C

    std::string describe() const {
      return std::to_string(aux) + " aux variables, " + std::to_string(constraints) + " constraints and " +
             std::to_string(nnz[0]) + "/" + std::to_string(nnz[1]) + "/" + std::to_string(nnz[2]) +
             " non-zeros in A/B/C";
    }
  };
  // The recording as run_parts found it (before part 0), and a part's counts.
  struct PartsLayout {
    uint64_t k = 0, n_inputs = 0, aux0 = 0, k0 = 0;
    std::array<uint64_t, 3> nnz0{};
    PartCounts per;
  };

  // The recorder of part p >= 1: rows into its slice of the parent's preallocated matrices
  // (row ends, columns and values at the one-thread offsets), density into bitmaps of its own.
  // It may use the inputs and the variables made before the parts (index < aux0), and its own.
  class PartRecorder final : public ConstraintSystem<F> {
   public:
    PartRecorder(R1CS<F>& r, const PartsLayout& l, uint64_t p)
        : l_(l), p_(p), base_(l.aux0 + p * l.per.aux), pre_a_(l.aux0), pre_b_(l.aux0), inputs_b_(l.n_inputs) {
      CsrMatrix<F>* ms[3] = {&r.A, &r.B, &r.C};
      for (size_t m = 0; m < 3; ++m) {
        const uint64_t at = l.nnz0[m] + p * l.per.nnz[m];
        out_[m] = {ms[m]->row_ptr.data() + l.k0 + p * l.per.constraints + 1, ms[m]->col.data() + at,
                   ms[m]->val.data() + at, at};
      }
    }

    void enforce(Name, const LC& a, const LC& b, const LC& c) override {
      put_row(0, a);
      put_row(1, b);
      put_row(2, c);
      mark(a, own_a_, pre_a_, nullptr);
      mark(b, own_b_, pre_b_, &inputs_b_);
      ++n_constraints_;
    }
    bool needs_values() const override { return false; }

    // Throws std::logic_error unless the part matched part 0's counts.
    void check() const {
      if (n_aux_ == l_.per.aux && n_constraints_ == l_.per.constraints && nnz_ == l_.per.nnz) return;
      PartCounts got;
      got.aux = n_aux_;
      got.constraints = n_constraints_;
      got.nnz = nnz_;
      throw std::logic_error("RecordingCS: part " + std::to_string(p_) + " of " + std::to_string(l_.k) + " has " +
                             got.describe() + "; part 0 has " + l_.per.describe() +
                             " (run_parts' parts must be alike)");
    }
    void merge_density(R1CS<F>& r) const {
      r.aux_in_a.or_at(0, pre_a_);
      r.aux_in_b.or_at(0, pre_b_);
      r.input_in_b.or_at(0, inputs_b_);
      r.aux_in_a.or_at(base_, own_a_);
      r.aux_in_b.or_at(base_, own_b_);
    }

   protected:
    Variable alloc_aux_impl(Name, const ValueSource<F>&) override {
      if (base_ + n_aux_ >= kAuxTag) throw std::length_error("RecordingCS: too many aux variables");
      own_a_.push_back(false);
      own_b_.push_back(false);
      return Variable::aux(base_ + n_aux_++);
    }
    Variable alloc_input_impl(Name, const ValueSource<F>&) override {
      throw std::logic_error("RecordingCS: part " + std::to_string(p_) + " of " + std::to_string(l_.k) +
                             " allocates an input; parts allocate aux variables only");
    }

   private:
    struct Out {
      uint64_t* row_end;  // row_ptr[first row + 1]
      uint32_t* col;
      F* val;
      uint64_t at;  // the slice's first entry in the whole matrix
    };

    uint32_t tag(Variable v) const {
      const uint64_t i = v.index();
      if (v.is_input()) {
        if (i >= l_.n_inputs) never_allocated();
        return uint32_t(i);
      }
      if (i < l_.aux0 || (i >= base_ && i - base_ < n_aux_)) return uint32_t(kAuxTag | i);
      if (i < l_.aux0 + l_.k * l_.per.aux && (i < base_ || i - base_ >= l_.per.aux))
        throw std::logic_error("RecordingCS: part " + std::to_string(p_) + " of " + std::to_string(l_.k) +
                               " uses aux variable " + std::to_string(i) +
                               " of another part; parts may use only inputs, their own variables and those "
                               "allocated before the parts");
      never_allocated();
    }

    void put_row(size_t m, const LC& lc) {
      // Past part 0's rows or entries only counts are kept (check() refuses the part): the
      // next part's slice starts there.
      const bool row_fits = n_constraints_ < l_.per.constraints;
      const Out& o = out_[m];
      uint64_t& n = nnz_[m];
      sorted_row(
          lc, scratch_, [this](Variable v) { return tag(v); },
          [&](uint32_t col, const F& val) {
            if (row_fits && n < l_.per.nnz[m]) {
              o.col[n] = col;
              o.val[n] = val;
            }
            ++n;
          });
      if (row_fits) o.row_end[n_constraints_] = o.at + n;
    }

    // mark_density's rule (terms as written, non-zero coefficients), into this part's bitmaps:
    // its own variables at their offset in the part, earlier ones at their index. tag() has
    // checked every variable of the row.
    void mark(const LC& lc, Bitmap& own, Bitmap& pre, Bitmap* inputs) const {
      for (const Term<F>& t : lc.terms()) {
        if (t.coeff.is_zero()) continue;
        const uint64_t i = t.var.index();
        if (t.var.is_aux()) {
          if (i < l_.aux0)
            pre.set(i);
          else
            own.set(i - base_);
        } else if (inputs) {
          inputs->set(i);
        }
      }
    }

    const PartsLayout& l_;
    const uint64_t p_, base_;
    std::array<Out, 3> out_{};
    uint64_t n_aux_ = 0, n_constraints_ = 0;
    std::array<uint64_t, 3> nnz_{};
    Bitmap own_a_, own_b_, pre_a_, pre_b_, inputs_b_;
    std::vector<Entry> scratch_;
  };

  enum class State : uint8_t {
    kRecording,
    kParts,  // parts 1..k-1 running, or one of them failed: the recording is not whole
    kFinished,
  };
  [[noreturn]] void refuse_use(const char* what) const {
    if (state_ == State::kFinished) throw std::logic_error(std::string("RecordingCS: ") + what + " after finish()");
    throw std::logic_error(std::string("RecordingCS: ") + what +
                           " while run_parts records the parts, or after it failed (a part must use the constraint "
                           "system it is handed; a failed recording is not whole)");
  }

  R1CS<F> r_ = [] {
    R1CS<F> r;
    r.n_inputs = 1;  // ONE
    r.input_in_b.push_back(false);
    return r;
  }();
  std::vector<Entry> scratch_;
  util::ThreadPool* pool_ = nullptr;
  State state_ = State::kRecording;
};

}  // namespace zkmill::cs
