// SPDX-License-Identifier: MIT
// `zkmill coordinator --config FILE`: runs the farm's coordinator (coordinator/coordinator.hpp)
// until SIGTERM/SIGINT. It keeps no state of its own: kill it, start it again, and it resumes
// from Redis. One coordinator per farm: while another holds the farm's coordinator lease in
// Redis, it refuses to start (exit 3, naming the holder), and it stops with exit 3 if another
// one takes the lease over while it runs. With --standby (coordinator.standby) it waits for the
// lease instead, takes over when the active coordinator dies or is cut off, and goes back to
// waiting when it loses the lease (docs/reliability.md, "Standby coordinator").
// zkmill-cli-links: zk_coordinator
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "coordinator/coordinator.hpp"

namespace zkmill::cli {
namespace {

std::atomic<bool> g_coordinator_stop{false};
void on_coordinator_signal(int) { g_coordinator_stop.store(true); }
void on_coordinator_hup(int) { farm::Coordinator::reload_keys_requested.store(true); }

struct CoordinatorOptions {
  std::string config, log_level;
  bool standby = false;
  std::string fault;
};

RunFn setup_coordinator(CLI::App& sub) {
  auto o = std::make_shared<CoordinatorOptions>();
  sub.add_option("--config", o->config, "Farm config (redis, coordinator, zmq sections; docs/config.md)")
      ->check(CLI::ExistingFile);
  sub.add_flag("--standby", o->standby,
               "Wait for the coordinator lease while another coordinator holds it, then take over "
               "(coordinator.standby)");
  sub.add_option("--inject-fault", o->fault,
                 "TESTING ONLY: slow-verify (each proof check takes 3 s longer, off the event loop)")
      ->check(CLI::IsMember({"slow-verify"}));
  return [o](const Context& ctx) {
    auto cfg = farm::load_command_config(o->config.empty() ? ctx.config_path : o->config,
                                         ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
    farm::check_exposure(cfg, farm::FarmRole::kCoordinator, false);  // before binding anything
    for (const auto& w : farm::plaintext_redis_warnings(cfg)) spdlog::warn("{}", w);
    std::signal(SIGTERM, on_coordinator_signal);
    std::signal(SIGINT, on_coordinator_signal);
    std::signal(SIGHUP, on_coordinator_hup);  // re-read zmq.allowed_keys_file
    if (o->standby) cfg.coordinator.standby = true;
    // A deposed standby-capable coordinator starts over as a standby: a fresh Coordinator
    // (nothing of the old one's worker table or ROUTER survives) that waits for the lease.
    while (!g_coordinator_stop.load()) {
      farm::Coordinator c(cfg);
      if (o->fault == "slow-verify") c.inject_verify_delay(3000);
      try {
        c.run(g_coordinator_stop);
        return 0;
      } catch (const farm::CoordinatorLeaseHeld& e) {
        std::fprintf(stderr, "zkmill: error: %s\n", e.what());
        return farm::Coordinator::kExitLeaseHeld;
      } catch (const farm::CoordinatorLeaseLost& e) {
        if (!cfg.coordinator.standby) {
          std::fprintf(stderr, "zkmill: error: %s\n", e.what());
          return farm::Coordinator::kExitLeaseHeld;
        }
        spdlog::warn("coordinator: {}; STEPPING DOWN to standby", e.what());
      }
    }
    return 0;
  };
}

const RegisterCommand kCoordinator{"coordinator", "Run the farm coordinator (Redis-backed, ZeroMQ control plane)",
                                   setup_coordinator};

}  // namespace
}  // namespace zkmill::cli
