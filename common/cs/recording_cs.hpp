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
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace zkmill::cs {

// CSR: row r's entries are [row_ptr[r], row_ptr[r+1]) of col/val. A column indexes
// z = (inputs ‖ aux): col < n_inputs is input col, otherwise aux col - n_inputs. Within a
// row, columns are strictly increasing (duplicates merged, zero coefficients dropped).
template <class F>
struct CsrMatrix {
  std::vector<uint64_t> row_ptr{0};
  std::vector<uint32_t> col;
  std::vector<F> val;

  size_t rows() const { return row_ptr.size() - 1; }
  size_t nnz() const { return col.size(); }
  std::span<const uint32_t> row_cols(size_t r) const { return {col.data() + row_ptr[r], row_ptr[r + 1] - row_ptr[r]}; }
  std::span<const F> row_vals(size_t r) const { return {val.data() + row_ptr[r], row_ptr[r + 1] - row_ptr[r]}; }
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
};

template <class F>
class RecordingCS final : public ConstraintSystem<F> {
 public:
  using LC = LinearCombination<F>;

  RecordingCS() = default;

  void enforce(Name, const LC& a, const LC& b, const LC& c) override {
    if (finished_) throw std::logic_error("RecordingCS: enforce after finish()");
    mark_density(a, &r_.aux_in_a, nullptr);
    mark_density(b, &r_.aux_in_b, &r_.input_in_b);
    append_row(r_.A, a);
    append_row(r_.B, b);
    append_row(r_.C, c);
    ++r_.n_constraints;
  }
  bool needs_values() const override { return false; }

  uint64_t num_inputs() const { return r_.n_inputs; }
  uint64_t num_aux() const { return r_.n_aux; }
  uint64_t num_constraints() const { return r_.n_constraints; }

  // Appends the input rows and renumbers columns into z order; the recorder is spent.
  R1CS<F> finish() {
    if (finished_) throw std::logic_error("RecordingCS: finish() called twice");
    finished_ = true;
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
    if (r_.n_aux >= kAuxTag) throw std::length_error("RecordingCS: too many aux variables");
    r_.aux_in_a.push_back(false);
    r_.aux_in_b.push_back(false);
    return Variable::aux(r_.n_aux++);
  }
  Variable alloc_input_impl(Name, const ValueSource<F>&) override {
    if (r_.n_inputs >= kAuxTag) throw std::length_error("RecordingCS: too many inputs");
    r_.input_in_b.push_back(false);
    return Variable::input(r_.n_inputs++);
  }

 private:
  static constexpr uint32_t kAuxTag = uint32_t(1) << 31;

  void append_row(CsrMatrix<F>& m, const LC& lc) {
    scratch_.clear();
    for (const Term<F>& t : lc.terms()) {
      uint64_t limit = t.var.is_aux() ? r_.n_aux : r_.n_inputs;
      if (t.var.index() >= limit)
        throw std::logic_error("RecordingCS: constraint uses a variable that was never allocated here");
      scratch_.push_back({t.var.is_aux() ? uint32_t(kAuxTag | t.var.index()) : uint32_t(t.var.index()), t.coeff});
    }
    // Tagged order is z order (inputs, then aux), so sorting here leaves rows sorted after
    // finish(). Rows are short; std::sort runs insertion sort on them.
    std::sort(scratch_.begin(), scratch_.end(), [](const Entry& x, const Entry& y) { return x.col < y.col; });
    for (size_t i = 0; i < scratch_.size();) {
      Entry e = scratch_[i];
      size_t j = i + 1;
      for (; j < scratch_.size() && scratch_[j].col == e.col; ++j) e.val += scratch_[j].val;
      if (!e.val.is_zero()) {
        m.col.push_back(e.col);
        m.val.push_back(e.val);
      }
      i = j;
    }
    m.row_ptr.push_back(m.col.size());
  }

  struct Entry {
    uint32_t col;
    F val;
  };
  R1CS<F> r_ = [] {
    R1CS<F> r;
    r.n_inputs = 1;  // ONE
    r.input_in_b.push_back(false);
    return r;
  }();
  std::vector<Entry> scratch_;
  bool finished_ = false;
};

}  // namespace zkmill::cs
