// SPDX-License-Identifier: MIT
// The typed control plane in-process: every message type round-trips through its frames, and
// decode() refuses, with a reason naming the field, what a hostile or broken peer could send:
// truncated frames, an old protocol tag, unknown types, missing fields, wrong JSON types,
// oversized strings and lists, malformed tokens and job ids, non-decimal public inputs, and
// payload frames where none belong. Also the helpers that keep such peers out of the log
// (printable, LogRateLimiter) and the attempt tokens.
#include "farm/control_message.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "farm/log_rate_limiter.hpp"
#include "farm/log_text.hpp"
#include "farm/random_token.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
namespace {

using nlohmann::json;

const std::string kToken = "0123456789abcdef0123456789abcdef";

std::vector<zmq::message_t> frames_of(const std::vector<std::string>& parts) {
  std::vector<zmq::message_t> f;
  for (const auto& s : parts) f.emplace_back(s.data(), s.size());
  return f;
}

std::optional<ControlMessage> decode(const std::vector<std::string>& parts, std::string* why, size_t max = 1 << 16) {
  auto f = frames_of(parts);
  return ControlMessage::decode(f, max, why);
}
std::optional<ControlMessage> decode_body(const std::string& type, const json& body, std::string* why) {
  return decode({"ZKM2", type, body.dump()}, why);
}

ControlMessage round_trip(const ControlMessage& m, size_t max_payload = 0) {
  auto frames = m.encode();
  std::string why;
  auto d = ControlMessage::decode(frames, 1 << 16, &why, max_payload);
  EXPECT_TRUE(d) << m.type_name() << ": " << why;
  return d ? *d : ControlMessage();
}

// One valid body per message type, as the other side sends it.
std::vector<std::pair<std::string, json>> valid_bodies() {
  const json at = {{"job", "j12"}, {"part", 3}, {"token", kToken}};
  auto with = [&](json extra) {
    json b = at;
    b.update(extra);
    return b;
  };
  return {
      {"hello",
       {{"worker", "w-1"},
        {"role", "prove"},
        {"cores", 8},
        {"memory_mb", 1024},
        {"circuits", {"c1"}},
        {"bundle_endpoint", ""},
        {"tokens", json::array()},
        {"current", ""},
        {"draining", false}}},
      {"worker_heartbeat", {{"tokens", {kToken}}, {"current", kToken}, {"draining", true}}},
      {"synth_done", with({{"bundle_key", "j12/3/" + kToken}, {"public", {"1", "42"}}})},
      {"prove_done", with({{"proof", {{"pi_a", json::array()}}}})},
      {"task_failed", with({{"error", "boom"}})},
      {"bye", json::object()},
      {"welcome", {{"heartbeat_ms", 500}, {"liveness", 6}}},
      {"heartbeat", json::object()},
      {"reconnect", json::object()},
      {"synth", with({{"circuit", "c1"}, {"curve", "bn254"}, {"seed", 7}})},
      {"prove", with({{"circuit", "c1"},
                      {"curve", "bn254"},
                      {"bundle_endpoint", "tcp://127.0.0.1:1"},
                      {"bundle_key", "k"},
                      {"public", {"5"}}})},
      {"ack", {{"token", kToken}}},
      {"release", {{"bundle_key", "j12/3/" + kToken}}},
      {"drain", json::object()},
      {"abort", with({{"reason", "job cancelled"}})},
  };
}

TEST(ControlMessage, EveryTypeDecodesToItsStruct) {
  std::set<MessageType> seen;
  for (const auto& [type, body] : valid_bodies()) {
    std::string why;
    auto m = decode_body(type, body, &why);
    ASSERT_TRUE(m) << type << ": " << why;
    EXPECT_EQ(m->type_name(), type);
    EXPECT_EQ(parse_message_type(type), m->type());
    seen.insert(m->type());
    // Encoding the decoded struct gives the same body back (no field lost or invented).
    EXPECT_EQ(m->to_json(), body) << type;
  }
  EXPECT_EQ(seen.size(), 15u);
  std::string why;
  auto h = decode_body("hello", valid_bodies()[0].second, &why);
  EXPECT_EQ(h->as<Hello>()->role, WorkerRole::Prove);
  auto s = decode_body("synth_done", valid_bodies()[2].second, &why);
  EXPECT_EQ(s->as<SynthDone>()->public_inputs, (std::vector<std::string>{"1", "42"}));
  EXPECT_EQ(s->as<SynthDone>()->at.job, "j12");
  EXPECT_EQ(s->as<SynthDone>()->at.part, 3u);
  EXPECT_EQ(s->as<SynthDone>()->at.token, kToken);
}

// assignment(): the attempt of a synth or prove, nullptr for every other type.
TEST(ControlMessage, AssignmentIsTheAttemptOfSynthAndProveOnly) {
  size_t assignments = 0;
  for (const auto& [type, body] : valid_bodies()) {
    std::string why;
    auto m = decode_body(type, body, &why);
    ASSERT_TRUE(m) << type << ": " << why;
    const AttemptRef* at = m->assignment();
    if (m->type() == MessageType::Synth || m->type() == MessageType::Prove) {
      ASSERT_NE(at, nullptr) << type;
      EXPECT_EQ(at, m->type() == MessageType::Synth ? &m->as<Synth>()->at : &m->as<Prove>()->at);
      EXPECT_EQ(at->token, body["token"].get<std::string>()) << type;
      ++assignments;
    } else {
      EXPECT_EQ(at, nullptr) << type;
    }
  }
  EXPECT_EQ(assignments, 2u);
}

TEST(ControlMessage, TypedRoundTripKeepsOptionalFields) {
  SynthDone s;
  s.at = {"j1", 0, kToken};
  s.bundle_key = "k";
  s.public_inputs = {"9"};
  s.synth_ms = 1.5;
  s.bundle_bytes = 77;
  auto d = round_trip(s);
  ASSERT_NE(d.as<SynthDone>(), nullptr);
  EXPECT_EQ(d.as<SynthDone>()->synth_ms, 1.5);
  EXPECT_EQ(d.as<SynthDone>()->bundle_bytes, 77u);
  TaskFailed f{{"j1", 2, kToken}, "line1\nline2", true};
  auto df = round_trip(f);
  EXPECT_TRUE(df.as<TaskFailed>()->permanent);
  EXPECT_EQ(df.as<TaskFailed>()->error, "line1\nline2");
  Hello h;
  h.worker = "g";
  h.role = WorkerRole::Synth;
  h.gpus = {{1, "H200", 140000}};
  h.bundle_server_key = std::string(40, 'a');
  auto dh = round_trip(h);
  ASSERT_EQ(dh.as<Hello>()->gpus.size(), 1u);
  EXPECT_EQ(dh.as<Hello>()->gpus[0].name, "H200");
  EXPECT_EQ(dh.as<Hello>()->bundle_server_key, h.bundle_server_key);
  EXPECT_EQ(dh.as<Hello>()->role, WorkerRole::Synth);
}

// A zkey job's `synth` carries the .wtns as a fourth, binary frame: accepted only where the
// receiver allows payloads, only for `synth`, within the limit and matching input_bytes.
// The data plane's optional fields (prefetching workers): slots, tasks[] and the per-partition
// telemetry, typed and validated once like the required ones.
TEST(ControlMessage, PrefetchFieldsRoundTripTyped) {
  const std::string other = "fedcba9876543210fedcba9876543210";
  Hello h;
  h.worker = "p";
  h.role = WorkerRole::Prove;
  h.slots = 4;
  h.seen = 77;  // a hello again: what it has received, so assignments in flight are kept
  h.tasks = {{{"j3", 0, kToken}, TaskStage::Proving}, {{"j3", 1, other}, TaskStage::Prefetched}};
  auto dh = round_trip(h);
  ASSERT_NE(dh.as<Hello>(), nullptr);
  EXPECT_EQ(dh.as<Hello>()->slots, 4u);
  EXPECT_EQ(dh.as<Hello>()->seen, 77u);
  EXPECT_EQ(dh.as<Hello>()->tasks, h.tasks);
  EXPECT_EQ(dh.to_json()["tasks"][1]["stage"], "prefetched");
  // Absent optional fields stay absent (an older worker: one slot, no tasks[]).
  auto plain = decode_body("hello", valid_bodies()[0].second, nullptr);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->as<Hello>()->slots);
  EXPECT_FALSE(plain->as<Hello>()->seen);
  EXPECT_TRUE(plain->as<Hello>()->tasks.empty());

