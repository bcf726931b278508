// SPDX-License-Identifier: MIT
// The farm's sections of the YAML config (redis, coordinator, worker, zmq), parsed strictly in
// util::Config's style: unknown keys, wrong types and refused values are errors naming the file
// and the dotted key. The base sections (log, threads) are handed to util::parse_config, so a
// farm config file is one file with one schema (docs/config.md, "Farm" section).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/util/config.hpp"

namespace zkmill::farm {

// redis: where the farm's state lives. Either host+port or unix_socket.
struct RedisConfig {
  std::string host = "127.0.0.1";
  uint32_t port = 6379;
  std::string unix_socket;  // non-empty: connect here instead of host:port
  std::string user;         // ACL user (Redis 6+); empty: the default user
  std::string password;     // empty: no AUTH
  // TLS (the server's `tls-port`), on when tls_ca is set; for the sentinels too. The server's
  // certificate must chain to tls_ca and name the host connected to, or tls_server_name when
  // set (e.g. a certificate for a DNS name, reached by IP). tls_cert / tls_key: the client's
  // certificate, for a server with `tls-auth-clients yes` (Redis's default). farm/tls_tunnel.hpp.
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_server_name;
  uint32_t connect_timeout_ms = 2000;
  uint32_t command_timeout_ms = 5000;
  // Connects tried in all when one times out (not a YAML key). A timed-out connect is most
  // often a lost SYN: Linux resends it after 1 s, then 3 s, so connect_timeout_ms leaves room
  // for one resend. The coordinator and workers retry in their loops and keep 1; the client
  // commands use 3 (client_command_redis), so one lost packet does not fail `zkmill status`.
  // A refused connection (nothing listening) is never tried again: it is said at once.
  uint32_t connect_attempts = 1;
  // Redis Sentinel: with `sentinels` ("HOST:PORT" each) the primary of `master_name` is asked
  // of them on every (re)connect, and host/port are not used. A connection to a server that is
  // no longer the primary (READONLY, or ROLE says replica) is dropped and resolved again.
  std::vector<std::string> sentinels;
  std::string master_name;
  std::string sentinel_password;  // empty: the sentinels need no AUTH
  // Durable writes (job creation, recorded proofs) wait until this many replicas have them
  // (WAIT), at most wait_timeout_ms. 0: no waiting (a lone Redis).
  uint32_t min_replicas = 0;
  uint32_t wait_timeout_ms = 2000;
};

// The redis section as the client commands use it (FarmClient; `zkmill worker drain` and
// `zkmill worker clear`): a timed-out connect is tried 3 times, unless the config says more.
constexpr uint32_t kClientConnectAttempts = 3;
inline RedisConfig client_command_redis(RedisConfig cfg) {
  cfg.connect_attempts = std::max(cfg.connect_attempts, kClientConnectAttempts);
  return cfg;
}

// coordinator: the control plane; `endpoint` is what workers connect to, `bind` what the
// coordinator binds (defaults to endpoint).
struct CoordinatorConfig {
  std::string endpoint = "tcp://127.0.0.1:7710";
  std::string bind;
  uint32_t heartbeat_ms = 500;  // both directions
  uint32_t liveness = 6;        // missed heartbeats before a peer is presumed dead (see dead_silence_ms)
  // A worker silent for heartbeat_ms x liveness gets no new work. It is declared dead (its
  // leases requeued) then only if its connection closed (killed, crashed); while its TCP
  // connection stays open (a lossy link retransmitting with backoff: 0.2, 0.4, 0.8, 1.6 s ...,
  // a stalled host) only after this much silence (at least heartbeat_ms x liveness).
  uint32_t dead_silence_ms = 10000;
  uint32_t lease_ms = 4000;         // a leased partition is re-checked this often
  uint32_t max_attempts = 5;        // per partition, then the job fails with the last error
  uint32_t backoff_ms = 200;        // retry delay: backoff_ms * 2^(attempt-1) ...
  uint32_t backoff_max_ms = 10000;  // ... capped here
  uint32_t synth_lookahead = 2;     // synthesized-but-unproved partitions queued per prove-worker slot
  std::string metrics_listen;       // HOST:PORT for /metrics, the JSON API and the dashboard; empty: none
  // A file holding the bearer token the HTTP API and /metrics require (docs/api.md); empty:
  // no token (then control requests are accepted only on a loopback listener).
  std::string api_token_file;
  // Of the HTTP API's 8 threads, the most one client (an IPv4 address or an IPv6 /64) is served
  // on at once; it may have 4x this many connections waiting (coordinator/http_listener.hpp).
  // 8: no per-client share (behind a reverse proxy every request comes from the proxy's address).
  uint32_t http_threads_per_client = 4;
  // Largest .wtns a zkey job may have per partition (checked by submit, again by the
  // coordinator before sending it in the `synth` message). At most 64 MiB: the farm's
  // largest message (ControlMessage::kMaxPayloadBytes).
  uint32_t max_witness_mb = 64;
  // Standby coordinators (docs/reliability.md, "Standby coordinator"). A coordinator with
  // `standby` waits for the coordinator lease instead of refusing to start, takes over when
  // the active one dies or is cut off, and steps back to waiting when it loses the lease.
  // Workers connect to `endpoint` and every one of `standby_endpoints`: only the coordinator
  // holding the lease binds its endpoint, so they talk to whichever is active.
  bool standby = false;
  // Threads checking proofs off the event loop; 0: one per hardware thread, at most 8.
  uint32_t verify_threads = 0;
  // Proof checks in batches (docs/farm.md, Lifecycle, step 5): a proof waits up to
  // verify_batch_window_us for others of its circuit, or until verify_batch_max have gathered,
  // and a group is checked with one multi-pairing (one by one only if that fails). 0: a proof
  // goes at once when a thread is idle (batches form only while checks overlap). Default 0: a
  // 1 ms window cost 3-7 % of one coordinator's throughput for 0.05-0.1 ms of check CPU saved
  // per partition (docs/benchmarks.md, issue 18).
  uint32_t verify_batch_window_us = 0;
  uint32_t verify_batch_max = 64;
  // The job's final check of its proofs as stored: false re-checks (pairings) only the proofs
  // that are not byte-identical to the ones this process checked when it recorded them (the
  // others were checked for that very statement: their SHA-256 is compared); true re-checks
  // every proof with the pairing.
  bool final_check_all = false;
  std::vector<std::string> standby_endpoints;
  // The most assignments one worker holds at once, whatever its hello's `slots` says: a worker
  // advertising more (a bug, or a hostile peer hoarding the queue) is capped here.
  uint32_t max_worker_slots = 16;
  // Result retention: a job that ended (done, failed, cancelled) is deleted from Redis with its
  // proofs, public signals and idempotency key this long after it ended (docs/farm-integrity.md,
  // "Result retention"); 0 keeps every job until deleted by hand.
  uint32_t retention_s = 7 * 24 * 3600;
  // A worker that fails this many attempts in a row gets no new work for worker_pause_ms, then
  // one more try; each failed try doubles the pause (at most 32 x worker_pause_ms); a recorded
  // result clears it (coordinator/worker_pauses.hpp). 0: never paused.
  uint32_t worker_failure_limit = 3;
  uint32_t worker_pause_ms = 10000;
};

// worker: one worker process.
struct WorkerConfig {
  std::string key_dir;                            // native proving keys this worker serves
  std::string bundle_bind = "tcp://127.0.0.1:0";  // the synth side's BundleServer
  std::string id;                                 // empty: <hostname>-<pid>
  uint32_t cores = 0;                             // advertised; 0: hardware threads
  uint64_t memory_mb = 0;                         // advertised; 0: physical memory
  uint32_t max_held_bundles = 16;                 // synthesized bundles kept for fetching
  uint32_t drain_hold_s = 300;                    // draining synth side: serve held bundles this long at most
  uint32_t key_rescan_s = 10;                     // key_dir re-read this often (and on SIGHUP); 0: SIGHUP only
  uint64_t max_bundle_mb = 65536;                 // largest bundle a prove worker accepts
  bool pce = true;                                // synth: precompiled constraint evaluation (KEY.pce files)
  // Decoded snarkjs keys (.zkey points, .r1cs matrices) kept in memory, least recently used
  // out; the last one used always stays (worker/decoded_key_cache.hpp).
  uint64_t zkey_cache_mb = 16384;
  // Prove workers: partitions taken ahead per proving slot (GPU, or the CPU), fetched while
  // the current ones prove. 0: fetch, then prove, one partition per slot.
  uint32_t prefetch = 1;
  // Synth and `both` workers: assignments held queued behind the running one (docs/farm.md,
  // "Lookahead"), so the next partition is already here when the last result goes out. 0:
  // one assignment at a time (the next asked for only by reporting the last).
  uint32_t lookahead = 1;
  // Synth workers, native circuits: "witness" ships inputs and bit-packed aux only (the prove
  // worker computes a, b, c from the circuit's matrices); "full" ships the whole bundle with
  // a, b, c. zkey circuits always ship their own kind.
  std::string bundle_kind = "witness";
  // GPU prove workers, witness-only bundles: a, b, c computed on the device from the circuit's
  // PCE matrices held resident in its key cache (true), or on the host's CPU cores (false).
  bool gpu_pce = true;
};

// zmq: transport security. With `curve` on, the control plane (coordinator ROUTER, worker
// DEALERs) and the bundle data plane are CURVE-encrypted and a ZAP handler admits only the
// public keys in allowed_keys_file (docs/farm.md, "Encryption and authentication"). The files
// are read when the coordinator or worker starts (farm/curve_keys.hpp).
struct ZmqConfig {
  bool curve = false;
  std::string key_file;                     // this process's secret key (PREFIX.key, mode 0600)
  std::string coordinator_public_key_file;  // workers: the coordinator's PREFIX.pub
  std::string allowed_keys_file;            // coordinator and synth workers: admitted public keys
  uint32_t max_message_kb = 256;            // control messages larger than this are dropped
  // Allow plaintext ZeroMQ beyond loopback (check_exposure). Off: a coordinator or worker
  // that would speak plaintext to other hosts refuses to start.
  bool insecure = false;
};

struct FarmConfig {
  util::Config base;
  RedisConfig redis;
  CoordinatorConfig coordinator;
  WorkerConfig worker;
  ZmqConfig zmq;
  std::string source;  // the file it came from ("" for defaults)
};

// Throws util::ConfigError ("<file>: <problem>").
FarmConfig load_farm_config(const std::string& path);
FarmConfig parse_farm_config(const std::string& yaml_text, const std::string& source);

}  // namespace zkmill::farm

