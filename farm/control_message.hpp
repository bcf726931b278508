// SPDX-License-Identifier: MIT
// The farm's control-plane messages (coordinator ROUTER <-> worker DEALER), typed. A message is
// three frames: the protocol tag "ZKM2", the type, and a JSON object body; the ROUTER sees the
// worker's routing id first. decode() checks sizes (frame count, body bytes), the type, and
// every field (presence, JSON type, string length, token and job-id shape, public-input shape)
// once, into one struct per message type; nothing downstream reads JSON. A bad message is
// dropped and logged, never half-processed.
//
// worker -> coordinator                         coordinator -> worker
//   hello      {worker, role, cores, memory_mb,   welcome    {heartbeat_ms, liveness}
//               circuits[], bundle_endpoint,       heartbeat  {}
//               tokens[], current, draining}       reconnect  {}  (unknown worker: say hello)
//   worker_heartbeat {tokens[], current, draining} synth      {job, part, token, circuit, curve, seed}
//   synth_done {job, part, token, bundle_key,     prove      {job, part, token, circuit, curve,
//               public[]}                                      bundle_endpoint, bundle_key, public[]}
//   prove_done {job, part, token, proof}          ack        {token}  (result recorded or refused)
//   task_failed{job, part, token, error}          release    {bundle_key} (bundle no longer needed)
//   bye        {}                                 drain      {}  (`zkmill worker drain`: as on SIGTERM)
//                                                 abort      {job, part, token, reason} (its job ended)
// Optional fields: hello {gpus[], bundle_server_key, slots, lookahead, tasks[], seen}, worker_heartbeat
// {held[], seen, tasks[]}, synth_done {synth_ms, bundle_bytes}, prove_done {public[], fetch_ms,
// expand_ms, prove_ms, slot_wait_ms, bundle_bytes}, task_failed {permanent, returned}, heartbeat {seq},
// synth {seq, input_bytes}, prove {seq, bundle_server_key}. Unknown fields are
// ignored. Tokens are 32 lowercase hex digits (128 random bits, random_token.hpp); "current"
// is "" when idle. public[] is the partition's statement as snarkjs writes public.json
// (decimal strings): the coordinator's in `prove`, the synth worker's report in `synth_done`.
// ZKM1 (integer tokens, prove_done's public as the statement) is refused with a clear reason.
//
// A `synth` of a zkey job carries a fourth frame, the payload: the partition's .wtns bytes
// (`input_bytes` gives its length). Only `synth` may carry one, only the worker accepts one
// (the coordinator decodes with max_payload_bytes = 0), and it is bounded by kMaxPayloadBytes
// (64 MiB), the farm's largest message; the JSON body keeps its own limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>
#include <zmq.hpp>

