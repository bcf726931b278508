// SPDX-License-Identifier: MIT
// CircuitMatrices: records a native circuit's R1CS once per key and hands out shared copies.
#include "worker/circuit_matrices.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "common/circuits/circuit.hpp"
#include "common/groth16/proving_key.hpp"

namespace zkmill::farm {

template <class E>
std::shared_ptr<const CircuitMatrices::Entry<typename E::Fr>> CircuitMatrices::get(const KeyDirectory::Key& key) {
  using Fr = typename E::Fr;
  if (key.format != KeyDirectory::Format::Native)
    throw std::runtime_error("witness-only bundles are for native keys; " + key.path + " is a .zkey");
  std::lock_guard lock(mu_);
  auto& map = [&]() -> Map<Fr>& {
    if constexpr (E::kId == CurveId::Bn254)
      return bn254_;
    else
      return bls12_381_;
  }();
  if (auto it = map.find(key.path); it != map.end()) return it->second;
  const auto t0 = std::chrono::steady_clock::now();
  const auto meta = groth16::ProvingKey<E>::open(key.path).meta;
  cs::RecordingCS<Fr> rec;
  circuits::make_circuit<Fr>(meta.circuit, meta.size, /*seed=*/0, /*partition=*/0)->synthesize(rec);
  auto entry = std::make_shared<Entry<Fr>>();
  entry->r1cs = rec.finish();
  if (entry->r1cs.n_inputs != meta.n_inputs || entry->r1cs.n_aux != meta.n_aux ||
      entry->r1cs.n_rows() != meta.n_constraints)
    throw std::runtime_error("the recorded circuit " + meta.circuit + " does not match its key " + key.path);
  entry->id = cs::pce_id_of(entry->r1cs);
  spdlog::info("constraint matrices of {} ({} {}, {} rows) recorded in {:.0f} ms; PCE id {}", key.path, meta.circuit,
               meta.size, entry->r1cs.n_rows(),
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
               cs::short_hex(entry->id));
  map.emplace(key.path, entry);
  return entry;
}

template std::shared_ptr<const CircuitMatrices::Entry<curves::Bn254::Fr>> CircuitMatrices::get<curves::Bn254>(
    const KeyDirectory::Key&);
template std::shared_ptr<const CircuitMatrices::Entry<curves::Bls12381::Fr>> CircuitMatrices::get<curves::Bls12381>(
    const KeyDirectory::Key&);

}  // namespace zkmill::farm
