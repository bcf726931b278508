// `zkmill worker --config FILE --role synth|prove|both [--gpus 0,1]`: runs one farm worker
// until SIGTERM, which drains it (the partitions it holds finish, no new one is taken, then it
// exits). `zkmill worker drain ID --config CLIENT.yaml` asks the farm to drain worker ID the
// same way, through Redis (zk:drain; the coordinator forwards it as a `drain` message).
// zkmill-cli-links: zk_worker
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "farm/worker_registry.hpp"
#include "worker/worker.hpp"

namespace zkmill::cli {
namespace {

std::atomic<bool> g_stop{false};
void on_worker_signal(int) { g_stop.store(true); }

struct WorkerCliOptions {
  std::string config;
  farm::WorkerOptions worker;
  std::string drain_config, drain_id;
};

int request_drain(const WorkerCliOptions& o, const Context& ctx) {
  auto cfg = farm::load_command_config(o.drain_config.empty() ? ctx.config_path : o.drain_config,
                                       ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
  farm::RedisClient redis(cfg.redis);
  farm::WorkerRegistry registry(redis);
  const auto now = uint64_t(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  if (!registry.request_drain(o.drain_id, now)) {
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

RunFn setup_worker(CLI::App& sub) {
  auto o = std::make_shared<WorkerCliOptions>();
  sub.add_option("--config", o->config, "Farm config (redis, coordinator, worker, zmq sections; docs/config.md)")
      ->check(CLI::ExistingFile);
  sub.add_option("--role", o->worker.role, "What this worker does: synth, prove or both")
      ->check(CLI::IsMember({"synth", "prove", "both"}))
      ->capture_default_str();
  sub.add_option("--inject-fault", o->worker.fault,
                 "TESTING ONLY: corrupt-bundle-once (serve one corrupted bundle), bad-proof-once (send one "
                 "proof that does not verify) or slow-prove (each proof takes 3 s longer)")
      ->check(CLI::IsMember({"corrupt-bundle-once", "bad-proof-once", "slow-prove"}));
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
  return [o, drain](const Context& ctx) {
    if (drain->parsed()) return request_drain(*o, ctx);
    auto cfg = farm::load_command_config(o->config.empty() ? ctx.config_path : o->config,
                                         ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
    std::signal(SIGTERM, on_worker_signal);
    std::signal(SIGINT, on_worker_signal);
    farm::Worker w(std::move(cfg), o->worker);
    return w.run(g_stop);
  };
}

const RegisterCommand kWorker{"worker", "Run a farm worker (synthesis and/or proving)", setup_worker};

}  // namespace
}  // namespace zkmill::cli
