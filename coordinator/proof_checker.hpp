// SPDX-License-Identifier: MIT
// Verifies partition proofs on the coordinator with the circuit's verifying key, which the
// submitting client stored in Redis (zk:circuit:<id>): the coordinator never needs, nor
// receives, a proving key. Prepared keys are cached per circuit id (immutable content).
//
// It also owns the partition's statement (its public inputs): taken from the staged .wtns for
// zkey jobs, computed natively from (circuit, size, seed, partition) for the built-in circuits
// of native jobs, and a synth worker's report must equal it. Proofs are verified only against
// that statement, never against what a prover sends.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "farm/farm_store.hpp"

namespace zkmill::farm {

class ProofChecker {
 public:
  explicit ProofChecker(FarmStore& store) : store_(store) {}

  // One proof against its public inputs (snarkjs JSON). False, with `why`, when it does not
  // verify or cannot be parsed; throws RedisError when the key cannot be fetched.
  bool verify_one(const std::string& circuit, const nlohmann::json& proof, const nlohmann::json& pub, std::string* why);
  // The circuit's single-proof check, safe to call from any thread (it holds the prepared key;
  // it may throw for a malformed proof). Loading the key reads Redis: call this on the loop.
  using OneCheck = std::function<bool(const nlohmann::json& proof, const nlohmann::json& pub)>;
  OneCheck verifier(const std::string& circuit) { return entry(circuit).one; }
  // The circuit's batch check (one multi-pairing for all, all-or-nothing, with random 128-bit
  // coefficients: groth16::PreparedVerifyingKey::verify_batch), safe to call from any thread.
  using BatchCheck =
      std::function<bool(const std::vector<nlohmann::json>& proofs, const std::vector<nlohmann::json>& pubs)>;
  BatchCheck batch_verifier(const std::string& circuit) { return entry(circuit).batch; }
  // `pub` (decimal strings) as the circuit's statement in canonical form (no leading zeros);
  // nullopt with `why` when the count is not the key's or a value is not a field element.
  std::optional<std::vector<std::string>> canonical_statement(const std::string& circuit,
                                                              const std::vector<std::string>& pub, std::string* why);
  // A zkey partition's statement: signals 1..nPublic of its .wtns bytes. Throws
  // std::runtime_error naming the problem for a malformed witness.
  std::vector<std::string> statement_from_wtns(const std::string& circuit, const std::string& wtns);
  // A native job's partition statement: the built-in circuit its key was made for (the
  // registered meta's circuit and size), instance (seed, partition), public inputs computed
  // natively (circuits::Circuit::public_inputs), canonical. nullopt, with `why`, when the
  // registration names no built-in circuit (a key registered before the meta was kept).
  std::optional<std::vector<std::string>> builtin_statement(const std::string& circuit, uint64_t seed,
                                                            uint64_t partition, std::string* why);
  // The computation itself, safe to run on any thread (what it needs is captured; it reads no
  // Redis); empty when the registration names no built-in circuit. Call this on the loop.
  using BuiltinStatement = std::function<std::vector<std::string>(uint64_t seed, uint64_t partition)>;
  BuiltinStatement builtin_fn(const std::string& circuit) { return entry(circuit).builtin; }
  // All proofs of a job with one multi-pairing (all-or-nothing).
  bool verify_batch(const std::string& circuit, const std::vector<nlohmann::json>& proofs,
                    const std::vector<nlohmann::json>& pubs, std::string* why);

 private:
  struct Entry {
    std::function<bool(const nlohmann::json&, const nlohmann::json&)> one;
    std::function<bool(const std::vector<nlohmann::json>&, const std::vector<nlohmann::json>&)> batch;
    std::function<std::vector<std::string>(const std::vector<std::string>&)> canonical;  // throws
    std::function<std::vector<std::string>(const std::string&)> from_wtns;               // throws
    // Empty when the registration names no built-in circuit.
    BuiltinStatement builtin;
    std::string builtin_missing;  // why `builtin` is empty
    size_t n_public = 0;
  };
  const Entry& entry(const std::string& circuit);

  FarmStore& store_;
  std::map<std::string, Entry> cache_;
};

}  // namespace zkmill::farm
