// The proving keys a worker serves: every native key file in the configured directory, named
// by its circuit id (SHA-256 of the file). Workers advertise these ids; the coordinator only
// assigns them partitions of circuits they hold, and never ships a key.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/cs/witness_bundle.hpp"
#include "common/util/curve_id.hpp"

namespace zkmill::farm {

class KeyDirectory {
 public:
  struct Key {
    std::string path;
    CurveId curve{};
    cs::CircuitId digest{};  // the circuit id as the bundle header carries it
  };

  // Scans `dir` (non-recursive). Files that are not zkmill key files (vk.json etc.) are
  // skipped; an unreadable directory throws std::runtime_error. Empty dir: serves nothing.
  explicit KeyDirectory(const std::string& dir);

  const Key* find(const std::string& circuit_id) const;
  std::vector<std::string> circuit_ids() const;
  size_t size() const { return keys_.size(); }

 private:
  std::map<std::string, Key> keys_;
};

}  // namespace zkmill::farm
