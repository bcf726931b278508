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
//
// A `synth` of a zkey job carries a fourth frame, the payload: the partition's .wtns bytes
// (body field `input_bytes` gives its length). Only `synth` may carry one, only the worker
// accepts one (the coordinator decodes with max_payload_bytes = 0), and it is bounded by
// kMaxPayloadBytes (64 MiB), the farm's largest message; the JSON body keeps its own limit.
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
  static constexpr size_t kMaxPayloadBytes = size_t(64) << 20;

  std::string type;
  nlohmann::json body = nlohmann::json::object();
  std::string payload;  // binary; empty: no fourth frame

  ControlMessage() = default;
  ControlMessage(std::string t, nlohmann::json b, std::string p = {})
      : type(std::move(t)), body(std::move(b)), payload(std::move(p)) {}

  // Whether messages of `type` may carry a payload frame.
  static bool may_carry_payload(const std::string& type) { return type == "synth"; }

  // The frames to send (after the routing id, on a ROUTER).
  std::vector<zmq::message_t> encode() const;
  // Decodes and validates `frames` (routing id already removed). nullopt with `why` set when
  // the message is malformed, too large, of an unknown type or missing/mistyping a field. A
  // payload frame is accepted only when max_payload_bytes > 0, for a type that may carry one,
  // within that size and matching the body's `input_bytes`.
  static std::optional<ControlMessage> decode(std::vector<zmq::message_t>& frames, size_t max_body_bytes,
                                              std::string* why, size_t max_payload_bytes = 0);
  // The schema check alone (also used before sending, to catch our own bugs early).
  static bool valid(const std::string& type, const nlohmann::json& body, std::string* why);

  // Sends on a DEALER (no routing id) or a ROUTER (with one). Non-blocking: false when the
  // peer's queue is full or the peer is unknown (ROUTER_MANDATORY).
  bool send(zmq::socket_t& s) const;
  bool send_to(zmq::socket_t& s, const std::string& routing_id) const;
};

}  // namespace zkmill::farm
