// SPDX-License-Identifier: MIT
// The prove worker's GPU path (`zkmill worker --role prove --gpus 0,1`): Groth16 proofs on the
// listed CUDA devices through cuda::prove_gpu (native proving keys) and
// cuda::prove_gpu (snarkjs keys); the device keeps each key resident in its key
// cache, keyed by the circuit id.
//
// Each proof names its device: the worker's ProverPool (prover_pool.hpp) hands every device to
// one partition at a time, and proves on all listed devices at once. Calls for different
// devices may run concurrently (each device has its own key cache and streams).
//
// Device problems never crash the worker: a failed proof (out of memory, a CUDA error) throws
// std::runtime_error, which the worker reports as task_failed so the partition is retried.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cs/pce_matrices.hpp"
#include "common/cs/witness_bundle.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/formats/zkey.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_key.hpp"

namespace zkmill::farm {

class GpuProver {
 public:
  // Checks that this build has CUDA and that every listed device exists; throws
  // std::invalid_argument saying which does not (the worker then exits non-zero).
  explicit GpuProver(std::vector<int> devices);

  // What hello advertises: [{index, name, memory_mb}] per device.
  nlohmann::json describe() const { return described_; }

  const std::vector<int>& devices() const { return devices_; }

  // One proof with fresh random blinders on `device` (one of devices()). `key_id` names the
  // key in the device's key cache (the circuit id). A witness-only bundle needs the circuit's
  // PCE matrices `pce`: they stay resident on the device beside the key and a, b, c are
  // computed there. Throws std::runtime_error naming the device.
  groth16::Proof<curves::Bn254> prove(const groth16::ProvingKey<curves::Bn254>& pk, const cs::WitnessBundle& w,
                                      const std::string& key_id, int device, const cs::PceMatrices* pce = nullptr);
  groth16::Proof<curves::Bls12381> prove(const groth16::ProvingKey<curves::Bls12381>& pk, const cs::WitnessBundle& w,
                                         const std::string& key_id, int device, const cs::PceMatrices* pce = nullptr);
  // The same for a snarkjs key and a zkey bundle (formats::synthesize_zkey).
  groth16::Proof<curves::Bn254> prove(const formats::ZkeyProvingKey<curves::Bn254>& pk, const cs::WitnessBundle& w,
                                      const std::string& key_id, int device);
  groth16::Proof<curves::Bls12381> prove(const formats::ZkeyProvingKey<curves::Bls12381>& pk,
                                         const cs::WitnessBundle& w, const std::string& key_id, int device);

 private:
  template <class E, class Key>
  groth16::Proof<E> prove_with(const Key& pk, const cs::WitnessBundle& w, const std::string& key_id, int device,
                               const cs::PceMatrices* pce);

  std::vector<int> devices_;
  nlohmann::json described_ = nlohmann::json::array();
};

}  // namespace zkmill::farm
