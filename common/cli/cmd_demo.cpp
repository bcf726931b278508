// `zkmill demo`: the README's first command. Runs a small job end to end on this machine:
// setup of a built-in circuit, then per partition synthesis -> witness bundle -> prove, then
// one batch verification of all proofs, with per-partition timings. (Until the farm exists
// this is the in-process pipeline; the farm issue makes demo run it embedded.)
// zkmill-cli-links: zk_groth16
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>

#include "common/cli/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::cli {
namespace {

struct DemoOptions {
  std::string circuit = "merkle", curve = "bls12-381";
  uint64_t size = 1 << 14, partitions = 4;
};

int run_demo(const DemoOptions& o) {
  auto curve = parse_curve(o.curve);
  if (!curve) throw std::invalid_argument("unknown curve '" + o.curve + "' (use bn254 or bls12-381)");
  if (o.partitions == 0 || o.partitions > 1024) throw std::invalid_argument("--partitions must be 1..1024");
  return curves::with_curve(*curve, [&]<class E>(E) {
    using clock = std::chrono::steady_clock;
    auto ms = [](clock::time_point t0) { return std::chrono::duration<double, std::milli>(clock::now() - t0).count(); };
    std::printf("zkmill demo: %llu partitions of '%s' (~%llu constraints each) on %s, %zu threads\n",
                (unsigned long long)o.partitions, o.circuit.c_str(), (unsigned long long)o.size, E::kName,
                util::ThreadPool::global().size());
    auto t0 = clock::now();
    std::mt19937_64 rng(std::random_device{}());
    auto pk = groth16::setup_builtin<E>(o.circuit, o.size, groth16::ToxicWaste<typename E::Fr>::random(rng));
    std::printf("setup (development keys, in memory): %.0f ms, %llu rows, domain 2^%u\n", ms(t0),
                (unsigned long long)pk.meta.n_constraints, pk.meta.domain_log2);
    std::printf("%-10s %12s %12s %12s %12s\n", "partition", "synth ms", "H ms", "MSMs ms", "prove ms");
    std::vector<groth16::Proof<E>> proofs;
    std::vector<std::vector<typename E::Fr>> inputs;
    uint64_t seed = rng();
    auto t_job = clock::now();
    for (uint64_t p = 0; p < o.partitions; ++p) {
      auto ts = clock::now();
      auto w = groth16::synthesize_builtin<E>(pk.meta, seed, p);
      double synth = ms(ts);
      groth16::ProveTimings t;
      proofs.push_back(groth16::prove<E>(pk, w, util::ThreadPool::global(), &t));
      inputs.push_back(groth16::public_inputs<E>(w));
      double msms = t.msm_a_ms + t.msm_b_g1_ms + t.msm_b_g2_ms + t.msm_l_ms + t.msm_h_ms;
      std::printf("%-10llu %12.1f %12.1f %12.1f %12.1f\n", (unsigned long long)p, synth, t.h_ms, msms, t.total_ms);
    }
    auto tv = clock::now();
    bool ok = groth16::PreparedVerifyingKey<E>(pk.vk).verify_batch(proofs, inputs);
    std::printf("batch verification of %zu proofs: %.1f ms\n", proofs.size(), ms(tv));
    std::printf("job: %llu partitions in %.0f ms -> %s\n", (unsigned long long)o.partitions, ms(t_job),
                ok ? "verified" : "VERIFICATION FAILED");
    return ok ? 0 : 1;
  });
}

RunFn setup_demo(CLI::App& sub) {
  auto o = std::make_shared<DemoOptions>();
  sub.add_option("--circuit", o->circuit, "chain or merkle")->capture_default_str()->check(CLI::IsMember({"chain", "merkle"}));
  sub.add_option("--size", o->size, "About this many constraints per partition")->capture_default_str()->check(CLI::Range(uint64_t(1), uint64_t(1) << 24));
  sub.add_option("--partitions", o->partitions, "Partitions in the job")->capture_default_str();
  sub.add_option("--curve", o->curve, "bn254 or bls12-381")->capture_default_str();
  return [o](const Context&) { return run_demo(*o); };
}

const RegisterCommand kDemo{"demo", "Run a small multi-partition proving job end to end on this machine", setup_demo};

}  // namespace
}  // namespace zkmill::cli
