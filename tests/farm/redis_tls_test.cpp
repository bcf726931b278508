// SPDX-License-Identifier: MIT
// RedisClient over TLS (redis.tls_*, farm/tls_tunnel.hpp) against a real redis-server on its
// tls-port: commands, long pipelines both ways, scripts and pub/sub go through; a server whose
// certificate is from another CA or for another name is refused as a configuration error
// (RedisAuthError: the coordinator stops instead of retrying); a server that takes the TCP
// connection and never completes the handshake, a plain port, a client without a certificate
// all fail within their timeouts; the client reconnects after a restart, and each connection's
// thread ends with it. The sentinels are asked over TLS as well.
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "farm/redis_client.hpp"
#include "tests/support/tls_redis.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::RedisAuthError;
using farm::RedisClient;
using farm::RedisConfig;
using farm::RedisError;

size_t thread_count() {
  size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

class RedisTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    children_.set_log_dir(dir_);
    files_ = make_tls_files(dir_, "farm");
    server_ = start_tls_redis(children_, files_);
    ASSERT_NE(server_.port, 0);
  }
  RedisConfig config() const {
    RedisConfig c;
    c.host = "127.0.0.1";
    c.port = uint32_t(server_.port);
    c.tls_ca = files_.ca;
    c.tls_cert = files_.client_cert;
    c.tls_key = files_.client_key;
    c.connect_timeout_ms = 1000;
    c.command_timeout_ms = 2000;
    return c;
  }
  // What connecting with `c` throws ("" when it connects).
  static std::string connect_error(const RedisConfig& c) {
    RedisClient r(c);
    try {
      r.command({"PING"});
    } catch (const RedisError& e) {
      return e.what();
    }
    return "";
  }

  // The configuration error (RedisAuthError) connecting with `c` throws; a test failure and ""
  // when it connects or fails otherwise.
  static std::string refusal(const RedisConfig& c) {
    RedisClient r(c);
    try {
      r.command({"PING"});
      ADD_FAILURE() << "connected: the server's certificate was accepted";
    } catch (const RedisAuthError& e) {
      return e.what();
    } catch (const RedisError& e) {
      ADD_FAILURE() << "an outage, not a refusal: " << e.what();
    }
    return "";
  }

  fs::path dir_;
  ChildProcesses children_;
  TlsFiles files_;
  TlsRedis server_;
};

TEST_F(RedisTlsTest, CommandsPipelinesScriptsAndPubSubGoThrough) {
  RedisClient r(config());
  EXPECT_EQ(r.command({"PING"}).as_string(), "PONG");
  EXPECT_EQ(r.where(), "127.0.0.1:" + std::to_string(server_.port));
  // 200 values of 64 KiB in one pipeline; then one that reads each back while it writes a copy:
  // ~13 MB each way at once, far more than the sockets' buffers, so the tunnel must take in
  // replies while hiredis is still writing (a client that writes all before it reads).
  std::vector<std::vector<std::string>> sets, gets;
  for (int i = 0; i < 200; ++i) {
    const std::string v(65536, char('a' + i % 26));
    sets.push_back({"SET", "zk:tls:" + std::to_string(i), v});
    gets.push_back({"GET", "zk:tls:" + std::to_string(i)});
    gets.push_back({"SET", "zk:tls:copy:" + std::to_string(i), v});
  }
  EXPECT_EQ(r.pipeline(sets).size(), 200u);
  const auto got = r.pipeline(gets);
  ASSERT_EQ(got.size(), 400u);
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(got[size_t(2 * i)].as_string(), std::string(65536, char('a' + i % 26))) << i;
    ASSERT_EQ(got[size_t(2 * i + 1)].as_string(), "OK") << i;
  }
  EXPECT_EQ(r.eval("return redis.call('INCRBY', KEYS[1], ARGV[1])", {"zk:tls:n"}, {"5"}).as_int(), 5);
  EXPECT_GT(r.server_time_ms(), 1700000000000ull);
  // What was written is on the server, read back over its plain unix socket.
  RedisConfig plain;
  plain.unix_socket = server_.socket;
  RedisClient check(plain);
  EXPECT_EQ(check.command({"STRLEN", "zk:tls:copy:199"}).as_int(), 65536);

  RedisClient sub(config());
  sub.subscribe("zk:tls:wake");
  r.command({"PUBLISH", "zk:tls:wake", "x"});
  pollfd p{sub.fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 2000), 1);
  EXPECT_EQ(sub.drain_pubsub(), 1u);
}

