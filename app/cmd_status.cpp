// The farm's client commands besides submit: `zkmill status [JOB] [--json]`, `zkmill wait JOB`,
// `zkmill cancel JOB` and `zkmill result JOB --out DIR`. All read Redis, the source of truth.
// zkmill-cli-links: zk_coordinator
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "coordinator/farm_client.hpp"
#include "farm/worker_registry.hpp"

namespace zkmill::cli {
namespace {

struct ClientOptions {
  std::string config, job, out;
  bool json = false, quiet = false, workers = false;
  uint64_t timeout_s = 0;
  size_t limit = 50;
};

farm::FarmClient client_for(const ClientOptions& o, const Context& ctx) {
  auto cfg = farm::load_command_config(o.config.empty() ? ctx.config_path : o.config,
                                       ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
  return farm::FarmClient(cfg.redis);
}

std::shared_ptr<ClientOptions> common_options(CLI::App& sub, bool job_required) {
  auto o = std::make_shared<ClientOptions>();
  sub.add_option("--config", o->config, "Client config (redis section; docs/config.md)")->check(CLI::ExistingFile);
  auto* job = sub.add_option("job", o->job, "Job id (from zkmill submit)");
  if (job_required) job->required();
  return o;
}

// The farm-wide header of `zkmill status` (no job): one line each for jobs, partitions,
// queues and workers, from the same object --json prints.
void print_farm_summary(const nlohmann::json& f) {
  auto line = [](const char* what, const nlohmann::json& counts) {
    std::string s;
    for (const auto& [k, v] : counts.items()) s += " " + k + " " + std::to_string(v.get<uint64_t>()) + ",";
    if (!s.empty()) s.pop_back();
    std::printf("%-11s%s\n", what, s.c_str());
  };
  line("jobs:", f["jobs"]);
  line("partitions:", f["partitions"]);
  line("queues:", f["queues"]);
  const auto& co = f["coordinator"];
  if (co.is_null()) {
    std::printf("%-11s no coordinator has reported in the last few seconds\n", "workers:");
    return;
  }
  nlohmann::json total = nlohmann::json::object();
  uint64_t draining = 0;
  for (const auto& [role, states] : co["workers"].items()) {
    uint64_t n = 0;
    for (const auto& [state, k] : states.items()) n += k.get<uint64_t>();
    total[role] = n;
    draining += states.value("draining", uint64_t(0));
  }
  total["(draining)"] = draining;
  line("workers:", total);
}

// The workers registered with the coordinator (zk:workers), one line each, or as JSON.
int print_workers(const ClientOptions& o, const Context& ctx) {
  auto cfg = farm::load_command_config(o.config.empty() ? ctx.config_path : o.config,
                                       ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
  farm::RedisClient redis(cfg.redis);
  auto workers = farm::WorkerRegistry(redis).list();
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (auto& [id, w] : workers) {
      w["worker"] = id;
      out.push_back(w);
    }
    std::printf("%s\n", out.dump(1).c_str());
    return 0;
  }
  for (const auto& [id, w] : workers) {
    const uint64_t seen = w.value("last_seen_ms", uint64_t(0)), updated = w.value("updated_ms", uint64_t(0));
    std::printf("worker %-24s %-6s %-9s %s heard %.1f s ago%s\n", id.c_str(), w.value("role", std::string("?")).c_str(),
                w.value("draining", false) ? "DRAINING" : "active", w.value("busy", false) ? "busy," : "idle,",
                double(updated > seen ? updated - seen : 0) / 1000.0,
                w.contains("gpus") && !w["gpus"].empty() ? (", GPUs " + w["gpus"].dump()).c_str() : "");
  }
  if (workers.empty()) std::printf("no workers registered\n");
  return 0;
}

RunFn setup_status(CLI::App& sub) {
  auto o = common_options(sub, false);
  sub.add_flag("--json", o->json, "Machine-readable output (schema: docs/farm.md, \"Status JSON\")");
  sub.add_option("--limit", o->limit, "Without a job: how many recent jobs to list")
      ->check(CLI::Range(size_t(0), size_t(100000)))
      ->capture_default_str();
  sub.add_flag("--workers", o->workers, "List the registered workers (role, draining, last heartbeat) instead of jobs");
  return [o](const Context& ctx) {
    if (o->workers) return print_workers(*o, ctx);
    auto c = client_for(*o, ctx);
    if (o->job.empty()) {
      auto farm = c.overview(o->limit);
      if (o->json) {
        std::printf("%s\n", farm.dump(1).c_str());
      } else {
        print_farm_summary(farm);
        for (const auto& j : farm["recent_jobs"]) {
          std::printf("%-8s %-10s %llu/%llu verified %s\n", j["job"].get<std::string>().c_str(),
                      j["state"].get<std::string>().c_str(), (unsigned long long)j["verified"].get<uint64_t>(),
                      (unsigned long long)j["partitions"].get<uint64_t>(), j["error"].get<std::string>().c_str());
          if (j.contains("warning")) std::printf("         warning: %s\n", j["warning"].get<std::string>().c_str());
        }
      }
      return 0;
    }
    auto s = c.status(o->job);
    if (s.is_null()) {
      std::fprintf(stderr, "zkmill: error: no job '%s'\n", o->job.c_str());
      return 1;
    }
    if (o->json) {
      std::printf("%s\n", s.dump(1).c_str());
      return 0;
    }
    std::printf("job %s: %s, %llu/%llu partitions verified, priority %lld%s%s\n", o->job.c_str(),
                s["state"].get<std::string>().c_str(), (unsigned long long)s["verified"].get<uint64_t>(),
                (unsigned long long)s["partitions"].get<uint64_t>(), (long long)s["priority"].get<int64_t>(),
                s["error"].get<std::string>().empty() ? "" : ", error: ", s["error"].get<std::string>().c_str());
    if (!s.value("warning", std::string()).empty())
      std::printf("  warning: %s\n", s["warning"].get<std::string>().c_str());
    for (const auto& p : s["partition_states"])
      std::printf(
          "  partition %-4llu %-13s attempts %llu %s%s\n", (unsigned long long)p["partition"].get<uint64_t>(),
          p["state"].get<std::string>().c_str(), (unsigned long long)p["attempts"].get<uint64_t>(),
          p["worker"].get<std::string>().c_str(),
          p["error"].get<std::string>().empty() ? "" : (" last error: " + p["error"].get<std::string>()).c_str());
    return 0;
  };
}

RunFn setup_wait(CLI::App& sub) {
  auto o = common_options(sub, true);
  sub.add_option("--timeout", o->timeout_s, "Give up after this many seconds (exit 2); 0 waits forever");
  sub.add_flag("--quiet", o->quiet, "No progress lines");
  return [o](const Context& ctx) { return client_for(*o, ctx).wait(o->job, o->timeout_s, o->quiet); };
}

RunFn setup_cancel(CLI::App& sub) {
  auto o = common_options(sub, true);
  return [o](const Context& ctx) {
    std::string r = client_for(*o, ctx).cancel(o->job);
    if (r.empty()) {
      std::fprintf(stderr, "zkmill: error: no job '%s'\n", o->job.c_str());
      return 1;
    }
    if (r != "cancelled") {
      std::fprintf(stderr, "zkmill: error: job %s is already %s\n", o->job.c_str(), r.c_str());
      return 1;
    }
    std::printf("%s cancelled\n", o->job.c_str());
    return 0;
  };
}

RunFn setup_result(CLI::App& sub) {
  auto o = common_options(sub, true);
  sub.add_option("--out", o->out,
                 "Directory for partition-<i>.proof.json / .public.json and proofs.bin (all files appear "
                 "together or none: written to temporaries, then renamed)")
      ->required();
  return [o](const Context& ctx) {
    client_for(*o, ctx).write_result(o->job, o->out);
    std::printf("wrote %s\n", o->out.c_str());
    return 0;
  };
}

const RegisterCommand kStatus{"status", "Show farm jobs, or one job's partitions", setup_status};
const RegisterCommand kWait{"wait", "Wait for a farm job; exit 0 when every proof is verified", setup_wait};
const RegisterCommand kCancel{"cancel", "Cancel a farm job (queued work stops, in-flight results are discarded)",
                              setup_cancel};
const RegisterCommand kResult{"result", "Write a finished job's proofs (snarkjs JSON and proofs.bin)", setup_result};

}  // namespace
}  // namespace zkmill::cli
