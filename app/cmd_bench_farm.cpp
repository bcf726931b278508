// SPDX-License-Identifier: MIT
// `zkmill bench-farm`: what the farm itself costs, with a tiny circuit so that proving is not
// what is timed: sustained partitions/s through one coordinator with W workers, the overhead
// per partition beyond synthesis and proving, the CPU time the coordinator (its loop and proof
// checks) and Redis spend per partition, single-partition submit-to-verified latency, and the
// coordinator's peak RSS with many queued jobs. Runs on an embedded farm (private Redis).
// With --worker-processes the workers are separate `zkmill worker` processes (one thread
// each), pinned to cores apart from the coordinator's and Redis's: what one coordinator
// sustains when the proving is not competing with it for cores (its ceiling).
// zkmill-cli-links: zk_groth16 zk_coordinator zk_worker
#include <fcntl.h>
#include <sched.h>
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

using Clock = std::chrono::steady_clock;
using groth16::detail::ms_since;

struct BenchFarmOptions {
  std::vector<unsigned> workers{1, 2, 4};
  uint64_t partitions = 200, size = 64, latency_jobs = 30, queued_jobs = 1000;
  std::string curve = "bn254";
  bool worker_processes = false;
  unsigned coordinator_cores = 4;
  int64_t verify_batch_window_us = -1;  // -1: the default of coordinator.verify_batch_window_us
  int64_t worker_lookahead = -1;        // -1: the default of worker.lookahead
  std::vector<int> cpus;                // the CPUs the bench may use (its affinity when it started)
};

// The CPUs this process may run on, in order.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("sched_getaffinity failed");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

cpu_set_t cpu_set_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  return set;
}

