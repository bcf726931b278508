// SPDX-License-Identifier: MIT
// Encoding, decoding and validation of the typed control messages: one reader per message
// type, so each field is checked (presence, type, length, shape) exactly once, here.
#include "farm/control_message.hpp"

#include <algorithm>
#include <array>

#include "common/util/hex.hpp"

namespace zkmill::farm {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 15> kTypeNames = {
    "hello",     "worker_heartbeat", "synth_done", "prove_done", "task_failed", "bye",     "welcome",
    "heartbeat", "reconnect",        "synth",      "prove",      "ack",         "release", "drain",
    "abort"};

bool is_decimal(std::string_view s) {
  return !s.empty() && s.size() <= ControlLimits::kMaxDecimalDigits &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Reads the fields of one body; the first problem is kept in `why` and later reads are no-ops.
class FieldReader {
 public:
  FieldReader(std::string_view type, const json& body, std::string* why) : type_(type), b_(body), why_(why) {}
  bool ok() const { return ok_; }

  std::string str(const char* name, size_t max = ControlLimits::kMaxString) {
    const json* v = field(name, true);
    if (!v) return {};
    if (!v->is_string()) return fail(name, "is not a string"), std::string();
    const auto& s = v->get_ref<const std::string&>();
    if (s.size() > max) return fail(name, "is longer than " + std::to_string(max) + " bytes"), std::string();
    return s;
  }
  std::string opt_str(const char* name, size_t max = ControlLimits::kMaxString) {
    return has(name) ? str(name, max) : std::string();
  }
  uint64_t u64(const char* name, uint64_t max = UINT64_MAX) {
    const json* v = field(name, true);
    if (!v) return 0;
    if (!v->is_number_unsigned()) return fail(name, "is not an unsigned integer"), 0;
    const uint64_t x = v->get<uint64_t>();
    if (x > max) return fail(name, "exceeds " + std::to_string(max)), 0;
    return x;
  }
  std::optional<uint64_t> opt_u64(const char* name) {
    if (!has(name)) return std::nullopt;
    return u64(name);
  }
  std::optional<double> opt_number(const char* name) {
    const json* v = field(name, false);
    if (!v) return std::nullopt;
    if (!v->is_number()) return fail(name, "is not a number"), std::nullopt;
    return v->get<double>();
  }
  bool boolean(const char* name) {
    const json* v = field(name, true);
    if (!v) return false;
    if (!v->is_boolean()) return fail(name, "is not a boolean"), false;
    return v->get<bool>();
  }
  bool opt_bool(const char* name) { return has(name) && boolean(name); }
  // A token: 32 hex digits, or "" where `allow_empty` (nothing in progress).
  std::string token(const char* name, bool allow_empty = false) {
    std::string t = str(name, 64);
    if (ok_ && !(allow_empty && t.empty()) && !is_attempt_token(t))
      fail(name, "is not an attempt token (32 lowercase hex digits)");
    return t;
  }
  AttemptRef attempt() {
    AttemptRef a;
    a.job = str("job", 20);
    if (ok_ && !is_job_id(a.job)) fail("job", "is not a job id (j<digits>)");
    a.part = u64("part", ControlLimits::kMaxPartition);
    a.token = token("token");
    return a;
  }
  const json* array(const char* name, bool required) {
    const json* v = field(name, required);
    if (!v) return nullptr;
    if (!v->is_array()) return fail(name, "is not an array"), nullptr;
    if (v->size() > ControlLimits::kMaxListEntries)
      return fail(name, "has more than " + std::to_string(ControlLimits::kMaxListEntries) + " entries"), nullptr;
    return v;
  }
  // An array of strings, each checked by `each` (returns false for a bad entry).
  template <class Check>
  std::vector<std::string> strings(const char* name, bool required, size_t max, Check each, const char* what) {
    std::vector<std::string> out;
    const json* a = array(name, required);
    if (!a) return out;
    for (size_t i = 0; i < a->size() && ok_; ++i) {
      const json& e = (*a)[i];
      if (!e.is_string() || e.get_ref<const std::string&>().size() > max || !each(e.get_ref<const std::string&>()))
        fail(name, "entry " + std::to_string(i) + " is not " + what);
      else
        out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::vector<std::string> tokens(const char* name) {
    return strings(name, true, 64, is_attempt_token, "an attempt token");
  }
  std::vector<std::string> public_inputs(const char* name, bool required) {
    return strings(name, required, ControlLimits::kMaxDecimalDigits, is_decimal, "a decimal string");
  }
  // Optional tasks[]: [{token, job, part, stage}], at most kMaxSlots entries.
  std::vector<TaskReport> tasks(const char* name) {
    std::vector<TaskReport> out;
    const json* a = array(name, false);
    if (!a) return out;
    if (a->size() > ControlLimits::kMaxSlots)
      return fail(name, "has more than " + std::to_string(ControlLimits::kMaxSlots) + " entries"), out;
    for (size_t i = 0; i < a->size() && ok_; ++i) {
      const json& e = (*a)[i];
      const std::string where = "entry " + std::to_string(i);
      if (!e.is_object()) return fail(name, where + " is not an object"), out;
      TaskReport t;
      const auto str = [&](const char* k) -> const std::string* {
        auto it = e.find(k);
        return it != e.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
      };
      const std::string *job = str("job"), *token = str("token"), *stage = str("stage");
      auto part = e.find("part");
      if (!job || !is_job_id(*job)) return fail(name, where + " has no valid job id"), out;
      if (!token || !is_attempt_token(*token)) return fail(name, where + " has no valid attempt token"), out;
      if (part == e.end() || !part->is_number_unsigned() || part->get<uint64_t>() > ControlLimits::kMaxPartition)
        return fail(name, where + " has no valid part"), out;
      auto st = stage ? parse_stage(*stage) : std::nullopt;
      if (!st) return fail(name, where + " has no valid stage (synthesizing, fetching, prefetched, proving)"), out;
      t.at = {*job, part->get<uint64_t>(), *token};
      t.stage = *st;
      out.push_back(std::move(t));
    }
    return out;
  }
  const json* object(const char* name) {
    const json* v = field(name, true);
    if (v && !v->is_object()) return fail(name, "is not a JSON object"), nullptr;
    return v;
  }
  bool fail(const char* name, const std::string& what) {
    if (ok_ && why_) *why_ = std::string(type_) + ": field '" + name + "' " + what;
    ok_ = false;
    return false;
  }

 private:
  bool has(const char* name) const { return b_.contains(name); }
  const json* field(const char* name, bool required) {
    if (!ok_) return nullptr;
    auto it = b_.find(name);
    if (it == b_.end()) {
      if (required) fail(name, "is missing");
      return nullptr;
    }
    return &*it;
  }

  std::string_view type_;
  const json& b_;
  std::string* why_;
  bool ok_ = true;
};

template <class T>
std::optional<ControlBody> done(FieldReader& r, T t) {
  if (!r.ok()) return std::nullopt;
  return ControlBody(std::move(t));
}

std::optional<ControlBody> read_body(MessageType type, FieldReader& r) {
  const auto any = [](const std::string&) { return true; };
  switch (type) {
    case MessageType::Hello: {
      Hello h;
      h.worker = r.str("worker", ControlLimits::kMaxWorkerId);
      const std::string role = r.str("role", 16);
      if (r.ok()) {
        if (auto p = parse_role(role))
          h.role = *p;
        else
          r.fail("role", "is not synth, prove or both");
      }
      h.cores = r.u64("cores");
      h.memory_mb = r.u64("memory_mb");
      h.circuits = r.strings("circuits", true, 128, any, "a circuit id");
      h.bundle_endpoint = r.str("bundle_endpoint");
      h.tokens = r.tokens("tokens");
      h.current = r.token("current", true);
      h.draining = r.boolean("draining");
      if (const json* gpus = r.array("gpus", false)) {
        for (const auto& g : *gpus) {
          if (!g.is_object() || !g.contains("index") || !g["index"].is_number_unsigned()) {
            r.fail("gpus", "has an entry without an unsigned index");
            break;
          }
          GpuInfo gi;
          gi.index = g["index"].get<uint64_t>();
          if (g.contains("name") && g["name"].is_string()) gi.name = g["name"].get<std::string>().substr(0, 256);
          if (g.contains("memory_mb") && g["memory_mb"].is_number_unsigned())
            gi.memory_mb = g["memory_mb"].get<uint64_t>();
          h.gpus.push_back(std::move(gi));
        }
      }
      h.bundle_server_key = r.opt_str("bundle_server_key", 64);
      h.slots = r.opt_u64("slots");
      if (r.ok() && h.slots && (*h.slots == 0 || *h.slots > ControlLimits::kMaxSlots))
        r.fail("slots", "is not in 1.." + std::to_string(ControlLimits::kMaxSlots));
      h.lookahead = r.opt_u64("lookahead");
      if (r.ok() && h.lookahead && *h.lookahead >= h.slots.value_or(1))
        r.fail("lookahead", "is not below slots (a worker runs at least one of the assignments it holds)");
      h.tasks = r.tasks("tasks");
      h.seen = r.opt_u64("seen");
      return done(r, std::move(h));
    }
    case MessageType::WorkerHeartbeat: {
      WorkerHeartbeat w;
      w.tokens = r.tokens("tokens");
      w.current = r.token("current", true);
      w.draining = r.boolean("draining");
      w.held = r.strings("held", false, 256, any, "a bundle key");
      w.seen = r.opt_u64("seen");
      w.tasks = r.tasks("tasks");
      return done(r, std::move(w));
    }
    case MessageType::SynthDone: {
      SynthDone s;
      s.at = r.attempt();
      s.bundle_key = r.str("bundle_key", 256);
      s.public_inputs = r.public_inputs("public", true);
      s.synth_ms = r.opt_number("synth_ms");
      s.bundle_bytes = r.opt_u64("bundle_bytes");
      return done(r, std::move(s));
    }
    case MessageType::ProveDone: {
      ProveDone p;
      p.at = r.attempt();
      if (const json* proof = r.object("proof")) p.proof = *proof;
      p.public_inputs = r.public_inputs("public", false);
      p.fetch_ms = r.opt_number("fetch_ms");
      p.prove_ms = r.opt_number("prove_ms");
      p.expand_ms = r.opt_number("expand_ms");
      p.slot_wait_ms = r.opt_number("slot_wait_ms");
      for (const auto& [name, v] : {std::pair{"fetch_ms", p.fetch_ms},
                                    {"prove_ms", p.prove_ms},
                                    {"expand_ms", p.expand_ms},
                                    {"slot_wait_ms", p.slot_wait_ms}})
        if (r.ok() && v && !(*v >= 0 && *v < 1e12)) r.fail(name, "is not a duration in ms (0 .. 1e12)");
      p.bundle_bytes = r.opt_u64("bundle_bytes");
      return done(r, std::move(p));
    }
    case MessageType::TaskFailed: {
      TaskFailed f;
      f.at = r.attempt();
      f.error = r.str("error");
      f.permanent = r.opt_bool("permanent");
      f.returned = r.opt_bool("returned");
      return done(r, std::move(f));
    }
    case MessageType::Bye:
      return done(r, Bye{});
    case MessageType::Welcome: {
      Welcome w;
      w.heartbeat_ms = r.u64("heartbeat_ms");
      w.liveness = r.u64("liveness");
      return done(r, w);
    }
    case MessageType::Heartbeat:
      return done(r, Heartbeat{r.opt_u64("seq").value_or(0)});
    case MessageType::Reconnect:
      return done(r, Reconnect{});
    case MessageType::Synth: {
      Synth s;
      s.at = r.attempt();
      s.circuit = r.str("circuit", 128);
      s.curve = r.str("curve", 32);
      s.seed = r.u64("seed");
      s.seq = r.opt_u64("seq").value_or(0);
      return done(r, std::move(s));
    }
    case MessageType::Prove: {
      Prove p;
      p.at = r.attempt();
      p.circuit = r.str("circuit", 128);
      p.curve = r.str("curve", 32);
      p.bundle_endpoint = r.str("bundle_endpoint");
      p.bundle_key = r.str("bundle_key", 256);
      p.public_inputs = r.public_inputs("public", true);
      p.bundle_server_key = r.opt_str("bundle_server_key", 64);
      p.seq = r.opt_u64("seq").value_or(0);
      return done(r, std::move(p));
    }
    case MessageType::Ack:
      return done(r, Ack{r.token("token")});
    case MessageType::Release:
      return done(r, Release{r.str("bundle_key", 256)});
    case MessageType::Drain:
      return done(r, Drain{});
    case MessageType::Abort: {
      Abort a;
      a.at = r.attempt();
      a.reason = r.str("reason", 256);
      return done(r, std::move(a));
    }
  }
  return std::nullopt;
}

void put_attempt(json& j, const AttemptRef& a) {
  j["job"] = a.job;
  j["part"] = a.part;
  j["token"] = a.token;
}

void put_tasks(json& j, const std::vector<TaskReport>& tasks) {
  if (tasks.empty()) return;
  j["tasks"] = json::array();
  for (const auto& t : tasks) {
    json e;
    put_attempt(e, t.at);
    e["stage"] = stage_name(t.stage);
    j["tasks"].push_back(std::move(e));
  }
}

json body_json(const ControlBody& body) {
  return std::visit(
      [](const auto& m) -> json {
        using T = std::decay_t<decltype(m)>;
        json j = json::object();
        if constexpr (std::is_same_v<T, Hello>) {
          j = {{"worker", m.worker},       {"role", role_name(m.role)}, {"cores", m.cores},
               {"memory_mb", m.memory_mb}, {"circuits", m.circuits},    {"bundle_endpoint", m.bundle_endpoint},
               {"tokens", m.tokens},       {"current", m.current},      {"draining", m.draining}};
          if (!m.gpus.empty()) {
            j["gpus"] = json::array();
            for (const auto& g : m.gpus)
              j["gpus"].push_back({{"index", g.index}, {"name", g.name}, {"memory_mb", g.memory_mb}});
          }
          if (!m.bundle_server_key.empty()) j["bundle_server_key"] = m.bundle_server_key;
          if (m.slots) j["slots"] = *m.slots;
          if (m.lookahead) j["lookahead"] = *m.lookahead;
          if (m.seen) j["seen"] = *m.seen;
          put_tasks(j, m.tasks);
        } else if constexpr (std::is_same_v<T, WorkerHeartbeat>) {
          j = {{"tokens", m.tokens}, {"current", m.current}, {"draining", m.draining}};
          if (!m.held.empty()) j["held"] = m.held;
          if (m.seen) j["seen"] = *m.seen;
          put_tasks(j, m.tasks);
        } else if constexpr (std::is_same_v<T, SynthDone>) {
          put_attempt(j, m.at);
          j["bundle_key"] = m.bundle_key;
          j["public"] = m.public_inputs;
          if (m.synth_ms) j["synth_ms"] = *m.synth_ms;
          if (m.bundle_bytes) j["bundle_bytes"] = *m.bundle_bytes;
        } else if constexpr (std::is_same_v<T, ProveDone>) {
          put_attempt(j, m.at);
          j["proof"] = m.proof;
          if (!m.public_inputs.empty()) j["public"] = m.public_inputs;
          if (m.fetch_ms) j["fetch_ms"] = *m.fetch_ms;
          if (m.prove_ms) j["prove_ms"] = *m.prove_ms;
          if (m.expand_ms) j["expand_ms"] = *m.expand_ms;
          if (m.slot_wait_ms) j["slot_wait_ms"] = *m.slot_wait_ms;
          if (m.bundle_bytes) j["bundle_bytes"] = *m.bundle_bytes;
        } else if constexpr (std::is_same_v<T, TaskFailed>) {
          put_attempt(j, m.at);
          j["error"] = m.error;
          if (m.permanent) j["permanent"] = true;
          if (m.returned) j["returned"] = true;
        } else if constexpr (std::is_same_v<T, Welcome>) {
          j = {{"heartbeat_ms", m.heartbeat_ms}, {"liveness", m.liveness}};
        } else if constexpr (std::is_same_v<T, Synth>) {
          put_attempt(j, m.at);
          j["circuit"] = m.circuit;
          j["curve"] = m.curve;
          j["seed"] = m.seed;
          if (m.seq) j["seq"] = m.seq;
        } else if constexpr (std::is_same_v<T, Prove>) {
          put_attempt(j, m.at);
          j["circuit"] = m.circuit;
          j["curve"] = m.curve;
          j["bundle_endpoint"] = m.bundle_endpoint;
          j["bundle_key"] = m.bundle_key;
          j["public"] = m.public_inputs;
          if (!m.bundle_server_key.empty()) j["bundle_server_key"] = m.bundle_server_key;
          if (m.seq) j["seq"] = m.seq;
        } else if constexpr (std::is_same_v<T, Heartbeat>) {
          if (m.seq) j["seq"] = m.seq;
        } else if constexpr (std::is_same_v<T, Ack>) {
          j["token"] = m.token;
        } else if constexpr (std::is_same_v<T, Release>) {
          j["bundle_key"] = m.bundle_key;
        } else if constexpr (std::is_same_v<T, Abort>) {
          put_attempt(j, m.at);
          j["reason"] = m.reason;
        }
        return j;
      },
      body);
}

}  // namespace

std::string_view message_type_name(MessageType t) { return kTypeNames.at(size_t(t)); }

std::optional<MessageType> parse_message_type(std::string_view s) {
  for (size_t i = 0; i < kTypeNames.size(); ++i)
    if (kTypeNames[i] == s) return MessageType(i);
  return std::nullopt;
}

std::string_view role_name(WorkerRole r) {
  switch (r) {
    case WorkerRole::Synth:
      return "synth";
    case WorkerRole::Prove:
      return "prove";
    case WorkerRole::Both:
      return "both";
  }
  return "?";
}

std::optional<WorkerRole> parse_role(std::string_view s) {
  if (s == "synth") return WorkerRole::Synth;
  if (s == "prove") return WorkerRole::Prove;
  if (s == "both") return WorkerRole::Both;
  return std::nullopt;
}

std::string_view stage_name(TaskStage s) {
  switch (s) {
    case TaskStage::Synthesizing:
      return "synthesizing";
    case TaskStage::Fetching:
      return "fetching";
    case TaskStage::Prefetched:
      return "prefetched";
    case TaskStage::Proving:
      return "proving";
    case TaskStage::Queued:
      return "queued";
  }
  return "?";
}

std::optional<TaskStage> parse_stage(std::string_view s) {
  for (auto st :
       {TaskStage::Synthesizing, TaskStage::Fetching, TaskStage::Prefetched, TaskStage::Proving, TaskStage::Queued})
    if (s == stage_name(st)) return st;
  return std::nullopt;
}

bool is_attempt_token(std::string_view s) { return util::is_lower_hex(s, 32); }

bool is_job_id(std::string_view s) {
  return s.size() >= 2 && s.size() <= 19 && s[0] == 'j' &&
         std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

MessageType ControlMessage::type() const {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, body);
}

json ControlMessage::to_json() const { return body_json(body); }

std::vector<zmq::message_t> ControlMessage::encode() const {
  std::vector<zmq::message_t> out;
  out.emplace_back(kTag.data(), kTag.size());
  const std::string_view t = type_name();
  out.emplace_back(t.data(), t.size());
  json b = to_json();
  if (!payload.empty()) b["input_bytes"] = uint64_t(payload.size());
  const std::string text = b.dump();
  out.emplace_back(text.data(), text.size());
  if (!payload.empty()) out.emplace_back(payload.data(), payload.size());
  return out;
}

std::optional<ControlMessage> ControlMessage::from_json(std::string_view type, const json& body, std::string* why) {
  auto t = parse_message_type(type);
  if (!t) {
    if (why) {
      std::string shown(type.substr(0, 32));
      for (char& c : shown)
        if (c < 0x20 || c > 0x7e) c = '?';
      *why = "unknown message type '" + shown + "'";
    }
    return std::nullopt;
  }
  if (!body.is_object()) {
    if (why) *why = std::string(type) + ": body is not a JSON object";
    return std::nullopt;
  }
  FieldReader r(type, body, why);
  auto b = read_body(*t, r);
  if (!b) return std::nullopt;
  return ControlMessage(std::move(*b));
}

std::optional<ControlMessage> ControlMessage::decode(std::vector<zmq::message_t>& frames, size_t max_body_bytes,
                                                     std::string* why, size_t max_payload_bytes) {
  auto fail = [&](std::string w) -> std::optional<ControlMessage> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  if (frames.size() != 3 && (frames.size() != 4 || max_payload_bytes == 0))
    return fail("expected 3 frames, got " + std::to_string(frames.size()));
  if (frames[0].to_string_view() != kTag)
    return fail(frames[0].to_string_view() == "ZKM1"
                    ? "protocol ZKM1 (an older zkmill): this farm speaks ZKM2; upgrade the peer"
                    : "bad protocol tag (not ZKM2)");
  if (frames[1].size() > 32) return fail("type frame too long");
  if (frames[2].size() > max_body_bytes)
    return fail("body of " + std::to_string(frames[2].size()) + " bytes exceeds the limit of " +
                std::to_string(max_body_bytes));
  const std::string type = frames[1].to_string();
  json body;
  try {
    body = json::parse(frames[2].to_string_view());
  } catch (const json::exception&) {
    return fail(parse_message_type(type) ? type + ": body is not valid JSON" : "body is not valid JSON");
  }
  auto m = from_json(type, body, why);
  if (!m) return std::nullopt;
  if (frames.size() == 4) {
    const size_t limit = std::min(max_payload_bytes, kMaxPayloadBytes);
    if (m->type() != MessageType::Synth) return fail(type + ": this message type carries no payload frame");
    if (frames[3].size() > limit)
      return fail(type + ": payload of " + std::to_string(frames[3].size()) + " bytes exceeds the limit of " +
                  std::to_string(limit));
    if (!body.contains("input_bytes") || !body["input_bytes"].is_number_unsigned() ||
        body["input_bytes"].get<uint64_t>() != frames[3].size())
      return fail(type + ": payload of " + std::to_string(frames[3].size()) + " bytes does not match input_bytes");
    m->payload = frames[3].to_string();
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
