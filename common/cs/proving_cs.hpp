// SPDX-License-Identifier: MIT
// The proving constraint system: one synthesis pass computes the witness (input and aux
// assignments), the evaluation vectors a_i = <A_i, z>, b_i = <B_i, z>, c_i = <C_i, z> the
// prover's FFTs start from, and the density bitmaps its MSMs need, then hands everything
// over as a WitnessBundle.
//
// Rows follow recording_cs.hpp: constraints, then one row per input (A = input_i, B = C = 0),
// appended by finish(). Names are ignored here; nothing is formatted on this path.
//
// Two storage modes. Without a shape, vectors grow as the circuit allocates and
// into_bundle() copies them once into the bundle. Given the expected shape (from the
// proving key or a RecordingCS), values are written straight into a preallocated bundle,
// so there is no copy and no growth slack: at 130M constraints that halves peak memory.
// That mode also catches a circuit that does not match its key.
#pragma once

#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cs/constraint_system.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_bundle.hpp"

namespace zkmill::cs {

// A push-only column of field elements, either owned (growing) or a fixed window into a
// bundle. Reads go through one cached base pointer, whichever the mode.
template <class F>
class FieldColumn {
 public:
  void attach(std::span<F> window, const char* what) {
    fixed_ = window;
    base_ = window.data();
    what_ = what;
  }
  void push(const F& v) {
    if (fixed_.data()) {
      if (size_ == fixed_.size()) [[unlikely]]
        throw std::logic_error(std::string("ProvingCS: the circuit produces more ") + what_ +
                               " than the expected shape (" + std::to_string(fixed_.size()) + ")");
      base_[size_++] = v;
    } else {
      own_.push_back(v);
      base_ = own_.data();
      ++size_;
    }
  }
  size_t size() const { return size_; }
  size_t capacity_if_fixed() const { return fixed_.size(); }
  bool fixed() const { return fixed_.data() != nullptr; }
  const F& operator[](size_t i) const { return base_[i]; }
  std::span<const F> view() const { return {base_, size_}; }
  void release() {
    own_ = std::vector<F>();
    base_ = nullptr;
  }

 private:
  std::vector<F> own_;
  std::span<F> fixed_;
  F* base_ = nullptr;
  size_t size_ = 0;
  const char* what_ = "";
};

template <class F>
class ProvingCS final : public ConstraintSystem<F> {
 public:
  using LC = LinearCombination<F>;
  struct Shape {
    uint64_t n_inputs = 0;  // ONE included
    uint64_t n_aux = 0;
    uint64_t n_constraints = 0;  // without the input rows
  };
  static Shape shape_of(const R1CS<F>& r) { return {r.n_inputs, r.n_aux, r.n_constraints}; }

  ProvingCS() { push_one(); }

  explicit ProvingCS(const Shape& expected) : expected_(expected) {
    BundleHeader h;
    h.curve = curve_of_scalar_field<F>();
    h.n_inputs = expected.n_inputs;
    h.n_aux = expected.n_aux;
    h.n_rows = expected.n_constraints + expected.n_inputs;
    bundle_.emplace(WitnessBundle::allocate(h));
    inputs_.attach(bundle_->section_mut<F>(Section::Inputs), "public inputs");
    aux_.attach(bundle_->section_mut<F>(Section::Aux), "aux variables");
    a_.attach(bundle_->section_mut<F>(Section::A), "rows");
    b_.attach(bundle_->section_mut<F>(Section::B), "rows");
    c_.attach(bundle_->section_mut<F>(Section::C), "rows");
    push_one();
  }

  void enforce(Name, const LC& a, const LC& b, const LC& c) override {
    if (finished_) throw std::logic_error("ProvingCS: enforce after finish()");
    const F va = eval(a, &aux_in_a_, nullptr);
    // Squarings pass the same LC twice (x * x = x2): evaluate it once, mark B's density.
    b_.push(&b == &a ? (mark_density(b, &aux_in_b_, &input_in_b_), va) : eval(b, &aux_in_b_, &input_in_b_));
    a_.push(va);
    c_.push(eval(c, nullptr, nullptr));
    ++n_constraints_;
  }
  bool needs_values() const override { return true; }

  // Appends the input rows (a = input_i, b = c = 0) and, for a preallocated bundle, checks
  // that the circuit filled it exactly. Idempotent.
  void finish() {
    if (finished_) return;
    if (a_.fixed() && n_constraints_ != expected_.n_constraints)
      throw std::logic_error("ProvingCS: the circuit produced " + std::to_string(n_constraints_) +
                             " constraints, the expected shape has " + std::to_string(expected_.n_constraints));
    finished_ = true;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      a_.push(inputs_[i]);
      b_.push(F::zero());
      c_.push(F::zero());
    }
    if (a_.fixed() && (inputs_.size() != expected_.n_inputs || aux_.size() != expected_.n_aux))
      throw std::logic_error("ProvingCS: the circuit allocated " + std::to_string(inputs_.size()) + " inputs and " +
                             std::to_string(aux_.size()) + " aux variables, the expected shape has " +
                             std::to_string(expected_.n_inputs) + " and " + std::to_string(expected_.n_aux));
  }

