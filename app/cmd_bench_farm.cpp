// SPDX-License-Identifier: MIT
// `zkmill bench-farm`: what the farm itself costs, with a tiny circuit so that proving is not
// what is timed: sustained partitions/s through one coordinator with W workers, the overhead
// per partition beyond synthesis and proving, the CPU time the coordinator (its loop and proof
// checks) and Redis spend per partition, single-partition submit-to-verified latency, and the
// coordinator's peak RSS with many queued jobs. Runs on an embedded farm (private Redis).
// zkmill-cli-links: zk_groth16 zk_coordinator zk_worker
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "app/command.hpp"
#include "app/embedded_farm.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "coordinator/farm_client.hpp"

namespace zkmill::cli {
namespace {

struct BenchFarmOptions {
  std::vector<unsigned> workers{1, 2, 4};
  uint64_t partitions = 200, size = 64, latency_jobs = 30, queued_jobs = 1000;
  std::string curve = "bn254";
};

using Clock = std::chrono::steady_clock;
using groth16::detail::ms_since;

// Polls tightly (the client's poll interval would otherwise be what is measured).
nlohmann::json wait_done(farm::FarmClient& c, farm::EmbeddedFarm& f, const std::string& job, Clock::time_point* done) {
  farm::RedisClient r(f.config().redis);
  for (;;) {
    f.check();
    std::string st = r.command({"HGET", "zk:job:" + job, "state"}).as_string();
    if (st == "done" || st == "failed" || st == "cancelled") {
      *done = Clock::now();
      if (st != "done") throw std::runtime_error("bench job " + job + " ended " + st);
      return c.status(job);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(250));
  }
}

// CPU time (user + system) of a process or thread, from its /proc stat line; 0 if it is gone.
double stat_cpu_ms(const std::string& stat_path) {
  std::ifstream f(stat_path);
  std::string line;
  if (!std::getline(f, line)) return 0;
  // Fields after the command name (which may hold spaces, hence the last ')'): utime, stime are
  // the 12th and 13th of those.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 1; i <= 13 && rest >> field; ++i)
    if (i >= 12) ticks += std::stod(field);
  return ticks * 1000.0 / double(sysconf(_SC_CLK_TCK));
}

// CPU time in this process of the threads called `name`: the coordinator's loop
// ("zk-coordinator", embedded_farm.cpp) or its proof checks ("zk-verify", verify_queue.cpp).
double threads_cpu_ms(const std::string& name) {
  double ms = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string comm_name;
    std::getline(comm, comm_name);
    if (comm_name == name) ms += stat_cpu_ms((task.path() / "stat").string());
  }
  return ms;
}

double compute_ms(const nlohmann::json& s) {
  double t = 0;
  for (const auto& p : s["partition_states"]) t += p.value("synth_ms", 0.0) + p.value("prove_ms", 0.0);
  return t;
}

std::string write_key(farm::EmbeddedFarm& f, const BenchFarmOptions& o, CurveId curve) {
  const std::string path = f.key_dir() + "/chain.key";
  curves::with_curve(curve, [&]<class E>(E) {
    std::mt19937_64 rng(1);
    groth16::setup_builtin<E>("chain", o.size, groth16::ToxicWaste<typename E::Fr>::random(rng)).write(path);
  });
  return path;
}

void bench_workers(const BenchFarmOptions& o, CurveId curve, unsigned w) {
  farm::EmbeddedFarm f;
  const std::string key = write_key(f, o, curve);
  f.start_workers(0, 0, w);
  farm::FarmClient c(f.config().redis);
  farm::SubmitRequest req;
  req.key_path = key;
  Clock::time_point done;
  req.partitions = 2 * w;  // warm-up: workers register, caches fill
  wait_done(c, f, c.submit(req).first, &done);

  req.partitions = o.partitions;
  const std::string redis_stat = "/proc/" + std::to_string(f.redis_pid()) + "/stat";
  const double loop0 = threads_cpu_ms("zk-coordinator"), verify0 = threads_cpu_ms("zk-verify");
  const double redis0 = stat_cpu_ms(redis_stat);
  auto t0 = Clock::now();
  auto s = wait_done(c, f, c.submit(req).first, &done);
  const double wall = std::chrono::duration<double, std::milli>(done - t0).count();
  // Includes the bench's own polling of the job's state (one HGET each 250 us) on Redis's side.
  const double loop_cpu = (threads_cpu_ms("zk-coordinator") - loop0) / double(o.partitions);
  const double verify_cpu = (threads_cpu_ms("zk-verify") - verify0) / double(o.partitions);
  const double redis_cpu = (stat_cpu_ms(redis_stat) - redis0) / double(o.partitions);
  const double comp = compute_ms(s) / double(o.partitions);
  const double overhead = (double(w) * wall) / double(o.partitions) - comp;

  std::vector<double> lat, over;
  req.partitions = 1;
  for (uint64_t i = 0; i < o.latency_jobs; ++i) {
    auto t1 = Clock::now();
    auto s1 = wait_done(c, f, c.submit(req).first, &done);
    double l = std::chrono::duration<double, std::milli>(done - t1).count();
    lat.push_back(l);
    over.push_back(l - compute_ms(s1));
  }
  std::sort(lat.begin(), lat.end());
  std::sort(over.begin(), over.end());
  auto pct = [](const std::vector<double>& v, double q) {
    return v.empty() ? 0.0 : v[size_t(q * double(v.size() - 1))];
  };
  std::printf("%7u %10llu %10.1f %12.2f %14.2f %10.3f %12.3f %11.3f %12.2f %12.2f %12.2f\n", w,
              (unsigned long long)o.partitions, double(o.partitions) * 1000.0 / wall, comp, overhead, loop_cpu,
              verify_cpu, redis_cpu, pct(lat, 0.5), pct(over, 0.5), pct(over, 0.9));
  std::fflush(stdout);
  f.stop();
}

uint64_t status_kb(pid_t pid, const char* field) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) return std::stoull(line.substr(line.find_first_of("0123456789")));
  return 0;
}

