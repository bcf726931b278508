// SPDX-License-Identifier: MIT
// Bundle transfer benchmark: a witness bundle (1 GiB by default), synth worker -> prove worker
// over tcp loopback, plus the receiving side alone and its per-byte stages.
//
// The two ends run in separate processes (the server in a forked child) so that each one's
// peak RSS is its own. Throughput is end to end as the prover sees it: request to a
// checksummed, validated bundle. "extra RSS" is peak RSS minus the bundle itself: on the
// server it should stay near zero (chunks are zero-copy), on the fetcher near (window + 1) x
// chunk (libzmq's receive buffers and the chunks in the pipeline), never a function of the
// bundle size.
//
// Flags (before Google Benchmark's own, e.g. --benchmark_filter):
//   --bundle_mib=N      bundle size (default 1024)
//   --chunk_mib=N       server chunk size, 1..64 (default 16)
//   --windows=a,b,...   credit windows to run (default 1,4,16)
//   --threads=a,b,...   fetch worker threads to run (default 1,2,4,8; 0 = FetchOptions' auto)
//   --huge_pages=0|1    FetchOptions::huge_pages for the fetch and receiver-only runs (default 0)
// e.g. build/bin/bench_wire --bundle_mib=2048 --windows=8 --threads=1,4,8
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/cs/bundle_receiver.hpp"
#include "common/wire/bundle_fetch.hpp"
#include "common/wire/bundle_server.hpp"
#include "common/wire/chunk_pipeline.hpp"
#include "tests/common/wire/bundle_maker.hpp"

using namespace zkmill;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A /proc/self/status field in bytes (VmRSS: now, VmHWM: peak).
uint64_t proc_status_bytes(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) return std::stoull(line.substr(std::strlen(field) + 1)) * 1024;
  return 0;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so each iteration's peak is its own.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

std::string g_endpoint;
uint64_t g_bundle_size = 0;
uint64_t g_bundle_request = uint64_t(1) << 30;
size_t g_chunk = size_t(16) << 20;
std::vector<int64_t> g_windows = {1, 4, 16};
std::vector<int64_t> g_threads = {1, 2, 4, 8};
bool g_huge_pages = false;

// The local bundle for the no-network benchmarks (built on first use, in this process).
const cs::WitnessBundle& local_bundle() {
  static auto local = test::make_shared_bundle_of_size(g_bundle_request, 7);
  return *local;
}

void BM_FetchBundle(benchmark::State& state) {
  zmq::context_t ctx;
  wire::FetchOptions o;
  o.window = uint32_t(state.range(0));
  o.threads = uint32_t(state.range(1));
  o.huge_pages = g_huge_pages;
  double extra_max = 0;
  for (auto _ : state) {
    reset_peak_rss();
    uint64_t base = proc_status_bytes("VmRSS:");
    cs::WitnessBundle b = wire::fetch_bundle(ctx, g_endpoint, "bench", o);
    double extra = double(proc_status_bytes("VmHWM:")) - double(base) - double(b.bytes().size());
    extra_max = std::max(extra_max, extra);
    benchmark::DoNotOptimize(b.bytes().data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_bundle_size));
  state.counters["fetch_extra_rss_MiB"] = extra_max / kMiB;
  state.counters["bundle_MiB"] = double(g_bundle_size) / kMiB;
}

