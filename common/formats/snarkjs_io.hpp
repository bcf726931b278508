// snarkjs-schema files for the zkey path: the verification key with vk_alphabeta_12, and the
// shared verify step behind `zkmill groth16 verify` (exit 0 valid, 1 invalid, 2 error), so
// `zkmill verify` can delegate to it too.
#pragma once

#include <cstdio>
#include <string>

#include "common/curves/dispatch.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"
#include "common/pairing/engine.hpp"

namespace zkmill::formats {

// snarkjs's verification_key.json: groth16::snarkjs::vk_to_json plus vk_alphabeta_12 =
// e(alpha1, beta2) as Gt.toObject writes it, [[[c0.c0.c0, c0.c0.c1], [c0.c1..], [c0.c2..]],
// [[c1.c0..], ...]], which is the order of Fp12::for_each_coefficient.
template <class E>
nlohmann::json vk_to_snarkjs_json(const groth16::VerifyingKey<E>& vk) {
  nlohmann::json j = groth16::snarkjs::vk_to_json<E>(vk);
  auto gt = pairing::Engine<E>::pairing(vk.alpha_g1, vk.beta_g2);
  std::vector<std::string> coeffs;
  gt.for_each_coefficient([&](const auto& x) { coeffs.push_back(x.to_dec()); });
  nlohmann::json ab = nlohmann::json::array();
  for (size_t half = 0; half < 2; ++half) {
    nlohmann::json f6 = nlohmann::json::array();
    for (size_t q = 0; q < 3; ++q) f6.push_back({coeffs[half * 6 + q * 2], coeffs[half * 6 + q * 2 + 1]});
    ab.push_back(f6);
  }
  j["vk_alphabeta_12"] = ab;
  return j;
}

enum class VerifyOutcome { Valid, Invalid };

// Verifies snarkjs-schema proof/public/vk documents. Throws (std::exception) for malformed or
// mismatched input, which callers report as an error; a proof point off the curve or outside
// the subgroup is an invalid proof, not an error.
inline VerifyOutcome verify_snarkjs(const nlohmann::json& vk_json, const std::string& vk_name,
                                    const nlohmann::json& pub_json, const nlohmann::json& proof_json,
                                    const std::string& proof_name, std::string* why) {
  namespace sj = groth16::snarkjs;
  CurveId curve = sj::curve_of(vk_json, vk_name);
  if (proof_json.is_object() && proof_json.contains("curve")) {
    const auto& pc = proof_json["curve"];
    if (!pc.is_string() || parse_curve(pc.get<std::string>()) != curve)
      throw std::runtime_error(proof_name + ": proof is for curve " + pc.dump() + ", verification key for " +
                               curve_snarkjs_name(curve));
  }
  return curves::with_curve(curve, [&]<class E>(E) {
    groth16::PreparedVerifyingKey<E> pvk(sj::vk_from_json<E>(vk_json));
    auto inputs = serde::snarkjs::scalars_from_json<typename E::Fr>(pub_json);
    groth16::Proof<E> proof;
    try {
      proof = sj::proof_from_json<E>(proof_json);
    } catch (const serde::DecodeError& e) {
      if (why) *why = e.what();
      return VerifyOutcome::Invalid;
    }
    return pvk.verify(proof, inputs) ? VerifyOutcome::Valid : VerifyOutcome::Invalid;
  });
}

// The CLI edge: reads the three files, prints the verdict; 0 valid, 1 invalid, 2 error.
inline int verify_snarkjs_files(const std::string& vk, const std::string& pub, const std::string& proof) {
  namespace sj = groth16::snarkjs;
  try {
    std::string why;
    auto outcome = verify_snarkjs(sj::read_json_file(vk), vk, sj::read_json_file(pub), sj::read_json_file(proof),
                                  proof, &why);
    if (!why.empty()) std::fprintf(stderr, "zkmill: invalid proof: %s\n", why.c_str());
    std::printf("%s\n", outcome == VerifyOutcome::Valid ? "OK: proof is valid" : "INVALID: proof does not verify");
    return outcome == VerifyOutcome::Valid ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace zkmill::formats
