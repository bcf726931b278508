// SPDX-License-Identifier: MIT
// FarmMetrics: the metric families and the hooks the coordinator calls.
#include "coordinator/farm_metrics.hpp"

#include <spdlog/spdlog.h>

namespace zkmill::farm {

namespace {

// Seconds, 1 ms to ~40 min: covers a verification (milliseconds) as well as a large
// partition's synthesis or proof on a CPU (minutes) and a job's end-to-end time.
const prometheus::Histogram::BucketBoundaries& buckets() {
  static const prometheus::Histogram::BucketBoundaries b{
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500};
  return b;
}

prometheus::Counter& counter(prometheus::Registry& r, const std::string& name, const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r).Add({});
}

}  // namespace

FarmMetrics::FarmMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  auto& r = *registry_;
  verified_ = &counter(r, "zkmill_proofs_verified_total", "Partition proofs that verified and were recorded");
  rejected_ = &counter(r, "zkmill_proofs_rejected_total", "Partition proofs that did not verify (failed attempts)");
  synthesized_ = &counter(r, "zkmill_partitions_synthesized_total", "Partition syntheses recorded");
  retries_ = &counter(r, "zkmill_retries_total", "Failed attempts requeued for another try");
  discarded_ = &counter(r, "zkmill_results_discarded_total",
                        "Results refused by the token fence (stale, duplicate, or for a cancelled job)");
  workers_lost_ = &counter(r, "zkmill_workers_lost_total", "Workers declared dead after missed heartbeats");
  jobs_deleted_ = &counter(r, "zkmill_jobs_deleted_total",
                           "Ended jobs deleted with their proofs by the result retention (coordinator.retention_s)");
  workers_paused_ = &counter(r, "zkmill_workers_paused_total",
                             "Pauses of workers that failed attempt after attempt (coordinator.worker_failure_limit)");
  dropped_ = &counter(r, "zkmill_control_messages_dropped_total", "Malformed control messages dropped");
  bytes_synthesized_ = &counter(r, "zkmill_bundle_synthesized_bytes_total",
                                "Bytes of witness bundles synthesized (as reported by synth workers)");
  bytes_fetched_ = &counter(r, "zkmill_bundle_fetched_bytes_total",
                            "Bytes of witness bundles moved over the data plane (as reported by prove workers)");
  failed_ = &prometheus::BuildCounter()
                 .Name("zkmill_attempts_failed_total")
                 .Help("Failed partition attempts, by reason (task_failed, proof_rejected, lease_expired)")
                 .Register(r);
  for (const char* reason : {"task_failed", "proof_rejected", "lease_expired"}) failed_->Add({{"reason", reason}});
  redis_errors_ = &prometheus::BuildCounter()
                       .Name("zkmill_redis_errors_total")
                       .Help(
                           "Failed Redis commands of the coordinator's event loop and lease, by kind "
                           "(connection, noreplicas, not_ready, reply)")
                       .Register(r);
  for (const char* kind : {"connection", "noreplicas", "not_ready", "reply"}) redis_errors_->Add({{"kind", kind}});
  jobs_finished_ = &prometheus::BuildCounter()
                        .Name("zkmill_jobs_finished_total")
                        .Help("Jobs this coordinator finished, by final state (done, failed)")
                        .Register(r);
  workers_ = &prometheus::BuildGauge()
                  .Name("zkmill_workers")
                  .Help("Registered workers, by role (synth, prove, both) and state (idle, busy, draining)")
                  .Register(r);
  clock_skew_ = &prometheus::BuildGauge()
                     .Name("zkmill_coordinator_clock_skew_seconds")
                     .Help(
                         "The Redis server's clock minus the coordinator host's (the farm keeps Redis's; "
                         "non-zero: the hosts are not synchronized)")
                     .Register(r)
                     .Add({});
  phase_ = &prometheus::BuildHistogram()
                .Name("zkmill_phase_duration_seconds")
                .Help(
                    "Time per partition and phase: synth, fetch, prove (worker-reported), verify (coordinator), "
                    "batch_verify (per job)")
                .Register(r);
  for (const char* p : {"synth", "fetch", "prove", "verify", "batch_verify"}) phase_->Add({{"phase", p}}, buckets());
  job_duration_ = &prometheus::BuildHistogram()
                       .Name("zkmill_job_duration_seconds")
                       .Help("Job submission to final state, by state (done, failed)")
                       .Register(r);
  partition_latency_ = &prometheus::BuildHistogram()
                            .Name("zkmill_partition_latency_seconds")
                            .Help("Job submission to a partition's proof being verified")
                            .Register(r)
                            .Add({}, buckets());
  for (const char* s : {"done", "failed"}) {
    jobs_finished_->Add({{"state", s}});
    job_duration_->Add({{"state", s}}, buckets());
  }
}

FarmMetrics::~FarmMetrics() = default;

void FarmMetrics::observe_ms(std::optional<double> ms, prometheus::Histogram& h) {
  if (ms && *ms >= 0) h.Observe(*ms / 1000.0);
}

void FarmMetrics::synthesized(const SynthDone& result) {
  synthesized_->Increment();
  observe_ms(result.synth_ms, phase_->Add({{"phase", "synth"}}, buckets()));
  if (result.bundle_bytes) bytes_synthesized_->Increment(double(*result.bundle_bytes));
}

void FarmMetrics::verified(const ProveDone& result, double verify_s, double since_submit_s, uint64_t now_ms) {
  verified_->Increment();
  throughput_.add(now_ms);
  phase_->Add({{"phase", "verify"}}, buckets()).Observe(verify_s);
  observe_ms(result.fetch_ms, phase_->Add({{"phase", "fetch"}}, buckets()));
  observe_ms(result.prove_ms, phase_->Add({{"phase", "prove"}}, buckets()));
  if (result.bundle_bytes) bytes_fetched_->Increment(double(*result.bundle_bytes));
  partition_latency_->Observe(since_submit_s);
}

void FarmMetrics::rejected(double verify_s) {
  rejected_->Increment();
  phase_->Add({{"phase", "verify"}}, buckets()).Observe(verify_s);
}

void FarmMetrics::attempt_failed(const std::string& reason, int outcome) {
  if (outcome == 0) return;  // stale: the attempt had already ended, nothing happened
  failed_->Add({{"reason", reason}}).Increment();
  if (outcome == 1) retries_->Increment();
}

void FarmMetrics::discarded() { discarded_->Increment(); }

void FarmMetrics::job_finished(const std::string& state, double since_submit_s) {
  jobs_finished_->Add({{"state", state}}).Increment();
  job_duration_->Add({{"state", state}}, buckets()).Observe(since_submit_s);
}

void FarmMetrics::batch_verified(double seconds) {
  phase_->Add({{"phase", "batch_verify"}}, buckets()).Observe(seconds);
}

void FarmMetrics::worker_lost() { workers_lost_->Increment(); }

void FarmMetrics::jobs_deleted(uint64_t n) { jobs_deleted_->Increment(double(n)); }

void FarmMetrics::worker_paused() { workers_paused_->Increment(); }

void FarmMetrics::message_dropped() { dropped_->Increment(); }

void FarmMetrics::redis_error(const std::string& kind) { redis_errors_->Add({{"kind", kind}}).Increment(); }

void FarmMetrics::set_workers(const nlohmann::json& by_role_state) {
  for (const auto& [role, states] : by_role_state.items())
    for (const auto& [state, n] : states.items())
      if (n.is_number()) workers_->Add({{"role", role}, {"state", state}}).Set(n.get<double>());
}

}  // namespace zkmill::farm