// The same reception without any network: the chunks of an in-memory bundle, as zero-copy
// messages, through the same ChunkPipeline (threads = state.range(0)) into a BundleReceiver,
// then finish(). The ceiling fetch_bundle can reach on this host, since it does all of this too.
void BM_ReceiverOnly(benchmark::State& state) {
  auto bytes = local_bundle().bytes();
  std::vector<uint64_t> sums;
  for (size_t off = cs::WitnessBundle::kHeaderSize; off < bytes.size(); off += g_chunk)
    sums.push_back(cs::checksum64(bytes.subspan(off, std::min(g_chunk, bytes.size() - off))));
  for (auto _ : state) {
    cs::BundleReceiver rx(bytes.first(cs::WitnessBundle::kHeaderSize), UINT64_MAX, g_huge_pages);
    {
      wire::FetchOptions o;
      o.threads = uint32_t(state.range(0));
      wire::ChunkPipeline pipeline(rx, wire::fetch_threads(o));
      size_t k = 0;
      for (size_t off = cs::WitnessBundle::kHeaderSize; off < bytes.size(); off += g_chunk, ++k) {
        auto piece = bytes.subspan(off, std::min(g_chunk, bytes.size() - off));
        // libzmq never writes through a message's data; a null free function leaves the bundle alone.
        pipeline.submit(rx.reserve(piece.size()),
                        zmq::message_t(const_cast<uint8_t*>(piece.data()), piece.size(), nullptr, nullptr), sums[k]);
      }
      pipeline.drain();
      if (pipeline.corrupt_offset()) state.SkipWithError("corrupt chunk");
    }
    cs::WitnessBundle b = rx.finish();
    benchmark::DoNotOptimize(b.bytes().data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}

// Per-byte stages of reception, one thread each, so the time per GiB can be accounted for.
enum Stage : int64_t { kChecksum, kCopyFresh, kCopyFreshHuge, kCopyWarm, kCheckElements, kPlaceFresh };
void BM_Stage(benchmark::State& state) {
  const cs::WitnessBundle& b = local_bundle();
  auto bytes = b.bytes();
  for (auto _ : state) {
    switch (state.range(0)) {
      case kChecksum:
        benchmark::DoNotOptimize(cs::checksum64(bytes));
        break;
      case kCopyFresh: {  // first touch: the kernel faults in and clears every 4 KiB page
        auto dst = std::make_unique_for_overwrite<uint8_t[]>(bytes.size());
        std::memcpy(dst.get(), bytes.data(), bytes.size());
        benchmark::DoNotOptimize(dst.get());
        break;
      }
      case kCopyFreshHuge: {  // the same into a buffer advised MADV_HUGEPAGE
        auto dst = cs::WitnessBundle::allocate_buffer(bytes.size(), true);
        std::memcpy(dst.get(), bytes.data(), bytes.size());
        benchmark::DoNotOptimize(dst.get());
        break;
      }
      case kCopyWarm: {
        state.PauseTiming();
        auto dst = std::make_unique_for_overwrite<uint8_t[]>(bytes.size());
        std::memset(dst.get(), 0, bytes.size());
        state.ResumeTiming();
        std::memcpy(dst.get(), bytes.data(), bytes.size());
        benchmark::DoNotOptimize(dst.get());
        break;
      }
      case kCheckElements:
        b.validate(false);
        break;
      case kPlaceFresh: {  // BundleReceiver::place of the whole payload as one slot, one thread
        cs::BundleReceiver rx(bytes.first(cs::WitnessBundle::kHeaderSize));
        auto rest = bytes.subspan(cs::WitnessBundle::kHeaderSize);
        benchmark::DoNotOptimize(rx.place(rx.reserve(rest.size()), rest));
        break;
      }
    }
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
  static const char* names[] = {
      "checksum64",     "memcpy_to_fresh_pages", "memcpy_to_fresh_huge_pages", "memcpy_to_touched_pages",
      "element_checks", "place_fresh_1_thread"};
  state.SetLabel(names[state.range(0)]);
}

void register_benchmarks() {
  for (int64_t w : g_windows)
    for (int64_t t : g_threads)
      benchmark::RegisterBenchmark("BM_FetchBundle", BM_FetchBundle)
          ->Args({w, t})
          ->ArgNames({"window", "threads"})
          ->Iterations(4)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
  for (int64_t t : g_threads)
    benchmark::RegisterBenchmark("BM_ReceiverOnly", BM_ReceiverOnly)
        ->Arg(t)
        ->ArgName("threads")
        ->Iterations(3)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  for (int64_t s : {kChecksum, kCopyFresh, kCopyFreshHuge, kCopyWarm, kCheckElements, kPlaceFresh})
    benchmark::RegisterBenchmark("BM_Stage", BM_Stage)
        ->Arg(s)
        ->ArgName("stage")
        ->Iterations(3)
        ->Unit(benchmark::kMillisecond);
}

std::vector<int64_t> parse_list(const std::string& s) {
  std::vector<int64_t> v;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    v.push_back(std::stoll(s.substr(pos, comma - pos)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return v;
}

// Consumes this program's own flags from argv; returns false (after a message) on a bad one.
bool parse_flags(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      size_t n = std::strlen(name);
      return a.compare(0, n, name) == 0 ? argv[i] + n : nullptr;
    };
    try {
      if (auto v = value("--bundle_mib=")) {
        g_bundle_request = std::stoull(v) << 20;
      } else if (auto v = value("--chunk_mib=")) {
        g_chunk = size_t(std::stoull(v)) << 20;
        if (g_chunk == 0 || g_chunk > wire::kMaxChunkBytes) throw std::invalid_argument("chunk size");
      } else if (auto v = value("--windows=")) {
        g_windows = parse_list(v);
      } else if (auto v = value("--threads=")) {
        g_threads = parse_list(v);
      } else if (auto v = value("--huge_pages=")) {
        g_huge_pages = std::stoi(v) != 0;
      } else {
        argv[out++] = argv[i];
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "bench_wire: bad flag %s (see the comment at the top of bench/wire_bench.cpp)\n", argv[i]);
      return false;
    }
  }
  argc = out;
  return true;
}

// The synth worker: builds and publishes the bundle, serves until told to stop, then
// writes its own RSS figures to `report`.
[[noreturn]] void run_server(int endpoint_fd, int stop_fd, int report_fd) {
  // For 1 GiB: 2^23 rows and 2^23 aux, 32 * (2 + 2^23 + 3 * 2^23) bytes plus density maps.
  auto bundle = test::make_shared_bundle_of_size(g_bundle_request);
  uint64_t base = proc_status_bytes("VmRSS:");
  reset_peak_rss();
  {
    zmq::context_t ctx;
    wire::BundleServerOptions so;
    so.chunk_bytes = g_chunk;
    wire::BundleServer server(ctx, "tcp://127.0.0.1:0", so);
    server.publish("bench", bundle);
    std::string msg = server.endpoint() + " " + std::to_string(bundle->bytes().size()) + "\n";
    if (write(endpoint_fd, msg.data(), msg.size()) != ssize_t(msg.size())) _exit(2);
    char c;
    while (read(stop_fd, &c, 1) > 0) {
    }
    auto st = server.stats();
    uint64_t peak = proc_status_bytes("VmHWM:");
    char line[256];
    int n = std::snprintf(line, sizeof line,
                          "server: bundle %.1f MiB, RSS with bundle %.1f MiB, peak while serving %.1f MiB, extra %.1f "
                          "MiB; %llu transfers, %.1f GiB sent\n",
                          double(bundle->bytes().size()) / kMiB, double(base) / kMiB, double(peak) / kMiB,
                          (double(peak) - double(base)) / kMiB, static_cast<unsigned long long>(st.transfers_completed),
                          double(st.bytes_sent) / (kMiB * 1024));
    if (n > 0 && write(report_fd, line, size_t(n)) < 0) _exit(3);
  }
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (!parse_flags(argc, argv)) return 2;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  register_benchmarks();
  int ep[2], stop[2], report[2];
  if (pipe(ep) || pipe(stop) || pipe(report)) return 1;
  // Fork before any thread or ZeroMQ context exists in this process.
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(ep[0]);
    close(stop[1]);
    close(report[0]);
    run_server(ep[1], stop[0], report[1]);
  }
  close(ep[1]);
  close(stop[0]);
  close(report[1]);
  std::string line;
  char c;
  while (read(ep[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  auto space = line.find(' ');
  if (space == std::string::npos) return 1;
  g_endpoint = line.substr(0, space);
  g_bundle_size = std::stoull(line.substr(space + 1));
  std::printf("server at %s, bundle %llu bytes\n", g_endpoint.c_str(), static_cast<unsigned long long>(g_bundle_size));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  close(stop[1]);  // EOF tells the server to stop and report
  std::string rep;
  while (read(report[0], &c, 1) == 1) rep.push_back(c);
  std::fputs(rep.c_str(), stdout);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
