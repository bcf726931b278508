// Verifying keys, proofs and public inputs in snarkjs's JSON schema, so that
// `snarkjs groth16 verify` accepts zkmill's proofs and zkmill verifies snarkjs's:
//   vk:    {protocol, curve ("bn128"|"bls12381"), nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2,
//           vk_delta_2, IC: [G1...]}  (G1 = ["x","y","1"], G2 = [["x0","x1"],["y0","y1"],["1","0"]])
//   proof: {pi_a, pi_b, pi_c, protocol, curve};  public: ["decimal", ...]
// vk_alphabeta_12 = e(alpha, beta) is written too, coefficients in snarkjs's tower order (our
// GT values equal snarkjs's: see tests/common/pairing and the zkey export test).
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/groth16/proof.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/pairing/engine.hpp"
#include "common/serde/snarkjs_json.hpp"

namespace zkmill::groth16::snarkjs {

using nlohmann::json;

class JsonFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw JsonFileError(path + ": cannot open");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw JsonFileError(path + ": not valid JSON: " + e.what());
  }
}

inline void write_json_file(const std::string& path, const json& j) {
  std::ofstream out(path);
  if (!out) throw JsonFileError(path + ": cannot create");
  out << j.dump(1) << "\n";
  if (!out) throw JsonFileError(path + ": write failed");
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

template <class E>
VerifyingKey<E> vk_from_json(const json& j) {
  using G1P = typename E::G1Params;
  using G2P = typename E::G2Params;
  using serde::snarkjs::point_from_json;
  if (j.value("protocol", "") != "groth16") throw JsonFileError("verification key: protocol is not \"groth16\"");
  VerifyingKey<E> vk;
  vk.alpha_g1 = point_from_json<G1P>(j.at("vk_alpha_1"));
  vk.beta_g2 = point_from_json<G2P>(j.at("vk_beta_2"));
  vk.gamma_g2 = point_from_json<G2P>(j.at("vk_gamma_2"));
  vk.delta_g2 = point_from_json<G2P>(j.at("vk_delta_2"));
  if (!j.at("IC").is_array() || j["IC"].empty()) throw JsonFileError("verification key: IC must be a non-empty array");
  for (const auto& p : j["IC"]) vk.ic.push_back(point_from_json<G1P>(p));
  if (j.contains("nPublic") && j["nPublic"].get<uint64_t>() + 1 != vk.ic.size())
    throw JsonFileError("verification key: nPublic disagrees with the number of IC points");
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

template <class E>
Proof<E> proof_from_json(const json& j) {
  using serde::snarkjs::point_from_json;
  if (j.contains("protocol") && j["protocol"] != "groth16") throw JsonFileError("proof: protocol is not \"groth16\"");
  return {point_from_json<typename E::G1Params>(j.at("pi_a")), point_from_json<typename E::G2Params>(j.at("pi_b")),
          point_from_json<typename E::G1Params>(j.at("pi_c"))};
}

template <class Fr>
json public_to_json(std::span<const Fr> xs) {
  json a = json::array();
  for (const auto& x : xs) a.push_back(x.to_dec());
  return a;
}

}  // namespace zkmill::groth16::snarkjs