  WorkerHeartbeat hb;
  hb.current = kToken;
  hb.seen = 9;
  hb.tasks = {{{"j7", 2, kToken}, TaskStage::Fetching}, {{"j8", 0, other}, TaskStage::Synthesizing}};
  auto dhb = round_trip(hb);
  ASSERT_NE(dhb.as<WorkerHeartbeat>(), nullptr);
  EXPECT_EQ(dhb.as<WorkerHeartbeat>()->tasks, hb.tasks);
  EXPECT_EQ(dhb.as<WorkerHeartbeat>()->seen, 9u);

  ProveDone p;
  p.at = {"j1", 5, kToken};
  p.proof = {{"pi_a", json::array()}};
  p.fetch_ms = 12.5;
  p.expand_ms = 3.25;
  p.prove_ms = 100;
  p.slot_wait_ms = 0;
  p.bundle_bytes = uint64_t(1) << 40;
  auto dp = round_trip(p);
  ASSERT_NE(dp.as<ProveDone>(), nullptr);
  EXPECT_EQ(dp.as<ProveDone>()->fetch_ms, 12.5);
  EXPECT_EQ(dp.as<ProveDone>()->expand_ms, 3.25);
  EXPECT_EQ(dp.as<ProveDone>()->prove_ms, 100.0);
  EXPECT_EQ(dp.as<ProveDone>()->slot_wait_ms, 0.0);
  EXPECT_EQ(dp.as<ProveDone>()->bundle_bytes, uint64_t(1) << 40);
  ProveDone bare;
  bare.at = p.at;
  bare.proof = p.proof;
  auto db = round_trip(bare);
  EXPECT_FALSE(db.as<ProveDone>()->expand_ms);
  EXPECT_FALSE(db.as<ProveDone>()->slot_wait_ms);
  EXPECT_FALSE(db.to_json().contains("expand_ms"));
}

