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
//
// Given a thread pool, run_parts() runs a circuit's like parts (PoRep's challenges, the
// circuit's last variables and constraints) on every core at once: the recorded shape's
// remainder split evenly gives each part its aux slice (at the indices the one-thread order
// gives) and its constraint count, which its sub-system checks exactly (else std::logic_error).
// A partition's witness pass is otherwise one thread's work while the other cores idle (130M
// constraints: ~10 s).
#pragma once

#include <cstdint>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cs/constraint_system.hpp"
#include "common/cs/witness_bundle.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::cs {

template <class F>
class WitnessCS final : public ConstraintSystem<F> {
 public:
  using LC = LinearCombination<F>;

  // inputs (ONE first) and aux receive the values; their sizes are the expected shape. With
  // `pool`, run_parts() runs parts concurrently on it.
  WitnessCS(std::span<F> inputs, std::span<F> aux, uint64_t n_constraints, util::ThreadPool* pool = nullptr)
      : inputs_(inputs), aux_(aux), expected_constraints_(n_constraints), pool_(pool) {
    if (inputs_.empty()) throw std::logic_error("WitnessCS: no room for the ONE input");
    inputs_[0] = F::one();
  }

  void run_parts(uint64_t k, const std::function<void(ConstraintSystem<F>&, uint64_t)>& part) override {
    if (pool_ == nullptr || pool_->size() < 2 || k < 2) return ConstraintSystem<F>::run_parts(k, part);
    // The parts are the circuit's last variables and constraints (run_parts' contract), so the
    // recorded shape's remainder, split evenly, is each part's: all k run at once.
    // (alloc and enforce refuse anything past the shape, so neither difference below wraps.)
    const uint64_t rest_aux = aux_.size() - n_aux_, rest_k = expected_constraints_ - n_constraints_;
    if (rest_aux % k != 0 || rest_k % k != 0) [[unlikely]]
      throw std::logic_error("WitnessCS: the last " + std::to_string(rest_aux) + " aux variables and " +
                             std::to_string(rest_k) + " constraints of the recorded shape do not split into " +
                             std::to_string(k) + " like parts");
    const uint64_t per_aux = rest_aux / k, per_k = rest_k / k;
    std::vector<std::exception_ptr> failed(k);
    pool_->run_tasks(k, [&](size_t t) {
      try {
        util::throw_if_cancelled(this->stop_token(), "synthesis");
        const uint64_t begin = n_aux_ + per_aux * t;
        WitnessCS sub(aux_.subspan(begin, per_aux), aux_base_ + begin, per_k);
        part(sub, t);
        sub.finish();
      } catch (...) {
        failed[t] = std::current_exception();
      }
    });
    for (const auto& e : failed)
      if (e) std::rethrow_exception(e);
    n_aux_ += rest_aux;
    n_constraints_ += rest_k;
  }

  void enforce(Name, const LC&, const LC&, const LC&) override {
    if (n_constraints_ == expected_constraints_) [[unlikely]]
      throw std::logic_error("WitnessCS: the circuit enforces more than the recorded shape's " +
                             std::to_string(expected_constraints_) +
                             (inputs_.empty() ? " constraints of a part" : " constraints"));
    ++n_constraints_;
  }
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
                             (aux_base_ == 0 ? " aux variables" : " aux variables of a part"));
    aux_[n_aux_] = value();
    return Variable::aux(aux_base_ + n_aux_++);
  }
  Variable alloc_input_impl(Name, const ValueSource<F>& value) override {
    if (n_inputs_ == inputs_.size()) [[unlikely]]
      throw std::logic_error(inputs_.empty() ? std::string("WitnessCS: a part allocates an input")
                                             : "WitnessCS: the circuit allocates more than the recorded " +
                                                   std::to_string(inputs_.size()) + " inputs");
    inputs_[n_inputs_] = value();
    return Variable::input(n_inputs_++);
  }

 private:
  // A part's sub-system (run_parts): no inputs, `aux` the slice whose first variable has index
  // aux_base; finish() checks it allocated exactly the slice and enforced n_constraints.
  WitnessCS(std::span<F> aux, uint64_t aux_base, uint64_t n_constraints)
      : aux_(aux), expected_constraints_(n_constraints), aux_base_(aux_base), n_inputs_(0) {}

  std::span<F> inputs_, aux_;
  uint64_t expected_constraints_;
  util::ThreadPool* pool_ = nullptr;
  uint64_t aux_base_ = 0;
  uint64_t n_inputs_ = 1, n_aux_ = 0, n_constraints_ = 0;
};

}  // namespace zkmill::cs
