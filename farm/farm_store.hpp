// SPDX-License-Identifier: MIT
// The farm's state in Redis, the single source of truth: jobs, partitions, attempts, leases,
// results and the two priority queues. Every multi-key change is one Lua script (atomic in
// Redis), and every result write is fenced by the attempt token, so a stale, duplicate or
// cancelled result is refused rather than recorded twice. Key schema: docs/config.md "Farm".
//
// Queues are sorted sets, not Streams: the coordinator is the only consumer and it needs
// priority (score = -priority) with FIFO inside a priority (equal scores order by member,
// and members start with the zero-padded job sequence number) and to pick, among the first
// few entries, one a given worker can serve. Streams deliver strictly in append order; the
// at-least-once part (pending entries, XAUTOCLAIM) is covered here by explicit leases.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "farm/redis_client.hpp"

namespace zkmill::farm {

struct JobSpec {
  std::string circuit;  // circuit id (sha256 hex of the key file)
  std::string curve;    // "bn254" | "bls12-381"
  uint64_t partitions = 1;
  uint64_t seed = 0;
  int64_t priority = 0;  // higher first
  std::string idempotency_key;
  uint64_t deadline_ms = 0;  // unix ms; 0: none
  // "builtin" (a native key's built-in circuit, inputs from `seed`) or "zkey" (a snarkjs key;
  // partition i's input is the .wtns staged under `stage`, moved to zk:wtns:<job>:<i>).
  std::string kind = "builtin";
  std::string stage;  // zkey: the nonce the witnesses were staged under (stage_input)
  // What an idempotency key is bound to: the parameters that decide the proofs (kind, circuit,
  // partitions, seed, and for zkey jobs the witnesses' SHA-256), as one string. Priority and
  // deadline are scheduling, not the statement, and are not part of it. Empty: not checked.
  std::string params;
};

// submit() with an idempotency key already used for a job of other parameters (JobSpec::params).
class IdempotencyConflict : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A partition reference as it travels in queues and leases: "<job seq, 12 digits>:<part, 8 digits>".
struct PartRef {
  std::string job;  // "j<seq>"
  uint64_t part = 0;
  std::string member() const;
  static std::optional<PartRef> parse(const std::string& member);
};

struct Claim {
  bool ok = false;
  std::string reason;  // why not, when !ok
  std::string token;   // the attempt's random token (random_token.hpp)
  PartRef ref;
  std::map<std::string, std::string> job;   // the job hash
  std::map<std::string, std::string> part;  // the partition hash after the claim
};

class FarmStore {
 public:
  static constexpr uint64_t kMaxPartitions = 100000;
  static constexpr int64_t kMaxPriority = 1000000;

  explicit FarmStore(RedisClient& redis) : r_(redis) {}

  // The coordinator's fencing token (coordinator_lease.hpp). Every write below that only the
  // coordinator makes (claim ... record_timings) is a script that first checks the token is
  // the one the coordinator lease holds, and throws CoordinatorLeaseLost when it is not.
  void set_fence(std::string fence) { fence_ = std::move(fence); }

  // Who sent a result or failure: the worker's routing id, its CURVE public key ("" without
  // CURVE) and the token it names. An attempt ends only for the worker its lease names.
  struct Sender {
    std::string worker, key, token;
  };
  // The partition's current attempt, for checks before costly work (a proof's verification).
  struct Attempt {
    std::string state, token, worker, worker_key;
    std::string statement;  // JSON array of decimal strings, "" before synth_done
    // "" when `from` holds this attempt, else why not.
    std::string refusal(const Sender& from) const;
  };
  Attempt attempt(const PartRef& ref);

  // Registers a circuit's verifying key (idempotent) so the coordinator can verify proofs
  // without the proving key.
  void put_circuit(const std::string& circuit, const std::string& curve, const std::string& vk_json,
                   const std::string& meta_json);
  std::map<std::string, std::string> circuit(const std::string& circuit);

  // Returns (job id, created?) — an existing idempotency key gives the existing job when its
  // params match, and throws IdempotencyConflict when they differ. A zkey
  // job's staged inputs become the job's in the same script (atomic with its creation); the
  // script refuses a job whose staged inputs are missing (expired), before creating anything.
  std::pair<std::string, bool> submit(const JobSpec& spec, uint64_t now_ms);
  // Uploads partition `part`'s input bytes (binary-safe) under a staging key that expires
  // after kStageTtlMs unless submit() claims it: one command per input keeps each Redis
  // request within one input's size, and a client that dies mid-upload leaves nothing behind.
  static constexpr uint64_t kStageTtlMs = 3600 * 1000;
  void stage_input(const std::string& stage, uint64_t part, const std::string& bytes);
  // Partition `part`'s input (zkey jobs); nullopt once the job is final (inputs are deleted
  // by the script that makes a job done, failed or cancelled).
  std::optional<std::string> input(const std::string& job, uint64_t part);
  // "cancelled", or the job's state when it was already final/unknown ("" = no such job).
  std::string cancel(const std::string& job, uint64_t now_ms);

  std::map<std::string, std::string> job(const std::string& job);
  std::vector<std::map<std::string, std::string>> partitions(const std::string& job, uint64_t n);
  std::vector<std::string> list_jobs(size_t limit);
  std::vector<std::string> active_jobs();

