// SPDX-License-Identifier: MIT
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

// Whether a decode failure of a proof point means "this proof is invalid" (exit 1) rather than
// "this is not a proof document" (exit 2): a point with well-formed, canonical coordinates that
// is off the curve or outside the subgroup is what a tampered proof looks like.
inline bool is_invalid_point(const serde::DecodeError& e) {
  return e.code() == serde::DecodeErrc::NotOnCurve || e.code() == serde::DecodeErrc::NotInSubgroup;
}

// Verifies snarkjs-schema proof/public/vk documents. Throws (std::exception) for malformed or
// mismatched input (wrong shape, non-decimal or non-canonical numbers, another curve, a public
// input count the key does not take), which callers report as an error; a well-formed proof
// whose point is off the curve or outside the subgroup is an invalid proof, not an error.
inline VerifyOutcome verify_snarkjs(const nlohmann::json& vk_json, const std::string& vk_name,
                                    const nlohmann::json& pub_json, const std::string& pub_name,
                                    const nlohmann::json& proof_json, const std::string& proof_name, std::string* why) {
  CurveId curve = curve_of(vk_json, vk_name);
  if (proof_json.is_object() && proof_json.contains("curve")) {
    const auto& pc = proof_json["curve"];
    if (!pc.is_string() || parse_curve(pc.get<std::string>()) != curve)
      throw std::runtime_error(proof_name + ": curve: the proof is for " + pc.dump() + ", the verification key " +
                               vk_name + " for " + curve_snarkjs_name(curve));
  }
  return curves::with_curve(curve, [&]<class E>(E) {
    PreparedVerifyingKey<E> pvk(vk_from_json<E>(vk_json, vk_name));
    auto inputs = public_from_json<typename E::Fr>(pub_json, pub_name);
    if (inputs.size() != pvk.num_public_inputs())
      throw std::runtime_error(pub_name + ": has " + std::to_string(inputs.size()) + " public inputs, the key " +
                               vk_name + " takes " + std::to_string(pvk.num_public_inputs()));
    Proof<E> proof;
    try {
      proof = proof_from_json<E>(proof_json, proof_name);
    } catch (const serde::DecodeError& e) {
      if (!is_invalid_point(e)) throw;
      if (why) *why = e.what();
      return VerifyOutcome::Invalid;
    }
    return pvk.verify(proof, inputs) ? VerifyOutcome::Valid : VerifyOutcome::Invalid;
  });
}

// Exit statuses of `zkmill verify` and `zkmill groth16 verify` (docs/interop.md):
inline constexpr int kVerifyValid = 0;    // the proof verifies for these public inputs
inline constexpr int kVerifyInvalid = 1;  // a well-formed proof that does not verify
inline constexpr int kVerifyError = 2;    // usage, unreadable or malformed input, mismatched curve/count

// For --help (and docs/interop.md, which holds the same table).
inline constexpr const char* kVerifyExitTable =
    "Exit status:\n"
    "  0  the proof is valid for these public inputs\n"
    "  1  a well-formed proof that does not verify (tampered proof, wrong public input,\n"
    "     a proof point off the curve or outside the subgroup)\n"
    "  2  usage error, or an input that is missing, unreadable, not a regular file, not valid\n"
    "     JSON, or malformed (wrong shape, non-decimal or non-canonical number), or for another\n"
    "     curve, or with a public-input count the key does not take\n"
    "Global options (--log-level, --config) work here too; see 'zkmill --help'.";

// The CLI edge: reads the three files, prints the verdict.
inline int verify_snarkjs_files(const std::string& vk, const std::string& pub, const std::string& proof) {
  try {
    std::string why;
    auto outcome = verify_snarkjs(read_json_file(vk), vk, read_json_file(pub), pub, read_json_file(proof), proof, &why);
    if (!why.empty()) std::fprintf(stderr, "zkmill: invalid proof: %s\n", why.c_str());
    std::printf("%s\n", outcome == VerifyOutcome::Valid ? "OK: proof is valid" : "INVALID: proof does not verify");
    return outcome == VerifyOutcome::Valid ? kVerifyValid : kVerifyInvalid;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return kVerifyError;
  }
}

}  // namespace zkmill::groth16::snarkjs
