// SPDX-License-Identifier: MIT
// SocketAddress: getpeername / getsockname, formatted with inet_ntop.
#include "farm/socket_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace zkmill::farm {

namespace {

std::optional<SocketAddress> address_of(int fd, int (*get)(int, sockaddr*, socklen_t*)) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (fd < 0 || get(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return std::nullopt;
  char host[INET6_ADDRSTRLEN] = {};
  SocketAddress out;
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    out.port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* in = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
    out.port = ntohs(in->sin6_port);
  } else {
    return std::nullopt;
  }
  out.host = host;
  return out;
}

}  // namespace

std::optional<SocketAddress> peer_address(int fd) { return address_of(fd, ::getpeername); }
std::optional<SocketAddress> local_address(int fd) { return address_of(fd, ::getsockname); }

}  // namespace zkmill::farm
