// SPDX-License-Identifier: MIT
// The witness-only constraint system of precompiled constraint evaluation (PCE): it allocates
// variables and computes their values straight into a preallocated witness bundle and does
// nothing else. enforce() only counts, so no linear combination is evaluated, no density bit
// is set and nothing is recorded; needs_constraints() is false, so the gadgets do not even
// build their linear combinations (ConstraintSystem::enforce_with); a, b, c come afterwards from the recorded matrices
// (pce_matrices.hpp), a sparse mat-vec that runs on every core instead of inside the
// single-threaded synthesis.
//
// The shape is known (from the PCE file), so a circuit that allocates more or fewer variables
// or constraints than were recorded is refused, as ProvingCS's preallocated mode does.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "common/cs/constraint_system.hpp"
#include "common/cs/witness_bundle.hpp"

namespace zkmill::cs {

template <class F>
class WitnessCS final : public ConstraintSystem<F> {
 public:
  using LC = LinearCombination<F>;

  // inputs (ONE first) and aux receive the values; their sizes are the expected shape.
  WitnessCS(std::span<F> inputs, std::span<F> aux, uint64_t n_constraints)
      : inputs_(inputs), aux_(aux), expected_constraints_(n_constraints) {
    if (inputs_.empty()) throw std::logic_error("WitnessCS: no room for the ONE input");
    inputs_[0] = F::one();
  }

  void enforce(Name, const LC&, const LC&, const LC&) override { ++n_constraints_; }
  bool needs_values() const override { return true; }
  bool needs_constraints() const override { return false; }

  // Throws std::logic_error unless the circuit filled the shape exactly.
  void finish() const {
    if (n_inputs_ != inputs_.size() || n_aux_ != aux_.size() || n_constraints_ != expected_constraints_)
      throw std::logic_error("WitnessCS: the circuit produced " + std::to_string(n_inputs_) + " inputs, " +
                             std::to_string(n_aux_) + " aux variables and " + std::to_string(n_constraints_) +
                             " constraints; the recorded shape has " + std::to_string(inputs_.size()) + ", " +
                             std::to_string(aux_.size()) + " and " + std::to_string(expected_constraints_));
  }

 protected:
  Variable alloc_aux_impl(Name, const ValueSource<F>& value) override {
    if (n_aux_ == aux_.size()) [[unlikely]]
      throw std::logic_error("WitnessCS: the circuit allocates more than the recorded " + std::to_string(aux_.size()) +
                             " aux variables");
    aux_[n_aux_] = value();
    return Variable::aux(n_aux_++);
  }
  Variable alloc_input_impl(Name, const ValueSource<F>& value) override {
    if (n_inputs_ == inputs_.size()) [[unlikely]]
      throw std::logic_error("WitnessCS: the circuit allocates more than the recorded " +
                             std::to_string(inputs_.size()) + " inputs");
    inputs_[n_inputs_] = value();
    return Variable::input(n_inputs_++);
  }

 private:
  std::span<F> inputs_, aux_;
  uint64_t expected_constraints_;
  uint64_t n_inputs_ = 1, n_aux_ = 0, n_constraints_ = 0;
};

}  // namespace zkmill::cs