TEST_F(RedisTlsTest, AServerNameByDnsIsCheckedAgainstTheCertificate) {
  RedisConfig c = config();
  c.tls_server_name = kTlsServerName;
  RedisClient r(c);
  EXPECT_EQ(r.command({"PING"}).as_string(), "PONG");

  c.tls_server_name = "other.test";
  const std::string what = refusal(c);
  EXPECT_NE(what.find("the server's certificate was refused (hostname mismatch"), std::string::npos) << what;
  EXPECT_NE(what.find("'other.test'"), std::string::npos) << what;
}

TEST_F(RedisTlsTest, AServerWithACertificateFromAnotherCaIsRefused) {
  // A hostile server on the address the farm uses: a certificate for the right name and IP,
  // signed by a CA of its own.
  const TlsFiles rogue = make_tls_files(dir_, "rogue");
  ChildProcesses other(dir_);
  const TlsRedis fake = start_tls_redis(other, rogue, "rogue-redis", false);
  RedisConfig c = config();
  c.port = uint32_t(fake.port);
  const std::string what = refusal(c);
  EXPECT_NE(what.find("the server's certificate was refused"), std::string::npos) << what;
  EXPECT_NE(what.find("redis.tls_ca"), std::string::npos) << what;
  // The same refusal for a client that trusts the rogue CA and meets the farm's server.
  RedisConfig trusting_rogue = config();
  trusting_rogue.tls_ca = rogue.ca;
  EXPECT_NE(connect_error(trusting_rogue).find("certificate was refused"), std::string::npos);
}

