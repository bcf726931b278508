// ProofChecker: dispatches on the circuit's curve once, when its verifying key is first loaded.
#include "coordinator/proof_checker.hpp"

#include <memory>

#include "common/curves/dispatch.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::farm {

const ProofChecker::Entry& ProofChecker::entry(const std::string& circuit) {
  if (auto it = cache_.find(circuit); it != cache_.end()) return it->second;
  auto c = store_.circuit(circuit);
  if (c.empty()) throw std::runtime_error("circuit " + circuit + " has no verifying key in Redis");
  auto curve = parse_curve(c.at("curve"));
  if (!curve) throw std::runtime_error("circuit " + circuit + ": unknown curve '" + c.at("curve") + "'");
  auto vk_json = nlohmann::json::parse(c.at("vk"));
  Entry e = curves::with_curve(*curve, [&]<class E>(E) {
    using Fr = typename E::Fr;
    auto pvk = std::make_shared<groth16::PreparedVerifyingKey<E>>(groth16::snarkjs::vk_from_json<E>(vk_json));
    Entry out;
    out.one = [pvk](const nlohmann::json& proof, const nlohmann::json& pub) {
      auto p = groth16::snarkjs::proof_from_json<E>(proof);
      auto x = serde::snarkjs::scalars_from_json<Fr>(pub);
      return pvk->verify(p, x);
    };
    out.batch = [pvk](const std::vector<nlohmann::json>& proofs, const std::vector<nlohmann::json>& pubs) {
      std::vector<groth16::Proof<E>> ps;
      std::vector<std::vector<Fr>> xs;
      for (size_t i = 0; i < proofs.size(); ++i) {
        ps.push_back(groth16::snarkjs::proof_from_json<E>(proofs[i]));
        xs.push_back(serde::snarkjs::scalars_from_json<Fr>(pubs[i]));
      }
      return pvk->verify_batch(std::span<const groth16::Proof<E>>(ps), std::span<const std::vector<Fr>>(xs));
    };
    return out;
  });
  return cache_.emplace(circuit, std::move(e)).first->second;
}

bool ProofChecker::verify_one(const std::string& circuit, const nlohmann::json& proof, const nlohmann::json& pub,
                              std::string* why) {
  const Entry& e = entry(circuit);
  try {
    if (e.one(proof, pub)) return true;
    if (why) *why = "proof does not verify";
  } catch (const std::exception& ex) {
    if (why) *why = std::string("proof or public inputs malformed: ") + ex.what();
  }
  return false;
}

bool ProofChecker::verify_batch(const std::string& circuit, const std::vector<nlohmann::json>& proofs,
                                const std::vector<nlohmann::json>& pubs, std::string* why) {
  const Entry& e = entry(circuit);
  try {
    if (e.batch(proofs, pubs)) return true;
    if (why) *why = "batch verification failed";
  } catch (const std::exception& ex) {
    if (why) *why = std::string("batch verification: ") + ex.what();
  }
  return false;
}

}  // namespace zkmill::farm
