// SPDX-License-Identifier: MIT
// Handshake events from libzmq's socket monitor, turned into words.
#include "farm/handshake_monitor.hpp"

#include <atomic>
#include <cstring>
#include <stdexcept>

namespace zkmill::farm {

namespace {

std::atomic<uint64_t> g_monitor_counter{0};

std::string protocol_error(uint32_t v) {
  switch (v) {
    case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
      return "security mechanism mismatch (one side has zmq.curve on, the other off)";
    case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC:
      return "CURVE cryptographic error (wrong server public key, or a corrupted handshake)";
    case ZMQ_PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE:
      return "CURVE key exchange failed";
    default:
      return "protocol error 0x" + [v] {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%08x", v);
        return std::string(buf);
      }();
  }
}

}  // namespace

HandshakeMonitor::HandshakeMonitor(zmq::context_t& ctx, zmq::socket_t& watched)
    : watched_(watched), pair_(ctx, zmq::socket_type::pair) {
  const std::string ep = "inproc://zkmill.farm.handshake-monitor." + std::to_string(++g_monitor_counter);
  if (zmq_socket_monitor(watched.handle(), ep.c_str(),
                         ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                             ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) != 0)
    throw std::runtime_error(std::string("zmq_socket_monitor: ") + zmq_strerror(zmq_errno()));
  pair_.set(zmq::sockopt::linger, 0);
  pair_.connect(ep);
}

HandshakeMonitor::~HandshakeMonitor() { zmq_socket_monitor(watched_.handle(), nullptr, 0); }

std::optional<HandshakeMonitor::Event> HandshakeMonitor::next() {
  zmq::message_t head, addr;
  if (!pair_.recv(head, zmq::recv_flags::dontwait)) return std::nullopt;
  // Two frames: 6 bytes (uint16 event, uint32 value, host order), then the endpoint.
  if (head.more()) (void)pair_.recv(addr, zmq::recv_flags::none);
  uint16_t event = 0;
  uint32_t value = 0;
  if (head.size() >= 6) {
    std::memcpy(&event, head.data(), 2);
    std::memcpy(&value, static_cast<const char*>(head.data()) + 2, 4);
  }
  Event e;
  e.endpoint = addr.to_string();
  switch (event) {
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
      e.succeeded = true;
      break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
      e.auth = true;
      e.what = value == 400 ? "the peer refused our CURVE public key (not on its allow-list)"
                            : "authentication failed (ZAP status " + std::to_string(value) + ")";
      break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
      e.what = protocol_error(value);
      break;
    default:
      e.what = "handshake failed (no detail from libzmq)";
      break;
  }
  return e;
}

}  // namespace zkmill::farm
