// `zkmill worker --config FILE --role synth|prove|both`: runs one farm worker until SIGTERM,
// which drains it (the current partition finishes, no new one is taken, then it exits).
// zkmill-cli-links: zk_worker
#include <csignal>
#include <memory>

#include "common/cli/command.hpp"
#include "worker/worker.hpp"

namespace zkmill::cli {
namespace {

std::atomic<bool> g_stop{false};
void on_worker_signal(int) { g_stop.store(true); }

struct WorkerCliOptions {
  std::string config;
  farm::WorkerOptions worker;
};

RunFn setup_worker(CLI::App& sub) {
  auto o = std::make_shared<WorkerCliOptions>();
  sub.add_option("--config", o->config, "Farm config (redis, coordinator, worker, zmq sections; docs/config.md)")
      ->check(CLI::ExistingFile);
  sub.add_option("--role", o->worker.role, "What this worker does: synth, prove or both")
      ->check(CLI::IsMember({"synth", "prove", "both"}))
      ->capture_default_str();
  sub.add_option("--inject-fault", o->worker.fault,
                 "TESTING ONLY: corrupt-bundle-once (serve one corrupted bundle) or bad-proof-once (send one "
                 "proof that does not verify)")
      ->check(CLI::IsMember({"corrupt-bundle-once", "bad-proof-once"}));
  return [o](const Context& ctx) {
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