  uint64_t num_inputs() const { return inputs_.size(); }
  uint64_t num_aux() const { return aux_.size(); }
  uint64_t num_constraints() const { return n_constraints_; }
  std::span<const F> inputs() const { return inputs_.view(); }
  std::span<const F> aux() const { return aux_.view(); }
  // Rows so far; after finish() these include the input rows.
  std::span<const F> a() const { return a_.view(); }
  std::span<const F> b() const { return b_.view(); }
  std::span<const F> c() const { return c_.view(); }
  const Bitmap& aux_in_a() const { return aux_in_a_; }
  const Bitmap& aux_in_b() const { return aux_in_b_; }
  const Bitmap& input_in_b() const { return input_in_b_; }

  // Finishes if needed and hands everything to a sealed bundle: in place when constructed
  // with a shape, otherwise with one copy per section (the vectors are freed as it goes).
  WitnessBundle into_bundle(const CircuitId& circuit_id, uint64_t partition) && {
    finish();
    WitnessBundle out;
    if (bundle_) {
      out = std::move(*bundle_);
      bundle_.reset();
    } else {
      BundleHeader h;
      h.curve = curve_of_scalar_field<F>();
      h.n_inputs = inputs_.size();
      h.n_aux = aux_.size();
      h.n_rows = a_.size();
      out = WitnessBundle::allocate(h);
      FieldColumn<F>* cols[5] = {&inputs_, &aux_, &a_, &b_, &c_};
      for (size_t s = 0; s < 5; ++s) {
        std::span<F> dst = out.section_mut<F>(Section(s));
        if (!cols[s]->view().empty()) std::memcpy(dst.data(), cols[s]->view().data(), dst.size_bytes());
        cols[s]->release();
      }
    }
    const Bitmap* maps[3] = {&aux_in_a_, &aux_in_b_, &input_in_b_};
    for (size_t d = 0; d < 3; ++d) {
      std::span<uint64_t> dst = out.density_mut(DensityMap(d));
      std::copy(maps[d]->words().begin(), maps[d]->words().end(), dst.begin());
    }
    out.set_circuit_id(circuit_id);
    out.set_partition(partition);
    out.seal();
    return out;
  }

 protected:
  Variable alloc_aux_impl(Name, const ValueSource<F>& value) override {
    if (finished_) throw std::logic_error("ProvingCS: alloc after finish()");
    aux_.push(value());
    aux_in_a_.push_back(false);
    aux_in_b_.push_back(false);
    return Variable::aux(aux_.size() - 1);
  }
  Variable alloc_input_impl(Name, const ValueSource<F>& value) override {
    if (finished_) throw std::logic_error("ProvingCS: alloc_input after finish()");
    inputs_.push(value());
    input_in_b_.push_back(false);
    return Variable::input(inputs_.size() - 1);
  }

 private:
  void push_one() {
    inputs_.push(F::one());
    input_in_b_.push_back(false);
  }

  const F& value_of(Variable v) const {
    uint64_t i = v.index();
    if (v.is_aux()) {
      if (i >= aux_.size()) [[unlikely]]
        throw std::logic_error("ProvingCS: constraint uses aux " + std::to_string(i) + ", never allocated here");
      return aux_[i];
    }
    if (i >= inputs_.size()) [[unlikely]]
      throw std::logic_error("ProvingCS: constraint uses input " + std::to_string(i) + ", never allocated here");
    return inputs_[i];
  }

  // <lc, z>, marking density on the way (same rule as RecordingCS: non-zero coefficient).
  F eval(const LC& lc, Bitmap* aux_density, Bitmap* input_density) const {
    static const F kMinusOne = -F::one();
    F acc = F::zero();
    for (const Term<F>& t : lc.terms()) {
      if (t.coeff.is_zero()) continue;
      // Evaluate first: value_of bounds-checks the index the density bit is then set at.
      if (t.var.is_one()) {
        acc += t.coeff;
      } else if (t.coeff.is_one()) {
        acc += value_of(t.var);
      } else if (t.coeff == kMinusOne) {
        acc -= value_of(t.var);
      } else {
        acc += t.coeff * value_of(t.var);
      }
      if (t.var.is_aux()) {
        if (aux_density) aux_density->set(t.var.index());
      } else if (input_density) {
        input_density->set(t.var.index());
      }
    }
    return acc;
  }

  FieldColumn<F> inputs_, aux_, a_, b_, c_;
  Bitmap aux_in_a_, aux_in_b_, input_in_b_;
  uint64_t n_constraints_ = 0;
  bool finished_ = false;
  Shape expected_;
  std::optional<WitnessBundle> bundle_;
};

}  // namespace zkmill::cs
