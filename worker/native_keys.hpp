// SPDX-License-Identifier: MIT
// NativeKeys: the native (zkmill) proving keys a worker has opened, mapped and validated once
// per key file. Opening a key checks every point's flag byte (groth16::ProvingKey::open), which
// reads the whole file: ~0.5 s for a 2^24 key, seconds for the 2^27 keys of a PoRep partition.
// A farm proves many partitions of few circuits, so each task reuses the open key instead of
// paying that per partition (twice: synth and prove tasks both need it).
//
// Entries are named by path and checked against the circuit id KeyDirectory read (the SHA-256
// of the file): a key file replaced in place is a new circuit id and is opened afresh. The
// mapping is file-backed and read-only, so keeping it costs address space, not memory; the
// kernel drops its pages under pressure. Thread-safe: the task threads share one instance,
// and a key a rescan drops stays alive while a task still holds its shared pointer.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/proving_key.hpp"
#include "worker/key_directory.hpp"

namespace zkmill::farm {

class NativeKeys {
 public:
  // The open key of `key` (a Native entry of E's curve); opens it on first use. Throws
  // groth16::KeyFileError for a bad file, std::invalid_argument for another format or curve.
  template <class E>
  std::shared_ptr<const groth16::ProvingKey<E>> open(const KeyDirectory::Key& key);

  // Forgets the keys whose path is not in `dir` any more (called after a rescan).
  void retain(const KeyDirectory& dir);

  size_t size() const;

 private:
  struct Entry {
    cs::CircuitId digest{};
    CurveId curve{};
    std::shared_ptr<const void> key;  // a groth16::ProvingKey<E> of `curve`
  };
  mutable std::mutex mu_;  // held while a key opens: a second task waits instead of opening it twice
  std::map<std::string, Entry> open_;
};

}  // namespace zkmill::farm