// The coordinator as a separate process (so its RSS is its own), killed on every way out.
class CoordinatorChild {
 public:
  explicit CoordinatorChild(const std::string& config) {
    std::string self = "/proc/self/exe";
    std::vector<std::string> args{self, "coordinator", "--config", config, "--log-level", "warn"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("cannot fork the coordinator");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~CoordinatorChild() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  CoordinatorChild(const CoordinatorChild&) = delete;
  CoordinatorChild& operator=(const CoordinatorChild&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

void bench_rss(const BenchFarmOptions& o, CurveId curve) {
  farm::EmbeddedFarm f;  // its in-process coordinator is stopped at once: the child takes over
  const std::string key = write_key(f, o, curve);
  f.stop();
  const std::string cfg = f.dir() + "/coordinator.yaml";
  std::ofstream(cfg) << "redis:\n  unix_socket: " << f.config().redis.unix_socket
                     << "\ncoordinator:\n  endpoint: ipc://" << f.dir() << "/rss.sock\n";
  CoordinatorChild child(cfg);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const uint64_t idle_kb = status_kb(child.pid(), "VmRSS:");
  farm::FarmClient c(f.config().redis);
  farm::SubmitRequest req;
  req.key_path = key;
  req.partitions = 4;
  auto t0 = Clock::now();
  for (uint64_t i = 0; i < o.queued_jobs; ++i) c.submit(req);
  const double submit_ms = ms_since(t0);
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));  // several job sweeps over all of them
  int status = 0;
  if (waitpid(child.pid(), &status, WNOHANG) == child.pid()) throw std::runtime_error("the coordinator exited");
  std::printf(
      "coordinator RSS: %.1f MiB idle, peak %.1f MiB with %llu queued jobs (%llu partitions); "
      "submit %.2f ms/job\n",
      double(idle_kb) / 1024.0, double(status_kb(child.pid(), "VmHWM:")) / 1024.0, (unsigned long long)o.queued_jobs,
      (unsigned long long)(o.queued_jobs * req.partitions), submit_ms / double(o.queued_jobs));
}

int run_bench_farm(const BenchFarmOptions& o, const Context& ctx) {
  auto curve = parse_curve(o.curve);
  if (!curve) throw std::invalid_argument("unknown curve '" + o.curve + "'");
  if (o.partitions == 0 || o.partitions > farm::FarmStore::kMaxPartitions)
    throw std::invalid_argument("bad --partitions");
  if (ctx.log_level == "info") spdlog::set_level(spdlog::level::warn);
  std::printf(
      "zkmill bench-farm: chain circuit of %llu constraints on %s, %zu threads, %u hardware threads; "
      "times in ms\n",
      (unsigned long long)o.size, o.curve.c_str(), util::ThreadPool::global().size(),
      std::thread::hardware_concurrency());
  std::printf("%7s %10s %10s %12s %14s %10s %12s %11s %12s %12s %12s\n", "workers", "partitions", "parts/s",
              "compute/part", "overhead/part", "loop-cpu/p", "verify-cpu/p", "redis-cpu/p", "1-part p50",
              "1-part ovh50", "1-part ovh90");
  for (unsigned w : o.workers) {
    if (w == 0 || w > 64) throw std::invalid_argument("--workers entries must be 1..64");
    bench_workers(o, *curve, w);
  }
  if (o.queued_jobs) bench_rss(o, *curve);
  std::printf(
      "compute = worker synthesis + proving; overhead/part = workers x wall / partitions - compute "
      "(dispatch, Redis, bundle transfer, verification, idle); loop-cpu/p, verify-cpu/p, redis-cpu/p = CPU time "
      "per partition of the throughput job of the coordinator's event loop (messages, Redis, the job's final "
      "batch check), of its per-proof checks (thread pool) and of redis-server (which also answers this bench's "
      "polling); 1-part = "
      "one-partition jobs, submit to 'done' (batch-verified)\n");
  return 0;
}

RunFn setup_bench_farm(CLI::App& sub) {
  auto o = std::make_shared<BenchFarmOptions>();
  sub.add_option("--workers", o->workers, "Worker counts to run (role both)")->delimiter(',')->capture_default_str();
  sub.add_option("--partitions", o->partitions, "Partitions in the throughput job")->capture_default_str();
  sub.add_option("--size", o->size, "Constraints of the chain circuit")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t(8), uint64_t(1) << 20));
  sub.add_option("--latency-jobs", o->latency_jobs, "One-partition jobs timed one after another")
      ->capture_default_str();
  sub.add_option("--queued-jobs", o->queued_jobs, "Jobs queued for the RSS measurement (0: skip)")
      ->capture_default_str();
  sub.add_option("--curve", o->curve, "bn254 or bls12-381")->capture_default_str();
  return [o](const Context& ctx) { return run_bench_farm(*o, ctx); };
}

const RegisterCommand kBenchFarm{"bench-farm", "Benchmark the farm's own overhead (throughput, latency, RSS)",
                                 setup_bench_farm};

}  // namespace
}  // namespace zkmill::cli
