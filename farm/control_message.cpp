// Encoding, decoding and the per-type schema of control messages.
#include "farm/control_message.hpp"

#include <algorithm>
#include <map>

namespace zkmill::farm {

namespace {

enum class Kind { String, Unsigned, Bool, Array, Object };

struct Field {
  const char* name;
  Kind kind;
};

const std::map<std::string, std::vector<Field>>& schema() {
  static const std::map<std::string, std::vector<Field>> s = {
      {"hello",
       {{"worker", Kind::String},
        {"role", Kind::String},
        {"cores", Kind::Unsigned},
        {"memory_mb", Kind::Unsigned},
        {"circuits", Kind::Array},
        {"bundle_endpoint", Kind::String},
        {"tokens", Kind::Array},
        {"current", Kind::Unsigned},
        {"draining", Kind::Bool}}},
      {"heartbeat", {}},
      {"worker_heartbeat", {{"tokens", Kind::Array}, {"current", Kind::Unsigned}, {"draining", Kind::Bool}}},
      {"synth_done",
       {{"job", Kind::String}, {"part", Kind::Unsigned}, {"token", Kind::Unsigned}, {"bundle_key", Kind::String}}},
      {"prove_done",
       {{"job", Kind::String},
        {"part", Kind::Unsigned},
        {"token", Kind::Unsigned},
        {"proof", Kind::Object},
        {"public", Kind::Array}}},
      {"task_failed",
       {{"job", Kind::String}, {"part", Kind::Unsigned}, {"token", Kind::Unsigned}, {"error", Kind::String}}},
      {"bye", {}},
      {"welcome", {{"heartbeat_ms", Kind::Unsigned}, {"liveness", Kind::Unsigned}}},
      {"reconnect", {}},
      {"synth",
       {{"job", Kind::String},
        {"part", Kind::Unsigned},
        {"token", Kind::Unsigned},
        {"circuit", Kind::String},
        {"curve", Kind::String},
        {"seed", Kind::Unsigned}}},
      {"prove",
       {{"job", Kind::String},
        {"part", Kind::Unsigned},
        {"token", Kind::Unsigned},
        {"circuit", Kind::String},
        {"curve", Kind::String},
        {"bundle_endpoint", Kind::String},
        {"bundle_key", Kind::String}}},
      {"ack", {{"token", Kind::Unsigned}}},
      {"release", {{"bundle_key", Kind::String}}},
      {"drain", {}},
  };
  return s;
}

bool has_kind(const nlohmann::json& v, Kind k) {
  switch (k) {
    case Kind::String: return v.is_string() && v.get_ref<const std::string&>().size() <= 4096;
    case Kind::Unsigned: return v.is_number_unsigned();
    case Kind::Bool: return v.is_boolean();
    case Kind::Array: return v.is_array();
    case Kind::Object: return v.is_object();
  }
  return false;
}

}  // namespace

bool ControlMessage::valid(const std::string& type, const nlohmann::json& body, std::string* why) {
  auto it = schema().find(type);
  if (it == schema().end()) {
    if (why) *why = "unknown message type '" + type.substr(0, 64) + "'";
    return false;
  }
  if (!body.is_object()) {
    if (why) *why = type + ": body is not a JSON object";
    return false;
  }
  for (const auto& f : it->second) {
    if (!body.contains(f.name) || !has_kind(body[f.name], f.kind)) {
      if (why) *why = type + ": field '" + f.name + "' missing or of the wrong type";
      return false;
    }
  }
  return true;
}

std::vector<zmq::message_t> ControlMessage::encode() const {
  std::vector<zmq::message_t> out;
  out.emplace_back(kTag, 4);
  out.emplace_back(type.data(), type.size());
  std::string b = body.dump();
  out.emplace_back(b.data(), b.size());
  if (!payload.empty()) out.emplace_back(payload.data(), payload.size());
  return out;
}

std::optional<ControlMessage> ControlMessage::decode(std::vector<zmq::message_t>& frames, size_t max_body_bytes,
                                                     std::string* why, size_t max_payload_bytes) {
  if (frames.size() != 3 && (frames.size() != 4 || max_payload_bytes == 0)) {
    if (why) *why = "expected 3 frames, got " + std::to_string(frames.size());
    return std::nullopt;
  }
  if (frames[0].to_string_view() != kTag) {
    if (why) *why = "bad protocol tag";
    return std::nullopt;
  }
  if (frames[1].size() > 32) {
    if (why) *why = "type frame too long";
    return std::nullopt;
  }
  if (frames[2].size() > max_body_bytes) {
    if (why) *why = "body of " + std::to_string(frames[2].size()) + " bytes exceeds the limit of " +
                    std::to_string(max_body_bytes);
    return std::nullopt;
  }
  ControlMessage m;
  m.type = frames[1].to_string();
  try {
    m.body = nlohmann::json::parse(frames[2].to_string_view());
  } catch (const nlohmann::json::exception&) {
    if (why) *why = m.type.substr(0, 32) + ": body is not valid JSON";
    return std::nullopt;
  }
  if (!valid(m.type, m.body, why)) return std::nullopt;
  if (frames.size() == 4) {
    const size_t limit = std::min(max_payload_bytes, kMaxPayloadBytes);
    if (!may_carry_payload(m.type)) {
      if (why) *why = m.type + ": this message type carries no payload frame";
      return std::nullopt;
    }
    if (frames[3].size() > limit) {
      if (why)
        *why = m.type + ": payload of " + std::to_string(frames[3].size()) + " bytes exceeds the limit of " +
               std::to_string(limit);
      return std::nullopt;
    }
    if (!m.body.contains("input_bytes") || !m.body["input_bytes"].is_number_unsigned() ||
        m.body["input_bytes"].get<uint64_t>() != frames[3].size()) {
      if (why) *why = m.type + ": payload of " + std::to_string(frames[3].size()) + " bytes does not match input_bytes";
      return std::nullopt;
    }
    m.payload = frames[3].to_string();
  }
  return m;
}

bool ControlMessage::send(zmq::socket_t& s) const {
  auto frames = encode();
  for (size_t i = 0; i < frames.size(); ++i) {
    auto flags = zmq::send_flags::dontwait | (i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    if (!s.send(frames[i], flags)) return false;
  }
  return true;
}

bool ControlMessage::send_to(zmq::socket_t& s, const std::string& routing_id) const {
  try {
    if (!s.send(zmq::buffer(routing_id), zmq::send_flags::dontwait | zmq::send_flags::sndmore)) return false;
  } catch (const zmq::error_t&) {
    return false;  // EHOSTUNREACH under ROUTER_MANDATORY: the worker is gone
  }
  return send(s);
}

}  // namespace zkmill::farm
