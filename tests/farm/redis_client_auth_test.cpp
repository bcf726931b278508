// SPDX-License-Identifier: MIT
// RedisClient's AUTH at connect, against fake Redis servers on loopback that answer by hand:
// only Redis's reply to AUTH is a credentials error (RedisAuthError: the coordinator stops);
// a connection dropped during AUTH, what a restarting Redis does, is an outage (RedisError:
// callers retry). The chaos run found a coordinator that took a restart for wrong credentials
// and stopped for good.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "farm/redis_client.hpp"

namespace zkmill::test {
namespace {

// A loopback listener that serves each connection with `serve(fd)` on its own thread, then
// closes it; stops when destroyed.
class FakeRedis {
 public:
  template <class Serve>
  explicit FakeRedis(Serve serve) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, serve] {
      while (!stop_) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        serve(c);
        ::close(c);
      }
    });
  }
  ~FakeRedis() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Reads what the client sent (one RESP command fits in one read here).
std::string read_some(int fd) {
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

farm::RedisConfig config_for(uint16_t port) {
  farm::RedisConfig c;
  c.host = "127.0.0.1";
  c.port = port;
  c.password = "secret";
  c.connect_timeout_ms = 2000;
  c.command_timeout_ms = 2000;
  return c;
}

TEST(RedisClientAuth, WrongPasswordIsAnAuthError) {
  FakeRedis server([](int fd) {
    const std::string got = read_some(fd);
    EXPECT_NE(got.find("AUTH"), std::string::npos) << got;
    const std::string reply = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
    EXPECT_EQ(::write(fd, reply.data(), reply.size()), ssize_t(reply.size()));
  });
  farm::RedisClient client(config_for(server.port()));
  try {
    client.command({"PING"});
    FAIL() << "PING succeeded against a server that refused AUTH";
  } catch (const farm::RedisAuthError& e) {
    EXPECT_NE(std::string(e.what()).find("authentication as the default user failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("WRONGPASS"), std::string::npos) << e.what();
  }
}

TEST(RedisClientAuth, ConnectionDroppedDuringAuthIsAnOutageNotAnAuthError) {
  FakeRedis server([](int fd) { read_some(fd); });  // reads AUTH, then closes: a restart
  farm::RedisClient client(config_for(server.port()));
  bool outage = false;
  try {
    client.command({"PING"});
  } catch (const farm::RedisAuthError& e) {
    FAIL() << "a dropped connection was taken for wrong credentials: " << e.what();
  } catch (const farm::RedisError& e) {
    outage = true;
  }
  EXPECT_TRUE(outage);
}

}  // namespace
}  // namespace zkmill::test
