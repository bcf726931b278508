// SPDX-License-Identifier: MIT
// `zkmill worker --config FILE --role synth|prove|both [--gpus 0,1]`: runs one farm worker
// until SIGTERM, which drains it (the partitions it holds finish, no new one is taken, then it
// exits); SIGHUP re-reads its key directory (worker.key_rescan_s also does, periodically).
// `zkmill worker drain ID --config CLIENT.yaml` asks the farm to drain worker ID the same way,
// through Redis (zk:drain; the coordinator forwards it as a `drain` message).
// `zkmill worker clear ID --config CLIENT.yaml` lifts worker ID's quarantine (zk:quarantine):
// the coordinator quarantines a worker that sent a result for another statement.
// zkmill-cli-links: zk_worker zk_coordinator
#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "app/command.hpp"
#include "coordinator/farm_client.hpp"
#include "farm/worker_registry.hpp"
#include "worker/worker.hpp"

namespace zkmill::cli {
namespace {

std::atomic<bool> g_worker_stop{false};
void on_worker_signal(int) { g_worker_stop.store(true); }
// SIGHUP: re-read worker.key_dir (new keys are served without a restart).
void on_worker_hup(int) {
  farm::Worker::rescan_keys_requested.store(true);
  farm::Worker::reload_allowed_requested.store(true);
}

struct WorkerCliOptions {
  std::string config, id, role = "both";
  farm::WorkerOptions worker;
  std::string drain_config, drain_id, clear_config, clear_id;
};

int request_drain(const WorkerCliOptions& o, const Context& ctx) {
  auto cfg = farm::load_command_config(o.drain_config.empty() ? ctx.config_path : o.drain_config,
                                       ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
  // FarmClient stamps the request with the Redis server's clock, as the HTTP API's drain does.
  if (!farm::FarmClient(cfg.redis).drain(o.drain_id)) {
    std::fprintf(stderr,
                 "zkmill: error: no worker '%s' is registered with the farm's coordinator (`zkmill status --workers` "
                 "lists them)\n",
                 o.drain_id.c_str());
    return 1;
  }
  std::printf("drain requested for worker %s: it finishes the partitions it holds, takes no new one and exits\n",
              o.drain_id.c_str());
  return 0;
}

int clear_worker(const WorkerCliOptions& o, const Context& ctx) {
  auto cfg = farm::load_command_config(o.clear_config.empty() ? ctx.config_path : o.clear_config,
                                       ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
  farm::RedisClient redis(farm::client_command_redis(cfg.redis));
  farm::WorkerRegistry registry(redis);
  const auto records = registry.quarantined();
  const bool was_quarantined = registry.clear_quarantine(o.clear_id);
  // The failed-attempt streak too: a worker paused for failing (its disk was full, its GPU
  // broken) that the operator fixed need not wait out a pause of up to 32 x worker_pause_ms.
  const bool had_streak = registry.clear_pause(o.clear_id);
  if (!was_quarantined && !had_streak) {
    std::fprintf(stderr,
                 "zkmill: error: worker '%s' is neither quarantined nor paused for failing (`zkmill status --workers` "
                 "shows those that are)\n",
                 o.clear_id.c_str());
    return 1;
  }
  if (was_quarantined) {
    const auto it = records.find(o.clear_id);
    std::printf("worker %s cleared from quarantine (it was quarantined for: %s)\n", o.clear_id.c_str(),
                it != records.end() ? it->second.value("reason", std::string("?")).c_str() : "?");
  }
  if (had_streak) std::printf("worker %s: its failed attempts forgotten and any pause lifted\n", o.clear_id.c_str());
  std::printf("it gets work again within a heartbeat\n");
  return 0;
}

RunFn setup_worker(CLI::App& sub) {
  auto o = std::make_shared<WorkerCliOptions>();
  sub.add_option("--config", o->config, "Farm config (redis, coordinator, worker, zmq sections; docs/config.md)")
      ->check(CLI::ExistingFile);
  sub.add_option("--id", o->id,
                 "This worker's farm-unique id (overrides worker.id; deploy/farmctl sets it per systemd instance)");
  sub.add_option("--role", o->role, "What this worker does: synth, prove or both")
      ->check(CLI::IsMember({"synth", "prove", "both"}))
      ->capture_default_str();
  sub.add_option("--inject-fault", o->worker.fault,
                 "TESTING ONLY: corrupt-bundle-once (serve one corrupted bundle), bad-proof-once (send one "
                 "proof that does not verify), slow-prove (each proof takes 3 s longer) or stuck-prove-once (the "
                 "first proof waits until its job ends and the coordinator aborts it, 600 s at most)")
      ->check(CLI::IsMember({"corrupt-bundle-once", "bad-proof-once", "slow-prove", "stuck-prove-once"}));
  sub.add_option("--gpus", o->worker.gpus,
                 "Prove on these CUDA devices, e.g. 0,1: one partition per device at once, plus worker.prefetch "
                 "fetched ahead per device. Needs a CUDA build")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
  CLI::App* drain = sub.add_subcommand(
      "drain",
      "Ask the farm to drain worker ID: it finishes the partitions it holds (current and prefetched), "
      "takes no new one, says bye and exits (as on SIGTERM)");
  drain->add_option("--config", o->drain_config, "Client config (redis section; docs/config.md)")
      ->check(CLI::ExistingFile);
  drain->add_option("id", o->drain_id, "The worker's id (worker.id; `zkmill status --workers` lists them)")->required();
  CLI::App* clear = sub.add_subcommand(
      "clear",
      "Lift worker ID's quarantine (the coordinator gives no work to a worker that sent a result for another "
      "statement until an operator clears it) and its pause for failing attempt after attempt (once it is fixed)");
  clear->add_option("--config", o->clear_config, "Client config (redis section; docs/config.md)")
      ->check(CLI::ExistingFile);
  clear->add_option("id", o->clear_id, "The worker's id (`zkmill status --workers` shows QUARANTINED and PAUSED ones)")
      ->required();
  return [o, drain, clear](const Context& ctx) {
    if (drain->parsed()) return request_drain(*o, ctx);
    if (clear->parsed()) return clear_worker(*o, ctx);
    o->worker.role = farm::parse_role(o->role).value();
    auto cfg = farm::load_command_config(o->config.empty() ? ctx.config_path : o->config,
                                         ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
    if (!o->id.empty()) {
      if (o->id.size() > 128) throw std::invalid_argument("--id must be at most 128 characters");
      cfg.worker.id = o->id;
    }
    // Before connecting or binding anything: a prove-only worker serves no bundles.
    farm::check_exposure(cfg, farm::FarmRole::kWorker, o->worker.role != farm::WorkerRole::Prove);
    std::signal(SIGTERM, on_worker_signal);
    std::signal(SIGINT, on_worker_signal);
    std::signal(SIGHUP, on_worker_hup);
    farm::Worker w(std::move(cfg), o->worker);
    return w.run(g_worker_stop);
  };
}

const RegisterCommand kWorker{"worker", "Run a farm worker (synthesis and/or proving)", setup_worker};

}  // namespace
}  // namespace zkmill::cli
