// SPDX-License-Identifier: MIT
// The circuit id of a proving key file (SHA-256 of its bytes: farm/sha256.hpp), remembered
// beside the key so that it is computed once per file, not at every worker start and every
// `zkmill submit --key`. A PoRep-sized key is ~72 GiB: hashing it takes about a minute, which
// a restarted worker would otherwise spend before it serves anything.
//
// The memo is KEY.id.json (format "zkmill-key-id/1"): the id and the key's identity when it was
// hashed (size, modification and change times in ns, inode, device). It is used only while all
// of these still match the key, as git trusts its index: a rewrite in place changes the times,
// a replacement by rename the inode, a copy to another machine the inode and device (the
// change time cannot be set from user space, so even a rewrite that restores the modification
// time is seen). Anything else (no memo, unreadable or malformed, another version, another
// file's) hashes the key again and writes a fresh memo atomically. Where the key's directory
// cannot take a memo (systemd's ProtectSystem makes worker.key_dir read-only; another user's
// keys) the memo goes to a cache directory instead, CACHE/key-ids/DEVICE-INODE.json; where
// neither can be written, the memo is skipped, never an error. The id is
// a routing name: a worker serving a key under a wrong id would only produce proofs that the
// coordinator's verification refuses, never a recorded wrong proof.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "farm/sha256.hpp"

namespace zkmill::farm {

struct KeyIdOptions {
  bool use_memo = true;    // false: always hash (the memo is still refreshed when write_memo)
  bool write_memo = true;  // false: never create or replace a memo
  // The fallback memo directory; unset: default_key_id_cache_dir(); "": none.
  std::optional<std::string> cache_dir;
  // Called with the reason just before the file is read whole (no memo, the key changed, ...):
  // a long hash deserves a line first.
  std::function<void(const std::string& why)> before_hash;
};

// How key_file_digest found the id (for logs and tests).
enum class KeyIdSource { Memo, Hashed };

// The memo's path beside a key file.
std::string key_id_memo_path(const std::string& key_path);
// default_cache_dir()/key-ids (farm/cache_dir.hpp); "" when there is no cache directory.
std::string default_key_id_cache_dir();

// SHA-256 of the key file, from its memo when that still describes the file. Throws
// std::runtime_error naming the file when the key itself cannot be read (as Sha256::file).
Sha256::Digest key_file_digest(const std::string& key_path, KeyIdOptions opts = {}, KeyIdSource* source = nullptr);

// "sha256 hex" of key_file_digest: the circuit id used everywhere in the farm.
inline std::string key_file_circuit_id(const std::string& key_path, KeyIdOptions opts = {}) {
  return Sha256::hex(key_file_digest(key_path, opts));
}

}  // namespace zkmill::farm
