// `zkmill coordinator --config FILE`: runs the farm's coordinator (coordinator/coordinator.hpp)
// until SIGTERM/SIGINT. It keeps no state of its own: kill it, start it again, and it resumes
// from Redis.
// zkmill-cli-links: zk_coordinator
#include <csignal>
#include <memory>

#include "app/command.hpp"
#include "coordinator/coordinator.hpp"

namespace zkmill::cli {
namespace {

std::atomic<bool> g_stop{false};
void on_coordinator_signal(int) { g_stop.store(true); }

struct CoordinatorOptions {
  std::string config, log_level;
};

RunFn setup_coordinator(CLI::App& sub) {
  auto o = std::make_shared<CoordinatorOptions>();
  sub.add_option("--config", o->config, "Farm config (redis, coordinator, zmq sections; docs/config.md)")
      ->check(CLI::ExistingFile);
  return [o](const Context& ctx) {
    auto cfg = farm::load_command_config(o->config.empty() ? ctx.config_path : o->config,
                                         ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
    farm::check_exposure(cfg, farm::FarmRole::kCoordinator, false);  // before binding anything
    std::signal(SIGTERM, on_coordinator_signal);
    std::signal(SIGINT, on_coordinator_signal);
    farm::Coordinator c(std::move(cfg));
    c.run(g_stop);
    return 0;
  };
}

const RegisterCommand kCoordinator{"coordinator", "Run the farm coordinator (Redis-backed, ZeroMQ control plane)",
                                   setup_coordinator};

}  // namespace
}  // namespace zkmill::cli
