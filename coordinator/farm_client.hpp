// SPDX-License-Identifier: MIT
// The client side of the farm (submit, status, wait, cancel, result): talks to Redis only,
// since Redis is the source of truth; the coordinator picks submitted work up from the queues.
// Used by the `zkmill submit|status|wait|cancel|result` commands and by tests.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "farm/farm_store.hpp"

namespace zkmill::farm {

struct SubmitRequest {
  std::string key_path;    // a native key (built-in circuit, `partitions`, `seed`) ...
  std::string circuit_id;  // ... or, instead of its file, the id of a native circuit the farm already has
  std::string zkey_path;   // ... or a snarkjs .zkey with one .wtns per partition
  std::vector<std::string> witness_paths;           // zkey: partition i proves witness_paths[i]
  uint64_t max_witness_bytes = uint64_t(64) << 20;  // zkey: coordinator.max_witness_mb
  uint64_t partitions = 1;
  uint64_t seed = 0;
  int64_t priority = 0;
  std::string idempotency_key;
  uint64_t deadline_s = 0;  // seconds from now; 0: none
};

class FarmClient {
 public:
  // A timed-out connect is tried 3 times (client_command_redis): a client command on a lossy
  // link should not fail on one lost SYN.
  explicit FarmClient(const RedisConfig& cfg) : redis_(client_command_redis(cfg)), store_(redis_) {}

  // Registers the key's verifying key under its circuit id, then submits. Returns (id, new?).
  // By circuit id (SubmitRequest::circuit_id) nothing is read or hashed: the circuit must have
  // been registered by an earlier --key submit (a PoRep key is ~72 GiB, ~1 min to hash), and be
  // native; an unknown or .zkey id throws std::invalid_argument saying what to do instead.
  // A zkey job's witnesses are all read and checked first (size limit, format, curve, value
  // count against the key's nVars, canonical values, ONE = 1): a bad one throws
  // std::invalid_argument naming the file and the problem, before anything reaches Redis.
  // Whether a witness satisfies the circuit is left to the synth worker (the .zkey holds no C
  // matrix; checking needs the .r1cs, and costs a pass over every constraint).
  std::pair<std::string, bool> submit(const SubmitRequest& req);
  // One job with its partitions; null when there is no such job.
  nlohmann::json status(const std::string& job);
  // Why `job` is not there, for an error message: "no job 'ID'", or, for an id this farm gave
  // out, that the result retention has deleted it (coordinator.retention_s).
  std::string no_job(const std::string& job);
  // The running coordinator's coordinator.retention_s (from its summary); 0 when none runs or
  // it keeps every job.
  uint64_t retention_s();
  // The most recent jobs (summaries).
  nlohmann::json list(size_t limit);
  // A page of jobs, newest first: up to `limit` summaries (as list()) in state `state` (empty:
  // any) that come after job `cursor` (empty: from the newest). {"jobs": [...], "next_cursor":
  // id or null}. At most 10000 jobs are examined per call, so a rare state may return a short
  // page with a cursor to continue from. Throws std::invalid_argument for an unknown state or
  // a cursor that names no job (any more).
  nlohmann::json jobs_page(const std::string& state, size_t limit, const std::string& cursor);
  // The registered workers (zk:workers, as the coordinator last published them), each with
  // its id under "worker" and, while it holds a lease, the partition it works on under
  // "partition" ({job, partition, state}).
  nlohmann::json workers();
  // The farm as a whole (FarmOverview: jobs and partitions by state, queues, the coordinator's
  // worker table, throughput) plus workers() under "workers" and the `recent` most recent jobs
  // under "recent_jobs". Schema: docs/farm.md; served as GET /api/v1/farm (docs/api.md).
  nlohmann::json overview(size_t recent);
  // Polls until the job is final or `timeout_s` passes (0: forever); prints progress lines
  // to stderr. Returns 0 when done (every proof verified), 1 failed/cancelled, 2 timeout, 3 unknown.
  int wait(const std::string& job, uint64_t timeout_s, bool quiet);
  std::string cancel(const std::string& job);
  // Who can work on `circuit` now: {"coordinator": alive?, "synth": n, "prove": n}, counting
  // the non-draining workers of the coordinator's last published table that serve it (role
  // "both" counts for each). Nothing is counted when no coordinator is alive.
  nlohmann::json coverage(const std::string& circuit);
  // A one-line warning when a job of `circuit` cannot progress for want of workers (or of a
  // coordinator), else empty. Used by `status` (field "warning") and by `submit` (stderr).
  static std::string coverage_warning(const std::string& circuit, const nlohmann::json& coverage);
  std::string coverage_warning(const std::string& circuit) { return coverage_warning(circuit, coverage(circuit)); }
  // Asks the coordinator to drain `worker` (WorkerRegistry::request_drain); false when no
  // such worker is registered.
  bool drain(const std::string& worker);
  // The farm's clock (the Redis server's TIME), ms since the Unix epoch: what the coordinator's
  // stamps (since_ms, until_ms, updated_ms) are to be set against.
  uint64_t server_time_ms() { return redis_.server_time_ms(); }
  // PING; throws RedisError when Redis cannot be reached.
  void ping();
  // What the live coordinator last published about itself (zk:coordinator), or null.
  nlohmann::json coordinator();
  // Writes partition-<i>.proof.json, partition-<i>.public.json and proofs.bin into `dir`.
  // Throws unless the job is done.
  void write_result(const std::string& job, const std::string& dir);

 private:
  std::pair<std::string, bool> create(const SubmitRequest& req);
  std::pair<std::string, bool> submit_zkey(const SubmitRequest& req, JobSpec spec);
  // The curve of the registered native circuit `id`; throws saying why when `id` names none.
  std::string registered_native_curve(const std::string& id);

  // What this client stamps into the farm's state (a job's creation and deadline, a cancel, a
  // drain request) takes redis_.server_time_ms(), not the local clock: the coordinator compares
  // the stamps with the same clock (FarmClock), while a client's host (an operator's laptop, a
  // CI runner) may be off by hours, which made a --deadline already past or a cancelled job
  // look ended long ago (deleted at once by the result retention).
  RedisClient redis_;
  FarmStore store_;
};

}  // namespace zkmill::farm
