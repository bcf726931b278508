// SPDX-License-Identifier: MIT
// The worker's two steps for snarkjs (.zkey) circuits, the farm's counterpart of
// `zkmill groth16 prove` split across machines:
//   synthesize: the partition's .wtns bytes (from the `synth` message's payload frame) are
//     parsed and checked against the key (curve, nVars, ONE = 1, canonical values), checked
//     against the circuit's constraints when the .r1cs lies beside the key, and turned into a
//     cs::WitnessBundle of kind Zkey (a, b from the key's coefficients, c = a o b);
//   prove: the fetched bundle is proved on the worker's GPU (`--gpus`: GpuProver, i.e.
//     cuda::prove_gpu) or on the CPU (formats::prove_zkey), both with snarkjs's
//     odd-coset H; a GPU failure falls back to the CPU for that partition (logged as a
//     warning). The proof is checked against the key's own verifying key before it is reported.
// Decoded keys and constraint matrices are cached within worker.zkey_cache_mb, least recently
// used out (DecodedKeyCache): decoding a key's points costs far more than one small partition,
// and a worker serving several circuits proves their partitions interleaved. Thread-safe: a
// prove worker runs one task per device (and fetches ahead) at once; the cache hands out
// shared pointers, so a key evicted while a task uses it stays alive until that task ends.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "common/cs/witness_bundle.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/formats/circom_files.hpp"
#include "common/formats/zkey.hpp"
#include "worker/decoded_key_cache.hpp"
#include "worker/gpu_prover.hpp"
#include "worker/key_directory.hpp"

namespace zkmill::farm {

// A task failure that retrying cannot fix (the witness itself is wrong): the worker reports
// it with `permanent: true` and the coordinator fails the job at once.
class PermanentTaskError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ZkeyCircuits {
 public:
  // `cache_bytes`: the budget of decoded keys and matrices kept (worker.zkey_cache_mb).
  explicit ZkeyCircuits(uint64_t cache_bytes) : cache_(cache_bytes) {}

  // Throws PermanentTaskError for a witness that is malformed or does not satisfy the
  // circuit (naming the first unsatisfied constraint), std::runtime_error otherwise.
  cs::WitnessBundle synthesize(const KeyDirectory::Key& key, const std::string& wtns, uint64_t partition);

  struct Proved {
    nlohmann::json proof, pub;
    std::string backend;  // "GPU" or "CPU": what made the proof
  };
  // `corrupt_for_test`: the bad-proof-once hook (a well-formed proof that does not verify),
  // applied after the self-check so that the coordinator's rejection is what gets tested.
  // `gpu`: the worker's GPUs (the key stays resident there under `circuit`, the circuit id)
  // and `device`, the one to prove on; gpu == nullptr: prove on the CPU.
  Proved prove(const KeyDirectory::Key& key, const std::string& circuit, const cs::WitnessBundle& w,
               bool corrupt_for_test, GpuProver* gpu, int device);

  const DecodedKeyCache& cache() const { return cache_; }

 private:
  template <class E>
  std::shared_ptr<const formats::ZkeyProvingKey<E>> proving_key(const KeyDirectory::Key& key);
  template <class E>
  std::shared_ptr<const formats::R1cs<typename E::Fr>> constraints(const KeyDirectory::Key& key);

  DecodedKeyCache cache_;
};

}  // namespace zkmill::farm
