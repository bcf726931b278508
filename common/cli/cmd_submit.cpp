// `zkmill submit --key KEYFILE --partitions N [...] [--wait]`: submits a job to the farm
// (through Redis) and prints its id; the same --idempotency-key always gives the same job.
// zkmill-cli-links: zk_coordinator
#include <cstdio>
#include <memory>

#include "common/cli/command.hpp"
#include "coordinator/farm_client.hpp"

namespace zkmill::cli {
namespace {

struct SubmitOptions {
  std::string config;
  farm::SubmitRequest req;
  bool wait = false;
  uint64_t timeout_s = 0;
};

RunFn setup_submit(CLI::App& sub) {
  auto o = std::make_shared<SubmitOptions>();
  sub.add_option("--config", o->config, "Client config (redis section; docs/config.md)")->check(CLI::ExistingFile);
  sub.add_option("--key", o->req.key_path, "Native proving key; the circuit is its SHA-256")
      ->required()
      ->check(CLI::ExistingFile);
  sub.add_option("--partitions", o->req.partitions, "Number of partitions")->required();
  sub.add_option("--seed", o->req.seed, "Seed of the built-in circuit's private inputs")->capture_default_str();
  sub.add_option("--priority", o->req.priority, "Higher runs first (FIFO within a priority)")->capture_default_str();
  sub.add_option("--idempotency-key", o->req.idempotency_key, "Resubmitting with the same key returns the same job");
  sub.add_option("--deadline", o->req.deadline_s, "Fail the job if not done within this many seconds");
  sub.add_flag("--wait", o->wait, "Wait for the job (as `zkmill wait`)");
  sub.add_option("--timeout", o->timeout_s, "With --wait: give up after this many seconds (exit 2)");
  return [o](const Context& ctx) {
    auto cfg = farm::load_command_config(o->config.empty() ? ctx.config_path : o->config,
                                         ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
    farm::FarmClient client(cfg.redis);
    auto [id, created] = client.submit(o->req);
    std::printf("%s\n", id.c_str());
    std::fflush(stdout);
    if (!created) std::fprintf(stderr, "submit: idempotency key already used: existing job %s\n", id.c_str());
    return o->wait ? client.wait(id, o->timeout_s, false) : 0;
  };
}

const RegisterCommand kSubmit{"submit", "Submit a proving job to the farm", setup_submit};

}  // namespace
}  // namespace zkmill::cli