TEST_F(RedisTlsTest, WhatDoesNotSpeakTlsFailsWithinItsTimeouts) {
  // Without a client certificate the server ends the session (after the handshake in TLS 1.3),
  // and its alert is in the error.
  RedisConfig no_cert = config();
  no_cert.tls_cert.clear();
  no_cert.tls_key.clear();
  auto t0 = std::chrono::steady_clock::now();
  const std::string no_cert_err = connect_error(no_cert);
  EXPECT_NE(no_cert_err.find("(TLS: "), std::string::npos) << no_cert_err;
  EXPECT_NE(no_cert_err.find("certificate required"), std::string::npos) << no_cert_err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);

  // A listener that takes the TCP connection and never answers (a hostile or hung peer): the
  // handshake's timeout, tried connect_attempts times.
  const LoopbackListener hung = loopback_listener();
  ASSERT_GE(hung.fd, 0);
  RedisConfig silent = config();
  silent.port = uint32_t(hung.port);
  silent.connect_timeout_ms = 300;
  silent.connect_attempts = 2;
  t0 = std::chrono::steady_clock::now();
  const std::string err = connect_error(silent);
  EXPECT_NE(err.find("TLS handshake timed out"), std::string::npos) << err;
  EXPECT_NE(err.find("(2 connects tried)"), std::string::npos) << err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  ::close(hung.fd);

  // A plain Redis port: the handshake fails at once, said as TLS.
  ChildProcesses other(dir_);
  const int plain_port = free_port();
  other.spawn("plain-redis", {"redis-server", "--port", std::to_string(plain_port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", dir_.string()});
  ASSERT_TRUE(eventually(5s, [&] { return tcp_accepts(plain_port); }));
  RedisConfig to_plain = config();
  to_plain.port = uint32_t(plain_port);
  const std::string plain_err = connect_error(to_plain);
  EXPECT_NE(plain_err.find("TLS"), std::string::npos) << plain_err;
}

TEST_F(RedisTlsTest, ReconnectsAfterARestartAndEachConnectionsThreadEnds) {
  const size_t threads_before = thread_count();
  {
    RedisClient r(config());
    EXPECT_EQ(r.command({"SET", "zk:tls:k", "1"}).as_string(), "OK");
    EXPECT_EQ(thread_count(), threads_before + 1);  // the tunnel's pump
    children_.stop(children_.pid("redis"));
    EXPECT_THROW(r.command({"GET", "zk:tls:k"}), RedisError);
    server_ = start_tls_redis(children_, files_, "redis2", true, server_.port);
    ASSERT_NE(server_.port, 0);
    bool answered = false;
    for (int i = 0; i < 50 && !answered; ++i) {
      try {
        answered = r.command({"PING"}).as_string() == "PONG";
      } catch (const RedisError&) {
        std::this_thread::sleep_for(100ms);
      }
    }
    EXPECT_TRUE(answered);
    for (int i = 0; i < 20; ++i) {
      RedisClient c(config());
      c.command({"PING"});
    }
  }
  EXPECT_TRUE(eventually(2s, [&] { return thread_count() == threads_before; })) << thread_count();
}

TEST_F(RedisTlsTest, TheSentinelsAreAskedOverTlsToo) {
  // A sentinel that serves TLS only and reaches the primary over TLS (tls-replication).
  const int sentinel = free_port();
  const fs::path conf = dir_ / "sentinel.conf";  // the sentinel rewrites it: must be writable
  std::ofstream(conf) << "port 0\ntls-port " << sentinel << "\nbind 127.0.0.1\ndir " << dir_.string()
                      << "\ntls-cert-file " << files_.server_cert << "\ntls-key-file " << files_.server_key
                      << "\ntls-ca-cert-file " << files_.ca << "\ntls-replication yes\nsentinel monitor zkm 127.0.0.1 "
                      << server_.port << " 1\n";
  children_.spawn("sentinel", {"redis-server", conf.string(), "--sentinel"});
  ASSERT_TRUE(eventually(5s, [&] { return tcp_accepts(sentinel); })) << children_.log("sentinel");
  RedisConfig c = config();
  c.host = "unused";
  c.port = 1;
  c.sentinels = {"127.0.0.1:" + std::to_string(sentinel)};
  c.master_name = "zkm";
  RedisClient r(c);
  EXPECT_EQ(r.command({"PING"}).as_string(), "PONG");
  EXPECT_EQ(r.where(), "127.0.0.1:" + std::to_string(server_.port));

  // A client that does not trust the sentinel's certificate learns nothing from it.
  const TlsFiles rogue = make_tls_files(dir_, "rogue");
  c.tls_ca = rogue.ca;
  const std::string err = connect_error(c);
  EXPECT_NE(err.find("no sentinel named the primary of 'zkm'"), std::string::npos) << err;
  EXPECT_NE(err.find("certificate was refused"), std::string::npos) << err;
}

TEST_F(RedisTlsTest, UnusableFilesAreSaidWithTheirKey) {
  auto error_of = [](const RedisConfig& c) -> std::string {
    try {
      RedisClient r(c);
    } catch (const farm::TlsConfigError& e) {
      return e.what();
    }
    return "";
  };
  RedisConfig c = config();
  c.tls_ca = (dir_ / "missing.crt").string();
  EXPECT_NE(error_of(c).find("redis.tls_ca '" + c.tls_ca + "': cannot read it"), std::string::npos);
  c = config();
  c.tls_ca = files_.client_key;  // a key, not a certificate
  EXPECT_NE(error_of(c).find("no CA certificate could be loaded"), std::string::npos) << error_of(c);
  c = config();
  c.tls_key = files_.server_key;  // another certificate's key
  EXPECT_NE(error_of(c).find("does not match redis.tls_cert"), std::string::npos) << error_of(c);
}

}  // namespace
}  // namespace zkmill::test
