// SPDX-License-Identifier: MIT
// A farm worker: a DEALER to the coordinator (hello with capabilities, heartbeats both ways,
// Paranoid-Pirate liveness), each partition on a task thread of its own, and for synthesis a
// wire::BundleServer holding the synthesized bundles until a prove worker has fetched them.
// A synth worker synthesizes one partition at a time. A prove worker takes up to
// `slots` partitions at once (hello): one proving per ProverPool slot (per GPU, or one on the
// CPU) plus worker.prefetch fetched ahead per slot, so the next bundles arrive while the
// current ones prove. A synth or `both` worker also keeps worker.lookahead assignments queued
// behind the running one (hello `lookahead`; started in arrival order the moment they may), so
// its next partition is there when it reports the last; a drain hands the queue back. Every task it holds is listed in
// its heartbeats (`tasks`), so the coordinator renews their leases; a killed worker's tasks, prefetched ones included,
// expire and are reassigned like any other. Results are kept until the coordinator acks them and re-sent meanwhile, so
// they survive a coordinator restart. SIGTERM (stop flag) drains: every task it holds (the current and the prefetched
// partitions) finishes and is acked, no new one is taken, held bundles are served until released (worker.drain_hold_s
// at most), then the worker says bye and exits.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "common/cs/pce_matrices.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/wire/bundle_server.hpp"
#include "farm/allow_list_watch.hpp"
#include "farm/control_message.hpp"
#include "farm/curve_keys.hpp"
#include "farm/farm_config.hpp"
#include "farm/handshake_monitor.hpp"
#include "farm/log_rate_limiter.hpp"
#include "worker/gpu_prover.hpp"
#include "worker/key_directory.hpp"
#include "worker/native_keys.hpp"
#include "worker/prover_pool.hpp"
#include "worker/zkey_circuits.hpp"

namespace zkmill::farm {

struct WorkerOptions {
  WorkerRole role = WorkerRole::Both;
  // Test hooks (documented as such in `zkmill worker --help`): "corrupt-bundle-once" serves
  // the first bundle with a flipped byte; "bad-proof-once" sends one proof that does not verify;
  // "slow-prove" holds each proving slot 3 s longer (makes prefetching observable in tests);
  // "stuck-prove-once" holds the first one until its task is aborted (600 s at most: makes
  // `abort` observable in tests).
  std::string fault;
  // CUDA devices to prove on (`--gpus 0,1`); empty: the CPU prover. Checked at startup.
  std::vector<int> gpus;
};

class Worker {
 public:
  Worker(FarmConfig cfg, WorkerOptions opts);
  ~Worker();
  // Runs until drained after `stop`, or forever. Returns the exit code.
  int run(const std::atomic<bool>& stop);
  // Partitions proved from a bundle this worker had synthesized itself, taken from its own
  // bundle server without a network fetch (for tests and diagnostics).
  uint64_t bundles_proved_locally() const { return local_bundles_.load(); }
  // Set (e.g. by a SIGHUP handler) to re-read worker.key_dir at the next idle moment.
  static std::atomic<bool> rescan_keys_requested;
  // Set by the same handler: re-read zmq.allowed_keys_file (the prove workers a synth worker's
  // bundle server admits) now; it is also polled every 2 s.
  static std::atomic<bool> reload_allowed_requested;

 private:
  struct Task {
    std::thread thread;
    std::atomic<bool> done{false};
    std::string token;
    std::string job;
    uint64_t part = 0;
    bool synth = false;
    std::atomic<TaskStage> stage{TaskStage::Fetching};
    ControlMessage result;  // written by the task thread before `done`
    // `abort` from the coordinator (its job ended, or the attempt was superseded): the task
    // stops at its next cancellation point (util::Cancelled). abort_reason: the coordinator's,
    // for the report (loop thread only). cancelled: it did stop there (set by the task thread
    // before `done`); a task that finished or failed otherwise meanwhile is reported as such.
    std::stop_source stop;
    std::string abort_reason;
    bool cancelled = false;
  };

