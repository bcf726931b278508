// SPDX-License-Identifier: MIT
// The coordinator: a ZeroMQ ROUTER that registers workers, exchanges heartbeats with them
// (Paranoid-Pirate liveness), assigns synth and prove work from the Redis queues, records
// results through the store's token-fenced scripts, verifies every proof, and batch-verifies
// each job before marking it done. It holds no state a restart would lose: the worker table
// is rebuilt from hellos (unknown senders are told to reconnect) and leases are not reaped
// until a full lease period after start, so live workers get to report what they hold.
//
// Integrity: the statement (public inputs) of every partition is the coordinator's, fixed
// before any proof arrives (zkey: from the staged witness; native: reported by the synth
// worker, checked and stored at synth_done), and a proof is verified and recorded only
// against it. Results and failures end an attempt only when they come from the worker its
// lease names (routing id, and CURVE key) with its random token. A worker that sends a
// result for another statement is quarantined (worker_registry.hpp). Only one coordinator
// is active per Redis: it holds the coordinator lease and every write it makes is fenced by
// it; a standby (coordinator.standby) waits for the lease and only then binds and serves.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>
#include <zmq.hpp>

#include "common/wire/zap_handler.hpp"
#include "coordinator/farm_metrics.hpp"
#include "coordinator/http_api.hpp"
#include "coordinator/native_statements.hpp"
#include "coordinator/proof_checker.hpp"
#include "coordinator/verify_queue.hpp"
#include "coordinator/worker_pauses.hpp"
#include "farm/allow_list_watch.hpp"
#include "farm/control_message.hpp"
#include "farm/coordinator_lease.hpp"
#include "farm/farm_clock.hpp"
#include "farm/farm_config.hpp"
#include "farm/farm_store.hpp"
#include "farm/handshake_monitor.hpp"
#include "farm/log_rate_limiter.hpp"
#include "farm/sha256.hpp"
#include "farm/worker_registry.hpp"

namespace zkmill::farm {

class Coordinator {
 public:
  // Exit status of `zkmill coordinator` when another coordinator holds the farm's lease (at
  // start), or took it over while this one ran.
  static constexpr int kExitLeaseHeld = 3;
  // Set (by `zkmill coordinator`'s SIGHUP handler) to re-read zmq.allowed_keys_file now.
  static std::atomic<bool> reload_keys_requested;

  explicit Coordinator(FarmConfig cfg);
  // Serves until `stop` becomes true. Throws for setup problems (bind failure), and
  // CoordinatorLeaseHeld / CoordinatorLeaseLost when another coordinator holds the lease.
  void run(const std::atomic<bool>& stop);
  // The lease period: a coordinator silent this long is presumed dead (heartbeat x liveness).
  uint64_t lease_period_ms() const;
  // TESTING ONLY (zkmill coordinator --inject-fault slow-verify): each proof check takes this
  // much longer, to show the event loop does not wait for verification.
  void inject_verify_delay(uint64_t ms) { verify_delay_ms_ = ms; }
  // How the proofs were checked so far (any thread): alone (a group of one), in a batch that
  // accepted them all, or one by one after their group's batch check failed.
  // final_matched / final_checked: proofs of the jobs' final checks found byte-identical to
  // the ones this process checked when recording them / re-checked with the pairing.
  struct CheckCounts {
    std::atomic<uint64_t> alone{0}, batched{0}, rechecked{0};
    std::atomic<uint64_t> final_matched{0}, final_checked{0};
  };
  const CheckCounts& check_counts() const { return *check_counts_; }

