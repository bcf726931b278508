// The farm's control-plane messages (coordinator ROUTER <-> worker DEALER). A message is three
// frames: the protocol tag "ZKM1", the type, and a JSON object body; the ROUTER sees the
// worker's routing id first. Every received message is size-checked (frame count, body bytes)
// and schema-checked (the type is known, each required field is present with the right JSON
// type) before anything reads it; a bad message is dropped and logged, never half-processed.
//
// worker -> coordinator                         coordinator -> worker
//   hello      {worker, role, cores, memory_mb,   welcome    {heartbeat_ms, liveness}
//               circuits[], bundle_endpoint,       heartbeat  {}
//               tokens[], current, draining}       reconnect  {}  (unknown worker: say hello)
//   worker_heartbeat {tokens[], current, draining} synth      {job, part, token, circuit, curve, seed}
//   synth_done {job, part, token, bundle_key}     prove      {job, part, token, circuit, curve,
//   prove_done {job, part, token, proof, public}              bundle_endpoint, bundle_key}
//   task_failed{job, part, token, error}          ack        {token}  (result recorded or refused)
//   bye        {}                                 release    {bundle_key} (bundle no longer needed)
//                                                 drain      {}  (`zkmill worker drain`: as on SIGTERM)
// Optional fields: hello {gpus[], bundle_server_key}, prove {bundle_server_key} (zmq.curve).
// Results are re-sent with each heartbeat until acked, so a coordinator restart or a dropped
// connection cannot lose one; the store's token fence makes the repeats harmless.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

namespace zkmill::farm {

class ControlMessage {
 public:
  static constexpr const char* kTag = "ZKM1";

  std::string type;
  nlohmann::json body = nlohmann::json::object();

  ControlMessage() = default;
  ControlMessage(std::string t, nlohmann::json b) : type(std::move(t)), body(std::move(b)) {}

  // The frames to send (after the routing id, on a ROUTER).
  std::vector<zmq::message_t> encode() const;
  // Decodes and validates `frames` (routing id already removed). nullopt with `why` set when
  // the message is malformed, too large, of an unknown type or missing/mistyping a field.
  static std::optional<ControlMessage> decode(std::vector<zmq::message_t>& frames, size_t max_body_bytes,
                                              std::string* why);
  // The schema check alone (also used before sending, to catch our own bugs early).
  static bool valid(const std::string& type, const nlohmann::json& body, std::string* why);

  // Sends on a DEALER (no routing id) or a ROUTER (with one). Non-blocking: false when the
  // peer's queue is full or the peer is unknown (ROUTER_MANDATORY).
  bool send(zmq::socket_t& s) const;
  bool send_to(zmq::socket_t& s, const std::string& routing_id) const;
};

}  // namespace zkmill::farm
