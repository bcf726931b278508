// SPDX-License-Identifier: MIT
// SHA-256 through OpenSSL's EVP interface (libcrypto picks the SHA-NI / ARMv8 code path at run
// time). Errors from libcrypto are not expected for an in-memory hash; they are reported as
// exceptions rather than ignored.
#include "farm/sha256.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/util/hex.hpp"

namespace zkmill::farm {

struct Sha256::Ctx {
  EVP_MD_CTX* md = nullptr;
  ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
  ctx_->md = EVP_MD_CTX_new();
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256: libcrypto could not start a SHA-256 digest");
}

Sha256::~Sha256() = default;

void Sha256::update(std::span<const uint8_t> data) {
  if (!data.empty() && EVP_DigestUpdate(ctx_->md, data.data(), data.size()) != 1)
    throw std::runtime_error("sha256: libcrypto digest update failed");
}

Sha256::Digest Sha256::finish() {
  Digest d{};
  unsigned len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, d.data(), &len) != 1 || len != d.size())
    throw std::runtime_error("sha256: libcrypto digest final failed");
  return d;
}

Sha256::Digest Sha256::hash(std::span<const uint8_t> data) {
  Sha256 s;
  s.update(data);
  return s.finish();
}

std::string Sha256::hex(const Digest& d) { return util::to_hex(d); }

Sha256::Digest Sha256::file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before the
  // regular-file check below could refuse it. Reads of a regular file never block anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::runtime_error(path + ": cannot stat: " + std::strerror(errno));
  // A FIFO or device would be read forever (or block): only regular files are content-hashed.
  if (!S_ISREG(st.st_mode)) throw std::runtime_error(path + ": not a regular file");
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  Sha256 s;
  std::vector<uint8_t> chunk(4 << 20);
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(path + ": read failed: " + std::strerror(errno));
    }
    if (n == 0) break;
    s.update(std::span<const uint8_t>(chunk.data(), size_t(n)));
  }
  return s.finish();
}

}  // namespace zkmill::farm
