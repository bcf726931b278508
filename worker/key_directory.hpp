// SPDX-License-Identifier: MIT
// The proving keys a worker serves: every key file in the configured directory, native zkmill
// keys and snarkjs .zkey files alike, each named by its circuit id (SHA-256 of the file).
// Workers advertise these ids; the coordinator only assigns them partitions of circuits they
// hold, and never ships a key. A .zkey may have its circuit's .r1cs beside it (same stem,
// `multiplier.zkey` + `multiplier.r1cs`): then synthesis checks each witness against the
// constraints and names the first unsatisfied one (the .zkey alone holds only A and B).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/cs/witness_bundle.hpp"
#include "common/util/curve_id.hpp"

namespace zkmill::farm {

class KeyDirectory {
 public:
  enum class Format { Native, Zkey };
  struct Key {
    std::string path;
    Format format = Format::Native;
    CurveId curve{};
    cs::CircuitId digest{};  // the circuit id as the bundle header carries it
    std::string r1cs_path;   // zkey only: the circuit's constraints, when beside the key
    uint64_t size = 0;       // when read: a rescan re-reads the file only if these changed
    int64_t mtime_ns = 0;
  };

  // Scans `dir` (non-recursive). Files that are not key files (vk.json, .r1cs, ...) are
  // skipped; an unreadable directory throws std::runtime_error. Empty dir: serves nothing.
  // With `previous` (a rescan: the worker re-reads its directory periodically and on
  // SIGHUP), a file whose path, size and modification time are unchanged keeps its entry
  // without being hashed again, so a rescan of large keys costs a stat per file.
  explicit KeyDirectory(const std::string& dir, const KeyDirectory* previous = nullptr);

  const Key* find(const std::string& circuit_id) const;
  std::vector<std::string> circuit_ids() const;
  size_t size() const { return keys_.size(); }

 private:
  std::map<std::string, Key> keys_;
};

}  // namespace zkmill::farm
