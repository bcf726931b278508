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
#include "coordinator/farm_metrics.hpp"
#include "coordinator/http_api.hpp"
#include "coordinator/proof_checker.hpp"
#include "farm/clock.hpp"
#include "farm/control_message.hpp"
#include "farm/farm_config.hpp"
#include "farm/farm_store.hpp"
#include "farm/handshake_monitor.hpp"
#include "farm/worker_registry.hpp"

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
    std::set<uint64_t> tokens;  // what it reports holding or working on
    uint64_t current = 0;       // reported task token
    uint64_t busy_token = 0;    // what we assigned it and have not heard back about
    bool busy_is_synth = false;
    uint64_t assigned_ms = 0;
    uint64_t assigned_seq = 0;  // the `seq` of that assignment (see seq_)
    uint64_t last_seen_ms = 0;
    bool draining = false;
    nlohmann::json gpus = nlohmann::json::array();  // as advertised in hello (prove on GPUs)
    bool can_synth() const { return role == "synth" || role == "both"; }
    bool can_prove() const { return role == "prove" || role == "both"; }
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
  void assign(const std::string& id, WorkerInfo& w, const Claim& c, ControlMessage& m);
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
  // Numbers assignments and heartbeats to workers (field `seq`); a worker's heartbeat echoes the
  // highest it received (`seen`). Messages to one worker arrive in order, so seen >= an
  // assignment's seq proves the worker has had it: only then may a heartbeat that does not list
  // it free the worker. On a slow link the assignment is still in flight, not lost. Starts at
  // the clock (ms x 1000) so a restarted coordinator's numbers exceed its predecessor's.
  uint64_t seq_ = 0;
  uint64_t last_heartbeat_ms_ = 0;
  uint64_t last_sweep_ms_ = 0;
  uint64_t last_redis_error_log_ms_ = 0;
  FarmMetrics metrics_;
  // /metrics, the JSON API and the dashboard (coordinator.metrics_listen); last, so it stops
  // serving before anything it reads goes.
  std::unique_ptr<HttpApi> http_;
};

}  // namespace zkmill::farm
