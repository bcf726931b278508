// SPDX-License-Identifier: MIT
// `zkmill bench synth`: plain synthesis (ProvingCS into the bundle, as synthesize_builtin) against
// precompiled constraint evaluation (witness-only synthesis + the mat-vec over the recorded PCE
// matrices, as synthesize_builtin_pce) and the witness-only bundle a synth worker ships by
// default (the witness pass and bit packing, synthesize_builtin_witness) for one built-in
// circuit, size and curve. Builds nothing
// permanent: the PCE file goes to a temporary directory and is removed.
//
// Wall time and CPU time (user + system, every thread) of each best run are reported: the
// per-core rates divide by CPU time, comparing like with like whatever the thread count and
// load (plain synthesis is one thread; PCE's mat-vec, and the witness-only path's challenges of
// porep and its packing, run on --threads). The recording of the PCE matrices runs porep's
// challenges on --threads too (RecordingCS::run_parts), and is timed apart from the encoding.
// Each measurement runs in its own child process (fork), so each reports its own peak resident
// memory (wait4's ru_maxrss: the bundle, the working vectors and the touched pages of the mapped
// PCE file) instead of the high-water mark of everything before it. The children make their
// own thread pools after the fork. A last child checks that both paths give the same bundle,
// byte for byte, and the witness-only bundle the same packed witness.
// zkmill-cli-links: zk_groth16
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "common/circuits/circuit.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "zkmill/build_info.hpp"

