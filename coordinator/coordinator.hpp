// The coordinator: a ZeroMQ ROUTER that registers workers, exchanges heartbeats with them
// (Paranoid-Pirate liveness), assigns synth and prove work from the Redis queues, records
// results through the store's token-fenced scripts, verifies every proof, and batch-verifies
// each job before marking it done. It holds no state a restart would lose: the worker table
// is rebuilt from hellos (unknown senders are told to reconnect) and leases are not reaped
// until a full lease period after start, so live workers get to report what they hold.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <zmq.hpp>

#include "common/wire/zap_handler.hpp"
#include "farm/control_message.hpp"
#include "farm/farm_config.hpp"
#include "farm/farm_store.hpp"
#include "coordinator/farm_metrics.hpp"
#include "farm/handshake_monitor.hpp"
#include "farm/clock.hpp"
#include "farm/worker_registry.hpp"
#include "coordinator/proof_checker.hpp"

namespace zkmill::farm {

class Coordinator {
 public:
  explicit Coordinator(FarmConfig cfg);
  // Serves until `stop` becomes true. Throws only for setup problems (bind failure).
  void run(const std::atomic<bool>& stop);

 private:
  struct WorkerInfo {
    std::string role;  // synth | prove | both
    std::set<std::string> circuits;
    std::string bundle_endpoint;
    // What it reports holding or working on (heartbeat tokens[], current and tasks[]).
    std::set<uint64_t> tokens;
    nlohmann::json tasks = nlohmann::json::array();  // reported tasks {job, part, stage}, for status
    struct Assigned {
      bool synth = false;
      uint64_t at_ms = 0;
    };
    std::map<uint64_t, Assigned> busy;  // token -> assigned and not yet reported back
    uint64_t slots = 1;                 // assignments it takes at once (hello `slots`)
    uint64_t last_seen_ms = 0;
    bool draining = false;
    nlohmann::json gpus = nlohmann::json::array();  // as advertised in hello (prove on GPUs)
    bool can_synth() const { return role == "synth" || role == "both"; }
    bool can_prove() const { return role == "prove" || role == "both"; }
    bool synthesizing() const {
      for (const auto& [token, a] : busy)
        if (a.synth) return true;
      return false;
    }
    // Reads a hello's or heartbeat's tokens[], current and optional tasks[].
    void take_report(const nlohmann::json& b);
  };
  struct JobInfo {
    std::string circuit, curve;
    uint64_t seed = 0;
    uint64_t created_ms = 0;
  };

  void handle(const std::string& from, const ControlMessage& m);
  void on_hello(const std::string& from, const nlohmann::json& b);
  void on_result(const std::string& from, WorkerInfo& w, const ControlMessage& m);
  void send(const std::string& to, const ControlMessage& m);
  void heartbeat_and_expire();
  void reap();
  void sweep_jobs();
  void finalize(const std::string& job);
  void dispatch();
  bool dispatch_prove(const std::string& id, WorkerInfo& w);
  bool dispatch_synth(const std::string& id, WorkerInfo& w);
  void assign(const std::string& id, WorkerInfo& w, const Claim& c, const ControlMessage& m);
  // A zkey job's synth carries the partition's .wtns (from Redis) as its payload frame.
  // False when it cannot be sent (missing or over the limit): the attempt is failed.
  bool attach_input(const Claim& c, ControlMessage& msg);
  const JobInfo& job_info(const std::string& job);
  double since_submit_s(const std::string& job);
  void count_failure(const std::string& reason, const PartRef& ref, const FarmStore::Failed& f);
  void setup_curve();
  void log_handshake_failures();
  // Once per heartbeat period: the worker table to zk:workers, its counts by role and state
  // to zk:coordinator (WorkerRegistry) and to the worker gauges.
  void publish_workers();
  void forward_drain_requests();
  // A draining synth worker waits for the release of every bundle it holds (`held` in its
  // heartbeat); those no partition needs any more are released here, so it need not wait
  // out worker.drain_hold_s for them.
  void release_unneeded(const std::string& id, const nlohmann::json& held);

  FarmConfig cfg_;
  RedisClient redis_;
  // Subscribed to zk:wake (published by submit) and polled next to the ROUTER, so a new job
  // is dispatched at once rather than after the idle poll timeout. Best effort: while it is
  // down the loop still runs every 50 ms.
  RedisClient wake_;
  FarmStore store_;
  ProofChecker checker_;
  zmq::context_t ctx_;
  zmq::socket_t router_;
  std::mutex refused_mu_;                              // the ZAP thread logs refusals too
  std::map<std::string, uint64_t> refused_logged_ms_;  // what was refused -> when last logged
  // CURVE (zmq.curve): the ZAP handler admitting the allow-listed worker keys. Declared after
  // ctx_ and the members its observer uses, so it is destroyed (its thread joined) first.
  std::shared_ptr<wire::ZapHandler> zap_;
  std::unique_ptr<HandshakeMonitor> monitor_;
  WorkerRegistry registry_;
  // Bundle endpoint -> its server's CURVE public key (from synth workers' hellos), handed to
  // prove workers with each `prove`. Kept after a worker leaves: its bundles may still be queued.
  std::map<std::string, std::string> bundle_server_keys_;
  std::map<std::string, WorkerInfo> workers_;
  std::map<std::string, JobInfo> jobs_;  // immutable job facts, cached
  uint64_t started_ms_ = 0;
  uint64_t last_heartbeat_ms_ = 0;
  uint64_t last_sweep_ms_ = 0;
  uint64_t last_redis_error_log_ms_ = 0;
  FarmMetrics metrics_;
};

}  // namespace zkmill::farm