// Lookahead (worker.lookahead): hello `lookahead` (how many of its slots wait queued, below
// `slots`), the `queued` stage, and task_failed `returned` (handed back unstarted).
TEST(ControlMessage, LookaheadFieldsRoundTripTyped) {
  Hello h;
  h.worker = "b";
  h.role = WorkerRole::Both;
  h.slots = 2;
  h.lookahead = 1;
  h.tasks = {{{"j3", 0, kToken}, TaskStage::Proving},
             {{"j3", 1, "fedcba9876543210fedcba9876543210"}, TaskStage::Queued}};
  auto dh = round_trip(h);
  ASSERT_NE(dh.as<Hello>(), nullptr);
  EXPECT_EQ(dh.as<Hello>()->lookahead, 1u);
  EXPECT_EQ(dh.as<Hello>()->tasks, h.tasks);
  EXPECT_EQ(dh.to_json()["tasks"][1]["stage"], "queued");
  EXPECT_FALSE(decode_body("hello", valid_bodies()[0].second, nullptr)->as<Hello>()->lookahead);

  TaskFailed f{{"j3", 1, kToken}, "returned unstarted", false};
  f.returned = true;
  auto df = round_trip(f);
  ASSERT_NE(df.as<TaskFailed>(), nullptr);
  EXPECT_TRUE(df.as<TaskFailed>()->returned);
  EXPECT_FALSE(round_trip(TaskFailed{{"j3", 1, kToken}, "x", false}).as<TaskFailed>()->returned);

  // A lookahead of all its slots would mean a worker that runs nothing it holds.
  json body = valid_bodies()[0].second;
  body["slots"] = 2;
  body["lookahead"] = 2;
  std::string why;
  EXPECT_FALSE(decode_body("hello", body, &why));
  EXPECT_NE(why.find("field 'lookahead'"), std::string::npos) << why;
  body["lookahead"] = 1;
  EXPECT_TRUE(decode_body("hello", body, &why)) << why;
}

