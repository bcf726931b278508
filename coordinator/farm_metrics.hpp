// SPDX-License-Identifier: MIT
// The coordinator's Prometheus metrics. Counters and histograms are updated by the coordinator
// as results arrive (cheap atomic updates; they count from zero at each coordinator start, as
// Prometheus counters may); the worker gauges are set from the coordinator's worker table;
// the Redis-derived gauges come from FarmStateCollector when scraped. Served by HttpApi (the
// coordinator's one HTTP listener) at http://<coordinator.metrics_listen>/metrics, only when
// that key is set. Metric names and meanings: docs/farm.md, "Metrics".
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "coordinator/throughput_history.hpp"
#include "farm/control_message.hpp"
#include "farm/farm_config.hpp"

namespace zkmill::farm {

class FarmMetrics {
 public:
  FarmMetrics();
  ~FarmMetrics();
  FarmMetrics(const FarmMetrics&) = delete;
  FarmMetrics& operator=(const FarmMetrics&) = delete;

  // What /metrics serves of this process (HttpApi adds the Redis-derived FarmStateCollector).
  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }
  // Proofs verified per 10 s over the last 15 min (ThroughputHistory::to_json); event loop only.
  nlohmann::json throughput(uint64_t now_ms) { return throughput_.to_json(now_ms); }

  // A synth_done was recorded (its optional telemetry, synth_ms and bundle_bytes, is counted
  // when present).
  void synthesized(const SynthDone& result);
  // A proof passed verification (`verify_s`) and was recorded; `since_submit_s` is the
  // partition's latency from job submission. `result` may carry fetch_ms, prove_ms, bundle_bytes.
  // `now_ms`: the coordinator's (farm) clock, the one throughput() is later asked with.
  void verified(const ProveDone& result, double verify_s, double since_submit_s, uint64_t now_ms);
  // A proof did not verify.
  void rejected(double verify_s);
  // A failed attempt (`reason`: task_failed, proof_rejected, lease_expired:
  // the holder died or no longer holds the attempt) and what the store
  // did with it (FarmStore::Failed::outcome: 0 stale, 1 requeued = a retry, 2 the job failed;
  // the coordinator reports that job through job_finished).
  void attempt_failed(const std::string& reason, int outcome);
  void discarded();
  void job_finished(const std::string& state, double since_submit_s);
  // Ended jobs deleted by the result retention (coordinator.retention_s).
  void jobs_deleted(uint64_t n);
  // A worker paused for failing its attempts in a row (WorkerPauses).
  void worker_paused();
  void batch_verified(double seconds);
  void worker_lost();
  void message_dropped();
  // A Redis command of the coordinator failed; `kind` is redis_error_kind's (connection,
  // noreplicas, not_ready, reply).
  void redis_error(const std::string& kind);
  // {role: {state: count}} as the coordinator publishes it (roles synth, prove, both; states
  // idle, busy, draining).
  void set_workers(const nlohmann::json& by_role_state);
  // The Redis server's clock minus this host's, at the last FarmClock sample (seconds).
  void set_clock_skew(double seconds) { clock_skew_->Set(seconds); }

 private:
  static void observe_ms(std::optional<double> ms, prometheus::Histogram& h);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Counter* verified_;
  prometheus::Counter* rejected_;
  prometheus::Counter* synthesized_;
  prometheus::Counter* retries_;
  prometheus::Counter* discarded_;
  prometheus::Counter* workers_lost_;
  prometheus::Counter* jobs_deleted_;
  prometheus::Counter* workers_paused_;
  prometheus::Counter* dropped_;
  prometheus::Counter* bytes_synthesized_;
  prometheus::Counter* bytes_fetched_;
  prometheus::Family<prometheus::Counter>* failed_;
  prometheus::Family<prometheus::Counter>* jobs_finished_;
  prometheus::Family<prometheus::Counter>* redis_errors_;
  prometheus::Family<prometheus::Gauge>* workers_;
  prometheus::Gauge* clock_skew_;
  prometheus::Family<prometheus::Histogram>* phase_;
  prometheus::Family<prometheus::Histogram>* job_duration_;
  prometheus::Histogram* partition_latency_;
  ThroughputHistory throughput_;
};

}  // namespace zkmill::farm
