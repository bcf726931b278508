// SPDX-License-Identifier: MIT
// `zkmill zkey export verificationkey <circuit.zkey> <verification_key.json>`: the snarkjs
// command of the same name, including vk_alphabeta_12. Exit 2 on any error.
// zkmill-cli-links: zk_formats
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/formats/zkey.hpp"
#include "common/groth16/snarkjs_json.hpp"

namespace zkmill::cli {
namespace {

struct ZkeyOptions {
  std::string zkey, out;
};

int run_export_vk(const ZkeyOptions& o) {
  try {
    auto f = formats::ZkeyFile::open(o.zkey);
    return curves::with_curve(f.curve(), [&]<class E>(E) {
      // Only the header and IC: the bulk sections are never decoded for an export.
      auto vk = formats::load_zkey_vk<E>(f);
      groth16::snarkjs::write_json_file(o.out, groth16::snarkjs::vk_to_json<E>(vk));
      return 0;
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

RunFn setup_zkey(CLI::App& sub) {
  auto o = std::make_shared<ZkeyOptions>();
  sub.require_subcommand(1);
  auto* exp = sub.add_subcommand("export", "Export from a snarkjs .zkey");
  exp->require_subcommand(1);
  auto* vk = exp->add_subcommand("verificationkey", "Write the verification key (snarkjs schema)");
  vk->add_option("zkey", o->zkey, "circuit.zkey")->required();
  vk->add_option("verification_key", o->out, "verification_key.json to write")->required();
  return [o](const Context&) { return run_export_vk(*o); };
}

const RegisterCommand kZkey{"zkey", "snarkjs .zkey tools: export verificationkey", setup_zkey};

}  // namespace
}  // namespace zkmill::cli
