// `zkmill verify <vk.json> <public.json> <proof.json>`: Groth16 verification of snarkjs-schema
// files (ours or snarkjs's). Exit 0 valid, 1 invalid, 2 error (unreadable or malformed input).
// zkmill-cli-links: zk_groth16
#include <cstdio>
#include <memory>

#include "common/cli/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::cli {
namespace {

struct VerifyOptions {
  std::string vk, pub, proof;
};

int run_verify(const VerifyOptions& o) {
  namespace sj = groth16::snarkjs;
  try {
    auto vk_json = sj::read_json_file(o.vk);
    auto pub_json = sj::read_json_file(o.pub);
    auto proof_json = sj::read_json_file(o.proof);
    CurveId curve = sj::curve_of(vk_json, o.vk);
    if (proof_json.contains("curve") && parse_curve(proof_json["curve"].get<std::string>()) != curve)
      throw std::runtime_error(o.proof + ": proof is for curve " + proof_json["curve"].get<std::string>() +
                               ", verification key for " + curve_snarkjs_name(curve));
    bool ok = curves::with_curve(curve, [&]<class E>(E) {
      groth16::PreparedVerifyingKey<E> pvk(sj::vk_from_json<E>(vk_json));
      auto inputs = serde::snarkjs::scalars_from_json<typename E::Fr>(pub_json);
      groth16::Proof<E> proof;
      try {
        proof = sj::proof_from_json<E>(proof_json);
      } catch (const serde::DecodeError& e) {
        // A point off the curve or outside the subgroup is an invalid proof, not an I/O error.
        std::fprintf(stderr, "zkmill: invalid proof: %s\n", e.what());
        return false;
      }
      return pvk.verify(proof, inputs);
    });
    std::printf("%s\n", ok ? "OK: proof is valid" : "INVALID: proof does not verify");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

RunFn setup_verify(CLI::App& sub) {
  auto o = std::make_shared<VerifyOptions>();
  sub.add_option("verification_key", o->vk, "verification_key.json (snarkjs schema)")->required();
  sub.add_option("public", o->pub, "public.json")->required();
  sub.add_option("proof", o->proof, "proof.json")->required();
  return [o](const Context&) { return run_verify(*o); };
}

const RegisterCommand kVerify{"verify", "Verify a Groth16 proof (exit 0 valid, 1 invalid, 2 error)", setup_verify};

}  // namespace
}  // namespace zkmill::cli
