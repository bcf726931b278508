// The built-in circuits end to end: shape -> proving key (setup), and (seed, partition) ->
// witness bundle (synthesis), for whichever curve E. The CLI, demo, tests and benchmarks
// share these so they all prove the same statements the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/groth16/setup.hpp"
#include "zkmill/build_info.hpp"

namespace zkmill::groth16 {

template <class E>
ProvingKey<E> setup_builtin(const std::string& circuit, uint64_t size, ToxicWaste<typename E::Fr> tw,
                            util::ThreadPool& pool = util::ThreadPool::global()) {
  using Fr = typename E::Fr;
  auto c = circuits::make_circuit<Fr>(circuit, size, /*seed=*/0, /*partition=*/0);
  cs::RecordingCS<Fr> rec;
  c->synthesize(rec);
  auto r1cs = rec.finish();
  KeyMeta meta;
  meta.circuit = circuit;
  meta.size = size;
  meta.created_by = std::string("zkmill ") + build::kVersion + " (" + build::kGitCommit + ") dev setup";
  return generate_parameters<E>(r1cs, std::move(meta), tw, pool);
}

// Runs the circuit for (seed, partition) and returns the sealed bundle.
template <class E>
cs::WitnessBundle synthesize_builtin(const KeyMeta& meta, uint64_t seed, uint64_t partition,
                                     const cs::CircuitId& circuit_id = {}) {
  using Fr = typename E::Fr;
  auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, seed, partition);
  // Synthesize straight into a bundle of the key's shape: no final copy (half the peak
  // memory at PoRep scale), and a circuit that disagrees with its key is refused.
  cs::ProvingCS<Fr> pcs(typename cs::ProvingCS<Fr>::Shape{meta.n_inputs, meta.n_aux, meta.n_constraints - meta.n_inputs});
  c->synthesize(pcs);
  return std::move(pcs).into_bundle(circuit_id, partition);
}

// The name of the first unsatisfied constraint of a built-in circuit instance, or "".
template <class E>
std::string first_unsatisfied_builtin(const KeyMeta& meta, uint64_t seed, uint64_t partition) {
  using Fr = typename E::Fr;
  auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, seed, partition);
  cs::CheckingCS<Fr> check;
  c->synthesize(check);
  return check.is_satisfied() ? std::string() : *check.which_is_unsatisfied();
}

// Public inputs of a bundle as the verifier takes them (without the constant ONE).
template <class E>
std::vector<typename E::Fr> public_inputs(const cs::WitnessBundle& w) {
  auto in = w.inputs<typename E::Fr>();
  return {in.begin() + 1, in.end()};
}

}  // namespace zkmill::groth16
