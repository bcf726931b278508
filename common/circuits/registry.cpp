// SPDX-License-Identifier: MIT
// The built-in circuit registry: name -> constructor, instantiated for both scalar fields
// here so that callers dispatching on CurveId at the edge need not include every circuit.
#include <array>
#include <stdexcept>

#include "common/circuits/chain.hpp"
#include "common/circuits/circuit.hpp"
#include "common/circuits/merkle.hpp"
#include "common/circuits/porep.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

namespace zkmill::circuits {

namespace {
constexpr std::array<std::string_view, 3> kNames = {ChainCircuit<ff::Bn254Fr>::kName, MerkleCircuit<ff::Bn254Fr>::kName,
                                                    PorepCircuit<ff::Bn254Fr>::kName};
}

std::span<const std::string_view> circuit_names() { return kNames; }

bool is_known_circuit(std::string_view name) {
  for (std::string_view n : kNames)
    if (n == name) return true;
  return false;
}

std::string unknown_circuit_message(std::string_view name) {
  std::string msg = "unknown circuit '" + std::string(name) + "'; known circuits: ";
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (i) msg += ", ";
    msg += kNames[i];
  }
  return msg;
}

template <class F>
std::unique_ptr<Circuit<F>> make_circuit(std::string_view name, uint64_t size, uint64_t seed, uint64_t partition) {
  // The name first: a typo is the likelier mistake, and its message lists the choices.
  if (!is_known_circuit(name)) throw std::invalid_argument(unknown_circuit_message(name));
  if (size == 0) throw std::invalid_argument("circuit size must be at least 1 constraint");
  // Generous but finite: the RecordingCS column index is 32-bit, and nobody means 2^40.
  if (size > (uint64_t(1) << 32))
    throw std::invalid_argument("circuit size " + std::to_string(size) + " exceeds 2^32 constraints");
  if (name == ChainCircuit<F>::kName) return std::make_unique<ChainCircuit<F>>(size, seed, partition);
  if (name == MerkleCircuit<F>::kName) return std::make_unique<MerkleCircuit<F>>(size, seed, partition);
  return std::make_unique<PorepCircuit<F>>(size, seed, partition);
}

template std::unique_ptr<Circuit<ff::Bn254Fr>> make_circuit<ff::Bn254Fr>(std::string_view, uint64_t, uint64_t,
                                                                         uint64_t);
template std::unique_ptr<Circuit<ff::Bls12381Fr>> make_circuit<ff::Bls12381Fr>(std::string_view, uint64_t, uint64_t,
                                                                               uint64_t);

}  // namespace zkmill::circuits
