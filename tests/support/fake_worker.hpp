// SPDX-License-Identifier: MIT
// A hostile (or merely fake) worker for farm tests (tests/system against the coordinator
// process, tests/coordinator against one in the test's process): a ZeroMQ DEALER with a chosen
// routing id that speaks the control protocol by hand. It says whatever the test tells it to:
// a hello for any role and circuits, results with guessed or stolen tokens, raw malformed
// frames. While it waits for a message it keeps sending heartbeats, so the coordinator does
// not declare it dead.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "common/wire/zap_handler.hpp"
#include "farm/control_message.hpp"

namespace zkmill::test {

class FakeWorker {
 public:
  // With `curve`, the connection is a CURVE client with that keypair, to a coordinator whose
  // public key is `server_key` (a fake holding a key the allow-list admits).
  FakeWorker(const std::string& endpoint, const std::string& id, const wire::CurveKeyPair* curve = nullptr,
             const std::string& server_key = "")
      : ctx_(1), sock_(ctx_, zmq::socket_type::dealer) {
    sock_.set(zmq::sockopt::routing_id, id);
    sock_.set(zmq::sockopt::linger, 0);
    if (curve) {
      sock_.set(zmq::sockopt::curve_serverkey, server_key);
      sock_.set(zmq::sockopt::curve_publickey, curve->public_key);
      sock_.set(zmq::sockopt::curve_secretkey, curve->secret_key);
    }
    sock_.connect(endpoint);
  }

  void send(const farm::ControlMessage& m) { m.send(sock_); }
  // Frames exactly as given (for malformed messages).
  void send_raw(const std::vector<std::string>& frames) {
    for (size_t i = 0; i < frames.size(); ++i)
      sock_.send(zmq::buffer(frames[i]), i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
  // A hello as a worker of `role` holding the keys of `circuits`.
  void hello(const std::string& id, farm::WorkerRole role, const std::vector<std::string>& circuits) {
    farm::Hello h;
    h.worker = id;
    h.role = role;
    h.cores = 1;
    h.memory_mb = 1024;
    h.circuits = circuits;
    h.bundle_endpoint = role == farm::WorkerRole::Prove ? "" : "tcp://127.0.0.1:1";
    send(h);
  }
  void heartbeat(const std::string& current = "") {
    farm::WorkerHeartbeat h;
    h.current = current;
    send(h);
  }
  // What wait_for's heartbeats report, as a real worker's do: the task it holds as `current`
  // ("": idle), and the synth tokens of the bundles it holds (`tokens`).
  void set_current(const std::string& token) { current_ = token; }
  void set_held(const std::vector<std::string>& tokens) { held_ = tokens; }
  // ... and the tasks it holds with their stages (`tasks`), as a prefetching or lookahead worker's do.
  void set_tasks(const std::vector<farm::TaskReport>& tasks) { tasks_ = tasks; }

  // The next message satisfying `want` within `limit` (others are dropped), heartbeating
  // every 100 ms meanwhile; nullopt when none came.
  std::optional<farm::ControlMessage> wait_for(const std::function<bool(const farm::ControlMessage&)>& want,
                                               std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    auto next_beat = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < end) {
      if (std::chrono::steady_clock::now() >= next_beat) {
        farm::WorkerHeartbeat h;
        h.current = current_;
        h.tokens = held_;
        h.tasks = tasks_;
        send(h);
        next_beat += std::chrono::milliseconds(100);
      }
      zmq::pollitem_t items[] = {{sock_.handle(), 0, ZMQ_POLLIN, 0}};
      zmq::poll(items, 1, std::chrono::milliseconds(20));
      if (!(items[0].revents & ZMQ_POLLIN)) continue;
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(sock_, std::back_inserter(frames), zmq::recv_flags::dontwait)) continue;
      std::string why;
      auto m = farm::ControlMessage::decode(frames, 1 << 20, &why, farm::ControlMessage::kMaxPayloadBytes);
      if (m && want(*m)) return m;
    }
    return std::nullopt;
  }
  std::optional<farm::ControlMessage> wait_for(farm::MessageType type, std::chrono::milliseconds limit) {
    return wait_for([type](const farm::ControlMessage& m) { return m.type() == type; }, limit);
  }

 private:
  zmq::context_t ctx_;
  zmq::socket_t sock_;
  std::string current_;
  std::vector<std::string> held_;
  std::vector<farm::TaskReport> tasks_;
};

}  // namespace zkmill::test
