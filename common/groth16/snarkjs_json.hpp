// SPDX-License-Identifier: MIT
// Verifying keys, proofs and public inputs in snarkjs's JSON schema, so that
// `snarkjs groth16 verify` accepts zkmill's proofs and zkmill verifies snarkjs's:
//   vk:    {protocol, curve ("bn128"|"bls12381"), nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2,
//           vk_delta_2, IC: [G1...]}  (G1 = ["x","y","1"], G2 = [["x0","x1"],["y0","y1"],["1","0"]])
//   proof: {pi_a, pi_b, pi_c, protocol, curve};  public: ["decimal", ...]
// vk_alphabeta_12 = e(alpha, beta) is written too, coefficients in snarkjs's tower order (our
// GT values equal snarkjs's: see tests/common/pairing and the zkey export test).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/groth16/proof.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/pairing/engine.hpp"
#include "common/serde/snarkjs_json.hpp"
#include "common/util/atomic_file.hpp"
#include "common/util/input_file.hpp"

namespace zkmill::groth16::snarkjs {

using nlohmann::json;

class JsonFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// JSON inputs are small (a vk holds one G1 point per public input); the cap keeps a wrong
// path (a multi-GiB key) from being read into memory first.
inline constexpr uint64_t kMaxJsonFileBytes = uint64_t(1) << 30;

inline json read_json_file(const std::string& path) {
  std::string text;
  try {
    text = util::read_input_file(path, kMaxJsonFileBytes);
  } catch (const util::InputFileError& e) {
    throw JsonFileError(e.what());
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw JsonFileError(path + ": not valid JSON: " + e.what());
  }
}

// The document as written to disk: a complete file or none (util::write_file_atomic).
inline std::string json_file_text(const json& j) { return j.dump(1) + "\n"; }

inline void write_json_file(const std::string& path, const json& j) {
  util::write_file_atomic(path, json_file_text(j));
}

// proof.json and public.json together: both appear, or neither (a proof without its public
// inputs, or beside the previous proof's, would be a wrong statement). Existing files are
// replaced only once both new ones are fully on disk.
inline void write_proof_files(const std::string& proof_path, const json& proof, const std::string& public_path,
                              const json& pub) {
  if (std::filesystem::path(proof_path).lexically_normal() == std::filesystem::path(public_path).lexically_normal())
    throw JsonFileError(proof_path + ": the proof and the public inputs cannot go to the same file");
  util::AtomicFileSet files;
  files.add(proof_path, json_file_text(proof));
  files.add(public_path, json_file_text(pub));
  files.commit();
}

// The curve a snarkjs JSON document names ("curve" field).
inline CurveId curve_of(const json& j, const std::string& path) {
  if (!j.is_object() || !j.contains("curve") || !j["curve"].is_string())
    throw JsonFileError(path + ": no \"curve\" field");
  auto c = parse_curve(j["curve"].get<std::string>());
  if (!c) throw JsonFileError(path + ": unsupported curve \"" + j["curve"].get<std::string>() + "\"");
  return *c;
}

// An Fp12 value as snarkjs prints it: [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], each Fp2
// as [c0, c1] decimal strings.
template <class E>
json gt_to_json(const typename pairing::Engine<E>::GT& gt) {
  std::vector<std::string> coeffs;
  gt.for_each_coefficient([&](const auto& x) { coeffs.push_back(x.to_dec()); });
  json out = json::array();
  for (size_t half = 0; half < 2; ++half) {
    json f6 = json::array();
    for (size_t q = 0; q < 3; ++q) f6.push_back({coeffs[half * 6 + q * 2], coeffs[half * 6 + q * 2 + 1]});
    out.push_back(f6);
  }
  return out;
}

template <class E>
json vk_to_json(const VerifyingKey<E>& vk) {
  using serde::snarkjs::point_to_json;
  json ic = json::array();
  for (const auto& p : vk.ic) ic.push_back(point_to_json(p));
  return {{"protocol", "groth16"},
          {"curve", curve_snarkjs_name(E::kId)},
          {"nPublic", vk.ic.size() - 1},
          {"vk_alpha_1", point_to_json(vk.alpha_g1)},
          {"vk_beta_2", point_to_json(vk.beta_g2)},
          {"vk_gamma_2", point_to_json(vk.gamma_g2)},
          {"vk_delta_2", point_to_json(vk.delta_g2)},
          {"IC", ic},
          {"vk_alphabeta_12", gt_to_json<E>(pairing::Engine<E>::pairing(vk.alpha_g1, vk.beta_g2))}};
}

// The readers below name the file (`name`) and the field in every error, e.g.
//   proof.json: pi_a[1]: not a decimal field element: 'abc' (bn254 G1, snarkjs JSON)
// serde::DecodeError keeps its code (malformed vs off-curve) for verify's exit status.
inline void require_object(const json& j, const std::string& name, const char* what) {
  if (!j.is_object()) throw JsonFileError(name + ": not a " + what + " (a JSON " + j.type_name() + ", not an object)");
}
inline const json& field_of(const json& j, const std::string& name, const char* field) {
  if (!j.contains(field)) throw JsonFileError(name + ": missing field \"" + field + "\"");
  return j[field];
}
template <class G>
ec::Affine<G> point_field(const json& j, const std::string& name, const std::string& field,
                          serde::Validation v = serde::Validation::Full) {
  try {
    return serde::snarkjs::point_from_json<G>(j, v, field);
  } catch (const serde::DecodeError& e) {
    throw serde::DecodeError(e.code(), name + ": " + e.what());
  }
}

template <class E>
VerifyingKey<E> vk_from_json(const json& j, const std::string& name = "verification key") {
  using G1P = typename E::G1Params;
  using G2P = typename E::G2Params;
  require_object(j, name, "verification key");
  if (!j.contains("protocol") || j["protocol"] != "groth16")
    throw JsonFileError(name + ": protocol: not \"groth16\" (only Groth16 keys are supported)");
  VerifyingKey<E> vk;
  vk.alpha_g1 = point_field<G1P>(field_of(j, name, "vk_alpha_1"), name, "vk_alpha_1");
  vk.beta_g2 = point_field<G2P>(field_of(j, name, "vk_beta_2"), name, "vk_beta_2");
  vk.gamma_g2 = point_field<G2P>(field_of(j, name, "vk_gamma_2"), name, "vk_gamma_2");
  vk.delta_g2 = point_field<G2P>(field_of(j, name, "vk_delta_2"), name, "vk_delta_2");
  const json& ic = field_of(j, name, "IC");
  if (!ic.is_array() || ic.empty()) throw JsonFileError(name + ": IC: must be a non-empty array of G1 points");
  for (size_t i = 0; i < ic.size(); ++i)
    vk.ic.push_back(point_field<G1P>(ic[i], name, "IC[" + std::to_string(i) + "]"));
  if (j.contains("nPublic")) {
    if (!j["nPublic"].is_number_unsigned()) throw JsonFileError(name + ": nPublic: not a non-negative integer");
    if (j["nPublic"].get<uint64_t>() + 1 != vk.ic.size())
      throw JsonFileError(name + ": nPublic: " + j["nPublic"].dump() + " disagrees with the " +
                          std::to_string(vk.ic.size()) + " IC points (nPublic + 1 expected)");
  }
  return vk;
}

template <class E>
json proof_to_json(const Proof<E>& p) {
  using serde::snarkjs::point_to_json;
  return {{"pi_a", point_to_json(p.a)},
          {"pi_b", point_to_json(p.b)},
          {"pi_c", point_to_json(p.c)},
          {"protocol", "groth16"},
          {"curve", curve_snarkjs_name(E::kId)}};
}

// `v`: SkipSubgroupCheck only for a proof that goes straight to PreparedVerifyingKey's verify
// or verify_batch, which test subgroup membership themselves (the test of B in G2 is most of
// a proof's decoding cost; the coordinator's checks would otherwise pay it twice).
template <class E>
Proof<E> proof_from_json(const json& j, const std::string& name = "proof",
                         serde::Validation v = serde::Validation::Full) {
  require_object(j, name, "proof");
  if (j.contains("protocol") && j["protocol"] != "groth16") throw JsonFileError(name + ": protocol: not \"groth16\"");
  return {point_field<typename E::G1Params>(field_of(j, name, "pi_a"), name, "pi_a", v),
          point_field<typename E::G2Params>(field_of(j, name, "pi_b"), name, "pi_b", v),
          point_field<typename E::G1Params>(field_of(j, name, "pi_c"), name, "pi_c", v)};
}

// public.json: errors name the file and the element ("public.json: [2]: ...").
template <class Fr>
std::vector<Fr> public_from_json(const json& j, const std::string& name = "public inputs") {
  try {
    return serde::snarkjs::scalars_from_json<Fr>(j);
  } catch (const serde::DecodeError& e) {
    throw serde::DecodeError(e.code(), name + ": " + e.what());
  }
}

template <class Fr>
json public_to_json(std::span<const Fr> xs) {
  json a = json::array();
  for (const auto& x : xs) a.push_back(x.to_dec());
  return a;
}

}  // namespace zkmill::groth16::snarkjs