namespace zkmill::farm {

enum class MessageType : uint8_t {
  Hello,
  WorkerHeartbeat,
  SynthDone,
  ProveDone,
  TaskFailed,
  Bye,
  Welcome,
  Heartbeat,
  Reconnect,
  Synth,
  Prove,
  Ack,
  Release,
  Drain,
  Abort,
};
std::string_view message_type_name(MessageType t);
std::optional<MessageType> parse_message_type(std::string_view s);

enum class WorkerRole : uint8_t { Synth, Prove, Both };
std::string_view role_name(WorkerRole r);
std::optional<WorkerRole> parse_role(std::string_view s);
inline bool can_synth(WorkerRole r) { return r != WorkerRole::Prove; }
inline bool can_prove(WorkerRole r) { return r != WorkerRole::Synth; }

// Limits decode() enforces (besides the body's byte limit).
struct ControlLimits {
  static constexpr size_t kMaxString = 4096;       // any string field
  static constexpr size_t kMaxWorkerId = 255;      // a ZeroMQ routing id's limit
  static constexpr size_t kMaxListEntries = 4096;  // circuits[], tokens[], held[], gpus[], public[]
  static constexpr size_t kMaxDecimalDigits = 80;  // one public input (< 2^256 has 78 digits)
  static constexpr uint64_t kMaxPartition = 100000;
  static constexpr uint64_t kMaxSlots = 64;  // hello slots, and tasks[] entries
};

struct GpuInfo {
  uint64_t index = 0;
  std::string name;
  uint64_t memory_mb = 0;
};

// Where a task a worker holds stands (hello/worker_heartbeat tasks[]): a synth worker's
// synthesis, or a prove worker's partition being fetched, fetched and waiting for a proving
// slot (prefetched), or proving; or an assignment held in the worker's lookahead queue, not
// started yet (queued: it starts the moment the task ahead of it ends).
enum class TaskStage : uint8_t { Synthesizing, Fetching, Prefetched, Proving, Queued };
std::string_view stage_name(TaskStage s);
std::optional<TaskStage> parse_stage(std::string_view s);

// A partition and the attempt a result belongs to (synth, prove, their results, failures).
struct AttemptRef {
  std::string job;  // "j<digits>"
  uint64_t part = 0;
  std::string token;  // 32 hex digits
};

// One task a worker reports holding.
struct TaskReport {
  AttemptRef at;
  TaskStage stage = TaskStage::Proving;
  bool operator==(const TaskReport& o) const {
    return at.job == o.at.job && at.part == o.at.part && at.token == o.at.token && stage == o.stage;
  }
};

struct Hello {
  static constexpr MessageType kType = MessageType::Hello;
  std::string worker;
  WorkerRole role = WorkerRole::Both;
  uint64_t cores = 0, memory_mb = 0;
  std::vector<std::string> circuits;
  std::string bundle_endpoint;
  std::vector<std::string> tokens;  // bundles held (their synth tokens)
  std::string current;              // the task in progress, "" when idle
  bool draining = false;
  std::vector<GpuInfo> gpus;
  std::string bundle_server_key;  // CURVE: the synth worker's public key ("" without)
  std::optional<uint64_t> slots;  // assignments taken at once (1..kMaxSlots); absent: 1
  // Of those, how many it keeps queued, not started, behind the ones it runs (its lookahead,
  // worker.lookahead; 0..slots-1, absent: 0). A worker with a lookahead takes a synthesis
  // while it proves and a prove while it synthesizes (queued until the task ahead ends), so
  // its next partition is there when it reports the last one; the coordinator caps `slots`
  // at coordinator.max_worker_slots whatever a worker advertises.
  std::optional<uint64_t> lookahead;
  std::vector<TaskReport> tasks;  // every task held (prefetching workers); may be empty
  // As in WorkerHeartbeat: a hello again from a live worker (the coordinator was silent: a slow
  // link) tells what has arrived, so assignments still in flight are not forgotten.
  std::optional<uint64_t> seen;
};
struct WorkerHeartbeat {
  static constexpr MessageType kType = MessageType::WorkerHeartbeat;
  std::vector<std::string> tokens;
  std::string current;
  bool draining = false;
  std::vector<std::string> held;  // draining synth worker: its bundle keys
  // The highest `seq` it has received from the coordinator (assignments and heartbeats are
  // numbered): proof that an assignment arrived, so a slow link is not taken for a lost one.
  std::optional<uint64_t> seen;
  std::vector<TaskReport> tasks;  // as in Hello
};
struct SynthDone {
  static constexpr MessageType kType = MessageType::SynthDone;
  AttemptRef at;
  std::string bundle_key;
  std::vector<std::string> public_inputs;  // the bundle's statement, as the synth worker made it
  std::optional<double> synth_ms;
  std::optional<uint64_t> bundle_bytes;
};
struct ProveDone {
  static constexpr MessageType kType = MessageType::ProveDone;
  AttemptRef at;
  nlohmann::json proof;                    // snarkjs proof.json (object; parsed by the verifier)
  std::vector<std::string> public_inputs;  // what the prover proved (diagnostics only; may be empty)
  // Telemetry (per partition): fetching the bundle, expanding a witness-only bundle to a, b, c,
  // proving, waiting for a proving slot after the fetch, and the bundle's size on the wire.
  std::optional<double> fetch_ms, expand_ms, prove_ms, slot_wait_ms;
  std::optional<uint64_t> bundle_bytes;
};
struct TaskFailed {
  static constexpr MessageType kType = MessageType::TaskFailed;
  AttemptRef at;
  std::string error;
  bool permanent = false;  // the input itself is wrong; retrying cannot help
  // An assignment handed back unstarted (it sat in the lookahead queue of a worker that is
  // draining): requeued at once, not counted as a failed attempt.
  bool returned = false;
};
struct Bye {
  static constexpr MessageType kType = MessageType::Bye;
};
struct Welcome {
  static constexpr MessageType kType = MessageType::Welcome;
  uint64_t heartbeat_ms = 0, liveness = 0;
};
struct Heartbeat {
  static constexpr MessageType kType = MessageType::Heartbeat;
  uint64_t seq = 0;  // see WorkerHeartbeat::seen
};
struct Reconnect {
  static constexpr MessageType kType = MessageType::Reconnect;
};
struct Synth {
  static constexpr MessageType kType = MessageType::Synth;
  AttemptRef at;
  std::string circuit, curve;
  uint64_t seed = 0;
  uint64_t seq = 0;  // see WorkerHeartbeat::seen
};
struct Prove {
  static constexpr MessageType kType = MessageType::Prove;
  AttemptRef at;
  std::string circuit, curve, bundle_endpoint, bundle_key;
  std::vector<std::string> public_inputs;  // the coordinator's statement for this partition
  std::string bundle_server_key;           // CURVE ("" without)
  uint64_t seq = 0;                        // see WorkerHeartbeat::seen
};
struct Ack {
  static constexpr MessageType kType = MessageType::Ack;
  std::string token;
};
struct Release {
  static constexpr MessageType kType = MessageType::Release;
  std::string bundle_key;
};
struct Drain {
  static constexpr MessageType kType = MessageType::Drain;
};
// An attempt the worker holds is of no more use: its job ended (cancelled, failed, past its
// deadline, or done by another attempt) or it is no longer the partition's attempt (the
// worker was presumed lost and the partition reassigned). An assignment still queued is
// dropped, a running task stops at its next cancellation point, and either is reported as
// task_failed (refused as stale by then; it only frees the worker's slot). A worker ignores
// one for an attempt it does not hold.
struct Abort {
  static constexpr MessageType kType = MessageType::Abort;
  AttemptRef at;
  std::string reason;  // for the worker's log: "job cancelled", ...
};

using ControlBody = std::variant<Hello, WorkerHeartbeat, SynthDone, ProveDone, TaskFailed, Bye, Welcome, Heartbeat,
                                 Reconnect, Synth, Prove, Ack, Release, Drain, Abort>;

class ControlMessage {
 public:
  static constexpr std::string_view kTag = "ZKM2";
  static constexpr size_t kMaxPayloadBytes = size_t(64) << 20;

