// Watches one ZeroMQ socket's security handshakes (zmq_socket_monitor) so that a refused or
// mismatched peer is explained in the log instead of failing silently: libzmq retries a
// refused CURVE handshake forever and never tells the application why nothing arrives.
// Polled from the owner's loop (non-blocking); the socket and the monitor share a context.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <zmq.hpp>

namespace zkmill::farm {

class HandshakeMonitor {
 public:
  struct Event {
    bool succeeded = false;
    bool auth = false;     // refused by the authentication (ZAP) step
    std::string endpoint;  // the peer's address as libzmq reports it
    std::string what;      // failures: why, in words
  };

  HandshakeMonitor(zmq::context_t& ctx, zmq::socket_t& watched);
  // The next handshake event, if one is pending.
  std::optional<Event> next();

 private:
  zmq::socket_t pair_;
};

}  // namespace zkmill::farm