TEST(ControlMessage, RejectsMalformedPrefetchFields) {
  auto refused = [](const std::string& type, json body, const std::string& field, const json& value,
                    const std::string& says) {
    body[field] = value;
    std::string why;
    EXPECT_FALSE(decode_body(type, body, &why)) << type << "." << field << " = " << value.dump();
    EXPECT_NE(why.find("field '" + field + "'"), std::string::npos) << why;
    EXPECT_NE(why.find(says), std::string::npos) << why;
  };
  const auto bodies = valid_bodies();
  const json hello = bodies[0].second, hb = bodies[1].second, done = bodies[3].second;
  const json task = {{"token", kToken}, {"job", "j3"}, {"part", 1}, {"stage", "proving"}};
  auto with = [&](const char* k, const json& v) {
    json t = task;
    t[k] = v;
    return json::array({t});
  };
  // slots: an unsigned count in 1..kMaxSlots (a worker claiming 10^6 slots would be handed the queue).
  refused("hello", hello, "slots", 0, "is not in 1..");
  refused("hello", hello, "slots", ControlLimits::kMaxSlots + 1, "is not in 1..");
  refused("hello", hello, "slots", -2, "unsigned");
  refused("hello", hello, "slots", "4", "unsigned");
  // tasks[]: each entry a real attempt (token, job id, part) in a known stage, and bounded.
  for (const char* type : {"hello", "worker_heartbeat"}) {
    const json& b = std::string(type) == "hello" ? hello : hb;
    refused(type, b, "tasks", json::object(), "is not an array");
    refused(type, b, "tasks", json::array({"x"}), "entry 0 is not an object");
    refused(type, b, "tasks", with("token", 42), "attempt token");
    refused(type, b, "tasks", with("token", "0123"), "attempt token");
    refused(type, b, "tasks", with("job", "3"), "job id");
    refused(type, b, "tasks", with("part", -1), "part");
    refused(type, b, "tasks", with("part", ControlLimits::kMaxPartition + 1), "part");
    refused(type, b, "tasks", with("stage", "mining"), "stage");
    refused(type, b, "tasks", with("stage", nullptr), "stage");
    refused(type, b, "tasks", json(std::vector<json>(ControlLimits::kMaxSlots + 1, task)), "more than");
  }
  // Telemetry: numbers, durations not negative, bytes an unsigned count.
  refused("prove_done", done, "expand_ms", "slow", "is not a number");
  refused("prove_done", done, "slot_wait_ms", -1.0, "is not a duration");
  refused("prove_done", done, "fetch_ms", 1e300, "is not a duration");
  refused("prove_done", done, "bundle_bytes", -5, "unsigned");
  refused("prove_done", done, "bundle_bytes", 1.5, "unsigned");
  // And a valid one of each decodes.
  json ok = hello;
  ok["slots"] = ControlLimits::kMaxSlots;
  ok["tasks"] = json(std::vector<json>(ControlLimits::kMaxSlots, task));
  std::string why;
  auto m = decode_body("hello", ok, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->as<Hello>()->tasks.size(), ControlLimits::kMaxSlots);
  EXPECT_EQ(m->as<Hello>()->tasks[0].stage, TaskStage::Proving);
}

TEST(ControlMessage, SynthCarriesABinaryPayloadFrameWithinItsLimit) {
  std::string wtns("wtns\0\x01\xff binary", 16);
  Synth s{{"j1", 0, kToken}, "c", "bn254", 0};
  ControlMessage m(s, wtns);
  auto frames = m.encode();
  ASSERT_EQ(frames.size(), 4u);
  std::string why;
  auto d = ControlMessage::decode(frames, 4096, &why, 1 << 20);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(d->payload, wtns);
  frames = m.encode();
  EXPECT_FALSE(ControlMessage::decode(frames, 4096, &why)) << "a coordinator (no payloads) refuses it";
  EXPECT_NE(why.find("expected 3 frames"), std::string::npos) << why;
  frames = m.encode();
  EXPECT_FALSE(ControlMessage::decode(frames, 4096, &why, 8));
  EXPECT_NE(why.find("payload of 16 bytes exceeds the limit of 8"), std::string::npos) << why;
  json wrong = ControlMessage(s).to_json();
  wrong["input_bytes"] = 15u;
  auto mismatched = frames_of({"ZKM2", "synth", wrong.dump(), wtns});
  EXPECT_FALSE(ControlMessage::decode(mismatched, 4096, &why, 1 << 20));
  EXPECT_NE(why.find("does not match input_bytes"), std::string::npos) << why;
  frames = ControlMessage(Ack{kToken}, wtns).encode();
  EXPECT_FALSE(ControlMessage::decode(frames, 4096, &why, 1 << 20));
  EXPECT_NE(why.find("carries no payload"), std::string::npos) << why;
}

