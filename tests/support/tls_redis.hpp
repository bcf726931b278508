// SPDX-License-Identifier: MIT
// Test support for redis.tls_* (farm/tls_tunnel.hpp): a certificate authority with a server and
// a client certificate, made by the openssl command line, and a redis-server that speaks TLS on a
// loopback port (and plain RESP on a unix socket, for redis-cli and for checking what the farm
// wrote), as a child of the test.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/support/child_processes.hpp"
#include "tests/support/process.hpp"

namespace zkmill::test {

struct TlsFiles {
  std::string ca;  // the CA's certificate (redis.tls_ca)
  std::string server_cert, server_key;
  std::string client_cert, client_key;
};

// The server's certificate names DNS redis.test and IP 127.0.0.1.
constexpr const char* kTlsServerName = "redis.test";

// A CA called `name` in `dir` and the two certificates it signs (EC P-256, valid 2 days).
inline TlsFiles make_tls_files(const fs::path& dir, const std::string& name) {
  const auto p = [&](const std::string& f) { return (dir / (name + "-" + f)).string(); };
  std::ofstream(p("openssl.cnf")) << "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = unused\n"
                                     "[ca_ext]\nbasicConstraints = critical,CA:TRUE\n"
                                     "keyUsage = critical,keyCertSign,cRLSign\nsubjectKeyIdentifier = hash\n"
                                     "[server_ext]\nsubjectAltName = DNS:"
                                  << kTlsServerName
                                  << ",IP:127.0.0.1\nextendedKeyUsage = serverAuth,clientAuth\n"
                                     "[client_ext]\nextendedKeyUsage = clientAuth\n";
  const std::vector<std::string> key{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"};
  auto openssl = [&](std::vector<std::string> args) {
    const Result r = run_program("openssl", args);
    EXPECT_EQ(r.exit_code, 0) << "openssl " << args[0] << ": " << r.err;
  };
  std::vector<std::string> ca{"req", "-x509", "-config", p("openssl.cnf"), "-extensions", "ca_ext"};
  ca.insert(ca.end(), key.begin(), key.end());
  ca.insert(ca.end(), {"-keyout", p("ca.key"), "-out", p("ca.crt"), "-days", "2", "-subj", "/CN=" + name + " CA"});
  openssl(ca);
  for (const std::string leaf : {"server", "client"}) {
    std::vector<std::string> req{"req", "-new", "-config", p("openssl.cnf")};
    req.insert(req.end(), key.begin(), key.end());
    req.insert(req.end(), {"-keyout", p(leaf + ".key"), "-out", p(leaf + ".csr"), "-subj", "/CN=" + name + " " + leaf});
    openssl(req);
    openssl({"x509", "-req", "-in", p(leaf + ".csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial",
             "-out", p(leaf + ".crt"), "-days", "2", "-extfile", p("openssl.cnf"), "-extensions", leaf + "_ext"});
  }
  return {p("ca.crt"), p("server.crt"), p("server.key"), p("client.crt"), p("client.key")};
}

inline bool tcp_accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  const bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

struct TlsRedis {
  int port = 0;        // TLS on 127.0.0.1
  std::string socket;  // plain, LOG_DIR/NAME.sock
};

// redis-server with TLS on `port` (0: a free one) from `f`'s server certificate; with
// `auth_clients` it asks for a client certificate from the same CA (Redis's default).
inline TlsRedis start_tls_redis(ChildProcesses& c, const TlsFiles& f, const std::string& name = "redis",
                                bool auth_clients = true, int port = 0) {
  TlsRedis r{port ? port : free_port(), (c.log_dir() / (name + ".sock")).string()};
  c.spawn(name, {"redis-server",
                 "--port",
                 "0",
                 "--tls-port",
                 std::to_string(r.port),
                 "--bind",
                 "127.0.0.1",
                 "--tls-cert-file",
                 f.server_cert,
                 "--tls-key-file",
                 f.server_key,
                 "--tls-ca-cert-file",
                 f.ca,
                 "--tls-auth-clients",
                 auth_clients ? "yes" : "no",
                 "--unixsocket",
                 r.socket,
                 "--save",
                 "",
                 "--appendonly",
                 "no",
                 "--dir",
                 c.log_dir().string()});
  if (!eventually(std::chrono::seconds(5), [&] { return tcp_accepts(r.port) && fs::exists(r.socket); })) {
    ADD_FAILURE() << "redis-server with TLS did not start: " << c.log(name);
    return {};
  }
  return r;
}

}  // namespace zkmill::test
