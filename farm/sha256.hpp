// SHA-256 (FIPS 180-4), used for circuit ids: a circuit is the content hash of its proving key
// file, so workers and clients name the same key the same way without shipping it. None of the
// project's libraries (hiredis, cppzmq, yaml-cpp, spdlog, nlohmann-json, CLI11) provides a
// hash; this is a small, test-vector-checked implementation written from the standard.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace zkmill::farm {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  void update(std::span<const uint8_t> data);
  void update(const std::string& s) {
    update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  }
  // Finishes the hash; the object must not be updated afterwards.
  Digest finish();

  static Digest hash(std::span<const uint8_t> data);
  static std::string hex(const Digest& d);
  // Hashes a whole file in bounded memory (keys run to gigabytes). Throws std::runtime_error.
  static Digest file(const std::string& path);
  // "sha256:<hex>" of a proving key file: the circuit id used everywhere in the farm.
  static std::string circuit_id_of_file(const std::string& path) { return hex(file(path)); }

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

}  // namespace zkmill::farm
