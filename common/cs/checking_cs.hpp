// SPDX-License-Identifier: MIT
// The checking constraint system, for tests and debugging: evaluates every constraint as it
// is enforced and remembers the full name path of the FIRST unsatisfied one, e.g.
// "chain/round 17/enforce x_next". It formats a namespace segment per push (cheap next to
// field arithmetic, and never done by the proving CS), and constraint names only on failure.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace zkmill::cs {

template <class F>
class CheckingCS final : public ConstraintSystem<F> {
 public:
  using LC = LinearCombination<F>;

  // record_aux_names keeps every aux variable's full path (for aux_name(), i.e. for
  // choosing tamper targets in tests); off by default, since it costs a string per variable.
  explicit CheckingCS(bool record_aux_names = false) : record_aux_names_(record_aux_names) {
    inputs_.push_back(F::one());
  }

  void enforce(Name name, const LC& a, const LC& b, const LC& c) override {
    ++n_constraints_;
    if (first_failure_) return;  // only the first is reported; keep synthesis cheap after it
    auto z = [this](Variable v) -> const F& { return value_of(v); };
    F va = a.evaluate(z), vb = b.evaluate(z), vc = c.evaluate(z);
    if (va * vb != vc) {
      first_failure_ = path_.with_leaf(name);
      failure_index_ = n_constraints_ - 1;
    }
  }
  void push_namespace(Name name) override { path_.push(name); }
  void pop_namespace() override { path_.pop(); }
  std::string current_path() const override { return path_.str(); }
  bool needs_values() const override { return true; }

  bool is_satisfied() const { return !first_failure_; }
  // Full path of the first unsatisfied constraint, or nullopt when all hold.
  const std::optional<std::string>& which_is_unsatisfied() const { return first_failure_; }
  // Its position among the circuit's constraints (0-based).
  std::optional<uint64_t> unsatisfied_index() const {
    return first_failure_ ? std::optional<uint64_t>(failure_index_) : std::nullopt;
  }

  uint64_t num_inputs() const { return inputs_.size(); }
  uint64_t num_aux() const { return aux_.size(); }
  uint64_t num_constraints() const { return n_constraints_; }
  std::span<const F> inputs() const { return inputs_; }
  std::span<const F> aux() const { return aux_; }
  // Name path under which an aux variable was allocated (needs record_aux_names).
  const std::string& aux_name(uint64_t i) const {
    if (!record_aux_names_) throw std::logic_error("CheckingCS: constructed without record_aux_names");
    return aux_names_.at(i);
  }

  // Test hook: the aux variable with this index gets (its correct value + 1) when it is
  // allocated, so the constraints that define or use it fail while the circuit's own
  // native bookkeeping stays right. Call before synthesis.
  void tamper_aux(uint64_t index) { tampered_.insert(index); }

 protected:
  Variable alloc_aux_impl(Name name, const ValueSource<F>& value) override {
    F v = value();
    if (tampered_.count(aux_.size())) v += F::one();
    aux_.push_back(v);
    if (record_aux_names_) aux_names_.push_back(path_.with_leaf(name));
    return Variable::aux(aux_.size() - 1);
  }
  Variable alloc_input_impl(Name, const ValueSource<F>& value) override {
    inputs_.push_back(value());
    return Variable::input(inputs_.size() - 1);
  }

 private:
  const F& value_of(Variable v) const {
    const std::vector<F>& vec = v.is_aux() ? aux_ : inputs_;
    if (v.index() >= vec.size())
      throw std::logic_error("CheckingCS: " + path_.str() + " uses " + (v.is_aux() ? "aux " : "input ") +
                             std::to_string(v.index()) + ", never allocated here");
    return vec[v.index()];
  }

  std::vector<F> inputs_, aux_;
  std::vector<std::string> aux_names_;
  NamePath path_;
  std::optional<std::string> first_failure_;
  uint64_t failure_index_ = 0;
  uint64_t n_constraints_ = 0;
  std::set<uint64_t> tampered_;
  bool record_aux_names_;
};

}  // namespace zkmill::cs
