// SPDX-License-Identifier: MIT
// HttpListener (coordinator/http_listener.hpp) against real sockets on loopback: it serves a
// route table one request per connection; clients that trickle a request header (slowloris)
// are cut off at their deadline, so that a normal request is answered while they go on
// trickling, with every thread taken by them at first; past the queue's bound a connection is
// closed at once; one client (an address) is served on its share of the threads and queues at
// most its share, so other clients are answered while it holds its connections; and the
// listener stops promptly with slow clients connected.
#include "coordinator/http_listener.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/loopback.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Whether the server closed `fd` (EOF or reset) within `limit`.
bool closed_by_server(int fd, std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char c;
    const ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return true;
  }
  return false;
}

// Whether an answer to a request already sent on `fd` arrives within `limit`: its status line.
std::string status_line(int fd, std::chrono::milliseconds limit) {
  std::string got;
  const auto end = Clock::now() + limit;
  while (Clock::now() < end && got.find("\r\n") == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[256];
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    got.append(buf, size_t(n));
  }
  return got.substr(0, got.find("\r\n"));
}

const std::string kRequest = "GET /hello HTTP/1.1\r\nHost: zkmill\r\n\r\n";

class HttpListenerTest : public ::testing::Test {
 protected:
  HttpListenerTest() {
    routes_.Get("/hello", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("hello " + req.remote_addr, "text/plain");
    });
  }
  httplib::Result get(int port, const std::string& path) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c.Get(path.c_str());
  }
  farm::HttpRoutes routes_;
};

TEST_F(HttpListenerTest, ServesOneRequestPerConnection) {
  farm::HttpListener listener(routes_, "127.0.0.1", 0, {});
  ASSERT_GT(listener.port(), 0);
  for (int i = 0; i < 3; ++i) {
    auto r = get(listener.port(), "/hello");
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "hello 127.0.0.1");
    EXPECT_EQ(r->get_header_value("Connection"), "close");
  }
  auto missing = get(listener.port(), "/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_THROW(farm::HttpListener(routes_, "127.0.0.1", listener.port(), {}), std::runtime_error)
      << "a second listener on a taken port";
}

// More slow clients than threads, each trickling a header byte every 200 ms: at first they hold
// every thread; each is cut off at its deadline (1 s), and a normal request made meanwhile is
// answered although they go on trickling (before: they held the threads for as long as they
// kept sending, the per-read timeout never passing).
TEST_F(HttpListenerTest, SlowClientsAreCutOffAtTheirDeadline) {
  farm::HttpListener::Options o;
  o.threads = 2;
  o.deadline = 1000ms;
  o.io_timeout = 5000ms;  // longer than the trickle's period: only the deadline ends them
  farm::HttpListener listener(routes_, "127.0.0.1", 0, o);
  std::vector<int> slow;
  for (int i = 0; i < 6; ++i) {
    const int fd = connect_loopback(listener.port());
    ASSERT_GE(fd, 0);
    slow.push_back(fd);
  }
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    const std::string partial = "GET /hello HTTP/1.1\r\nX-Slow: ";
    for (size_t at = 0; !stop; at = (at + 1) % partial.size()) {
      for (int fd : slow) send(fd, &partial[at], 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(200ms);
    }
  });
  std::this_thread::sleep_for(300ms);  // both threads are now reading a slow client's header
  const auto t0 = Clock::now();
  auto r = get(listener.port(), "/hello");
  const auto waited = Clock::now() - t0;
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  // Served after at most the slow clients' deadline (they were accepted first), not after
  // they stop (below, or never).
  EXPECT_LT(waited, 5s);
  for (int fd : slow) EXPECT_TRUE(closed_by_server(fd, 5000ms)) << "a slow client still connected";
  stop = true;
  trickle.join();
  for (int fd : slow) close(fd);
}

