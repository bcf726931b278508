// Groth16 verification of snarkjs-schema files, shared by `zkmill verify` and
// `zkmill groth16 verify` (exit 0 valid, 1 invalid, 2 error), for native and zkey circuits alike.
#pragma once

#include <cstdio>
#include <string>

#include "common/curves/dispatch.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::groth16::snarkjs {

enum class VerifyOutcome { Valid, Invalid };

// Verifies snarkjs-schema proof/public/vk documents. Throws (std::exception) for malformed or
// mismatched input, which callers report as an error; a proof point off the curve or outside
// the subgroup is an invalid proof, not an error.
inline VerifyOutcome verify_snarkjs(const nlohmann::json& vk_json, const std::string& vk_name,
                                    const nlohmann::json& pub_json, const nlohmann::json& proof_json,
                                    const std::string& proof_name, std::string* why) {
  CurveId curve = curve_of(vk_json, vk_name);
  if (proof_json.is_object() && proof_json.contains("curve")) {
    const auto& pc = proof_json["curve"];
    if (!pc.is_string() || parse_curve(pc.get<std::string>()) != curve)
      throw std::runtime_error(proof_name + ": proof is for curve " + pc.dump() + ", verification key for " +
                               curve_snarkjs_name(curve));
  }
  return curves::with_curve(curve, [&]<class E>(E) {
    PreparedVerifyingKey<E> pvk(vk_from_json<E>(vk_json));
    auto inputs = serde::snarkjs::scalars_from_json<typename E::Fr>(pub_json);
    Proof<E> proof;
    try {
      proof = proof_from_json<E>(proof_json);
    } catch (const serde::DecodeError& e) {
      if (why) *why = e.what();
      return VerifyOutcome::Invalid;
    }
    return pvk.verify(proof, inputs) ? VerifyOutcome::Valid : VerifyOutcome::Invalid;
  });
}

// The CLI edge: reads the three files, prints the verdict; 0 valid, 1 invalid, 2 error.
inline int verify_snarkjs_files(const std::string& vk, const std::string& pub, const std::string& proof) {
  try {
    std::string why;
    auto outcome = verify_snarkjs(read_json_file(vk), vk, read_json_file(pub), read_json_file(proof),
                                  proof, &why);
    if (!why.empty()) std::fprintf(stderr, "zkmill: invalid proof: %s\n", why.c_str());
    std::printf("%s\n", outcome == VerifyOutcome::Valid ? "OK: proof is valid" : "INVALID: proof does not verify");
    return outcome == VerifyOutcome::Valid ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace zkmill::groth16::snarkjs
