// `zkmill verify <vk.json> <public.json> <proof.json>`: Groth16 verification of snarkjs-schema
// files (ours or snarkjs's). Exit 0 valid, 1 invalid, 2 error (unreadable or malformed input).
// zkmill-cli-links: zk_groth16
#include <memory>

#include "app/command.hpp"
#include "common/groth16/snarkjs_verify.hpp"

namespace zkmill::cli {
namespace {

struct VerifyOptions {
  std::string vk, pub, proof;
};

int run_verify(const VerifyOptions& o) { return groth16::snarkjs::verify_snarkjs_files(o.vk, o.pub, o.proof); }

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