// Every thread busy and the queue full: a further connection is closed at once, unserved.
TEST_F(HttpListenerTest, ConnectionsPastTheQueueAreClosedAtOnce) {
  farm::HttpListener::Options o;
  o.threads = 1;
  o.max_queued = 2;
  o.deadline = 30000ms;
  farm::HttpListener listener(routes_, "127.0.0.1", 0, o);
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) {  // one served (stuck in its header), two queued
    held.push_back(connect_loopback(listener.port()));
    ASSERT_GE(held.back(), 0);
    std::this_thread::sleep_for(100ms);
  }
  const int extra = connect_loopback(listener.port());
  ASSERT_GE(extra, 0);
  EXPECT_TRUE(closed_by_server(extra, 5000ms));
  EXPECT_EQ(listener.refused(), 1u);
  for (int fd : held) EXPECT_FALSE(closed_by_server(fd, 100ms));
  for (int fd : held) close(fd);
  close(extra);
}

// A client (127.0.0.2) holding two threads with connections that send nothing, which is its
// share: its further connections, complete requests, wait in the queue although threads are
// free, while another client (127.0.0.1) is answered at once; its share of the queue is two, so
// a fifth connection is closed at once. When its stuck connections end, the waiting ones are
// answered: queued, never dropped. (Before, the silent connections and then the waiting ones
// took every thread, and the other client waited for the silent ones' deadline.)
TEST_F(HttpListenerTest, OneClientIsServedOnItsShareOfThreadsAndQueue) {
  farm::HttpListener::Options o;
  o.threads = 3;
  o.threads_per_client = 2;
  o.queued_per_client = 2;
  o.deadline = 30000ms;
  o.io_timeout = 30000ms;
  farm::HttpListener listener(routes_, "127.0.0.1", 0, o);
  std::vector<int> stuck, waiting;
  for (int i = 0; i < 2; ++i) {
    stuck.push_back(connect_loopback(listener.port(), "127.0.0.2"));
    ASSERT_GE(stuck.back(), 0);
  }
  std::this_thread::sleep_for(200ms);  // both taken by threads, reading a header that never comes
  for (int i = 0; i < 2; ++i) {
    waiting.push_back(connect_loopback(listener.port(), "127.0.0.2"));
    ASSERT_GE(waiting.back(), 0);
    ASSERT_EQ(send(waiting.back(), kRequest.data(), kRequest.size(), MSG_NOSIGNAL), ssize_t(kRequest.size()));
  }
  const int over = connect_loopback(listener.port(), "127.0.0.2");
  ASSERT_GE(over, 0);
  EXPECT_TRUE(closed_by_server(over, 5000ms)) << "a connection past the client's share of the queue";
  EXPECT_EQ(listener.refused(), 1u);
  for (int fd : waiting) EXPECT_EQ(status_line(fd, 300ms), "") << "served past the client's share of threads";

  const auto t0 = Clock::now();
  auto r = get(listener.port(), "/hello");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->body, "hello 127.0.0.1");
  EXPECT_LT(Clock::now() - t0, 5s);

  for (int fd : stuck) close(fd);
  for (int fd : waiting) {
    EXPECT_EQ(status_line(fd, 5000ms), "HTTP/1.1 200 OK") << "a queued connection of the client was lost";
    close(fd);
  }
  close(over);
}

// Stopping with slow clients connected (one being served, others queued) returns at once, not
// after their deadline.
TEST_F(HttpListenerTest, StopsPromptlyWithSlowClientsConnected) {
  farm::HttpListener::Options o;
  o.threads = 1;
  o.deadline = 60000ms;
  std::vector<int> fds;
  auto t0 = Clock::now();
  {
    farm::HttpListener listener(routes_, "127.0.0.1", 0, o);
    for (int i = 0; i < 3; ++i) fds.push_back(connect_loopback(listener.port()));
    std::this_thread::sleep_for(200ms);
    t0 = Clock::now();
  }
  EXPECT_LT(Clock::now() - t0, 5s);
  for (int fd : fds) {
    EXPECT_TRUE(closed_by_server(fd, 1000ms));
    close(fd);
  }
}

}  // namespace
}  // namespace zkmill::test
