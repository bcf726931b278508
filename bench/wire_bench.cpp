// Bundle transfer benchmark: a 1 GiB witness bundle, synth worker -> prove worker over tcp loopback.
//
// The two ends run in separate processes (the server in a forked child) so that each one's
// peak RSS is its own. Throughput is end to end as the prover sees it: request to a
// checksummed, validated bundle. "extra RSS" is peak RSS minus the bundle itself: on the
// server it should stay near zero (chunks are zero-copy), on the fetcher near window x chunk
// (libzmq's receive buffers), never a function of the bundle size.
#include <benchmark/benchmark.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "common/wire/bundle_fetch.hpp"
#include "common/wire/bundle_server.hpp"
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

void BM_FetchBundle(benchmark::State& state) {
  zmq::context_t ctx;
  wire::FetchOptions o;
  o.window = uint32_t(state.range(0));
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
BENCHMARK(BM_FetchBundle)->Arg(1)->Arg(4)->Arg(16)->Iterations(4)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same reception without any network: BundleReceiver fed 16 MiB slices of an in-memory
// bundle, then finish() (trailing checksum + validation). The ceiling fetch_bundle can reach
// on this host, since it does all of this too.
void BM_ReceiverOnly(benchmark::State& state) {
  static auto local = wire::test_support::make_shared_bundle_of_size(uint64_t(1) << 30, 7);
  auto bytes = local->bytes();
  const size_t chunk = size_t(16) << 20;
  for (auto _ : state) {
    cs::BundleReceiver rx(bytes.first(cs::WitnessBundle::kHeaderSize));
    for (size_t off = cs::WitnessBundle::kHeaderSize; off < bytes.size(); off += chunk)
      rx.write(bytes.subspan(off, std::min(chunk, bytes.size() - off)));
    cs::WitnessBundle b = rx.finish();
    benchmark::DoNotOptimize(b.bytes().data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}
BENCHMARK(BM_ReceiverOnly)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);

// The synth worker: builds and publishes the bundle, serves until told to stop, then
// writes its own RSS figures to `report`.
[[noreturn]] void run_server(int endpoint_fd, int stop_fd, int report_fd) {
  // 2^23 rows and 2^23 aux: 32 * (2 + 2^23 + 3 * 2^23) bytes plus density maps = 1 GiB + 256 KiB.
  auto bundle = wire::test_support::make_shared_bundle_of_size(uint64_t(1) << 30);
  uint64_t base = proc_status_bytes("VmRSS:");
  reset_peak_rss();
  {
    zmq::context_t ctx;
    wire::BundleServer server(ctx, "tcp://127.0.0.1:0");
    server.publish("bench", bundle);
    std::string msg = server.endpoint() + " " + std::to_string(bundle->bytes().size()) + "\n";
    if (write(endpoint_fd, msg.data(), msg.size()) != ssize_t(msg.size())) _exit(2);
    char c;
    while (read(stop_fd, &c, 1) > 0) {
    }
    auto st = server.stats();
    uint64_t peak = proc_status_bytes("VmHWM:");
    char line[256];
    int n = std::snprintf(line, sizeof line, "server: bundle %.1f MiB, RSS with bundle %.1f MiB, peak while serving %.1f MiB, extra %.1f MiB; %llu transfers, %.1f GiB sent\n",
                          double(bundle->bytes().size()) / kMiB, double(base) / kMiB, double(peak) / kMiB, (double(peak) - double(base)) / kMiB,
                          static_cast<unsigned long long>(st.transfers_completed), double(st.bytes_sent) / (kMiB * 1024));
    if (n > 0 && write(report_fd, line, size_t(n)) < 0) _exit(3);
  }
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
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