TEST(ControlMessage, RejectsTruncatedFramesAndOtherProtocols) {
  std::string why;
  EXPECT_FALSE(decode({"ZKM2", "ack"}, &why));
  EXPECT_NE(why.find("expected 3 frames"), std::string::npos) << why;
  EXPECT_FALSE(decode({}, &why));
  EXPECT_FALSE(decode({"ZKM2", "ack", R"({"token": ")" + kToken}, &why));  // body cut short
  EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
  EXPECT_FALSE(decode({"ZKM0", "ack", R"({})"}, &why));
  EXPECT_NE(why.find("tag"), std::string::npos) << why;
  // The previous protocol (integer tokens, the prover's public inputs trusted) is named.
  EXPECT_FALSE(decode({"ZKM1", "ack", R"({"token": 4})"}, &why));
  EXPECT_NE(why.find("ZKM1"), std::string::npos) << why;
}

TEST(ControlMessage, RejectsUnknownTypesAndNonObjectBodies) {
  std::string why;
  EXPECT_FALSE(decode({"ZKM2", "launch_missiles", "{}"}, &why));
  EXPECT_NE(why.find("unknown message type 'launch_missiles'"), std::string::npos) << why;
  EXPECT_FALSE(decode({"ZKM2", std::string("a\nb\x1b[31m", 8), "{}"}, &why));
  EXPECT_EQ(why.find('\n'), std::string::npos) << "the type is shown without control characters: " << why;
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  EXPECT_FALSE(decode({"ZKM2", std::string(40, 'a'), "{}"}, &why));
  EXPECT_FALSE(decode({"ZKM2", "ack", "[1, 2]"}, &why));
  EXPECT_NE(why.find("not a JSON object"), std::string::npos) << why;
}

TEST(ControlMessage, EveryRequiredFieldOfEveryTypeIsChecked) {
  for (const auto& [type, body] : valid_bodies()) {
    for (const auto& [field, value] : body.items()) {
      std::string why;
      json missing = body;
      missing.erase(field);
      EXPECT_FALSE(decode_body(type, missing, &why)) << type << " without " << field;
      EXPECT_NE(why.find("field '" + field + "' is missing"), std::string::npos) << why;
      // The wrong JSON type: an object where anything else is expected, else a number.
      json mistyped = body;
      mistyped[field] = value.is_object() ? json(5) : json::object();
      EXPECT_FALSE(decode_body(type, mistyped, &why)) << type << " with a mistyped " << field;
      EXPECT_NE(why.find("field '" + field + "'"), std::string::npos) << why;
    }
  }
}

TEST(ControlMessage, RejectsMalformedValues) {
  auto refused = [](const std::string& type, json body, const std::string& field, const json& value) {
    body[field] = value;
    std::string why;
    const bool ok = bool(decode_body(type, body, &why));
    EXPECT_FALSE(ok) << type << "." << field << " = " << value.dump();
    EXPECT_NE(why.find("field '" + field + "'"), std::string::npos) << why;
  };
  const auto bodies = valid_bodies();
  const json synth_done = bodies[2].second, hello = bodies[0].second, prove = bodies[10].second;
  // Tokens: 32 lowercase hex digits, not integers (the old counter), not guessable short strings.
  refused("ack", {}, "token", 42);
  refused("ack", {}, "token", "42");
  refused("ack", {}, "token", std::string(32, 'G'));
  refused("ack", {}, "token", "0123456789ABCDEF0123456789ABCDEF");
  refused("ack", {}, "token", kToken + "0");
  refused("synth_done", synth_done, "token", "");
  // Job ids and partitions.
  refused("synth_done", synth_done, "job", "12");
  refused("synth_done", synth_done, "job", "j1; DEL zk:*");
  refused("synth_done", synth_done, "job", "j");
  refused("synth_done", synth_done, "part", -1);
  refused("synth_done", synth_done, "part", 1.5);
  refused("synth_done", synth_done, "part", ControlLimits::kMaxPartition + 1);
  // Public inputs: decimal strings only, bounded.
  refused("synth_done", synth_done, "public", json::array({1}));
  refused("synth_done", synth_done, "public", json::array({"0x10"}));
  refused("synth_done", synth_done, "public", json::array({"-1"}));
  refused("synth_done", synth_done, "public", json::array({""}));
  refused("synth_done", synth_done, "public", json::array({std::string(81, '9')}));
  refused("prove", prove, "public", json(std::vector<std::string>(ControlLimits::kMaxListEntries + 1, "1")));
  // Roles, booleans, list entries.
  refused("hello", hello, "role", "admin");
  refused("hello", hello, "draining", "no");
  refused("hello", hello, "tokens", json::array({"nope"}));
  refused("hello", hello, "current", "nope");
  refused("hello", hello, "circuits", json::array({1}));
  refused("hello", hello, "gpus", json::array({{{"name", "no index"}}}));
  refused("worker_heartbeat", bodies[1].second, "held", json::array({json::object()}));
  refused("task_failed", bodies[4].second, "permanent", "yes");
  refused("synth_done", synth_done, "synth_ms", "fast");
  refused("prove_done", bodies[3].second, "proof", json::array());
}

TEST(ControlMessage, RejectsOversizeBodiesAndStrings) {
  std::string why;
  const std::string big = R"({"bundle_key": ")" + std::string(5000, 'k') + R"("})";
  EXPECT_FALSE(decode({"ZKM2", "release", big}, &why, 4096));
  EXPECT_NE(why.find("exceeds the limit"), std::string::npos) << why;
  // Within the frame limit, each string field is still capped.
  EXPECT_FALSE(decode({"ZKM2", "release", big}, &why, 1 << 20));
  EXPECT_NE(why.find("field 'bundle_key' is longer than"), std::string::npos) << why;
  json hello = valid_bodies()[0].second;
  hello["worker"] = std::string(ControlLimits::kMaxWorkerId + 1, 'w');
  EXPECT_FALSE(decode_body("hello", hello, &why));
  EXPECT_NE(why.find("field 'worker' is longer than"), std::string::npos) << why;
  json failed = valid_bodies()[4].second;
  failed["error"] = std::string(ControlLimits::kMaxString + 1, 'e');
  EXPECT_FALSE(decode_body("task_failed", failed, &why));
  EXPECT_NE(why.find("field 'error' is longer than"), std::string::npos) << why;
  failed["error"] = std::string(ControlLimits::kMaxString, 'e');
  EXPECT_TRUE(decode_body("task_failed", failed, &why)) << why;
}

TEST(ControlMessage, UnknownFieldsAreIgnored) {
  json ack = {{"token", kToken}, {"future_field", {1, 2, 3}}};
  std::string why;
  EXPECT_TRUE(decode_body("ack", ack, &why)) << why;
}

TEST(RandomToken, IsUnguessableHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string t = random_token();
    EXPECT_TRUE(is_attempt_token(t)) << t;
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 1000u);
  // Every hex digit shows up at every position over 1000 draws of 128 random bits (a counter
  // or a clock would leave the leading digits constant).
  for (size_t pos = 0; pos < 32; pos += 7) {
    std::set<char> digits;
    for (const auto& t : seen) digits.insert(t[pos]);
    EXPECT_EQ(digits.size(), 16u) << "position " << pos;
  }
}

TEST(Printable, EscapesControlCharactersAndCuts) {
  EXPECT_EQ(printable("plain text"), "plain text");
  EXPECT_EQ(printable("a\nFAKE LOG LINE"), "a\\nFAKE LOG LINE");
  EXPECT_EQ(printable(std::string("\x1b[2J\r\t\\\0", 8)), "\\x1b[2J\\r\\t\\\\\\x00");
  EXPECT_EQ(printable("\xc3\xa9"), "\\xc3\\xa9");
  EXPECT_EQ(printable(std::string(300, 'x'), 10), std::string(10, 'x') + "...(300 bytes)");
}

TEST(LogRateLimiter, LimitsPerPeerAndCountsWhatItSuppressed) {
  LogRateLimiter l(3, 4);
  uint64_t logged = 0;
  for (int i = 0; i < 100; ++i) logged += l.allow("evil", 1000).log;
  EXPECT_EQ(logged, 3u);
  EXPECT_TRUE(l.allow("good", 1000).log) << "another peer is not silenced";
  auto d = l.allow("evil", 2000);  // a second later
  EXPECT_TRUE(d.log);
  EXPECT_EQ(d.suppressed, 97u);
  // Inventing keys does not grow the table: beyond its size they share one key.
  uint64_t overflow_logged = 0;
  for (int i = 0; i < 1000; ++i) {
    auto o = l.allow("peer-" + std::to_string(i), 2000);
    overflow_logged += o.log;
  }
  EXPECT_LE(overflow_logged, 2u * 3u + 3u);
  EXPECT_EQ(l.allow("peer-999", 2000).key, LogRateLimiter::kOverflowKey);
}

}  // namespace
}  // namespace zkmill::test