  ControlMessage hello() const;
  ControlMessage heartbeat() const;
  void handle(const ControlMessage& m);
  // Assignments held at once (running and queued): a synth worker 1 + worker.lookahead; a
  // prove worker the prover window (slots x (1 + prefetch)); a `both` worker the larger.
  size_t capacity() const;
  // Of those, how many may wait in queued_ (0: every assignment must start when it arrives).
  size_t lookahead() const;
  // Why a synth or prove assignment cannot be taken (held or started), or "" when it can.
  std::string refusal(MessageType type) const;
  // Whether an assignment of this type may start now: a synthesis runs alone (it uses the
  // whole machine), proves run up to the prover window and not beside a synthesis.
  bool can_start(MessageType type) const;
  // Starts queued assignments, in arrival order, while the first of them may start.
  void start_queued();
  // Draining: hands every queued (unstarted) assignment back (task_failed `returned`).
  void return_queued();
  void start_task(const ControlMessage& m);
  // `abort`: a queued assignment of that attempt is dropped and reported (task_failed
  // `returned`: it never started), a running task is asked to stop; one not held is ignored.
  void abort_task(const Abort& a);
  ControlMessage run_synth(const Synth& s, const std::string& wtns, std::stop_token stop);
  // The PCE matrices of a native key (KEY.pce, cached in pce_; see groth16::load_or_build_pce).
  // Thread-safe: synth and prove tasks share them.
  template <class E>
  std::shared_ptr<const cs::PceMatrices> pce_for(const KeyDirectory::Key& key, const groth16::KeyMeta& meta);
  // Drops a key's cached matrices (after a failure that may be theirs): opened afresh next time.
  void forget_pce(const std::string& key_path);
  ControlMessage run_prove(const Prove& p, Task& t);
  void collect_tasks();
  // A finished task's result: to the coordinator, and kept until acked.
  void report(const std::string& token, ControlMessage r, bool aborted = false);
  // Drained but for held bundles: true while they should still be served (see drain_hold_s).
  bool serve_held_bundles(bool coordinator_gone);
  void send(const ControlMessage& m);
  void log_handshake_failures();
  // Re-reads worker.key_dir; when the set of circuits changed, says hello again so the
  // coordinator assigns (or stops assigning) them. Only between tasks: the task thread reads keys_.
  void rescan_keys();
  // Connects the control socket to the coordinator endpoint(s) again (after a refused handshake).
  void reconnect_coordinators();
  // Re-reads zmq.allowed_keys_file for the bundle server when it changed or on SIGHUP.
  void reload_allowed_keys();

  FarmConfig cfg_;
  WorkerOptions opts_;
  std::string id_;
  KeyDirectory keys_;
  ZkeyCircuits zkeys_;      // thread-safe: used by the task threads
  NativeKeys native_keys_;  // thread-safe: the native keys opened so far, by path
  // PCE matrices of the native keys used so far, by key path: opened (or recorded and written
  // beside the key) on a key's first task that needs them, kept for the life of the worker (a
  // farm proves many partitions of few circuits). Synth tasks use them for a, b, c (worker.pce)
  // and for the id witness-only bundles carry; prove tasks to expand witness-only bundles. The
  // file is memory-mapped, so its pages are shared with a synth worker on the same host and the
  // kernel may drop them under memory pressure. pce_mu_ is held while a file is opened or
  // recorded: a second task that needs it waits instead of recording it twice.
  std::mutex pce_mu_;
  std::map<std::string, std::shared_ptr<const cs::PceMatrices>> pce_;
  std::optional<CurveKeys::Loaded> curve_;  // zmq.curve: own keypair, coordinator key, allow-list
  std::unique_ptr<GpuProver> gpu_;          // --gpus
  std::unique_ptr<ProverPool> provers_;     // prove roles: one slot per GPU, or one CPU slot
  zmq::context_t ctx_;
  zmq::socket_t dealer_;
  std::unique_ptr<HandshakeMonitor> monitor_;  // explains a refused connection in the log
  LogRateLimiter malformed_log_;
  uint64_t handshake_failures_ = 0, last_refusal_log_ms_ = 0;
  std::unique_ptr<wire::BundleServer> server_;
  std::unique_ptr<AllowListWatch> allowed_;  // the bundle server's allow-list, under CURVE
  uint64_t last_allowed_poll_ms_ = 0;
  std::map<std::string, std::unique_ptr<Task>> tasks_;  // token -> task
  // The lookahead: assignments taken but not started (a synthesis waiting for the proof ahead
  // of it, and so on), started in arrival order the moment they may. Reported as `queued` in
  // heartbeats (their leases are renewed); a drain hands them back.
  std::deque<ControlMessage> queued_;
  std::map<std::string, ControlMessage> unacked_;         // token -> result
  std::deque<std::pair<std::string, std::string>> held_;  // bundle key, synth token
  std::atomic<bool> corrupt_once_{false};
  std::atomic<bool> bad_proof_once_{false};
  std::atomic<uint64_t> local_bundles_{0};  // proves that took the bundle from our own server
  bool slow_prove_ = false;
  std::atomic<bool> stuck_prove_once_{false};
  bool draining_ = false;
  bool drain_requested_ = false;  // `drain` from the coordinator: behave as on SIGTERM
  uint64_t drain_started_ms_ = 0;
  bool serving_held_logged_ = false;
  uint64_t heartbeat_ms_ = 500, liveness_ = 6;
  uint64_t last_heard_ms_ = 0, last_sent_ms_ = 0, last_hello_ms_ = 0, last_rescan_ms_ = 0;
  uint64_t seen_seq_ = 0;  // highest `seq` from the coordinator, echoed as `seen` in heartbeats
  // Polled next to the DEALER: the task thread signals it when done, so a finished partition
  // is reported at once instead of on the next poll timeout (that wait was most of the farm's
  // per-partition overhead for small partitions).
  int wake_fd_ = -1;
};

}  // namespace zkmill::farm