 private:
  // Who sent a message: its routing id and, under CURVE, its authenticated public key.
  // fd: the coordinator-side socket its message came in on (ZMQ_SRCFD), -1 when unknown.
  struct Peer {
    std::string id, key;
    int fd = -1;
  };
  struct WorkerInfo {
    WorkerRole role = WorkerRole::Both;
    std::string curve_key;  // the CURVE key it registered with ("" without CURVE)
    std::set<std::string> circuits;
    std::string bundle_endpoint;
    // What it reports holding or working on (heartbeat tokens[], current and tasks[]).
    std::set<std::string> tokens;
    std::vector<TaskReport> tasks;  // reported tasks, for status
    // Reported tasks already looked at by abort_stale_tasks, kept to the tokens it still
    // reports: true while the attempt is current, false once it was told to abort (told once).
    std::map<std::string, bool> checked;
    struct Assigned {
      bool synth = false;
      uint64_t at_ms = 0;
      uint64_t seq = 0;  // the `seq` of that assignment (see seq_)
      // Leased to this worker by this coordinator (assign), not learnt from a hello: its
      // result needs no look-up of the attempt in Redis before it is checked (the recording
      // script checks the holder, token and state anyway). `statement`: a prove's, as claimed.
      bool leased_here = false;
      std::string statement;
    };
    std::map<std::string, Assigned> busy;  // token -> assigned and not yet reported back
    uint64_t slots = 1;                    // assignments it takes at once (hello `slots`, capped)
    // It keeps assignments queued behind the running one (hello `lookahead` > 0): it takes a
    // synthesis while it proves and a prove while it synthesizes, up to `slots` held.
    bool queues = false;
    uint64_t last_seen_ms = 0;
    // Its control connection: the socket its last message came in on and that socket's peer
    // address (ip:port), so that a silent worker whose connection is still open (a slow or
    // lossy link, TCP retransmitting) is told apart from one whose connection closed (killed).
    int fd = -1;
    std::string peer_address;
    bool silent = false;  // silent past heartbeat x liveness with its connection open (logged once)
    bool draining = false;
    std::vector<GpuInfo> gpus;  // as advertised in hello (prove on GPUs)
    bool synthesizing() const {
      for (const auto& [token, a] : busy)
        if (a.synth) return true;
      return false;
    }
    // Whether it takes a synthesis / a prove now. A worker without a lookahead synthesizes only
    // when idle and proves only while not synthesizing; one with a lookahead takes either while
    // it holds fewer than `slots` (what cannot start yet waits in its queue).
    bool takes_synth() const { return queues ? busy.size() < slots : busy.empty(); }
    bool takes_prove() const { return busy.size() < slots && (queues || !synthesizing()); }
    // Whether its last report listed `token` as queued (not started): only such an assignment
    // may be handed back without counting as a failed attempt (task_failed `returned`).
    bool reported_queued(const std::string& token) const {
      for (const auto& t : tasks)
        if (t.at.token == token) return t.stage == TaskStage::Queued;
      return false;
    }
    // Takes a hello's or heartbeat's tokens[], current and tasks[].
    void take_report(const std::vector<std::string>& held, const std::string& current,
                     const std::vector<TaskReport>& reported);
  };
  struct JobInfo {
    std::string circuit, curve, kind;
    uint64_t seed = 0;
    uint64_t created_ms = 0;
  };

