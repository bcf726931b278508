// Verifies partition proofs on the coordinator with the circuit's verifying key, which the
// submitting client stored in Redis (zk:circuit:<id>): the coordinator never needs, nor
// receives, a proving key. Prepared keys are cached per circuit id (immutable content).
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
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
  // All proofs of a job with one multi-pairing (all-or-nothing).
  bool verify_batch(const std::string& circuit, const std::vector<nlohmann::json>& proofs,
                    const std::vector<nlohmann::json>& pubs, std::string* why);

 private:
  struct Entry {
    std::function<bool(const nlohmann::json&, const nlohmann::json&)> one;
    std::function<bool(const std::vector<nlohmann::json>&, const std::vector<nlohmann::json>&)> batch;
  };
  const Entry& entry(const std::string& circuit);

  FarmStore& store_;
  std::map<std::string, Entry> cache_;
};

}  // namespace zkmill::farm
