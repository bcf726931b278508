// SPDX-License-Identifier: MIT
// `zkmill verify <vk.json> <public.json> <proof.json>`: Groth16 verification of snarkjs-schema
// files (ours or snarkjs's). Exit 0 valid, 1 a well-formed proof that does not verify, 2 any
// usage or input error (groth16::snarkjs::kVerifyError; table in docs/interop.md).
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
  sub.footer(groth16::snarkjs::kVerifyExitTable);
  return [o](const Context&) { return run_verify(*o); };
}

const RegisterCommand kVerify{"verify", "Verify a Groth16 proof (exit 0 valid, 1 invalid, 2 error)", setup_verify,
                              groth16::snarkjs::kVerifyError};

}  // namespace
}  // namespace zkmill::cli
