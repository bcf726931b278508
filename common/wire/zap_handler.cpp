// SPDX-License-Identifier: MIT
// ZAP handler thread: approves CURVE handshakes whose client key is on its domain's allow-list.
#include "common/wire/zap_handler.hpp"

#include <zmq_addon.hpp>

#include "common/wire/message.hpp"

namespace zkmill::wire {

namespace {

constexpr size_t kZ85KeyChars = 40;
constexpr size_t kBinaryKeyBytes = 32;

std::string z85_to_binary(const std::string& z85) {
  if (z85.size() != kZ85KeyChars)
    throw TransferError(ErrorCode::Auth, "a CURVE key is 40 Z85 characters, got " + std::to_string(z85.size()));
  std::string bin(kBinaryKeyBytes, '\0');
  if (!zmq_z85_decode(reinterpret_cast<uint8_t*>(bin.data()), z85.c_str()))
    throw TransferError(ErrorCode::Auth, "not a Z85-encoded CURVE key: " + z85);
  return bin;
}

}  // namespace

CurveKeyPair CurveKeyPair::generate() {
  char pub[kZ85KeyChars + 1] = {};
  char sec[kZ85KeyChars + 1] = {};
  if (zmq_curve_keypair(pub, sec) != 0)
    throw TransferError(ErrorCode::Auth, std::string("zmq_curve_keypair failed (libzmq built without CURVE?): ") +
                                             zmq_strerror(zmq_errno()));
  return {pub, sec};
}

ZapHandler::ZapHandler(zmq::context_t& ctx) : sock_(ctx, zmq::socket_type::rep) {
  sock_.set(zmq::sockopt::linger, 0);
  try {
    // Bound here, before any server socket can see a handshake, so no request finds the
    // endpoint missing (libzmq would then let CURVE clients in unchecked).
    sock_.bind(kEndpoint);
  } catch (const zmq::error_t& e) {
    throw TransferError(ErrorCode::Auth,
                        std::string("cannot bind the ZAP endpoint (one handler per context; share it): ") + e.what());
  }
  thread_ = std::thread([this] { run(); });
}

ZapHandler::~ZapHandler() { stop(); }

void ZapHandler::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (sock_.handle() != nullptr) sock_.close();
}

void ZapHandler::allow(const std::string& domain, const std::vector<std::string>& client_public_keys_z85) {
  std::set<std::string> keys;
  for (const auto& k : client_public_keys_z85) keys.insert(z85_to_binary(k));
  std::lock_guard lock(mu_);
  policies_[domain] = std::move(keys);
}

void ZapHandler::set_observer(Observer observer) {
  std::lock_guard lock(mu_);
  observer_ = std::move(observer);
}

void ZapHandler::remove(const std::string& domain) {
  std::lock_guard lock(mu_);
  policies_.erase(domain);
}

void ZapHandler::run() {
  while (!stop_) {
    zmq::pollitem_t item{sock_.handle(), 0, ZMQ_POLLIN, 0};
    // A short poll so stop() is honoured promptly without a second control socket.
    if (zmq::poll(&item, 1, std::chrono::milliseconds(50)) == 0) continue;
    std::vector<zmq::message_t> req;
    if (!zmq::recv_multipart(sock_, std::back_inserter(req), zmq::recv_flags::dontwait)) continue;
    // RFC 27 request: version, request id, domain, address, identity, mechanism, credentials...
    std::string request_id = req.size() > 1 ? req[1].to_string() : std::string();
    bool ok = false;
    std::string why = "malformed ZAP request";
    if (req.size() >= 6 && req[0].to_string_view() == "1.0") {
      std::string domain = req[2].to_string();
      std::string mechanism = req[5].to_string();
      if (mechanism != "CURVE" || req.size() != 7 || req[6].size() != kBinaryKeyBytes) {
        why = "mechanism " + mechanism + " is not admitted";
      } else {
        std::lock_guard lock(mu_);
        auto it = policies_.find(domain);
        if (it == policies_.end()) {
          why = "no policy for ZAP domain '" + domain + "'";
        } else if (it->second.count(req[6].to_string())) {
          ok = true;
        } else {
          why = "client key not on the allow-list";
        }
      }
    }
    (ok ? accepted_ : denied_)++;
    Observer observer;
    {
      std::lock_guard lock(mu_);
      observer = observer_;
    }
    std::string key_z85;
    if (req.size() == 7 && req[6].size() == kBinaryKeyBytes) {
      char z85[kZ85KeyChars + 1] = {};
      if (zmq_z85_encode(z85, static_cast<const uint8_t*>(req[6].data()), kBinaryKeyBytes)) key_z85 = z85;
    }
    if (observer) observer(req.size() > 2 ? req[2].to_string() : std::string(), key_z85, ok, ok ? std::string() : why);
    std::vector<zmq::message_t> rep;
    rep.emplace_back(std::string_view("1.0"));
    rep.emplace_back(request_id.data(), request_id.size());
    rep.emplace_back(std::string_view(ok ? "200" : "400"));
    rep.emplace_back(std::string_view(ok ? "OK" : why));
    // The user id is the client's public key (Z85): libzmq attaches it to every message of the
    // connection as the "User-Id" property, so a server can tell which key sent what.
    rep.emplace_back(std::string_view(ok ? key_z85 : std::string()));
    rep.emplace_back(std::string_view(""));  // metadata
    try {
      zmq::send_multipart(sock_, rep);
    } catch (const zmq::error_t&) {
      // The requesting session vanished; REP resets for the next request.
    }
  }
}

}  // namespace zkmill::wire
