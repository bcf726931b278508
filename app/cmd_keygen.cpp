// SPDX-License-Identifier: MIT
// `zkmill keygen --out PREFIX`: a CURVE keypair for the farm's encrypted control and bundle
// planes (docs/farm.md, "Encryption and authentication"). Writes PREFIX.key (the secret key,
// mode 0600, for zmq.key_file) and PREFIX.pub (the public key, for allow-lists and
// zmq.coordinator_public_key_file); prints the public key. Never overwrites a key file.
// zkmill-cli-links: zk_farm
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "farm/curve_keys.hpp"

namespace zkmill::cli {
namespace {

RunFn setup_keygen(CLI::App& sub) {
  auto prefix = std::make_shared<std::string>();
  sub.add_option("--out", *prefix, "Path prefix: writes PREFIX.key (secret, mode 0600) and PREFIX.pub")->required();
  return [prefix](const Context&) {
    const std::string pub = farm::CurveKeys::generate_files(*prefix);
    std::printf("%s\n", pub.c_str());
    std::fprintf(stderr, "zkmill: wrote %s.key (secret, mode 0600) and %s.pub\n", prefix->c_str(), prefix->c_str());
    return 0;
  };
}

const RegisterCommand kKeygen{"keygen", "Generate a CURVE keypair for the farm (PREFIX.key, PREFIX.pub)", setup_keygen};

}  // namespace
}  // namespace zkmill::cli
