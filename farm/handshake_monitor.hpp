// SPDX-License-Identifier: MIT
// Watches one ZeroMQ socket's security handshakes (zmq_socket_monitor) so that a refused or
// mismatched peer is explained in the log instead of failing silently: libzmq retries a
// refused CURVE handshake forever and never tells the application why nothing arrives.
// Polled from the owner's loop (non-blocking); the socket and the monitor share a context.
// The watched socket must outlive the monitor (declare the monitor after it): the destructor
// stops the monitoring first, since libzmq's blocking report to a closed reader would stall the
// context's I/O thread (see bundle_fetch.cpp's Session).
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
  ~HandshakeMonitor();
  HandshakeMonitor(const HandshakeMonitor&) = delete;
  HandshakeMonitor& operator=(const HandshakeMonitor&) = delete;
  // The next handshake event, if one is pending.
  std::optional<Event> next();

 private:
  zmq::socket_ref watched_;
  zmq::socket_t pair_;
};

}  // namespace zkmill::farm
