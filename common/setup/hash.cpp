// SPDX-License-Identifier: MIT
// BLAKE2b-512 and SHA-256 over OpenSSL's EVP interface (hash.hpp).
#include "common/setup/hash.hpp"

#include <openssl/evp.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace zkmill::setup {

struct Blake2b::Ctx {
  EVP_MD_CTX* md = nullptr;
  Ctx() : md(EVP_MD_CTX_new()) {
    if (!md || EVP_DigestInit_ex(md, EVP_blake2b512(), nullptr) != 1)
      throw std::runtime_error("libcrypto: BLAKE2b-512 unavailable");
  }
  ~Ctx() { EVP_MD_CTX_free(md); }
};

Blake2b::Blake2b() : ctx_(std::make_unique<Ctx>()) {}
Blake2b::Blake2b(const Blake2b& o) : ctx_(std::make_unique<Ctx>()) {
  if (EVP_MD_CTX_copy_ex(ctx_->md, o.ctx_->md) != 1) throw std::runtime_error("libcrypto: BLAKE2b copy failed");
}
Blake2b& Blake2b::operator=(const Blake2b& o) {
  if (this != &o && EVP_MD_CTX_copy_ex(ctx_->md, o.ctx_->md) != 1)
    throw std::runtime_error("libcrypto: BLAKE2b copy failed");
  return *this;
}
Blake2b::~Blake2b() = default;

void Blake2b::update(std::span<const uint8_t> bytes) {
  if (!bytes.empty() && EVP_DigestUpdate(ctx_->md, bytes.data(), bytes.size()) != 1)
    throw std::runtime_error("libcrypto: BLAKE2b update failed");
}

void Blake2b::update_u32_be(uint32_t v) {
  const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  update(b);
}

Hash64 Blake2b::digest() const {
  Blake2b copy(*this);  // EVP_DigestFinal consumes the context
  Hash64 out{};
  unsigned n = 0;
  if (EVP_DigestFinal_ex(copy.ctx_->md, out.data(), &n) != 1 || n != 64)
    throw std::runtime_error("libcrypto: BLAKE2b final failed");
  return out;
}

std::array<uint8_t, 32> sha256(std::span<const uint8_t> in) {
  std::array<uint8_t, 32> out{};
  unsigned n = 0;
  if (EVP_Digest(in.data(), in.size(), out.data(), &n, EVP_sha256(), nullptr) != 1 || n != 32)
    throw std::runtime_error("libcrypto: SHA-256 failed");
  return out;
}

void os_random(std::span<uint8_t> out) {
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = getrandom(out.data() + got, out.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += size_t(n);
  }
}

}  // namespace zkmill::setup
