// SPDX-License-Identifier: MIT
// The two hashes of snarkjs's phase-2 transcript, through OpenSSL's libcrypto (already a
// dependency for farm/sha256): BLAKE2b-512 for the circuit hash and the contribution
// transcript (snarkjs uses @noble/hashes blake2b with dkLen 64, i.e. unkeyed BLAKE2b-512),
// and SHA-256 for the beacon's iterated hash. Blake2b is copyable: the verifier forks the
// running transcript hash per contribution (snarkjs's cloneHasher).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace zkmill::setup {

using Hash64 = std::array<uint8_t, 64>;

class Blake2b {
 public:
  Blake2b();
  Blake2b(const Blake2b& o);
  Blake2b& operator=(const Blake2b& o);
  ~Blake2b();

  void update(std::span<const uint8_t> bytes);
  void update(std::string_view s) { update({reinterpret_cast<const uint8_t*>(s.data()), s.size()}); }
  // A big-endian u32 (snarkjs zkey_new.js hashU32).
  void update_u32_be(uint32_t v);
  // The digest of everything so far; the hasher itself is left untouched.
  Hash64 digest() const;

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// SHA-256 of `in`, 32 bytes.
std::array<uint8_t, 32> sha256(std::span<const uint8_t> in);

// Fills `out` from the operating system's CSPRNG (getrandom); throws on failure.
void os_random(std::span<uint8_t> out);

}  // namespace zkmill::setup
