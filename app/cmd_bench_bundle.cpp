// SPDX-License-Identifier: MIT
// `zkmill bench bundle`: bytes on the wire per partition, full bundle (witness + a, b, c) vs
// witness-only bundle (inputs + bit-packed aux, BundleKind::Witness), for built-in circuits at
// several sizes, plus what each side pays for it: packing on the synth worker, recording the
// PCE matrices (once per circuit) and expanding a, b, c with them on the prove worker. Every
// expansion is checked to give the full bundle byte for byte. With --gpu (CUDA builds) the same
// a, b, c are also computed by the GPU mat-vec (cuda/cs/pce_gpu.hpp: what a GPU prove worker
// does with the matrices resident) and checked equal; its kernel time is printed. Figures for
// docs/benchmarks.md; cmd_bench.cpp attaches it through attach_bench_bundle().
// zkmill-cli-links: zk_circuits
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_expand.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/prover.hpp"
#include "common/util/curve_id.hpp"
#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/cs/pce_gpu.hpp"
#endif

namespace zkmill::cli {

namespace {

struct BenchBundleOptions {
  std::vector<std::string> circuits{"chain"};
  std::vector<unsigned> log_sizes{16, 20};
  std::string curve = "bn254";
  bool gpu = false;
};

using groth16::detail::ms_since;

// The GPU mat-vec of the same witness (median kernel ms of 3; -1 without CUDA), checked equal
// to the CPU expansion `cpu`.
template <class F>
double gpu_spmv_ms(const cs::PceMatrices& pce, const cs::WitnessBundle& full, const cs::WitnessBundle& cpu) {
#if defined(ZKMILL_HAVE_CUDA)
  const size_t n = pce.n_rows();
  std::vector<F> a(n), b(n), c(n);
  std::vector<float> runs;
  for (int k = 0; k < 3; ++k) {
    float ms = 0;
    const auto r = cuda::pce_multiply_gpu<F>(pce, full.inputs<F>(), full.aux<F>(), a, b, c, 0, &ms);
    if (!r.ok()) throw std::runtime_error(std::string("GPU mat-vec: ") + cuda::to_string(r.code) + ": " + r.message);
    runs.push_back(ms);
  }
  if (!std::ranges::equal(a, cpu.a<F>()) || !std::ranges::equal(b, cpu.b<F>()) || !std::ranges::equal(c, cpu.c<F>()))
    throw std::runtime_error("the GPU mat-vec's a, b, c differ from the CPU's");
  std::ranges::sort(runs);
  return runs[1];
#else
  (void)pce, (void)full, (void)cpu;
  throw std::runtime_error("--gpu: this zkmill was built without the CUDA backend");
#endif
}

template <class E>
void bench_one(const std::string& circuit, unsigned log_size, bool gpu) {
  using F = typename E::Fr;
  const uint64_t size = uint64_t(1) << log_size;
  auto t0 = std::chrono::steady_clock::now();
  // The workers' PCE matrices (KEY.pce), here held in memory: what the prove side expands with.
  // The recording itself is dropped at once (at 2^24 it is gigabytes).
  const cs::PceMatrices pce = [&] {
    cs::RecordingCS<F> rec;
    circuits::make_circuit<F>(circuit, size, 0, 0)->synthesize(rec);
    const cs::R1CS<F> r1cs = rec.finish();
    return cs::PceMatrices::from_r1cs(r1cs, {E::kId, circuit, size, r1cs.n_inputs, r1cs.n_aux, r1cs.n_constraints});
  }();
  const double record_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  cs::ProvingCS<F> pcs;
  circuits::make_circuit<F>(circuit, size, 11, 1)->synthesize(pcs);
  const cs::WitnessBundle full = std::move(pcs).into_bundle({}, 1);
  const double synth_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  const auto packed = cs::WitnessBundle::pack_witness<F>(full.header(), pce.id(), full.inputs<F>(), full.aux<F>());
  const double pack_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  const auto back = cs::expand_witness<F>(packed, pce);
  const double expand_ms = ms_since(t0);
  const bool same = std::ranges::equal(back.bytes(), full.bytes());
  const double gpu_ms = gpu ? gpu_spmv_ms<F>(pce, full, back) : -1;

  const double bits = full.n_aux() ? 100.0 * double(full.n_aux() - packed.header().n_full) / double(full.n_aux()) : 0;
  std::printf("%-8s 2^%-3u %-10s %11llu %6.1f%% %14llu %14llu %7.2fx %9.1f %9.1f %9.1f %9.1f %12.2f  %s\n",
              circuit.c_str(), log_size, curve_name(E::kId), static_cast<unsigned long long>(full.n_aux()), bits,
              static_cast<unsigned long long>(full.bytes().size()),
              static_cast<unsigned long long>(packed.bytes().size()),
              double(full.bytes().size()) / double(packed.bytes().size()), synth_ms, pack_ms, record_ms, expand_ms,
              gpu_ms, same ? "identical" : "DIFFERENT");
  if (!same) throw std::runtime_error("the expanded bundle differs from the full one");
}

int run_bench_bundle(const BenchBundleOptions& o) {
  const auto id = parse_curve(o.curve);
  if (!id) throw std::invalid_argument("unknown curve '" + o.curve + "'");
  for (const auto& c : o.circuits)
    if (!circuits::is_known_circuit(c)) throw std::invalid_argument(circuits::unknown_circuit_message(c));
  std::printf("%-8s %-5s %-10s %11s %7s %14s %14s %8s %9s %9s %9s %9s %12s  %s\n", "circuit", "size", "curve", "n_aux",
              "bits", "full bytes", "witness bytes", "fewer", "synth ms", "pack ms", "record ms", "expand ms",
              "gpu spmv ms", "expanded = full");
  for (const auto& c : o.circuits)
    for (unsigned k : o.log_sizes) {
      if (k < 4 || k > 26) throw std::invalid_argument("--log-sizes entries must be within 4..26");
      curves::with_curve(*id, [&]<class E>(E) { bench_one<E>(c, k, o.gpu); });
    }
  return 0;
}

}  // namespace

// Adds `bundle` under `bench`; the returned function runs it when chosen (exit code), else -1.
std::function<int()> attach_bench_bundle(CLI::App& bench) {
  auto o = std::make_shared<BenchBundleOptions>();
  auto* cmd = bench.add_subcommand(
      "bundle", "Bytes on the wire per partition: full vs witness-only bundles, and the cost of packing/expanding");
  cmd->add_option("--circuits", o->circuits, "Built-in circuits")->delimiter(',')->capture_default_str();
  cmd->add_option("--log-sizes", o->log_sizes, "Circuit sizes as powers of two")->delimiter(',')->capture_default_str();
  cmd->add_option("--curve", o->curve, "bn254 or bls12-381")->capture_default_str();
  cmd->add_flag("--gpu", o->gpu,
                "Also compute a, b, c with the GPU mat-vec on device 0 (checked equal; kernel ms, median of 3; "
                "-1 in the column without it)");
  return [o, cmd]() { return cmd->parsed() ? run_bench_bundle(*o) : -1; };
}

}  // namespace zkmill::cli
