// SPDX-License-Identifier: MIT
// SHA-256 (FIPS 180-4), used for circuit ids: a circuit is the content hash of its proving key
// file, so workers and clients name the same key the same way without shipping it. Keys run to
// many gigabytes and are hashed at every worker start, so the work goes to OpenSSL's libcrypto,
// which uses the CPU's SHA extensions (x86 SHA-NI, ARMv8 SHA2) where present: ~2 GB/s per core
// against ~0.2 GB/s for the portable C this file used to hold (docs/benchmarks.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace zkmill::farm {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const uint8_t> data);
  void update(const std::string& s) {
    update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  }
  // Finishes the hash; the object must not be updated afterwards.
  Digest finish();

  static Digest hash(std::span<const uint8_t> data);
  static std::string hex(const Digest& d);
  // Hashes a whole file in bounded memory (keys run to gigabytes). Throws std::runtime_error
  // naming the file.
  static Digest file(const std::string& path);
  // "sha256:<hex>" of a proving key file: the circuit id used everywhere in the farm.
  static std::string circuit_id_of_file(const std::string& path) { return hex(file(path)); }

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace zkmill::farm
