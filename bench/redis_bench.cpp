// SPDX-License-Identifier: MIT
// What RedisClient's transports cost (the coordinator makes Redis round trips for every
// partition, docs/benchmarks/farm-coordinator-cost.md): a round trip (PING) and a pipeline of 100
// SETs of 1 KiB over a unix socket, plain TCP on loopback and TLS on loopback (redis.tls_*,
// farm/tls_tunnel.hpp), against one redis-server the benchmark starts for all three (LocalRedis,
// its certificates made with the openssl command line in a temporary directory).
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "coordinator/local_redis.hpp"
#include "farm/redis_client.hpp"

namespace {

namespace fs = std::filesystem;
using zkmill::farm::RedisClient;
using zkmill::farm::RedisConfig;

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// One redis-server (LocalRedis: a unix socket) with a plain TCP port and a TLS port added.
class Server {
 public:
  Server() : dir_(make_certificates()), tcp_port_(free_port()), tls_port_(free_port()) {
    const std::string d = dir_.string();
    redis_ = std::make_unique<zkmill::farm::LocalRedis>(
        d, std::vector<std::string>{"--port", std::to_string(tcp_port_), "--bind", "127.0.0.1", "--tls-port",
                                    std::to_string(tls_port_), "--tls-cert-file", d + "/server.crt", "--tls-key-file",
                                    d + "/server.key", "--tls-ca-cert-file", d + "/ca.crt"});
  }
  ~Server() {
    redis_.reset();
    fs::remove_all(dir_);
  }
  // transport 0: unix socket, 1: TCP, 2: TLS.
  RedisConfig config(int64_t transport) const {
    RedisConfig c = redis_->config();
    if (transport == 0) return c;
    c.unix_socket.clear();
    c.host = "127.0.0.1";
    c.port = uint32_t(transport == 1 ? tcp_port_ : tls_port_);
    if (transport == 2) {
      const std::string d = dir_.string();
      c.tls_ca = d + "/ca.crt";
      c.tls_cert = d + "/client.crt";
      c.tls_key = d + "/client.key";
    }
    return c;
  }

 private:
  // A temporary directory with a CA, and a server and a client certificate it signs (for IP
  // 127.0.0.1), made with the openssl command line.
  static fs::path make_certificates() {
    const fs::path dir = fs::temp_directory_path() / ("zkmill-bench-redis-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string d = dir.string();
    std::ofstream(dir / "x509.cnf") << "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = zkmill bench\n"
                                       "[ca]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign\n"
                                       "[leaf]\nsubjectAltName = IP:127.0.0.1\n";
    const std::string req = "openssl req -config x509.cnf -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes ";
    const std::string make = "(cd " + d + " && " + req +
                             "-x509 -extensions ca -days 1 -keyout ca.key -out ca.crt && for n in server client; do " +
                             req +
                             "-new -keyout $n.key -out $n.csr && openssl x509 -req -in $n.csr -CA ca.crt -CAkey "
                             "ca.key -CAcreateserial -days 1 -extfile x509.cnf -extensions leaf -out $n.crt; done) "
                             ">/dev/null 2>&1";
    if (std::system(make.c_str()) != 0 || !fs::exists(dir / "client.crt"))
      throw std::runtime_error("openssl could not make the certificates in " + d);
    return dir;
  }

  fs::path dir_;
  int tcp_port_ = 0, tls_port_ = 0;
  std::unique_ptr<zkmill::farm::LocalRedis> redis_;
};

const Server& server() {
  static const Server s;
  return s;
}

const char* kTransport[] = {"unix", "tcp", "tls"};

void BM_RedisPing(benchmark::State& state) {
  RedisClient c(server().config(state.range(0)));
  c.command({"PING"});
  for (auto _ : state) benchmark::DoNotOptimize(c.command({"PING"}));
  state.SetLabel(kTransport[state.range(0)]);
}
BENCHMARK(BM_RedisPing)->ArgName("transport")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

void BM_RedisPipeline100x1KiB(benchmark::State& state) {
  RedisClient c(server().config(state.range(0)));
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 100; ++i) cmds.push_back({"SET", "zk:bench:" + std::to_string(i), std::string(1024, 'x')});
  c.command({"PING"});
  for (auto _ : state) benchmark::DoNotOptimize(c.pipeline(cmds));
  state.SetLabel(kTransport[state.range(0)]);
  state.SetBytesProcessed(int64_t(state.iterations()) * 100 * 1024);
}
BENCHMARK(BM_RedisPipeline100x1KiB)->ArgName("transport")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
