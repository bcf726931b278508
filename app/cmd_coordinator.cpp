// SPDX-License-Identifier: MIT
// `zkmill coordinator --config FILE`: runs the farm's coordinator (coordinator/coordinator.hpp)
// until SIGTERM/SIGINT. It keeps no state of its own: kill it, start it again, and it resumes
// from Redis. One coordinator per farm: while another holds the farm's coordinator lease in
// Redis, it refuses to start (exit 3, naming the holder), and it stops with exit 3 if another
// one takes the lease over while it runs.
// zkmill-cli-links: zk_coordinator
#include <csignal>
#include <cstdio>
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
    try {
      c.run(g_stop);
    } catch (const farm::CoordinatorLeaseHeld& e) {
      std::fprintf(stderr, "zkmill: error: %s\n", e.what());
      return farm::Coordinator::kExitLeaseHeld;
    } catch (const farm::CoordinatorLeaseLost& e) {
      std::fprintf(stderr, "zkmill: error: %s\n", e.what());
      return farm::Coordinator::kExitLeaseHeld;
    }
    return 0;
  };
}

const RegisterCommand kCoordinator{"coordinator", "Run the farm coordinator (Redis-backed, ZeroMQ control plane)",
                                   setup_coordinator};

}  // namespace
}  // namespace zkmill::cli
