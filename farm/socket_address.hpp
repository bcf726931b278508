// SPDX-License-Identifier: MIT
// The addresses of a connected TCP socket, as text: the coordinator tells a worker's control
// connection apart from a reused descriptor by its peer address, and the HTTP listener hands a
// request's remote and local addresses to its routes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace zkmill::farm {

struct SocketAddress {
  std::string host;  // numeric IPv4 or IPv6 ("127.0.0.1", "::1")
  uint16_t port = 0;
  std::string text() const { return host + ":" + std::to_string(port); }
};

// getpeername / getsockname of `fd`; nullopt when it fails or the socket is not IPv4 or IPv6
// (an ipc:// connection has no address to tell it by).
std::optional<SocketAddress> peer_address(int fd);
std::optional<SocketAddress> local_address(int fd);

}  // namespace zkmill::farm
