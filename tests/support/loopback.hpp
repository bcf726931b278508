// SPDX-License-Identifier: MIT
// A raw TCP connection to a port on 127.0.0.1 (from a chosen loopback address), for tests that play a client byte by
// byte (a slow client trickling its request, one that never reads), where an HTTP client library would do the right
// thing instead.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace zkmill::test {

// The connected socket, or -1. `from`: the source address, another of 127.0.0.0/8 (every one
// of them is this host's) to play a second client host; null: the kernel's choice (127.0.0.1).
inline int connect_loopback(int port, const char* from = nullptr) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (from) {
    sockaddr_in s{};
    s.sin_family = AF_INET;
    if (inet_pton(AF_INET, from, &s.sin_addr) != 1 || bind(fd, reinterpret_cast<sockaddr*>(&s), sizeof s) != 0) {
      close(fd);
      return -1;
    }
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace zkmill::test
