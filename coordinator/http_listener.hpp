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
//
// One client cannot take the API either: the connections of one client (an IPv4 address, or an
// IPv6 /64, the block one host is usually given) are served on at most
// Options::threads_per_client threads at once; its other connections wait while other clients'
// are served (a thread takes the oldest connection whose client is under that share), and at
// most Options::queued_per_client of them wait (past that one is closed at once). So a host that
// opens many slow connections holds a few threads and a bounded part of the queue, and
// Prometheus, the dashboard and `zkmill` clients elsewhere are still answered.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
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
    size_t threads_per_client = 4;               // of `threads`, the most one client is served on
    size_t queued_per_client = 16;               // of `max_queued`, the most of one client's
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
  // Connections closed unserved so far: the queue (or the client's share of it) was full, or
  // their deadline passed first.
  uint64_t refused() const { return refused_.load(); }

 private:
  struct Accepted {
    int fd;
    std::chrono::steady_clock::time_point deadline;
    std::string client;  // the client's address bytes (IPv4, or an IPv6 /64)
  };
  struct ClientLoad {
    size_t queued = 0, serving = 0;
  };
  void accept_loop();
  void serve_loop();
  // Under mu_: takes the oldest queued connection whose client has a thread to spare, closing
  // the expired ones passed on the way; false when none can be served now (with `next_expiry`,
  // the earliest deadline of those left, to wait for).
  bool take_next(Accepted& a, std::chrono::steady_clock::time_point& next_expiry);
  void count_out(const std::string& client, bool serving);

  HttpRoutes& routes_;
  const Options opts_;
  int listen_fd_ = -1, wake_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> refused_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Accepted> queue_;
  std::map<std::string, ClientLoad> clients_;  // clients with connections queued or served
  std::set<int> serving_;                      // connections being served: cut (shutdown) on stop
  std::thread acceptor_;
  std::vector<std::thread> servers_;
};

}  // namespace zkmill::farm
