// SPDX-License-Identifier: MIT
// ProofChecker: dispatches on the circuit's curve once, when its verifying key is first loaded.
#include "coordinator/proof_checker.hpp"

#include <memory>

#include "common/circuits/circuit.hpp"
#include "common/curves/dispatch.hpp"
#include "common/formats/circom_files.hpp"
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
  const auto meta = nlohmann::json::parse(c.count("meta") ? c.at("meta") : std::string("{}"), nullptr, false);
  const std::string name = meta.is_object() ? meta.value("circuit", std::string()) : std::string();
  const uint64_t size =
      meta.is_object() && meta.contains("size") && meta["size"].is_number_unsigned() ? meta["size"].get<uint64_t>() : 0;
  Entry e = curves::with_curve(*curve, [&]<class E>(E) {
    using Fr = typename E::Fr;
    auto pvk = std::make_shared<groth16::PreparedVerifyingKey<E>>(groth16::snarkjs::vk_from_json<E>(vk_json));
    Entry out;
    // Decoded without the subgroup tests: verify and verify_batch make them (once, not twice).
    constexpr auto kDecode = serde::Validation::SkipSubgroupCheck;
    out.one = [pvk](const nlohmann::json& proof, const nlohmann::json& pub) {
      auto p = groth16::snarkjs::proof_from_json<E>(proof, "proof", kDecode);
      auto x = serde::snarkjs::scalars_from_json<Fr>(pub);
      return pvk->verify(p, x);
    };
    out.batch = [pvk](const std::vector<nlohmann::json>& proofs, const std::vector<nlohmann::json>& pubs) {
      std::vector<groth16::Proof<E>> ps;
      std::vector<std::vector<Fr>> xs;
      for (size_t i = 0; i < proofs.size(); ++i) {
        ps.push_back(groth16::snarkjs::proof_from_json<E>(proofs[i], "proof", kDecode));
        xs.push_back(serde::snarkjs::scalars_from_json<Fr>(pubs[i]));
      }
      return pvk->verify_batch(std::span<const groth16::Proof<E>>(ps), std::span<const std::vector<Fr>>(xs));
    };
    out.n_public = pvk->num_public_inputs();
    out.canonical = [](const std::vector<std::string>& pub) {
      std::vector<std::string> canon;
      for (const auto& x : serde::snarkjs::scalars_from_json<Fr>(nlohmann::json(pub))) canon.push_back(x.to_dec());
      return canon;
    };
    out.from_wtns = [n = out.n_public](const std::string& bytes) {
      auto w = formats::WtnsFile::parse(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "the witness");
      if (w.curve() != E::kId) throw std::runtime_error("the witness is for another curve");
      if (w.size() < n + 1) throw std::runtime_error("the witness has fewer values than the key's public inputs");
      std::vector<std::string> pub;
      for (size_t i = 1; i <= n; ++i) {
        auto v = Fr::from_bytes_le(w.raw().data() + i * w.n8());
        if (!v) throw std::runtime_error("witness value " + std::to_string(i) + " is not canonical (>= r)");
        pub.push_back(v->to_dec());
      }
      return pub;
    };
    if (circuits::is_known_circuit(name) && size > 0) {
      out.builtin = [name, size](uint64_t seed, uint64_t partition) {
        std::vector<std::string> pub;
        for (const Fr& x : circuits::make_circuit<Fr>(name, size, seed, partition)->public_inputs())
          pub.push_back(x.to_dec());
        return pub;
      };
    } else {
      out.builtin_missing = "circuit " + circuit + " is registered without a built-in circuit's name and size";
    }
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

std::optional<std::vector<std::string>> ProofChecker::canonical_statement(const std::string& circuit,
                                                                          const std::vector<std::string>& pub,
                                                                          std::string* why) {
  const Entry& e = entry(circuit);
  if (pub.size() != e.n_public) {
    if (why) *why = std::to_string(pub.size()) + " public inputs, the circuit has " + std::to_string(e.n_public);
    return std::nullopt;
  }
  try {
    return e.canonical(pub);
  } catch (const std::exception& ex) {
    if (why) *why = std::string("a public input is not a field element: ") + ex.what();
  }
  return std::nullopt;
}

std::vector<std::string> ProofChecker::statement_from_wtns(const std::string& circuit, const std::string& wtns) {
  return entry(circuit).from_wtns(wtns);
}

std::optional<std::vector<std::string>> ProofChecker::builtin_statement(const std::string& circuit, uint64_t seed,
                                                                        uint64_t partition, std::string* why) {
  const Entry& e = entry(circuit);
  if (!e.builtin) {
    if (why) *why = e.builtin_missing;
    return std::nullopt;
  }
  return e.builtin(seed, partition);
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