// --worker-processes: `zkmill worker --role both` children, each with one pool thread and
// pinned to one core; SIGTERM (drain) on the way out, SIGKILL if one is still there after 5 s.
class WorkerProcesses {
 public:
  WorkerProcesses(const farm::EmbeddedFarm& f, unsigned n, const std::vector<int>& cores, int64_t lookahead) {
    const auto& cfg = f.config();
    for (unsigned i = 1; i <= n; ++i) {
      const std::string id = "both-" + std::to_string(i);
      const std::string yaml = f.dir() + "/" + id + ".yaml";
      std::ofstream(yaml) << "threads: 1\nredis:\n  unix_socket: " << cfg.redis.unix_socket
                          << "\ncoordinator:\n  endpoint: " << cfg.coordinator.endpoint
                          << "\n  heartbeat_ms: " << cfg.coordinator.heartbeat_ms
                          << "\n  liveness: " << cfg.coordinator.liveness
                          << "\n  lease_ms: " << cfg.coordinator.lease_ms << "\nworker:\n  id: " << id
                          << "\n  key_dir: " << cfg.worker.key_dir << "\n";
      if (lookahead >= 0) std::ofstream(yaml, std::ios::app) << "  lookahead: " << lookahead << "\n";
      std::vector<std::string> args{"/proc/self/exe", "--log-level", "warn",   "worker",
                                    "--config",       yaml,          "--role", "both"};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      const cpu_set_t core = cpu_set_of({cores[(i - 1) % cores.size()]});
      const std::string log = f.dir() + "/" + id + ".log";
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error("cannot fork a worker");
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        sched_setaffinity(0, sizeof core, &core);
        // Only system calls between fork and exec: the parent has other threads.
        const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
          dup2(fd, 1);
          dup2(fd, 2);
        }
        execv(argv[0], argv.data());
        _exit(127);
      }
      pids_.push_back(pid);
    }
  }
  ~WorkerProcesses() {
    for (pid_t p : pids_) kill(p, SIGTERM);
    const auto until = Clock::now() + std::chrono::seconds(5);
    for (pid_t p : pids_) {
      while (waitpid(p, nullptr, WNOHANG) == 0) {
        if (Clock::now() > until) {
          kill(p, SIGKILL);
          waitpid(p, nullptr, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }
  WorkerProcesses(const WorkerProcesses&) = delete;
  WorkerProcesses& operator=(const WorkerProcesses&) = delete;
  // Throws when a worker has exited (it would leave the job waiting for ever).
  void check() {
    for (pid_t p : pids_) {
      int status = 0;
      if (waitpid(p, &status, WNOHANG) == p)
        throw std::runtime_error("a worker process exited (status " + std::to_string(status) + "); its log is in " +
                                 "the farm's temp dir");
    }
  }

 private:
  std::vector<pid_t> pids_;
};

// Polls tightly (the client's poll interval would otherwise be what is measured).
nlohmann::json wait_done(farm::FarmClient& c, farm::EmbeddedFarm& f, const std::string& job, Clock::time_point* done,
                         WorkerProcesses* procs = nullptr) {
  farm::RedisClient r(f.config().redis);
  for (;;) {
    f.check();
    if (procs) procs->check();
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
  // --worker-processes: this process (the coordinator's threads, the bench's polling) and
  // Redis (forked by EmbeddedFarm, so it inherits the mask) on the first coordinator_cores
  // CPUs, the workers on the others.
  // (run_bench_farm checked once that o.cpus has more than coordinator_cores CPUs.)
  std::vector<int> worker_cores;
  if (o.worker_processes) {
    const auto& cpus = o.cpus;
    const cpu_set_t mine = cpu_set_of({cpus.begin(), cpus.begin() + o.coordinator_cores});
    if (sched_setaffinity(0, sizeof mine, &mine) != 0) throw std::runtime_error("sched_setaffinity failed");
    worker_cores.assign(cpus.begin() + o.coordinator_cores, cpus.end());
  }
  farm::EmbeddedFarm f([&](farm::FarmConfig& cfg) {
    if (o.verify_batch_window_us >= 0) cfg.coordinator.verify_batch_window_us = uint32_t(o.verify_batch_window_us);
    if (o.worker_lookahead >= 0) cfg.worker.lookahead = uint32_t(o.worker_lookahead);
  });
  const std::string key = write_key(f, o, curve);
  std::unique_ptr<WorkerProcesses> procs;
  if (o.worker_processes)
    procs = std::make_unique<WorkerProcesses>(f, w, worker_cores, o.worker_lookahead);
  else
    f.start_workers(0, 0, w);
  farm::FarmClient c(f.config().redis);
  farm::SubmitRequest req;
  req.key_path = key;
  Clock::time_point done;
  req.partitions = 2 * w;  // warm-up: workers register, caches fill
  wait_done(c, f, c.submit(req).first, &done, procs.get());

  req.partitions = o.partitions;
  const std::string redis_stat = "/proc/" + std::to_string(f.redis_pid()) + "/stat";
  const double loop0 = threads_cpu_ms("zk-coordinator"), verify0 = threads_cpu_ms("zk-verify");
  const double redis0 = stat_cpu_ms(redis_stat);
  auto t0 = Clock::now();
  auto s = wait_done(c, f, c.submit(req).first, &done, procs.get());
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
    auto s1 = wait_done(c, f, c.submit(req).first, &done, procs.get());
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
  procs.reset();  // drained while the coordinator still runs
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

int run_bench_farm(BenchFarmOptions o, const Context& ctx) {
  o.cpus = allowed_cpus();
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
  if (o.worker_processes) {
    const auto& cpus = o.cpus;
    if (cpus.size() <= o.coordinator_cores)
      throw std::invalid_argument("--worker-processes needs more CPUs than --coordinator-cores (" +
                                  std::to_string(o.coordinator_cores) + "); this process may use " +
                                  std::to_string(cpus.size()));
    std::printf(
        "workers: separate processes (role both, 1 thread each), each pinned to one of CPUs %d..%d; coordinator "
        "and Redis pinned to CPUs %d..%d\n",
        cpus[o.coordinator_cores], cpus.back(), cpus.front(), cpus[o.coordinator_cores - 1]);
  }
  std::printf("%7s %10s %10s %12s %14s %10s %12s %11s %12s %12s %12s\n", "workers", "partitions", "parts/s",
              "compute/part", "overhead/part", "loop-cpu/p", "verify-cpu/p", "redis-cpu/p", "1-part p50",
              "1-part ovh50", "1-part ovh90");
  for (unsigned w : o.workers) {
    if (w == 0 || w > 64) throw std::invalid_argument("--workers entries must be 1..64");
    bench_workers(o, *curve, w);
  }
  // The RSS run forks its coordinator child from here: give it this process's whole mask back.
  if (o.worker_processes) {
    const cpu_set_t all = cpu_set_of(o.cpus);
    sched_setaffinity(0, sizeof all, &all);
  }
  if (o.queued_jobs) bench_rss(o, *curve);
  std::printf(
      "compute = worker synthesis + proving; overhead/part = workers x wall / partitions - compute "
      "(dispatch, Redis, bundle transfer, verification, idle); loop-cpu/p, verify-cpu/p, redis-cpu/p = CPU time "
      "per partition of the throughput job of the coordinator's event loop (messages, Redis), of its proof "
      "checks (verify threads: per-proof checks and the job's final check) and of redis-server (which also answers "
      "this bench's "
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
  sub.add_flag("--worker-processes", o->worker_processes,
               "Workers as separate `zkmill worker` processes (one thread each, each pinned to its own CPU), the "
               "coordinator and Redis pinned to the first --coordinator-cores CPUs: one coordinator's ceiling");
  sub.add_option("--coordinator-cores", o->coordinator_cores,
                 "With --worker-processes: CPUs for this process (coordinator, its proof checks, the bench's "
                 "polling) and Redis; the workers get the rest")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  sub.add_option("--verify-batch-window-us", o->verify_batch_window_us,
                 "The coordinator's coordinator.verify_batch_window_us (default: the config default, 0)")
      ->check(CLI::Range(int64_t(0), int64_t(10000000)));
  sub.add_option("--worker-lookahead", o->worker_lookahead,
                 "The workers' worker.lookahead: assignments each holds queued behind the one it runs (default: the "
                 "config default, 1; 0: one at a time)")
      ->check(CLI::Range(int64_t(0), int64_t(16)));
  return [o](const Context& ctx) { return run_bench_farm(*o, ctx); };
}

const RegisterCommand kBenchFarm{"bench-farm", "Benchmark the farm's own overhead (throughput, latency, RSS)",
                                 setup_bench_farm};

}  // namespace
}  // namespace zkmill::cli
