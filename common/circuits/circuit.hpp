// SPDX-License-Identifier: MIT
// The circuit interface and the factory for zkmill's built-in benchmark circuits.
//
// A circuit instance is (name, size, seed, partition). Its R1CS shape depends only on
// (name, size): constants come from fixed domain strings, so one proving key serves every
// seed and partition. The private inputs derive from (seed, partition) through prf.hpp, and
// the partition index is always public input 1, so proofs of different partitions are for
// different statements. Circuits are immutable after construction: synthesize() may be
// called any number of times, with any constraint system, from several threads at once.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace zkmill::circuits {

template <class F>
class Circuit {
 public:
  virtual ~Circuit() = default;
  virtual std::string_view name() const = 0;
  // Allocates inputs and aux variables and enforces constraints on cs.
  virtual void synthesize(cs::ConstraintSystem<F>& cs) const = 0;
  // The requested size (about this many constraints) and the instance's seed/partition.
  virtual uint64_t size() const = 0;
  virtual uint64_t seed() const = 0;
  virtual uint64_t partition() const = 0;
  // A one-line description of the sizing decisions, e.g. "3 paths, depths 32,32,31".
  virtual std::string describe() const = 0;
  // The instance's statement: its public inputs after ONE, in allocation order, computed
  // natively (the circuit's hashes and rounds out of circuit, no constraint or witness
  // bookkeeping). What synthesize() allocates as inputs, exactly: the coordinator checks a
  // synth worker's reported statement against it, so no worker chooses what is proved.
  virtual std::vector<F> public_inputs() const = 0;
};

// For code that is templated on the circuit rather than going through the virtual base.
template <class C, class F>
concept CircuitFor = requires(const C& c, cs::ConstraintSystem<F>& s) {
  { c.name() } -> std::convertible_to<std::string_view>;
  c.synthesize(s);
};

// The known names, in a stable order: "chain", "merkle", "porep".
std::span<const std::string_view> circuit_names();

// Builds a built-in circuit; an unknown name throws std::invalid_argument listing the
// known ones. size = target constraint count (>= 1). Instantiated for Bn254Fr and
// Bls12381Fr in registry.cpp.
template <class F>
std::unique_ptr<Circuit<F>> make_circuit(std::string_view name, uint64_t size, uint64_t seed, uint64_t partition);

// Whether make_circuit accepts the name (for validating configuration before any work).
bool is_known_circuit(std::string_view name);

// The error message for an unknown name, shared with the CLI's validation.
std::string unknown_circuit_message(std::string_view name);

}  // namespace zkmill::circuits
