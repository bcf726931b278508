// SPDX-License-Identifier: MIT
// Reading and writing the farm's CURVE key files (format: curve_keys.hpp).
#include "farm/curve_keys.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "common/util/atomic_file.hpp"
#include "common/util/input_file.hpp"

namespace zkmill::farm {

namespace {

constexpr size_t kZ85KeyChars = 40;

// The meaningful lines of a key file: trimmed, without blank lines and '#' comments.
std::vector<std::string> key_lines(const std::string& path, const std::string& config_key) {
  std::istringstream in;
  try {
    in.str(util::read_input_file(path, 1 << 20));  // regular files only; key files are tiny
  } catch (const util::InputFileError& e) {
    throw std::runtime_error(config_key + ": " + e.what());
  }
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    const auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const auto e = line.find_last_not_of(" \t\r");
    std::string text = line.substr(b, e - b + 1);
    // '#' is also a Z85 digit, so a key may start with it: a '#' line is a comment unless it
    // is a key.
    if (text[0] == '#' && !CurveKeys::is_z85_key(text)) continue;
    lines.push_back(std::move(text));
  }
  return lines;
}

std::string require_path(const std::string& value, const std::string& config_key, const std::string& why) {
  if (value.empty()) throw std::runtime_error("zmq.curve is on but '" + config_key + "' is not set (" + why + ")");
  return value;
}

}  // namespace

bool CurveKeys::is_z85_key(const std::string& s) {
  if (s.size() != kZ85KeyChars) return false;
  uint8_t bin[32];
  return zmq_z85_decode(bin, s.c_str()) != nullptr;
}

std::string CurveKeys::generate_files(const std::string& prefix) {
  if (prefix.empty()) throw std::runtime_error("--out needs a path prefix");
  char pub[kZ85KeyChars + 1] = {}, sec[kZ85KeyChars + 1] = {};
  if (zmq_curve_keypair(pub, sec) != 0)
    throw std::runtime_error(std::string("zmq_curve_keypair failed (libzmq built without CURVE?): ") +
                             zmq_strerror(zmq_errno()));
  const std::string key_path = prefix + ".key", pub_path = prefix + ".pub";
  // Refuse before writing anything, so a half-written pair never results.
  for (const auto& p : {key_path, pub_path}) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0)
      throw std::runtime_error("'" + p + "' already exists; refusing to overwrite a key");
  }
  // Both files appear or neither (util::AtomicFileSet); never overwriting a key (a lost secret
  // key cannot be recovered, and a replaced one silently locks this machine out of every
  // allow-list it is on), even one created meanwhile (the final step is link(), not rename()).
  util::AtomicFileSet files;
  files.add(
      key_path,
      "# zkmill CURVE secret key: keep it private (zmq.key_file). Public key: " + std::string(pub) + "\n" + sec + "\n",
      {.mode = 0600, .overwrite = false});
  files.add(pub_path, std::string(pub) + "\n", {.mode = 0644, .overwrite = false});
  files.commit();
  return pub;
}

wire::CurveKeyPair CurveKeys::read_keypair(const std::string& path, const std::string& config_key) {
  auto lines = key_lines(path, config_key);
  if (lines.size() != 1 || !is_z85_key(lines[0]))
    throw std::runtime_error(config_key + ": '" + path +
                             "' is not a CURVE secret key file (expected one 40-character Z85 line, as written by "
                             "`zkmill keygen`)");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & 077))
    throw std::runtime_error(config_key + ": '" + path + "' is readable by other users (mode " +
                             std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                             std::to_string(st.st_mode & 7) + "); chmod 600 it");
  char pub[kZ85KeyChars + 1] = {};
  if (zmq_curve_public(pub, lines[0].c_str()) != 0)
    throw std::runtime_error(config_key + ": cannot derive the public key from '" + path + "'");
  return {pub, lines[0]};
}

std::string CurveKeys::read_public_key(const std::string& path, const std::string& config_key) {
  auto lines = key_lines(path, config_key);
  if (lines.size() != 1 || !is_z85_key(lines[0]))
    throw std::runtime_error(config_key + ": '" + path +
                             "' is not a CURVE public key file (expected one 40-character Z85 line, a PREFIX.pub "
                             "written by `zkmill keygen`)");
  return lines[0];
}

std::vector<std::string> CurveKeys::read_allow_list(const std::string& path, const std::string& config_key) {
  auto lines = key_lines(path, config_key);
  if (lines.empty()) throw std::runtime_error(config_key + ": '" + path + "' lists no public key");
  for (size_t i = 0; i < lines.size(); ++i)
    if (!is_z85_key(lines[i]))
      // Public keys only, so quoting the line is safe; but a pasted secret key would be too,
      // so only its length is shown.
      throw std::runtime_error(config_key + ": '" + path + "': entry " + std::to_string(i + 1) + " (" +
                               std::to_string(lines[i].size()) +
                               " characters) is not a 40-character Z85 CURVE public key");
  return lines;
}

CurveKeys::Loaded CurveKeys::load_for_coordinator(const ZmqConfig& z) {
  Loaded l;
  l.own = read_keypair(require_path(z.key_file, "zmq.key_file", "the coordinator's secret key"), "zmq.key_file");
  l.allowed_keys = read_allow_list(
      require_path(z.allowed_keys_file, "zmq.allowed_keys_file", "the public keys of the workers it admits"),
      "zmq.allowed_keys_file");
  return l;
}

CurveKeys::Loaded CurveKeys::load_for_worker(const ZmqConfig& z, bool serves_bundles) {
  Loaded l;
  l.own = read_keypair(require_path(z.key_file, "zmq.key_file", "this worker's secret key"), "zmq.key_file");
  l.coordinator_public_key = read_public_key(
      require_path(z.coordinator_public_key_file, "zmq.coordinator_public_key_file", "the coordinator's PREFIX.pub"),
      "zmq.coordinator_public_key_file");
  if (serves_bundles)
    l.allowed_keys = read_allow_list(
        require_path(z.allowed_keys_file, "zmq.allowed_keys_file", "the public keys of the prove workers it serves"),
        "zmq.allowed_keys_file");
  return l;
}

}  // namespace zkmill::farm
