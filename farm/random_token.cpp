// SPDX-License-Identifier: MIT
// random_token(): getrandom(2), retried on EINTR and short reads.
#include "farm/random_token.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "common/util/hex.hpp"

namespace zkmill::farm {

std::string random_token() {
  uint8_t bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += size_t(n);
  }
  return util::to_hex(bytes);
}

}  // namespace zkmill::farm