  ControlBody body;
  std::string payload;  // binary; only a zkey job's `synth` has one

  ControlMessage() = default;
  template <class T>
  requires(!std::is_same_v<std::decay_t<T>, ControlMessage> && std::is_constructible_v<ControlBody, T>)
      ControlMessage(T b, std::string p = {})
      : body(std::move(b)), payload(std::move(p)) {}

  MessageType type() const;
  std::string_view type_name() const { return message_type_name(type()); }
  template <class T>
  const T* as() const {
    return std::get_if<T>(&body);
  }
  // The attempt an assignment (synth or prove) is for; nullptr for every other message.
  const AttemptRef* assignment() const {
    if (const auto* m = as<Synth>()) return &m->at;
    if (const auto* m = as<Prove>()) return &m->at;
    return nullptr;
  }

  // The frames to send (after the routing id, on a ROUTER).
  std::vector<zmq::message_t> encode() const;
  // The JSON body alone (what encode() puts in the third frame).
  nlohmann::json to_json() const;
  // Decodes and validates `frames` (routing id already removed). nullopt with `why` set when
  // the message is malformed, too large, of an unknown type or missing/mistyping a field. A
  // payload frame is accepted only when max_payload_bytes > 0, for `synth`, within that size
  // and matching the body's `input_bytes`.
  static std::optional<ControlMessage> decode(std::vector<zmq::message_t>& frames, size_t max_body_bytes,
                                              std::string* why, size_t max_payload_bytes = 0);
  // Decodes a type name and a parsed body (the part of decode() after the frames).
  static std::optional<ControlMessage> from_json(std::string_view type, const nlohmann::json& body, std::string* why);

  // Sends on a DEALER (no routing id) or a ROUTER (with one). Non-blocking: false when the
  // peer's queue is full or the peer is unknown (ROUTER_MANDATORY).
  bool send(zmq::socket_t& s) const;
  bool send_to(zmq::socket_t& s, const std::string& routing_id) const;
};

// Whether `s` is an attempt token (32 lowercase hex digits) / a job id ("j" and 1-18 digits).
bool is_attempt_token(std::string_view s);
bool is_job_id(std::string_view s);

}  // namespace zkmill::farm