namespace zkmill::cli {

namespace {

struct SynthOpts {
  std::string circuit = "chain";
  uint64_t size = uint64_t(1) << 16;
  std::string curve = "bn254";
  unsigned repeat = 3;
  size_t threads = 0;  // PCE's mat-vec pool; 0 = one per hardware thread
  std::string dir;
};

// What a child sends back: a few numbers, fixed layout.
struct Report {
  bool ok = false;
  double ms = 0, a_ms = 0, b_ms = 0;  // best total; parts (PCE: witness, mat-vec; record: recording)
  double cpu_ms = 0;                  // CPU time (user + system, all threads) of the best run
  uint64_t v[6] = {};                 // record: n_inputs, n_aux, rows, nnz, file bytes, coefficients
  uint64_t threads = 0;               // the measurement's pool
  char error[200] = {};
};

struct ChildResult {
  Report r;
  double peak_mib = 0;
};

// Runs fn in a child process and returns its report and peak RSS.
ChildResult in_child(const std::function<void(Report&)>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("bench synth: pipe failed");
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("bench synth: fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    Report r;
    try {
      fn(r);
      r.ok = true;
    } catch (const std::exception& e) {
      std::snprintf(r.error, sizeof r.error, "%s", e.what());
    }
    ssize_t w = ::write(fds[1], &r, sizeof r);
    ::_exit(w == ssize_t(sizeof r) ? 0 : 1);
  }
  ::close(fds[1]);
  ChildResult out;
  ssize_t got = 0;
  while (got < ssize_t(sizeof out.r)) {
    const ssize_t n = ::read(fds[0], reinterpret_cast<char*>(&out.r) + got, sizeof out.r - size_t(got));
    if (n <= 0) break;
    got += n;
  }
  ::close(fds[0]);
  int status = 0;
  struct rusage ru {};
  ::wait4(pid, &status, 0, &ru);
  if (got != ssize_t(sizeof out.r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("bench synth: a measurement process died (out of memory?)");
  if (!out.r.ok) throw std::runtime_error(out.r.error);
  out.peak_mib = double(ru.ru_maxrss) / 1024.0;  // kilobytes on Linux
  return out;
}

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// User + system CPU time of this process (every thread), in ms: the per-core figures divide by
// it, so they hold on a loaded box where wall time measures the scheduler.
// CLOCK_PROCESS_CPUTIME_ID, not getrusage: the latter is sampled per tick on many kernels,
// too coarse for runs of a few milliseconds.
double process_cpu_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

template <class E>
int bench_synth(const SynthOpts& o) {
  using clock = std::chrono::steady_clock;
  namespace fs = std::filesystem;
  const fs::path dir = o.dir.empty() ? fs::temp_directory_path() : fs::path(o.dir);
  const std::string path = (dir / ("zkmill-bench-synth-" + std::to_string(::getpid()) + ".pce")).string();
  struct Cleanup {
    std::string p;
    ~Cleanup() { std::filesystem::remove(p); }
  } cleanup{path};

  groth16::KeyMeta meta;
  meta.circuit = o.circuit;
  meta.size = o.size;
  // 1. Record the shape once and write the PCE file (what a synth worker does once per key).
  double record_ms = 0;
  auto rec = in_child([&](Report& r) {
    util::ThreadPool pool(o.threads);  // porep's challenges are recorded at once
    r.threads = pool.size();
    const double c0 = process_cpu_ms();
    const auto t0 = clock::now();
    using Fr = typename E::Fr;
    auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, 0, 0);
    cs::RecordingCS<Fr> recorder(&pool);
    c->synthesize(recorder);
    const auto r1cs = recorder.finish();
    r.a_ms = ms_between(t0, clock::now());
    r.cpu_ms = process_cpu_ms() - c0;
    const cs::PceShape shape{E::kId, meta.circuit, meta.size, r1cs.n_inputs, r1cs.n_aux, r1cs.n_constraints};
    const auto image = cs::PceMatrices::encode<Fr>(r1cs, shape);
    cs::PceMatrices::write_file(path, image);
    r.ms = ms_between(t0, clock::now());
    r.v[0] = r1cs.n_inputs;
    r.v[1] = r1cs.n_aux;
    r.v[2] = r1cs.n_rows();
    r.v[3] = r1cs.A.nnz() + r1cs.B.nnz() + r1cs.C.nnz();
    r.v[4] = image.size();
    r.v[5] = cs::PceMatrices::open(path, shape).header().n_coeffs;
  });
  record_ms = rec.r.ms;
  meta.n_inputs = rec.r.v[0];
  meta.n_aux = rec.r.v[1];
  meta.n_constraints = rec.r.v[2];
  const uint64_t constraints = meta.n_constraints - meta.n_inputs;
  std::printf("circuit %s, size %llu, %s: %llu constraints (+%llu input rows), %llu aux, nnz %llu\n", o.circuit.c_str(),
              (unsigned long long)o.size, E::kName, (unsigned long long)constraints, (unsigned long long)meta.n_inputs,
              (unsigned long long)meta.n_aux, (unsigned long long)rec.r.v[3]);
  std::printf("PCE file: %.1f MiB, %llu distinct coefficients; recorded and written in %.1f ms (once per shape)\n",
              double(rec.r.v[4]) / (1 << 20), (unsigned long long)rec.r.v[5], record_ms);
  std::printf("  of which recording %.1f ms on %llu thread(s) (CPU %.1f ms), encoding and writing %.1f ms\n",
              rec.r.a_ms, (unsigned long long)rec.r.threads, rec.r.cpu_ms, record_ms - rec.r.a_ms);
  std::fflush(stdout);

  // 2. Plain synthesis.
  // (ProvingCS is one thread: synthesis is sequential; only PCE's mat-vec uses the pool.)
  auto plain = in_child([&](Report& r) {
    r.ms = 1e300;
    for (unsigned rep = 0; rep < o.repeat; ++rep) {
      const double c0 = process_cpu_ms();
      const auto t0 = clock::now();
      auto w = groth16::synthesize_builtin<E>(meta, 1, rep);
      const double ms = ms_between(t0, clock::now());
      if (ms < r.ms) r.ms = ms, r.cpu_ms = process_cpu_ms() - c0;
    }
  });
  // 3. PCE synthesis (the file opened and validated once, as a worker does per key).
  auto pce = in_child([&](Report& r) {
    util::ThreadPool pool(o.threads);
    r.v[1] = pool.size();
    const auto t0 = clock::now();
    const auto m = cs::PceMatrices::open(path, groth16::pce_shape<E>(meta));
    r.v[0] = uint64_t(ms_between(t0, clock::now()) * 1000);
    r.ms = 1e300;
    for (unsigned rep = 0; rep < o.repeat; ++rep) {
      groth16::PceSynthTimings t;
      const double c0 = process_cpu_ms();
      const auto t1 = clock::now();
      auto w = groth16::synthesize_builtin_pce<E>(m, meta, 1, rep, {}, pool, &t);
      const double ms = ms_between(t1, clock::now());
      if (ms < r.ms) r.ms = ms, r.a_ms = t.witness_ms, r.b_ms = t.matvec_ms, r.cpu_ms = process_cpu_ms() - c0;
    }
  });
  // 3b. The witness-only bundle a synth worker ships by default: the witness pass and the bit
  // packing, no a, b, c (the prove worker computes them).
  auto wit = in_child([&](Report& r) {
    util::ThreadPool pool(o.threads);  // the witness pass's parts (porep's challenges) and the packing
    const auto m = cs::PceMatrices::open(path, groth16::pce_shape<E>(meta));
    r.ms = 1e300;
    for (unsigned rep = 0; rep < o.repeat; ++rep) {
      groth16::PceSynthTimings t;
      const double c0 = process_cpu_ms();
      const auto t1 = clock::now();
      auto w = groth16::synthesize_builtin_witness<E>(m, meta, 1, rep, {}, &t, pool);
      const double ms = ms_between(t1, clock::now());
      if (ms < r.ms) r.ms = ms, r.a_ms = t.witness_ms, r.b_ms = t.pack_ms, r.cpu_ms = process_cpu_ms() - c0;
      r.v[0] = w.bytes().size();
    }
  });
  const size_t threads = pce.r.v[1];
  // 4. Both paths give the same bundle.
  auto check = in_child([&](Report& r) {
    util::ThreadPool pool(0);
    const auto m = cs::PceMatrices::open(path, groth16::pce_shape<E>(meta));
    const auto a = groth16::synthesize_builtin_pce<E>(m, meta, 7, 1, {}, pool);
    const auto b = groth16::synthesize_builtin<E>(meta, 7, 1);
    using Fr = typename E::Fr;
    const auto packed = groth16::synthesize_builtin_witness<E>(m, meta, 7, 1);
    const auto repacked =
        cs::WitnessBundle::pack_witness<Fr>(b.header(), m.id(), b.template inputs<Fr>(), b.template aux<Fr>());
    r.v[0] = std::ranges::equal(a.bytes(), b.bytes()) && std::ranges::equal(packed.bytes(), repacked.bytes()) ? 1 : 0;
  });

  auto rate = [&](double ms) { return double(constraints) / ms / 1000.0; };  // M constraints/s
  std::printf(
      "%u runs each (best by wall time); plain: 1 thread, PCE mat-vec and witness-only (porep's challenges, the "
      "packing): %zu threads\n",
      o.repeat, threads);
  std::printf(
      "plain synthesis (ProvingCS): %10.1f ms  %7.2f M constraints/s  CPU %10.1f ms  %7.2f M/s per core"
      "  peak RSS %8.1f MiB\n",
      plain.r.ms, rate(plain.r.ms), plain.r.cpu_ms, rate(plain.r.cpu_ms), plain.peak_mib);
  std::printf(
      "PCE synthesis:               %10.1f ms  %7.2f M constraints/s  CPU %10.1f ms  %7.2f M/s per core"
      "  peak RSS %8.1f MiB\n",
      pce.r.ms, rate(pce.r.ms), pce.r.cpu_ms, rate(pce.r.cpu_ms), pce.peak_mib);
  std::printf("  of which witness %.1f ms, mat-vec %.1f ms; file open + validation %.1f ms (once per key)\n",
              pce.r.a_ms, pce.r.b_ms, double(pce.r.v[0]) / 1000.0);
  std::printf(
      "witness-only bundle:         %10.1f ms  %7.2f M constraints/s  CPU %10.1f ms  %7.2f M/s per core"
      "  peak RSS %8.1f MiB\n",
      wit.r.ms, rate(wit.r.ms), wit.r.cpu_ms, rate(wit.r.cpu_ms), wit.peak_mib);
  std::printf("  of which witness %.1f ms, bit packing %.1f ms; %.1f MiB (what a synth worker ships by default)\n",
              wit.r.a_ms, wit.r.b_ms, double(wit.r.v[0]) / (1 << 20));
  std::printf("bundles equal: %s\n", check.r.v[0] ? "yes" : "NO");
  std::printf("PCE speed-up per core (CPU time) %.2fx\n", plain.r.cpu_ms / pce.r.cpu_ms);
  std::printf("PCE speed-up %.2fx\n", plain.r.ms / pce.r.ms);
  return check.r.v[0] ? 0 : 1;
}

}  // namespace

// Adds `synth` under `bench`; the returned function runs it when chosen (its exit code), else -1.
std::function<int()> attach_bench_synth(CLI::App& bench) {
  auto o = std::make_shared<SynthOpts>();
  auto* synth = bench.add_subcommand("synth", "Plain vs PCE synthesis time, rate and peak memory of one circuit");
  synth->add_option("--circuit", o->circuit, "Built-in circuit")
      ->capture_default_str()
      ->check([](const std::string& s) {
        return circuits::is_known_circuit(s) ? "" : circuits::unknown_circuit_message(s);
      });
  synth->add_option("--size", o->size, "Target constraint count")
      ->capture_default_str()
      ->check(CLI::Range(1ull, 1ull << 31));
  synth->add_option("--curve", o->curve, "bn254 or bls12-381")->capture_default_str();
  synth->add_option("--repeat", o->repeat, "Runs of each path (the best is reported)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100u));
  synth
      ->add_option("--threads", o->threads,
                   "Threads of the recording, PCE's mat-vec and the witness-only path (0: one per hardware thread)")
      ->capture_default_str()
      ->check(CLI::Range(size_t(0), size_t(1024)));
  synth->add_option("--dir", o->dir, "Directory for the temporary PCE file (default: the system's temp dir)");
  return [o, synth]() -> int {
    if (!synth->parsed()) return -1;
    const auto id = parse_curve(o->curve);
    if (!id) throw std::invalid_argument("unknown curve '" + o->curve + "'");
    std::printf("zkmill %s (%s): bench synth\n", build::kVersion, build::kGitCommit);
    return curves::with_curve(*id, [&]<class E>(E) { return bench_synth<E>(*o); });
  };
}

}  // namespace zkmill::cli