  // First `limit` queue members ("synth" | "prove"), best first.
  std::vector<std::string> peek(const std::string& queue, size_t limit);
  // Leases the best entry of `queue` ("synth" | "prove") among its first `window` whose job's
  // circuit is in `circuits` to `worker` (and, under CURVE, its key) with a new random token;
  // for "prove", one whose bundle `worker` made comes first. One round trip. Not ok: reason
  // "empty" (nothing queued) or "none" (nothing this worker serves in the window). Stale
  // entries met on the way are removed.
  Claim claim(const std::string& queue, const std::string& worker, const std::string& worker_key,
              const std::set<std::string>& circuits, size_t window, uint64_t now_ms, uint64_t lease_ms);
  struct Outcome {
    bool ok = false;
    std::string reason;  // why not
  };
  // A worker's optional telemetry (synth_ms, fetch_ms, prove_ms ...) as partition hash fields,
  // written by the same script as the result it came with.
  using Fields = std::vector<std::pair<std::string, std::string>>;
  // The values present, formatted (whole numbers exact, times with 3 decimals).
  static Fields telemetry(std::initializer_list<std::pair<const char*, std::optional<double>>> fields);
  // Records the synthesis and the partition's statement (its public inputs, JSON), which is
  // what the proof is later verified against and what is recorded as its public inputs, and
  // `fields` (telemetry) when it is recorded.
  Outcome synth_done(const PartRef& ref, const Sender& from, const std::string& endpoint, const std::string& bundle_key,
                     const std::string& statement_json, uint64_t now_ms, uint64_t lease_ms, const Fields& fields = {});
  // One synthesis to record (synth_done's arguments).
  struct SynthRecord {
    PartRef ref;
    Sender from;
    std::string endpoint, bundle_key, statement_json;
    Fields fields;
  };
  // Records a batch in one script (one round trip, atomic), each item as synth_done's; the
  // outcomes in the batch's order. When it throws, call it again with the same batch: what
  // was recorded before the failure is refused then ("partition synthesized"), never twice.
  std::vector<Outcome> synth_done(const std::vector<SynthRecord>& batch, uint64_t now_ms, uint64_t lease_ms);
  // {recorded?, n_verified, n_partitions}
  struct ProveDone {
    bool recorded = false;
    std::string reason;
    uint64_t verified = 0, total = 0;
    std::string synth_worker, bundle_key;
  };
  // Records `proof` with the partition's statement as its public inputs.
  ProveDone prove_done(const PartRef& ref, const Sender& from, const std::string& proof_json, uint64_t now_ms);
  // One verified proof to record, with its telemetry.
  struct ProveRecord {
    PartRef ref;
    Sender from;
    std::string proof_json;
    Fields fields;
  };
  // Records a batch in one script: one round trip, and atomic (no other command runs in
  // between; a crash or failover keeps all of its writes or none). When it throws, call it
  // again with the same batch: what was recorded before the failure (a lost reply; an error
  // inside the script, which Redis does not roll back) is refused as "partition verified",
  // never recorded twice. The outcomes in the batch's order, each as prove_done's.
  std::vector<ProveDone> prove_done(const std::vector<ProveRecord>& batch, uint64_t now_ms);
  struct Failed {
    int outcome = 0;  // 0 stale or refused (nothing changed), 1 requeued, 2 job failed
    uint64_t attempts = 0, delay_ms = 0;
    bool permanent_ignored = false;  // `permanent` from a prove worker: counted as one attempt
    std::string reason;              // outcome 0: why
  };
  // `from.token` "" means "whatever attempt `from.worker` holds" (the reaper, for a dead
  // worker, and the coordinator itself). `permanent` fails the job at once, but only while the
  // partition is synthesizing (see kFail).
  // `returned`: the worker hands back an assignment it never started (lookahead queue of a
  // draining worker): requeued at once (outcome 1), no attempt counted, no backoff.
  Failed fail(const PartRef& ref, const Sender& from, const std::string& error, bool permanent, uint64_t now_ms,
              const CoordinatorConfig& cc, bool returned = false);
  // Moves retries whose backoff has passed back into the synth queue; returns how many.
  uint64_t promote_delayed(uint64_t now_ms);
  std::vector<std::string> expired_leases(uint64_t now_ms, size_t limit);
  void renew_lease(const std::string& member, uint64_t until_ms);
  void drop_lease(const std::string& member);
  // Final state of a job: "done" (partitions marked done) or "failed" with `error`.
  bool finish(const std::string& job, const std::string& state, const std::string& error, uint64_t now_ms);
  // Copies a worker's optional telemetry (synth_ms, fetch_ms, prove_ms) into the partition
  // hash; absent values are skipped.
  void record_timings(const PartRef& ref, std::initializer_list<std::pair<const char*, std::optional<double>>> fields);
  // Result retention (coordinator.retention_s): deletes the jobs that ended (done, failed,
  // cancelled) at or before `cutoff_ms`, oldest first, with their partitions, proofs, inputs
  // and idempotency key; stops after the job that brings the partitions deleted to
  // `budget_parts`. Returns the ids deleted (none: nothing had ended by the cutoff).
  std::vector<std::string> expire_ended(uint64_t cutoff_ms, uint64_t budget_parts);
  // Adds the final jobs of zk:jobs[start, start + count) that the end index (zk:ended, kept by
  // the scripts that make a job final) lacks: jobs that ended before the index existed.
  // Returns how many members it scanned (< count: the end of zk:jobs).
  uint64_t index_ended(uint64_t start, uint64_t count);
  // How many partitions are synthesizing or synthesized (the look-ahead in use).
  uint64_t synth_ahead();
  // Of `bundle_keys` (bundles a synth worker holds, "<job>/<part>/<token>"), those nothing will
  // fetch any more: the job is over, the partition is proved, or its attempt failed (the
  // partition names another bundle, or none). One pipelined round trip.
  std::vector<std::string> unneeded_bundles(const std::vector<std::string>& bundle_keys);

  RedisClient& redis() { return r_; }

 private:
  RedisReply fenced(const char* script, std::vector<std::string> args);

  RedisClient& r_;
  std::string fence_;
};

}  // namespace zkmill::farm
