// SPDX-License-Identifier: MIT
// `zkmill bench prove`: per-phase prove times (synthesis, H via NTTs, each MSM) for built-in
// circuits at several sizes and both curves, printed as a table (figures for
// docs/benchmarks.md). Keys come from an in-memory development setup, not timed.
// zkmill-cli-links: zk_groth16
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "app/command.hpp"
#include "common/circuits/circuit.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"
#include "zkmill/build_info.hpp"

namespace zkmill::cli {

// `zkmill bench gpu` lives in cmd_bench_gpu.cpp (it needs the CUDA backend); the returned
// function yields the exit code when that subcommand was chosen, or -1.
std::function<int()> attach_bench_gpu(CLI::App& bench);
// `zkmill bench synth` (cmd_bench_synth.cpp): plain vs PCE synthesis; same convention.
std::function<int()> attach_bench_synth(CLI::App& bench);
// `zkmill bench bundle` (cmd_bench_bundle.cpp), the same way.
std::function<int()> attach_bench_bundle(CLI::App& bench);

namespace {

struct BenchProveOptions {
  std::vector<unsigned> log_sizes{12, 14, 16};
  std::vector<std::string> curves{"bn254", "bls12-381"};
  std::string circuit = "chain";
  unsigned repeat = 1;
};

template <class E>
void bench_one(const BenchProveOptions& o, unsigned log_size) {
  using clock = std::chrono::steady_clock;
  std::mt19937_64 rng(log_size);
  uint64_t size = (uint64_t(1) << log_size) - 8;  // leave room for the input rows in a 2^k domain
  auto pk = groth16::setup_builtin<E>(o.circuit, size, groth16::ToxicWaste<typename E::Fr>::random(rng));
  groth16::PreparedVerifyingKey<E> pvk(pk.vk);
  for (unsigned rep = 0; rep < o.repeat; ++rep) {
    auto t0 = clock::now();
    auto w = groth16::synthesize_builtin<E>(pk.meta, 1, rep);
    double synth = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    groth16::ProveTimings t;
    auto proof = groth16::prove<E>(pk, w, util::ThreadPool::global(), &t);
    bool ok = pvk.verify(proof, groth16::public_inputs<E>(w));
    std::printf("%-10s %-7s 2^%-4u %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %10.1f  %s\n", E::kName, o.circuit.c_str(),
                log_size, synth, t.h_ms, t.msm_a_ms, t.msm_b_g1_ms, t.msm_b_g2_ms, t.msm_l_ms, t.msm_h_ms,
                synth + t.total_ms, ok ? "verified" : "NOT VERIFIED");
    std::fflush(stdout);
    if (!ok) throw std::runtime_error("benchmark proof did not verify");
  }
}

int run_bench_prove(const BenchProveOptions& o) {
  std::printf("zkmill %s (%s), %zu threads; times in ms, circuit sizes are R1CS rows (domain 2^k)\n", build::kVersion,
              build::kGitCommit, util::ThreadPool::global().size());
  std::printf("%-10s %-7s %-6s %9s %9s %9s %9s %9s %9s %9s %10s\n", "curve", "circuit", "size", "synth", "H(NTT)",
              "msm A", "msm B1", "msm B2", "msm L", "msm H", "total");
  for (const auto& c : o.curves) {
    auto id = parse_curve(c);
    if (!id) throw std::invalid_argument("unknown curve '" + c + "'");
    for (unsigned k : o.log_sizes) {
      if (k < 4 || k > 26) throw std::invalid_argument("--log-sizes entries must be within 4..26");
      curves::with_curve(*id, [&]<class E>(E) { bench_one<E>(o, k); });
    }
  }
  return 0;
}

RunFn setup_bench(CLI::App& sub) {
  sub.require_subcommand(1);
  auto o = std::make_shared<BenchProveOptions>();
  auto* prove = sub.add_subcommand("prove", "Per-phase CPU prove times at several sizes");
  prove->add_option("--log-sizes", o->log_sizes, "Circuit sizes as powers of two")
      ->delimiter(',')
      ->capture_default_str();
  prove->add_option("--curves", o->curves, "Curves (bn254, bls12-381)")->delimiter(',')->capture_default_str();
  prove->add_option("--circuit", o->circuit, "Built-in circuit")
      ->capture_default_str()
      ->check([](const std::string& s) {
        return circuits::is_known_circuit(s) ? "" : circuits::unknown_circuit_message(s);
      });
  prove->add_option("--repeat", o->repeat, "Proofs per size")->capture_default_str();
  auto gpu = attach_bench_gpu(sub);
  auto synth = attach_bench_synth(sub);
  auto bundle = attach_bench_bundle(sub);
  return [o, prove, gpu, synth, bundle](const Context&) {
    if (prove->parsed()) return run_bench_prove(*o);
    if (const int rc = gpu(); rc >= 0) return rc;
    if (const int rc = synth(); rc >= 0) return rc;
    if (const int rc = bundle(); rc >= 0) return rc;
    return 1;
  };
}

const RegisterCommand kBench{"bench", "Benchmarks that build nothing and print a table", setup_bench};

}  // namespace
}  // namespace zkmill::cli
