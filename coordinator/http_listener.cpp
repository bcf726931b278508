// SPDX-License-Identifier: MIT
// HttpListener: the accept loop, the serving threads and the deadline-bound stream.
#include "coordinator/http_listener.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "farm/socket_address.hpp"

namespace zkmill::farm {

namespace {

using Clock = std::chrono::steady_clock;

// One connection as cpp-httplib reads and writes it: every wait ends at the request's
// deadline (or after the I/O timeout, whichever comes first), and then the read or write fails,
// which ends the request. Reads are buffered: the request line and headers are read a byte at
// a time.
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int fd, Clock::time_point deadline, std::chrono::milliseconds io_timeout)
      : fd_(fd), deadline_(deadline), io_timeout_(io_timeout) {}

  bool is_readable() const override { return off_ < len_ || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* ptr, size_t size) override {
    if (off_ == len_) {
      if (size >= sizeof buf_) return io(POLLIN, [&] { return ::recv(fd_, ptr, size, 0); });
      const ssize_t n = io(POLLIN, [&] { return ::recv(fd_, buf_, sizeof buf_, 0); });
      if (n <= 0) return n;
      off_ = 0;
      len_ = size_t(n);
    }
    const size_t n = std::min(size, len_ - off_);
    std::memcpy(ptr, buf_ + off_, n);
    off_ += n;
    return ssize_t(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    return io(POLLOUT, [&] { return ::send(fd_, ptr, size, MSG_NOSIGNAL); });
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { take(peer_address(fd_), ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { take(local_address(fd_), ip, port); }
  socket_t socket() const override { return fd_; }

 private:
  // `call` (a recv or send on the non-blocking socket) once the socket is ready for `events`;
  // -1 when the deadline or the I/O timeout comes first.
  template <class Call>
  ssize_t io(short events, Call&& call) const {
    for (;;) {
      if (!wait(events)) return -1;
      const ssize_t n = call();
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      return n;
    }
  }
  // Whether the socket became ready for `events` before the deadline and the I/O timeout.
  bool wait(short events) const {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
      const auto ms = std::min(left, io_timeout_).count();
      if (ms <= 0) return false;
      pollfd p{fd_, events, 0};
      const int r = ::poll(&p, 1, int(ms));
      if (r < 0 && errno == EINTR) continue;
      return r > 0;
    }
  }
  static void take(const std::optional<SocketAddress>& a, std::string& ip, int& port) {
    ip = a ? a->host : std::string();
    port = a ? a->port : 0;
  }

  int fd_;
  Clock::time_point deadline_;
  std::chrono::milliseconds io_timeout_;
  char buf_[4096];
  size_t off_ = 0, len_ = 0;
};

// Whom a connection counts against: the IPv4 address, or the /64 of an IPv6 one (a host is
// usually given a whole /64; an IPv4-mapped address is its IPv4 one). Raw bytes, a map key.
std::string client_of(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(ss).sin_addr;
    return std::string(reinterpret_cast<const char*>(&a), 4);
  }
  if (ss.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr;
    const char* b = reinterpret_cast<const char*>(a.s6_addr);
    if (IN6_IS_ADDR_V4MAPPED(&a)) return std::string(b + 12, 4);
    return std::string(b, 8);
  }
  return {};
}

// A listening socket on host:port, or -1 with `why` set.
int listen_on(const std::string& host, int port, std::string* why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int e = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found); e != 0) {
    *why = gai_strerror(e);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR lets a restarted coordinator bind at once; no SO_REUSEPORT, which would let
    // a second coordinator bind the same address and share the requests.
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      *why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

HttpListener::HttpListener(HttpRoutes& routes, const std::string& host, int port, Options opts)
    : routes_(routes), opts_(opts) {
  std::string why;
  listen_fd_ = listen_on(host, port, &why);
  if (listen_fd_ < 0) throw std::runtime_error(why);
  port_ = local_address(listen_fd_).value_or(SocketAddress{}).port;
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  }
  for (size_t i = 0; i < std::max<size_t>(1, opts_.threads); ++i) servers_.emplace_back([this] { serve_loop(); });
  acceptor_ = std::thread([this] { accept_loop(); });
}

HttpListener::~HttpListener() {
  stopping_ = true;
  const uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof one) < 0) {
    // Cannot fail (the counter would have to be full); the acceptor polls with a timeout anyway.
  }
  acceptor_.join();
  {
    std::lock_guard lock(mu_);
    for (const Accepted& a : queue_) ::close(a.fd);
    queue_.clear();
    for (int fd : serving_) ::shutdown(fd, SHUT_RDWR);  // their reads and writes fail at once
  }
  cv_.notify_all();
  for (auto& t : servers_) t.join();
  ::close(listen_fd_);
  ::close(wake_fd_);
}

void HttpListener::accept_loop() {
  while (!stopping_) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(p, 2, 1000) <= 0 || !(p[0].revents & POLLIN)) continue;
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof peer;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      // EMFILE and the like: back off a little rather than spin on a connection we cannot take.
      if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    {
      std::lock_guard lock(mu_);
      std::string client = client_of(peer);
      ClientLoad& load = clients_[client];
      if (queue_.size() < opts_.max_queued && load.queued < std::max<size_t>(1, opts_.queued_per_client)) {
        ++load.queued;
        queue_.push_back({fd, Clock::now() + opts_.deadline, std::move(client)});
        cv_.notify_all();  // the one thread that may serve it need not be the one woken
        continue;
      }
      if (load.queued == 0 && load.serving == 0) clients_.erase(client);
    }
    ++refused_;  // the queue, or this client's share of it, full: closed unserved
    ::close(fd);
  }
}

void HttpListener::count_out(const std::string& client, bool serving) {
  const auto it = clients_.find(client);
  if (it == clients_.end()) return;
  --(serving ? it->second.serving : it->second.queued);
  if (it->second.queued == 0 && it->second.serving == 0) clients_.erase(it);
}

bool HttpListener::take_next(Accepted& a, Clock::time_point& next_expiry) {
  const auto now = Clock::now();
  const size_t share = std::max<size_t>(1, opts_.threads_per_client);
  next_expiry = Clock::time_point::max();
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (now >= it->deadline) {
      ++refused_;  // waited out its deadline in the queue
      ::close(it->fd);
      count_out(it->client, false);
      it = queue_.erase(it);
      continue;
    }
    ClientLoad& load = clients_[it->client];
    if (load.serving < share) {
      a = std::move(*it);
      queue_.erase(it);
      --load.queued;
      ++load.serving;
      return true;
    }
    next_expiry = std::min(next_expiry, it->deadline);
    ++it;
  }
  return false;
}

void HttpListener::serve_loop() {
  for (;;) {
    Accepted a;
    {
      std::unique_lock lock(mu_);
      for (;;) {
        if (stopping_) return;  // the destructor closes what is queued
        Clock::time_point next_expiry;
        if (take_next(a, next_expiry)) break;
        // Nothing servable: an empty queue, or only clients at their share of threads; woken by
        // a new connection or a finished one, or at the first deadline to close it.
        if (next_expiry == Clock::time_point::max())
          cv_.wait(lock);
        else
          cv_.wait_until(lock, next_expiry);
      }
      serving_.insert(a.fd);
    }
    DeadlineStream stream(a.fd, a.deadline, opts_.io_timeout);
    routes_.serve_one(stream);
    {
      std::lock_guard lock(mu_);
      serving_.erase(a.fd);
      count_out(a.client, true);
    }
    cv_.notify_all();  // that client's next connection may be served now
    ::close(a.fd);
  }
}

}  // namespace zkmill::farm