  void serve(const std::atomic<bool>& stop);
  // Takes the coordinator lease (a standby waits for it); false when `stop` came first.
  bool take_lease(const std::atomic<bool>& stop);
  void renew_lease();
  void handle(const Peer& from, const ControlMessage& m);
  void on_hello(const Peer& from, const Hello& h);
  void on_heartbeat(const Peer& from, WorkerInfo& w, const WorkerHeartbeat& h);
  void on_synth_done(const Peer& from, WorkerInfo& w, const SynthDone& m);
  void on_prove_done(const Peer& from, WorkerInfo& w, const ProveDone& m);
  // A synth_done that passed its checks, to be recorded at the end of the turn's messages with
  // the others of that turn (one script for all: record_synthesized), and only then acked.
  struct PendingSynth {
    Peer from;
    SynthDone m;
    FarmStore::SynthRecord record;
  };
  void record_synthesized();
  void on_task_failed(const Peer& from, WorkerInfo& w, const TaskFailed& m);
  // A prove_done whose proof is being checked on the VerifyQueue. proof_text is the proof as
  // it is recorded (m.proof serialized once); what is checked is that text parsed back, so the
  // recorded bytes are exactly the checked ones. statement: the attempt's, as stored (JSON).
  struct PendingProof {
    Peer from;
    ProveDone m;
    std::string proof_text, statement;
  };
  // A proof waiting for a free verify thread (unchecked_), by its circuit.
  struct UncheckedProof {
    uint64_t id;  // its key in verifying_
    nlohmann::json proof, statement;
    std::chrono::steady_clock::time_point arrived;
  };
  // Each loop turn, after the messages: the proofs received hand to the VerifyQueue in groups.
  // A group of several is checked with one multi-pairing (ProofChecker::batch_verifier) and,
  // only if that fails, proof by proof, so a bad proof is still named and the good ones of its
  // group recorded. A proof of a circuit with no check in flight goes at once (no batching
  // delay at low load); while one is in flight, the circuit's proofs wait for it until
  // four have gathered, and while every thread is busy all wait: batches grow with the
  // load, and a proof waits at most about one check for its group (a lone check is a 4-pair
  // Miller loop and a final exponentiation; each further proof of a group costs about a third
  // of that). With coordinator.verify_batch_window_us a proof also waits that long for company
  // (or until verify_batch_max of its circuit have gathered): batches form at moderate rates
  // too, where checks seldom overlap, for a delay far below any real partition's proving.
  void flush_checks();
  // How long the loop may sleep before a waiting proof's batch window ends (ms, rounded up);
  // `limit` when none is waiting for its window.
  uint64_t check_window_wait_ms(uint64_t limit) const;
  // SHA-256 of (circuit, statement, proof) as text: what a proof recorded after its check is
  // compared by at the job's final check (finalize).
  static Sha256::Digest proof_digest(const std::string& circuit, const std::string& statement,
                                     const std::string& proof);
  // Each loop turn: the verdicts ready, each finishing its prove_done (record, or reject), and
  // the final batch checks of jobs.
  void collect_verdicts();
  // A job's final batch check came back (every chunk of it): the job ends done or failed.
  // Throws RedisError when it cannot be written; the job then stays in final_done_.
  void finish_job(const std::string& job);
  // The good verdicts at the front of verdicts_, recorded with one script (FarmStore's batch
  // prove_done), then dropped; when it throws, none was recorded and all stay.
  void record_verified();
  void on_rejected(const PendingProof& p, const VerifyQueue::Verdict& v);
  // After any result: the worker is free, and the ack stops its re-sends.
  void settle(const Peer& from, WorkerInfo& w, const std::string& token);
  // A prove_done's ack waits until the end of the loop turn and, with redis.min_replicas,
  // until WAIT says the replicas have what was recorded: until then the worker keeps the proof,
  // so a failover in between loses nothing (the new primary's partition is still "proving" and
  // takes the re-send). One WAIT per turn covers every proof recorded in it.
  void settle_durable(const Peer& from, WorkerInfo& w, const std::string& token);
  void ack_after_wait(const std::string& worker, const std::string& token);
  void ack_durable();
  // A result refused before it changed anything (stale, or not from the attempt's holder).
  void refused(const Peer& from, std::string_view what, const AttemptRef& at, const std::string& why);
  // A native job's partition statement, computed from its built-in circuit
  // (ProofChecker::builtin_statement); nullopt, with `why`, when it cannot be.
  std::optional<std::vector<std::string>> native_statement(const PartRef& ref, const JobInfo& ji, std::string* why);
  // Starts computing a claimed native partition's statement (NativeStatements).
  void prepare_native_statement(const Claim& c);
  // The partition's statement for a zkey job: from the witness read at dispatch, or Redis.
  std::optional<std::vector<std::string>> zkey_statement(const PartRef& ref, const std::string& circuit,
                                                         std::string* why);
  void quarantine(const Peer& who, const PartRef& ref, const std::string& reason);
  bool quarantined(const std::string& id, const WorkerInfo& w) const;
  // Quarantined, or paused for failing its attempts (pauses_): it gets no new work.
  bool sidelined(const std::string& id, const WorkerInfo& w, uint64_t now) const;
  void refresh_quarantine();
  // The failed-attempt streaks in Redis (WorkerRegistry zk:pauses): read back on taking the
  // lease; the changed ones written (persist_pauses: at once, retried each heartbeat when Redis
  // refused); and each heartbeat, a streak an operator deleted is forgotten (refresh_pauses).
  void restore_pauses();
  void persist_pauses();
  void refresh_pauses();
  // A warning a peer can cause at will: escaped by the caller, rate-limited per peer here.
  void peer_warning(const std::string& peer, const std::string& line);
  void send(const std::string& to, const ControlMessage& m);
  void heartbeat_and_expire();
  // Notes the connection a worker's message came in on (see WorkerInfo::fd).
  static void note_connection(WorkerInfo& w, int fd);
  // True while the worker's control connection is still the one its last message came on and
  // is established: its silence is then a slow link or a stalled process, not a closed socket.
  static bool connection_open(const WorkerInfo& w);
  // Silent past heartbeat x liveness: no new work for it until it is heard again.
  bool is_silent(const WorkerInfo& w, uint64_t now) const;
  void reap();
  void sweep_jobs();
  // Tells each worker to abort the tasks it reports (running or queued in its lookahead) whose
  // results would be refused: of jobs that ended (not in `active` and read back final:
  // cancelled, failed, done; or deleted), or attempts superseded (a worker presumed lost whose
  // partition was reassigned, back with its old attempt: a task learnt from its hello is looked
  // up once). Without it such a task ran to its end, and the ones queued behind it waited.
  void abort_stale_tasks(const std::set<std::string>& active);
  // Result retention (coordinator.retention_s): deletes the jobs that ended longer ago than
  // that, and indexes, a chunk at a time, the final jobs that ended before the index existed.
  void expire_results();
  void finalize(const std::string& job);
  void dispatch();
  // One claim for worker `id` from the prove or synth queue (FarmStore::claim), sent to it as an
  // assignment; `empty` is set when the queue had nothing at all, so the pass need not ask for
  // the other workers.
  bool dispatch_prove(const std::string& id, WorkerInfo& w, bool* empty);
  bool dispatch_synth(const std::string& id, WorkerInfo& w, bool* empty);
  std::optional<Claim> claim_for(const char* queue, const std::string& id, const WorkerInfo& w, bool* empty);
  void assign(const std::string& id, WorkerInfo& w, const Claim& c, ControlMessage& m, std::string statement = {});
  // The attempt a result names, for the checks before the costly ones: from the worker's own
  // table when this coordinator leased it to that worker (no round trip), else from Redis.
  FarmStore::Attempt known_attempt(const Peer& from, const WorkerInfo& w, const PartRef& ref, const std::string& token,
                                   bool synth);
  // A zkey job's synth carries the partition's .wtns (from Redis) as its payload frame; its
  // statement is read from it here. False when it cannot be sent (missing, over the limit,
  // malformed): the attempt, and the job, are failed.
  bool attach_input(const std::string& id, const WorkerInfo& w, const Claim& c, ControlMessage& msg);
  const JobInfo& job_info(const std::string& job);
  double since_submit_s(const std::string& job);
  void count_failure(const std::string& reason, const PartRef& ref, const FarmStore::Failed& f);
  void setup_curve();
  // Re-reads zmq.allowed_keys_file when it changed (polled every 2 s) or on SIGHUP: added keys
  // are admitted at once, workers of removed keys are dropped (their leases then expire and
  // their partitions are requeued) and what they send is ignored.
  void reload_allowed_keys();
  void log_handshake_failures();
  // Once per heartbeat period: the worker table to zk:workers, its counts by role and state
  // to zk:coordinator (WorkerRegistry) and to the worker gauges.
  void publish_workers();
  void forward_drain_requests();
  // A draining synth worker waits for the release of every bundle it holds (`held` in its
  // heartbeat); those no partition needs any more are released here, so it need not wait
  // out worker.drain_hold_s for them.
  void release_unneeded(const std::string& id, const std::vector<std::string>& held);

