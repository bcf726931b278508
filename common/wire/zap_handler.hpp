// SPDX-License-Identifier: MIT
// CURVE keys and a ZAP (ZeroMQ RFC 27) handler that admits only allow-listed client keys.
//
// libzmq asks a handler bound at inproc://zeromq.zap.01 *on the same context* to approve
// every incoming CURVE handshake; the server socket's ZMQ_ZAP_DOMAIN says which policy
// applies. Only one handler can bind per context, so a process that runs several CURVE
// servers on one context shares one ZapHandler and gives each server its own domain
// (BundleServerOptions::zap). Requests for a domain without a policy are denied: a socket
// we did not configure must not be silently open.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

namespace zkmill::wire {

// A CURVE keypair, Z85-encoded (40 characters each), as zmq_curve_keypair makes them.
struct CurveKeyPair {
  std::string public_key;
  std::string secret_key;
  static CurveKeyPair generate();  // throws TransferError(Auth) if libzmq lacks CURVE
};

class ZapHandler {
 public:
  static constexpr const char* kEndpoint = "inproc://zeromq.zap.01";

  // Binds kEndpoint on ctx and starts the handler thread; throws TransferError(Auth) if
  // another handler already holds the endpoint on this context.
  explicit ZapHandler(zmq::context_t& ctx);
  ~ZapHandler();
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

  // Sets the policy of one ZAP domain: CURVE clients whose public key (Z85) is listed are
  // admitted, everything else is refused. Replaces an earlier policy of the same domain.
  void allow(const std::string& domain, const std::vector<std::string>& client_public_keys_z85);
  void remove(const std::string& domain);
  // Called on the handler thread after every decision, e.g. to log refused clients (by their
  // public key, Z85; empty for a non-CURVE request). Keep it cheap: handshakes wait on it.
  using Observer = std::function<void(const std::string& domain, const std::string& client_public_key_z85,
                                      bool admitted, const std::string& why)>;
  void set_observer(Observer observer);

  uint64_t accepted() const { return accepted_.load(); }
  uint64_t denied() const { return denied_.load(); }
  void stop();

 private:
  void run();

  zmq::socket_t sock_;
  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> policies_;  // domain -> allowed 32-byte binary keys
  Observer observer_;                                      // guarded by mu_
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> denied_{0};
  std::thread thread_;
};

}  // namespace zkmill::wire