namespace zkmill::farm {

// True when a ZeroMQ endpoint is reachable from this host only: ipc://, inproc://, or tcp://
// on a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z, `localhost`, the `lo`
// interface). Anything else — another address, `*`, a host or interface name — may be
// reachable from the network. For a connect endpoint `tcp://SOURCE;HOST:PORT` the HOST counts.
bool is_loopback_endpoint(const std::string& endpoint);

// Refuses, before anything binds or connects, a coordinator or worker that would speak
// plaintext ZeroMQ (zmq.curve off) beyond loopback: anyone on the network could then read
// witnesses and proofs, send a worker assignments, or register as a worker. Checks the
// coordinator's `coordinator.bind`; a worker's `coordinator.endpoint` (its only peer) and,
// when it serves bundles (role synth or both), `worker.bundle_bind`. Throws util::ConfigError
// naming the file and the key, unless `zmq.insecure: true`, which logs a warning per endpoint
// instead.
enum class FarmRole { kCoordinator, kWorker };
void check_exposure(const FarmConfig& cfg, FarmRole role, bool serves_bundles);

// The warnings a coordinator logs at start for a Redis it reaches in plaintext beyond
// loopback (TCP without redis.tls_ca, to `host` or to a sentinel): the farm's state, and
// redis.password when set, cross the network unencrypted. A warning, not a refusal: a
// private network is a valid place for Redis (docs/operations.md); empty when TLS is on, for
// a unix socket, and for loopback.
std::vector<std::string> plaintext_redis_warnings(const FarmConfig& cfg);

// For farm commands, which take their own --config (see docs/config.md "Farm": main's
// util::Config loader does not know the farm sections): loads `path` (defaults when empty),
// then re-initialises logging from it unless --log-level (`cli_level`, non-empty) overrides.
FarmConfig load_command_config(const std::string& path, const std::string& cli_level);
}  // namespace zkmill::farm
