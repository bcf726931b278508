// SPDX-License-Identifier: MIT
// `zkmill demo`: the README's first command. Runs a small job end to end on this machine
// through the real farm, embedded: a private redis-server, the coordinator and synth/prove
// workers on threads (app/embedded_farm.hpp), a development setup of a built-in circuit,
// one job submitted through FarmClient, then per-partition timings and a batch verification.
// `--no-farm` keeps the plain in-process pipeline (no Redis needed).
// zkmill-cli-links: zk_groth16 zk_coordinator zk_worker
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "app/command.hpp"
#include "app/embedded_farm.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"
#include "coordinator/farm_client.hpp"

namespace zkmill::cli {
namespace {

struct DemoOptions {
  std::string circuit = "merkle", curve = "bls12-381";
  uint64_t size = 1 << 14, partitions = 4;
  unsigned synth = 1, prove = 1;
  bool no_farm = false;
};

using Clock = std::chrono::steady_clock;
using groth16::detail::ms_since;

std::atomic<bool> g_demo_interrupted{false};
void on_demo_signal(int) { g_demo_interrupted.store(true); }

// Ctrl-C must unwind through the farm's destructors (which kill redis-server and remove the
// temp dir) rather than end the process on the spot; restores the old handlers on exit.
class ScopedInterrupt {
 public:
  ScopedInterrupt() : old_int_(std::signal(SIGINT, on_demo_signal)), old_term_(std::signal(SIGTERM, on_demo_signal)) {}
  ~ScopedInterrupt() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

int run_in_process(const DemoOptions& o, CurveId curve) {
  return curves::with_curve(curve, [&]<class E>(E) {
    std::printf("zkmill demo (--no-farm): %llu partitions of '%s' (~%llu constraints each) on %s, %zu threads\n",
                (unsigned long long)o.partitions, o.circuit.c_str(), (unsigned long long)o.size, E::kName,
                util::ThreadPool::global().size());
    auto t0 = Clock::now();
    std::mt19937_64 rng(std::random_device{}());
    auto pk = groth16::setup_builtin<E>(o.circuit, o.size, groth16::ToxicWaste<typename E::Fr>::random(rng));
    std::printf("setup (development keys, in memory): %.0f ms, %llu rows, domain 2^%u\n", ms_since(t0),
                (unsigned long long)pk.meta.n_constraints, pk.meta.domain_log2);
    std::printf("%-10s %12s %12s %12s %12s\n", "partition", "synth ms", "H ms", "MSMs ms", "prove ms");
    std::vector<groth16::Proof<E>> proofs;
    std::vector<std::vector<typename E::Fr>> inputs;
    uint64_t seed = rng();
    auto t_job = Clock::now();
    for (uint64_t p = 0; p < o.partitions; ++p) {
      auto ts = Clock::now();
      auto w = groth16::synthesize_builtin<E>(pk.meta, seed, p);
      double synth = ms_since(ts);
      groth16::ProveTimings t;
      proofs.push_back(groth16::prove<E>(pk, w, util::ThreadPool::global(), &t));
      inputs.push_back(groth16::public_inputs<E>(w));
      double msms = t.msm_a_ms + t.msm_b_g1_ms + t.msm_b_g2_ms + t.msm_l_ms + t.msm_h_ms;
      std::printf("%-10llu %12.1f %12.1f %12.1f %12.1f\n", (unsigned long long)p, synth, t.h_ms, msms, t.total_ms);
    }
    auto tv = Clock::now();
    bool ok = groth16::PreparedVerifyingKey<E>(pk.vk).verify_batch(proofs, inputs);
    std::printf("batch verification of %zu proofs: %.1f ms\n", proofs.size(), ms_since(tv));
    std::printf("job: %llu partitions in %.0f ms -> %s\n", (unsigned long long)o.partitions, ms_since(t_job),
                ok ? "verified" : "VERIFICATION FAILED");
    return ok ? 0 : 1;
  });
}

// Polls the job until it is final, printing a line whenever its partition counts change.
nlohmann::json wait_for_job(farm::FarmClient& client, farm::EmbeddedFarm& f, const std::string& job) {
  std::string last;
  for (;;) {
    if (g_demo_interrupted.load()) throw std::runtime_error("interrupted; the embedded farm was stopped");
    f.check();
    auto s = client.status(job);
    const std::string state = s["state"];
    std::string counts;
    for (const auto& [k, v] : s["counts"].items()) counts += (counts.empty() ? "" : ", ") + k + " " + v.dump();
    std::string line = "  " + job + " " + state + ": " + std::to_string(s["verified"].get<uint64_t>()) + "/" +
                       std::to_string(s["partitions"].get<uint64_t>()) + " verified (" + counts + ")";
    if (line != last) {
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
      last = line;
    }
    if (state == "done" || state == "failed" || state == "cancelled") return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int run_farm(const DemoOptions& o, CurveId curve, const Context& ctx) {
  // EmbeddedFarm fails with install advice (and the --no-farm hint) when redis-server is missing.
  // The farm's own info logs would drown the table; --log-level debug brings them back.
  if (ctx.log_level == "info") spdlog::set_level(spdlog::level::warn);
  ScopedInterrupt interrupt;
  return curves::with_curve(curve, [&]<class E>(E) {
    std::printf(
        "zkmill demo: %llu partitions of '%s' (~%llu constraints each) on %s, embedded farm with %u synth + "
        "%u prove worker(s), %zu threads\n",
        (unsigned long long)o.partitions, o.circuit.c_str(), (unsigned long long)o.size, E::kName, o.synth, o.prove,
        util::ThreadPool::global().size());
    farm::EmbeddedFarm f;
    std::printf("farm: private redis-server (pid %d) on %s, coordinator on %s\n", int(f.redis_pid()),
                f.config().redis.unix_socket.c_str(), f.config().coordinator.endpoint.c_str());
    auto t0 = Clock::now();
    std::mt19937_64 rng(std::random_device{}());
    std::vector<uint8_t> pce;  // KEY.pce as `zkmill setup` writes it: no worker records the circuit again
    auto pk = groth16::setup_builtin<E>(o.circuit, o.size, groth16::ToxicWaste<typename E::Fr>::random(rng),
                                        util::ThreadPool::global(), groth16::HBasis::kCosetLagrange, &pce);
    const std::string key_path = f.key_dir() + "/" + o.circuit + ".key";
    pk.write(key_path);
    cs::PceMatrices::write_file(key_path + ".pce", pce);
    std::printf("setup (development keys, %s): %.0f ms, %llu rows, domain 2^%u\n", key_path.c_str(), ms_since(t0),
                (unsigned long long)pk.meta.n_constraints, pk.meta.domain_log2);
    f.start_workers(o.synth, o.prove);
    farm::FarmClient client(f.config().redis);
    farm::SubmitRequest req;
    req.key_path = key_path;
    req.partitions = o.partitions;
    req.seed = rng() >> 1;
    auto t_job = Clock::now();
    const std::string job = client.submit(req).first;
    std::printf("submitted job %s\n", job.c_str());
    auto s = wait_for_job(client, f, job);
    const double job_ms = ms_since(t_job);
    if (s["state"] != "done") {
      std::printf("job %s %s: %s\n", job.c_str(), s["state"].get<std::string>().c_str(),
                  s["error"].get<std::string>().c_str());
      std::printf("job: %llu partitions in %.0f ms -> VERIFICATION FAILED\n", (unsigned long long)o.partitions, job_ms);
      return 1;
    }
    std::printf("%-10s %10s %12s %10s  %-9s %-9s\n", "partition", "synth ms", "transfer ms", "prove ms", "synth by",
                "proved by");
    for (const auto& p : s["partition_states"])
      std::printf("%-10llu %10.1f %12.1f %10.1f  %-9s %-9s\n", (unsigned long long)p["partition"].get<uint64_t>(),
                  p.value("synth_ms", 0.0), p.value("fetch_ms", 0.0), p.value("prove_ms", 0.0),
                  p["synth_worker"].get<std::string>().c_str(), p["worker"].get<std::string>().c_str());
    std::printf("coordinator: each proof verified on arrival, the job batch-verified before 'done'\n");
    // A second, independent check here, from the proofs as stored in Redis.
    farm::RedisClient redis(f.config().redis);
    farm::FarmStore store(redis);
    auto parts = store.partitions(job, o.partitions);
    std::vector<groth16::Proof<E>> proofs;
    std::vector<std::vector<typename E::Fr>> inputs;
    for (auto& p : parts) {
      proofs.push_back(groth16::snarkjs::proof_from_json<E>(nlohmann::json::parse(p["proof"])));
      std::vector<typename E::Fr> in;
      for (const auto& x : nlohmann::json::parse(p["public"])) in.push_back(E::Fr::from_dec(x.get<std::string>()));
      inputs.push_back(std::move(in));
    }
    auto tv = Clock::now();
    bool ok = groth16::PreparedVerifyingKey<E>(pk.vk).verify_batch(proofs, inputs);
    std::printf("batch verification of %zu proofs: %.1f ms\n", proofs.size(), ms_since(tv));
    std::printf("job: %llu partitions in %.0f ms -> %s\n", (unsigned long long)o.partitions, job_ms,
                ok ? "verified" : "VERIFICATION FAILED");
    std::fflush(stdout);
    f.stop();
    return ok ? 0 : 1;
  });
}

int run_demo(const DemoOptions& o, const Context& ctx) {
  auto curve = parse_curve(o.curve);
  if (!curve) throw std::invalid_argument("unknown curve '" + o.curve + "' (use bn254 or bls12-381)");
  if (o.partitions == 0 || o.partitions > 1024) throw std::invalid_argument("--partitions must be 1..1024");
  if (o.no_farm) return run_in_process(o, *curve);
  if (o.synth == 0 || o.prove == 0 || o.synth > 64 || o.prove > 64)
    throw std::invalid_argument("--synth and --prove must be 1..64");
  return run_farm(o, *curve, ctx);
}

RunFn setup_demo(CLI::App& sub) {
  auto o = std::make_shared<DemoOptions>();
  sub.add_option("--circuit", o->circuit, "chain, merkle or porep")
      ->capture_default_str()
      ->check(
          CLI::IsMember(std::vector<std::string>(circuits::circuit_names().begin(), circuits::circuit_names().end())));
  sub.add_option("--size", o->size, "About this many constraints per partition")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 24));
  sub.add_option("--partitions", o->partitions, "Partitions in the job")->capture_default_str();
  sub.add_option("--curve", o->curve, "bn254 or bls12-381")->capture_default_str();
  sub.add_option("--synth", o->synth, "Synthesis workers in the embedded farm")->capture_default_str();
  sub.add_option("--prove", o->prove, "Prove workers in the embedded farm")->capture_default_str();
  sub.add_flag("--no-farm", o->no_farm, "Run the plain in-process pipeline instead (no redis-server needed)");
  return [o](const Context& ctx) { return run_demo(*o, ctx); };
}

const RegisterCommand kDemo{
    "demo", "Run a small multi-partition proving job end to end on an embedded farm on this machine", setup_demo};

}  // namespace
}  // namespace zkmill::cli