  FarmConfig cfg_;
  RedisClient redis_;
  // Every time this coordinator stamps or compares (leases, deadlines, retention, pauses,
  // intervals) is the Redis server's clock, sampled each heartbeat: FarmClock.
  FarmClock clock_{redis_};
  // Subscribed to zk:wake (published by submit) and polled next to the ROUTER, so a new job
  // is dispatched at once rather than after the idle poll timeout. Best effort: while it is
  // down the loop still runs every 50 ms.
  RedisClient wake_;
  FarmStore store_;
  ProofChecker checker_;
  // Proof checks run here, off the loop; verifying_ maps a check's id to its result, and
  // verifying_tokens_ holds their attempt tokens: a re-send of a result being checked is not
  // checked again, and its lease is not reaped meanwhile. verdicts_ holds the verdicts taken
  // from the queue and not yet recorded: recording one writes to Redis, which may be down or
  // fence the write; the verdict (and its token) then stays for the next turn, never lost.
  VerifyQueue verify_;
  // Native partitions' statements, started at dispatch, taken at synth_done (native_statement).
  NativeStatements native_statements_;
  std::map<uint64_t, PendingProof> verifying_;
  std::set<std::string> verifying_tokens_;
  std::deque<VerifyQueue::Verdict> verdicts_;
  std::vector<PendingSynth> synthesized_;                         // this turn's checked synth_dones, not yet recorded
  std::map<std::string, std::vector<UncheckedProof>> unchecked_;  // circuit -> proofs not yet handed over
  uint64_t next_proof_id_ = 0;
  std::shared_ptr<CheckCounts> check_counts_ = std::make_shared<CheckCounts>();  // shared with the checks
  // A group of proofs on the VerifyQueue: its per-proof verdicts (ids of verifying_), filled
  // by the verify thread before its own verdict is signalled.
  struct Group {
    std::string circuit;
    std::shared_ptr<std::vector<VerifyQueue::Verdict>> verdicts;
  };
  std::map<uint64_t, Group> groups_;
  std::map<std::string, size_t> groups_checking_;  // circuit -> its groups on the VerifyQueue
  // A job's final batch check: the proofs as recorded in Redis, read back, in chunks checked
  // in parallel on the VerifyQueue (one multi-pairing each), off the loop. A job in
  // final_checks_ is not checked again meanwhile; final_done_ holds the jobs whose every
  // chunk came back, until their outcome is written.
  struct FinalCheck {
    uint64_t n = 0;
    size_t outstanding = 0;
    bool good = true;
    std::string why;
    double seconds = 0;
    uint64_t matched = 0;  // proofs found identical to the ones checked when recorded
  };
  std::map<std::string, FinalCheck> final_checks_;
  std::map<uint64_t, std::string> final_chunks_;  // VerifyQueue id -> job
  // The proofs this process checked and then recorded, by job and partition: proof_digest of
  // each as recorded. The final check skips the pairing for a proof read back byte-identical
  // (unless coordinator.final_check_all); the others (recorded before a restart or takeover,
  // or changed in Redis) are checked again. Dropped when the job ends (sweep_jobs) and
  // bounded (kMaxRecordedDigests: past it all are dropped, and final checks check in full).
  std::map<std::string, std::map<uint64_t, Sha256::Digest>> recorded_digests_;
  size_t recorded_digest_count_ = 0;
  static constexpr size_t kMaxRecordedDigests = size_t(1) << 20;
  std::deque<std::string> final_done_;
  uint64_t verify_delay_ms_ = 0;
  zmq::context_t ctx_;
  zmq::socket_t router_;
  std::mutex refused_mu_;                              // the ZAP thread logs refusals too
  std::map<std::string, uint64_t> refused_logged_ms_;  // what was refused -> when last logged
  // CURVE (zmq.curve): the ZAP handler admitting the allow-listed worker keys. Declared after
  // ctx_ and the members its observer uses, so it is destroyed (its thread joined) first.
  std::shared_ptr<wire::ZapHandler> zap_;
  std::unique_ptr<AllowListWatch> allowed_;  // zmq.allowed_keys_file, under CURVE
  uint64_t last_allowed_poll_ms_ = 0;
  std::set<std::string> revoked_logged_;  // "id key" of revoked peers already logged as ignored
  std::unique_ptr<HandshakeMonitor> monitor_;
  WorkerRegistry registry_;
  // Bundle endpoint -> its server's CURVE public key (from synth workers' hellos), handed to
  // prove workers with each `prove`. Kept after a worker leaves: its bundles may still be queued.
  std::map<std::string, std::string> bundle_server_keys_;
  std::map<std::string, WorkerInfo> workers_;
  std::map<std::string, JobInfo> jobs_;  // immutable job facts, cached
  std::unique_ptr<CoordinatorLease> lease_;
  // zkey partitions' statements read from their witnesses at dispatch (PartRef member ->
  // public inputs), until their synth_done; bounded (a miss reads the witness again).
  std::map<std::string, std::vector<std::string>> zkey_statements_;
  std::map<std::string, nlohmann::json> quarantined_;  // worker id -> record (zk:quarantine)
  std::set<std::string> quarantined_keys_;             // their CURVE keys
  WorkerPauses pauses_;                                // workers failing attempt after attempt
  LogRateLimiter peer_log_limit_;
  uint64_t started_ms_ = 0;
  uint64_t serving_since_ms_ = 0;  // when it took the lease (a standby: its takeover)
  // Numbers assignments and heartbeats to workers (field `seq`); a worker's heartbeat echoes the
  // highest it received (`seen`). Messages to one worker arrive in order, so seen >= an
  // assignment's seq proves the worker has had it: only then may a heartbeat that does not list
  // it free the worker. On a slow link the assignment is still in flight, not lost. Starts at
  // the clock (ms x 1000) so a restarted coordinator's numbers exceed its predecessor's.
  uint64_t seq_ = 0;
  uint64_t last_heartbeat_ms_ = 0;
  uint64_t last_sweep_ms_ = 0;
  uint64_t last_expire_ms_ = 0;
  // expire_results' pass over zk:jobs for jobs that ended before zk:ended existed: the next
  // member to look at, and whether this process has been through all of them.
  uint64_t index_ended_at_ = 0;
  bool index_ended_done_ = false;
  // The periodic duties that need not run on every loop turn (serve()): when each last ran,
  // and whether something happened that dispatch should look at.
  uint64_t last_promote_ms_ = 0, last_reap_ms_ = 0, last_dispatch_ms_ = 0;
  bool dispatch_due_ = true;
  uint64_t last_redis_error_log_ms_ = 0;
  // To ack after a WAIT on the connection their recording (or the read that found it recorded)
  // used; those of an earlier connection are dropped instead (the worker re-sends them).
  struct DurableAck {
    std::string worker, token;
    uint64_t connection;  // RedisClient::connection_id() then
  };
  std::vector<DurableAck> durable_acks_;
  uint64_t next_wait_ms_ = 0;  // after a WAIT that timed out, the next one waits until then
  uint64_t last_wait_log_ms_ = 0;
  FarmMetrics metrics_;
  // /metrics, the JSON API and the dashboard (coordinator.metrics_listen); last, so it stops
  // serving before anything it reads goes.
  std::unique_ptr<HttpApi> http_;
};

}  // namespace zkmill::farm
