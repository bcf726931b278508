// SPDX-License-Identifier: MIT
// CURVE key files for the farm (docs/farm.md, "Encryption and authentication"). Three kinds:
//   PREFIX.key  a secret key, Z85 (40 characters), file mode 0600 — this process's identity;
//   PREFIX.pub  the matching public key, Z85 — what peers put in their allow-list or use as
//               the server key;
//   allow-list  public keys, one per line.
// Every file may hold blank lines and comment lines starting with '#'. Errors name the config key and the file
// and say what is wrong, but never echo a secret key's text (it must not reach a log).
#pragma once

#include <string>
#include <vector>

#include "common/wire/zap_handler.hpp"
#include "farm/farm_config.hpp"

namespace zkmill::farm {

class CurveKeys {
 public:
  // Writes PREFIX.key (created 0600, refused if it exists) and PREFIX.pub from a fresh
  // zmq_curve_keypair. Returns the public key. Throws std::runtime_error.
  static std::string generate_files(const std::string& prefix);

  // The secret key in `path` and its public key (zmq_curve_public). `config_key` names the
  // setting in error messages, e.g. "zmq.key_file".
  static wire::CurveKeyPair read_keypair(const std::string& path, const std::string& config_key);
  // One public key (a .pub file).
  static std::string read_public_key(const std::string& path, const std::string& config_key);
  // An allow-list: every non-comment line is one public key; an empty list is an error
  // (it would refuse everybody, which is never what a config means).
  static std::vector<std::string> read_allow_list(const std::string& path, const std::string& config_key);

  // The keys a coordinator needs (own keypair, allow-list), or a worker needs (own keypair,
  // the coordinator's public key, and for a bundle server the allow-list). Throws
  // std::runtime_error naming the missing setting when zmq.curve is on but a file is not set.
  struct Loaded {
    wire::CurveKeyPair own;
    std::string coordinator_public_key;     // workers only
    std::vector<std::string> allowed_keys;  // coordinator, and synth-capable workers
  };
  static Loaded load_for_coordinator(const ZmqConfig& z);
  static Loaded load_for_worker(const ZmqConfig& z, bool serves_bundles);

  // True for a 40-character string that decodes as Z85 to 32 bytes.
  static bool is_z85_key(const std::string& s);
};

}  // namespace zkmill::farm
