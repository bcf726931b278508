// SPDX-License-Identifier: MIT
// The farm's client commands besides submit: `zkmill status [JOB] [--json]`, `zkmill wait JOB`,
// `zkmill cancel JOB` and `zkmill result JOB --out DIR`. All read Redis, the source of truth.
// zkmill-cli-links: zk_coordinator
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <thread>

#include "app/command.hpp"
#include "coordinator/farm_client.hpp"
#include "farm/worker_registry.hpp"

namespace zkmill::cli {
namespace {

struct ClientOptions {
  std::string config, job, out;
  bool json = false, quiet = false, workers = false, watch = false;
  double interval_s = 2.0;
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

// The workers registered with the coordinator (zk:workers), one line each with the circuits it
// serves and the partition it works on, and the quarantined (zk:quarantine) and paused
// (zk:pauses) ones, connected or not; or as JSON (FarmClient::workers, as GET /api/v1/workers).
int print_workers(const ClientOptions& o, const Context& ctx) {
  auto client = client_for(o, ctx);
  auto workers = client.workers();
  if (o.json) {
    std::printf("%s\n", workers.dump(1).c_str());
    return 0;
  }
  // The ages and the pauses' ends below are the coordinator's stamps: set against the farm's
  // clock (Redis's TIME), not this host's, and only when there is one to show.
  uint64_t now = 0;
  for (const auto& w : workers)
    if (!now && (w.contains("quarantined") || w.contains("paused"))) now = client.server_time_ms();
  for (const auto& w : workers) {
    if (!w.value("connected", true)) {
      std::printf("worker %-24s not connected\n", w["worker"].get<std::string>().c_str());
    } else {
      const uint64_t seen = w.value("last_seen_ms", uint64_t(0)), updated = w.value("updated_ms", uint64_t(0));
      std::string circuits;
      for (const auto& c : w.value("circuits", nlohmann::json::array()))
        circuits += (circuits.empty() ? "" : ",") + c.get<std::string>().substr(0, 12);
      const auto& p = w["partition"];
      // What it holds: "proving j3/0, prefetched j3/1" (the partitions and their stages).
      std::string held;
      if (w.contains("tasks") && w["tasks"].is_array())
        for (const auto& t : w["tasks"])
          held += (held.empty() ? "" : ", ") + t.value("stage", std::string("?")) + " " +
                  t.value("job", std::string("?")) + "/" + std::to_string(t.value("part", uint64_t(0)));
      std::printf(
          "worker %-24s %-6s %-9s %s heard %.1f s ago%s%s, circuits [%s]%s\n", w["worker"].get<std::string>().c_str(),
          w.value("role", std::string("?")).c_str(), w.value("draining", false) ? "DRAINING" : "active",
          w.value("busy", false) ? "busy," : "idle,", double(updated > seen ? updated - seen : 0) / 1000.0,
          w.contains("gpus") && !w["gpus"].empty() ? (", GPUs " + w["gpus"].dump()).c_str() : "",
          p.is_object()
              ? (", on " + p["job"].get<std::string>() + "#" + std::to_string(p["partition"].get<uint64_t>())).c_str()
              : "",
          circuits.c_str(), held.empty() ? "" : ("; holds " + held).c_str());
    }
    if (w.contains("quarantined") && w["quarantined"].is_object())
      std::printf("  QUARANTINED %.0f s ago: %s (`zkmill worker clear %s` lifts it)\n",
                  double(now - std::min(now, w["quarantined"].value("since_ms", uint64_t(0)))) / 1000.0,
                  w["quarantined"].value("reason", std::string("?")).c_str(), w["worker"].get<std::string>().c_str());
    if (w.contains("paused") && w["paused"].is_object()) {
      const uint64_t until = w["paused"].value("until_ms", uint64_t(0));
      std::printf("  PAUSED for %.1f s more: %u attempts failed in a row, last: %s\n",
                  double(until > now ? until - now : 0) / 1000.0, w["paused"].value("failures", 0u),
                  w["paused"].value("last_error", std::string("?")).c_str());
    }
  }
  if (workers.empty()) std::printf("no workers registered\n");
  return 0;
}

// One rendering of `zkmill status` as the options ask (farm, one job, or the workers).
int show_status(const ClientOptions& o, const Context& ctx) {
  if (o.workers) return print_workers(o, ctx);
  auto c = client_for(o, ctx);
  if (o.job.empty()) {
    auto farm = c.overview(o.limit);
    if (o.json) {
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
  auto s = c.status(o.job);
  if (s.is_null()) {
    std::fprintf(stderr, "zkmill: error: %s\n", c.no_job(o.job).c_str());
    return 1;
  }
  if (o.json) {
    std::printf("%s\n", s.dump(1).c_str());
    return 0;
  }
  std::printf("job %s: %s, %llu/%llu partitions verified, priority %lld%s%s\n", o.job.c_str(),
              s["state"].get<std::string>().c_str(), (unsigned long long)s["verified"].get<uint64_t>(),
              (unsigned long long)s["partitions"].get<uint64_t>(), (long long)s["priority"].get<int64_t>(),
              s["error"].get<std::string>().empty() ? "" : ", error: ", s["error"].get<std::string>().c_str());
  if (!s.value("warning", std::string()).empty())
    std::printf("  warning: %s\n", s["warning"].get<std::string>().c_str());
  if (s.contains("deleted_after_ms")) {
    const time_t at = time_t(s["deleted_after_ms"].get<uint64_t>() / 1000);
    char when[32] = "?";
    struct tm utc {};
    if (gmtime_r(&at, &utc)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &utc);
    std::printf("  kept until %s UTC (coordinator.retention_s): `zkmill result` before then\n", when);
  }
  for (const auto& p : s["partition_states"])
    std::printf("  partition %-4llu %-13s attempts %llu %s%s\n", (unsigned long long)p["partition"].get<uint64_t>(),
                p["state"].get<std::string>().c_str(), (unsigned long long)p["attempts"].get<uint64_t>(),
                p["worker"].get<std::string>().c_str(),
                p["error"].get<std::string>().empty() ? "" : (" last error: " + p["error"].get<std::string>()).c_str());
  return 0;
}

RunFn setup_status(CLI::App& sub) {
  auto o = common_options(sub, false);
  sub.add_flag("--json", o->json, "Machine-readable output (schema: docs/farm.md, \"Status JSON\")");
  sub.add_option("--limit", o->limit, "Without a job: how many recent jobs to list")
      ->check(CLI::Range(size_t(0), size_t(100000)))
      ->capture_default_str();
  sub.add_flag("--workers", o->workers, "List the registered workers (role, draining, last heartbeat) instead of jobs");
  sub.add_flag("--watch", o->watch, "Redraw every --interval seconds until interrupted (Ctrl-C)");
  sub.add_option("--interval", o->interval_s, "With --watch: seconds between refreshes")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  return [o](const Context& ctx) {
    if (!o->watch) return show_status(*o, ctx);
    // On a terminal each refresh replaces the screen (like watch(1)); otherwise refreshes
    // follow each other, separated by a timestamp line, for logs.
    const bool tty = isatty(STDOUT_FILENO) == 1;
    for (;;) {
      const std::time_t t = std::time(nullptr);
      char when[32];
      std::strftime(when, sizeof when, "%H:%M:%S", std::localtime(&t));
      std::printf(tty ? "\x1b[H\x1b[2Jzkmill status, every %.1f s, %s (Ctrl-C to stop)\n\n" : "--- %.1f s, %s\n",
                  o->interval_s, when);
      int rc = 0;
      try {
        rc = show_status(*o, ctx);
      } catch (const farm::RedisError& e) {
        std::printf("redis unavailable: %s\n", e.what());  // keep watching: it may come back
      }
      std::fflush(stdout);
      if (rc != 0) return rc;
      std::this_thread::sleep_for(std::chrono::duration<double>(o->interval_s));
    }
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
    auto client = client_for(*o, ctx);
    std::string r = client.cancel(o->job);
    if (r.empty()) {
      std::fprintf(stderr, "zkmill: error: %s\n", client.no_job(o->job).c_str());
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
