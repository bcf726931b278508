// SPDX-License-Identifier: MIT
// Synthesis benchmarks over BLS12-381 Fr: ProvingCS on the built-in circuits at 2^16 and
// 2^20 constraints, the native statement (public inputs) the coordinator checks, recording
// (porep's challenges also on a pool) and the sparse mat-vec, what
// eager name strings would cost, and witness-bundle checksum / serialize / parse / streaming
// throughput.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "common/circuits/circuit.hpp"
#include "common/circuits/porep.hpp"
#include "common/cs/bundle_receiver.hpp"
#include "common/cs/checksum.hpp"
#include "common/cs/pce_matrices.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_bundle.hpp"
#include "common/ff/bls12_381_fields.hpp"

using namespace zkmill;
using F = ff::Bls12381Fr;

namespace {

const char* circuit_of(int64_t id) { return id == 0 ? "chain" : id == 1 ? "merkle" : "porep"; }

void set_rate(benchmark::State& state, uint64_t constraints) {
  state.counters["constraints"] = double(constraints);
  state.counters["constraints/s"] =
      benchmark::Counter(double(constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// args: circuit (0 chain, 1 merkle, 2 porep), log2 size. Synthesis only; the bundle hand-off is
// measured separately below.
void BM_ProvingSynthesis(benchmark::State& state) {
  auto c = circuits::make_circuit<F>(circuit_of(state.range(0)), uint64_t(1) << state.range(1), 1, 0);
  uint64_t n = 0;
  for (auto _ : state) {
    cs::ProvingCS<F> p;
    c->synthesize(p);
    p.finish();
    n = p.num_constraints();
    benchmark::DoNotOptimize(p.c().data());
  }
  state.SetLabel(c->describe());
  set_rate(state, n);
}
BENCHMARK(BM_ProvingSynthesis)->ArgsProduct({{0, 1, 2}, {16, 20}})->Unit(benchmark::kMillisecond);

// args: circuit, size (constraints). What the coordinator computes per partition of a native
// job to check a synth worker's statement (Circuit::public_inputs): the instance made and its
// public inputs computed natively, up to PoRep's 130M constraints.
void BM_NativeStatement(benchmark::State& state) {
  uint64_t partition = 0;
  size_t n = 0;
  for (auto _ : state) {
    auto c = circuits::make_circuit<F>(circuit_of(state.range(0)), uint64_t(state.range(1)), 1, partition++);
    const auto pub = c->public_inputs();
    n = pub.size();
    benchmark::DoNotOptimize(pub.data());
  }
  state.counters["public_inputs"] = double(n);
}
BENCHMARK(BM_NativeStatement)->ArgsProduct({{0, 1, 2}, {1 << 20}})->Args({2, 130000000})->Unit(benchmark::kMillisecond);

// Synthesis straight into a preallocated bundle (shape known), including sealing it.
void BM_ProvingIntoBundleInPlace(benchmark::State& state) {
  auto c = circuits::make_circuit<F>(circuit_of(state.range(0)), uint64_t(1) << state.range(1), 1, 0);
  cs::RecordingCS<F> rec;
  c->synthesize(rec);
  const auto r1cs = rec.finish();
  for (auto _ : state) {
    cs::ProvingCS<F> p(cs::ProvingCS<F>::shape_of(r1cs));
    c->synthesize(p);
    cs::WitnessBundle b = std::move(p).into_bundle(cs::CircuitId{}, 0);
    benchmark::DoNotOptimize(b.bytes().data());
  }
  set_rate(state, r1cs.n_constraints);
}
BENCHMARK(BM_ProvingIntoBundleInPlace)->ArgsProduct({{0, 1}, {20}})->Unit(benchmark::kMillisecond);

void BM_Recording(benchmark::State& state) {
  auto c = circuits::make_circuit<F>(circuit_of(state.range(0)), uint64_t(1) << state.range(1), 1, 0);
  uint64_t n = 0, nnz = 0;
  for (auto _ : state) {
    cs::RecordingCS<F> rec;
    c->synthesize(rec);
    auto r = rec.finish();
    n = r.n_constraints;
    nnz = r.A.nnz() + r.B.nnz() + r.C.nnz();
  }
  state.counters["nnz"] = double(nnz);
  set_rate(state, n);
}
BENCHMARK(BM_Recording)->ArgsProduct({{0, 1}, {20}})->Unit(benchmark::kMillisecond);

// porep's challenges recorded at once (RecordingCS::run_parts) against one thread. --size gives
// one challenge below ~14M constraints, so a shape of 9 small challenges (5.6M constraints):
// part 0 runs alone, the other 8 on the pool. arg: threads (0: no pool). Wall time.
void BM_RecordingPorepChallenges(benchmark::State& state) {
  const circuits::PorepCircuit<F> c(circuits::PorepShape{9, 10, 1, 4, 8}, 0, 1, 0);
  util::ThreadPool pool(std::max<int64_t>(state.range(0), 1));
  uint64_t n = 0;
  for (auto _ : state) {
    cs::RecordingCS<F> rec(state.range(0) > 0 ? &pool : nullptr);
    c.synthesize(rec);
    auto r = rec.finish();
    n = r.n_constraints;
    benchmark::DoNotOptimize(r.C.val.data());
  }
  state.SetLabel(c.describe());
  set_rate(state, n);
}
BENCHMARK(BM_RecordingPorepChallenges)
    ->Arg(0)
    ->Arg(2)
    ->Arg(4)
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The farm's path (PCE): a, b, c from the recorded matrices by a sparse mat-vec.
void BM_SparseMatVec(benchmark::State& state) {
  auto c = circuits::make_circuit<F>(circuit_of(state.range(0)), uint64_t(1) << state.range(1), 1, 0);
  cs::RecordingCS<F> rec;
  c->synthesize(rec);
  const auto r1cs = rec.finish();
  const auto pce = cs::PceMatrices::from_r1cs(r1cs, {cs::curve_of_scalar_field<F>(), circuit_of(state.range(0)), 0,
                                                     r1cs.n_inputs, r1cs.n_aux, r1cs.n_constraints});
  cs::ProvingCS<F> p;
  c->synthesize(p);
  util::ThreadPool pool(0);
  std::vector<F> a(r1cs.n_rows()), b(r1cs.n_rows()), cc(r1cs.n_rows());
  for (auto _ : state) {
    pce.multiply<F>(p.inputs(), p.aux(), a, b, cc, pool);
    benchmark::DoNotOptimize(cc.data());
  }
  state.counters["threads"] = double(pool.size());
  set_rate(state, r1cs.n_constraints);
}
BENCHMARK(BM_SparseMatVec)->ArgsProduct({{0, 1}, {20}})->Unit(benchmark::kMillisecond);

// A forwarding CS around ProvingCS; with eager = true it builds the full "a/b/c" path string
// for every variable and constraint, as a string-taking API would. The difference between
// the two runs is what lazy names save.
class ForwardingCS final : public cs::ConstraintSystem<F> {
 public:
  ForwardingCS(cs::ProvingCS<F>& inner, bool eager) : inner_(inner), eager_(eager) {}
  void enforce(cs::Name n, const LC& a, const LC& b, const LC& c) override {
    name(n);
    inner_.enforce(n, a, b, c);
  }
  void push_namespace(cs::Name n) override {
    if (eager_) path_.push(n);
  }
  void pop_namespace() override {
    if (eager_) path_.pop();
  }
  bool needs_values() const override { return true; }

 protected:
  cs::Variable alloc_aux_impl(cs::Name n, const cs::ValueSource<F>& v) override {
    name(n);
    return inner_.alloc(n, [&] { return v(); });
  }
  cs::Variable alloc_input_impl(cs::Name n, const cs::ValueSource<F>& v) override {
    name(n);
    return inner_.alloc_input(n, [&] { return v(); });
  }

 private:
  void name(cs::Name n) {
    if (!eager_) return;
    last_ = path_.with_leaf(n);
    benchmark::DoNotOptimize(last_.data());
  }
  cs::ProvingCS<F>& inner_;
  bool eager_;
  cs::NamePath path_;
  std::string last_;
};

void BM_NameCost(benchmark::State& state) {
  auto c = circuits::make_circuit<F>(circuit_of(state.range(0)), uint64_t(1) << 16, 1, 0);
  const bool eager = state.range(1) != 0;
  for (auto _ : state) {
    cs::ProvingCS<F> p;
    ForwardingCS fwd(p, eager);
    c->synthesize(fwd);
    benchmark::DoNotOptimize(p.c().data());
  }
  state.SetLabel(eager ? "eager full-path strings" : "lazy names (forwarding only)");
  set_rate(state, uint64_t(1) << 16);
}
BENCHMARK(BM_NameCost)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);

// One 2^20-constraint chain bundle (~130 MB), shared by the bundle benchmarks.
const cs::WitnessBundle& big_bundle() {
  static const cs::WitnessBundle b = [] {
    auto c = circuits::make_circuit<F>("chain", uint64_t(1) << 20, 1, 0);
    cs::ProvingCS<F> p;
    c->synthesize(p);
    return std::move(p).into_bundle(cs::CircuitId{}, 0);
  }();
  return b;
}

void BM_Checksum64(benchmark::State& state) {
  auto bytes = big_bundle().bytes();
  for (auto _ : state) benchmark::DoNotOptimize(cs::checksum64(bytes));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}
BENCHMARK(BM_Checksum64)->Unit(benchmark::kMillisecond);

void BM_BundleSerialize(benchmark::State& state) {
  const auto& b = big_bundle();
  for (auto _ : state) {
    auto wire = b.serialize();
    benchmark::DoNotOptimize(wire.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(b.bytes().size()));
}
BENCHMARK(BM_BundleSerialize)->Unit(benchmark::kMillisecond);

void BM_BundleParse(benchmark::State& state) {
  const auto wire = big_bundle().serialize();
  for (auto _ : state) {
    auto b = cs::WitnessBundle::parse(wire);
    benchmark::DoNotOptimize(b.bytes().data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(wire.size()));
}
BENCHMARK(BM_BundleParse)->Unit(benchmark::kMillisecond);

void BM_BundleReceive64KiBChunks(benchmark::State& state) {
  const auto wire = big_bundle().serialize();
  const std::span<const uint8_t> all(wire);
  for (auto _ : state) {
    cs::BundleReceiver rx(all.first(cs::WitnessBundle::header_size()));
    for (size_t pos = cs::WitnessBundle::header_size(); pos < all.size(); pos += 65536)
      rx.write(all.subspan(pos, std::min<size_t>(65536, all.size() - pos)));
    auto b = rx.finish();
    benchmark::DoNotOptimize(b.bytes().data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(wire.size()));
}
BENCHMARK(BM_BundleReceive64KiBChunks)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
