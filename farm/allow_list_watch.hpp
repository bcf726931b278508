// SPDX-License-Identifier: MIT
// An allow-list file (zmq.allowed_keys_file) watched for changes, so keys are added and
// revoked without a restart: the coordinator's list of worker keys, a synth worker's list of
// the prove workers its bundle server admits. poll() stats the file (cheap, every few seconds,
// or forced on SIGHUP) and re-reads it when its size, modification time or inode changed; a
// file that no longer parses (a half-written edit, an empty list) keeps the keys in force and
// says why, once per change.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace zkmill::farm {

class AllowListWatch {
 public:
  // `keys`: the list as read at start (CurveKeys::read_allow_list of `path`).
  AllowListWatch(std::string path, std::string config_key, const std::vector<std::string>& keys);

  struct Change {
    std::vector<std::string> keys;            // the whole new list
    std::vector<std::string> added, removed;  // against the list in force before
  };
  struct Result {
    std::optional<Change> change;  // the file changed and parsed: its keys are now in force
    std::string error;             // the file changed but did not parse: the old keys stay
  };
  // Re-reads the file if it changed since the last poll (or `force`: SIGHUP). A file that is
  // unchanged, or changed to the same keys, gives neither a change nor an error.
  Result poll(bool force = false);
  // poll(), logged as `who` ("coordinator", "worker ID"): an error, a change, or (when forced,
  // i.e. asked for by SIGHUP) that nothing changed. Returns the change to apply, if any.
  std::optional<Change> poll_logged(const std::string& who, bool force);

  bool allows(const std::string& key_z85) const { return keys_.count(key_z85) > 0; }
  size_t size() const { return keys_.size(); }
  const std::string& path() const { return path_; }

 private:
  struct Stamp {
    int64_t mtime_ns = 0;
    uint64_t size = 0, inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  std::optional<Stamp> stamp() const;

  std::string path_, config_key_;
  std::set<std::string> keys_;
  std::optional<Stamp> seen_;
};

}  // namespace zkmill::farm
