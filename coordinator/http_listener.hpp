// SPDX-License-Identifier: MIT
// The HTTP listener of the coordinator's API: it accepts connections itself and serves each one
// request of a cpp-httplib route table (HttpRoutes) on a fixed pool of threads, within a
// deadline from the moment the connection was accepted.
//
// Why not cpp-httplib's own listen(): its timeouts are per read and per write (Debian 12 has
// 0.11), so a client that trickles a request header one byte every few seconds holds a thread
// for as long as it likes, and a few dozen of them made the API and /metrics unresponsive. Here
// every read and write waits at most until the request's deadline (Options::deadline), so such
// a client is cut off when it runs out and the thread serves the next connection; connections
// wait for a thread in a bounded queue (Options::max_queued; past it one is closed at once),
// and the deadline counts from the accept, so a queue filled by slow clients drains within one
// deadline. One request per connection (the answer says `Connection: close`): a slow client
// cannot keep a thread across requests either. Readiness is polled (poll(2)), not select(2):
// no limit on the descriptor number.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace zkmill::farm {

// A cpp-httplib route table (Get, Post, handlers) that HttpListener serves one request at a
// time from a stream it gives (process_request is protected in httplib::Server).
class HttpRoutes : public httplib::Server {
 public:
  // Reads one request from `stream`, routes it and writes the answer (with Connection: close).
  // False when no request could be read (the peer closed, or its deadline passed first).
  bool serve_one(httplib::Stream& stream) {
    bool closed = true;
    return process_request(stream, /*close_connection=*/true, closed, nullptr);
  }
};

class HttpListener {
 public:
  struct Options {
    size_t threads = 8;                          // requests served at once
    size_t max_queued = 64;                      // accepted connections waiting for a thread
    std::chrono::milliseconds deadline{10000};   // a request's whole time, from its accept
    std::chrono::milliseconds io_timeout{5000};  // the longest wait for any one read or write
  };

  // Binds host:port (an IPv4 or IPv6 address or name; port 0: any free port) and starts
  // serving `routes`, which must outlive this. Throws std::runtime_error when it cannot listen.
  HttpListener(HttpRoutes& routes, const std::string& host, int port, Options opts);
  // Stops accepting, cuts the connections in flight or queued, and joins every thread.
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  int port() const { return port_; }
  // Connections closed unserved so far: the queue was full, or their deadline passed first.
  uint64_t refused() const { return refused_.load(); }

 private:
  struct Accepted {
    int fd;
    std::chrono::steady_clock::time_point deadline;
  };
  void accept_loop();
  void serve_loop();

  HttpRoutes& routes_;
  const Options opts_;
  int listen_fd_ = -1, wake_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> refused_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Accepted> queue_;
  std::set<int> serving_;  // connections being served: cut (shutdown) on stop
  std::thread acceptor_;
  std::vector<std::thread> servers_;
};

}  // namespace zkmill::farm
