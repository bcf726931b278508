// SPDX-License-Identifier: MIT
#include "farm/tls_tunnel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include "farm/sigpipe_blocked.hpp"

namespace zkmill::farm {

namespace {

// OpenSSL's queued errors, oldest first, as one line (and the queue emptied).
std::string ssl_errors() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "no detail from OpenSSL" : out;
}

bool is_ip_address(const std::string& h) {
  unsigned char a[16];
  return inet_pton(AF_INET, h.c_str(), a) == 1 || inet_pton(AF_INET6, h.c_str(), a) == 1;
}

void set_nonblocking(int fd, bool on) {
  const int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

void set_io_timeout(int fd, uint32_t ms) {
  const timeval tv{time_t(ms / 1000), suseconds_t((ms % 1000) * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// A TCP connection to host:port within timeout_ms (each address in turn, as getaddrinfo gives
// them); -1 with `error` and `timed_out` set when none answered.
int tcp_connect(const std::string& host, int port, uint32_t timeout_ms, std::string& error, bool& timed_out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res); rc != 0) {
    error = std::string("cannot resolve host: ") + gai_strerror(rc);
    return -1;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int fd = -1;
  for (addrinfo* ai = res; ai && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    set_nonblocking(fd, true);
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, int(std::max<int64_t>(left.count(), 0)));
      if (rc == 0) {
        timed_out = true;
        errno = ETIMEDOUT;
        rc = -1;
      } else if (rc > 0) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        errno = err;
        rc = err == 0 ? 0 : -1;
      }
    }
    if (rc != 0) {
      error = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd >= 0) set_nonblocking(fd, false);
  return fd;
}

void require_readable(const std::string& key, const std::string& path) {
  if (!std::ifstream(path)) throw TlsConfigError(key + " '" + path + "': cannot read it");
}

}  // namespace

TlsContext::TlsContext(TlsOptions options) : options_(std::move(options)) {
  require_readable("redis.tls_ca", options_.ca_file);
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (!ctx_) throw TlsConfigError("TLS: cannot create a context: " + ssl_errors());
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  // Off, so that a record other than data (a TLS 1.3 session ticket) returns control to the
  // pump instead of blocking it in SSL_read while the client waits to send.
  SSL_CTX_clear_mode(ctx_, SSL_MODE_AUTO_RETRY);
  auto fail = [&](const std::string& what) {
    const std::string detail = ssl_errors();
    SSL_CTX_free(ctx_);
    throw TlsConfigError(what + ": " + detail);
  };
  if (SSL_CTX_load_verify_locations(ctx_, options_.ca_file.c_str(), nullptr) != 1)
    fail("redis.tls_ca '" + options_.ca_file + "': no CA certificate could be loaded");
  if (!options_.cert_file.empty()) {
    require_readable("redis.tls_cert", options_.cert_file);
    require_readable("redis.tls_key", options_.key_file);
    if (SSL_CTX_use_certificate_chain_file(ctx_, options_.cert_file.c_str()) != 1)
      fail("redis.tls_cert '" + options_.cert_file + "': not a PEM certificate");
    if (SSL_CTX_use_PrivateKey_file(ctx_, options_.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
      fail(ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH
               ? "redis.tls_key '" + options_.key_file + "' does not match redis.tls_cert '" + options_.cert_file + "'"
               : "redis.tls_key '" + options_.key_file + "': not a PEM private key");
    if (SSL_CTX_check_private_key(ctx_) != 1)
      fail("redis.tls_key '" + options_.key_file + "' does not match redis.tls_cert '" + options_.cert_file + "'");
  }
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsTunnel::Opened TlsTunnel::open(const TlsContext& ctx, const std::string& host, int port, uint32_t timeout_ms) {
  Opened out;
  const int fd = tcp_connect(host, port, timeout_ms, out.error, out.timed_out);
  if (fd < 0) return out;
  set_io_timeout(fd, timeout_ms);  // the handshake's bound
  SSL* ssl = SSL_new(ctx.get());
  ERR_clear_error();
  const std::string& name = ctx.options().server_name.empty() ? host : ctx.options().server_name;
  if (is_ip_address(name)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl, name.c_str());
    SSL_set1_host(ssl, name.c_str());
  }
  SSL_set_fd(ssl, fd);
  errno = 0;
  int rc = 0;
  int connect_errno = 0;
  {
    SigpipeBlocked no_sigpipe;
    rc = SSL_connect(ssl);
    connect_errno = errno;
  }
  if (rc != 1) {
    const int err = SSL_get_error(ssl, rc);
    const long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) {
      out.refused = true;
      out.error = "TLS: the server's certificate was refused (" + std::string(X509_verify_cert_error_string(verify)) +
                  "; expected one from redis.tls_ca for '" + name + "')";
    } else if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE ||
               (err == SSL_ERROR_SYSCALL && (connect_errno == EAGAIN || connect_errno == EWOULDBLOCK))) {
      // SO_RCVTIMEO ran out: OpenSSL takes EAGAIN on a blocking socket for "try again".
      out.timed_out = true;
      out.error = "TLS handshake timed out (is it a TLS port?)";
    } else if (err == SSL_ERROR_SYSCALL || err == SSL_ERROR_ZERO_RETURN) {
      out.error =
          "the server closed the connection during the TLS handshake (a client certificate it does not "
          "accept, or not a TLS port)";
      ERR_clear_error();
    } else {
      out.error = "TLS handshake failed: " + ssl_errors();
    }
    SSL_free(ssl);
    ::close(fd);
    return out;
  }
  set_io_timeout(fd, 0);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    out.error = std::string("socketpair: ") + std::strerror(errno);
    SSL_free(ssl);
    ::close(fd);
    return out;
  }
  set_nonblocking(sv[0], true);
  out.tunnel.reset(new TlsTunnel(ssl, fd, sv[0], sv[1]));
  return out;
}

TlsTunnel::TlsTunnel(SSL* ssl, int tcp_fd, int local_fd, int client_fd)
    : ssl_(ssl), tcp_fd_(tcp_fd), local_fd_(local_fd), client_fd_(client_fd) {
  thread_ = std::thread([this] { pump(); });
}

TlsTunnel::~TlsTunnel() {
  // Wakes the pump wherever it waits (poll, or SSL_read on a record that never completes).
  ::shutdown(tcp_fd_, SHUT_RDWR);
  ::shutdown(local_fd_, SHUT_RDWR);
  thread_.join();
  SSL_free(ssl_);
  ::close(tcp_fd_);
  ::close(local_fd_);
  if (client_fd_ >= 0) ::close(client_fd_);
}

std::string TlsTunnel::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

int TlsTunnel::release_client_fd() {
  const int fd = client_fd_;
  client_fd_ = -1;
  return fd;
}

// Moves bytes both ways until either side closes. What the server sends is buffered here
// without bound while the client is not reading (as Redis buffers its replies), so a client
// that writes a long pipeline before it reads can never stall against its own replies;
// what the client sends goes out with blocking writes (Redis reads while it answers).
void TlsTunnel::pump() {
  SigpipeBlocked no_sigpipe;
  std::string to_client;
  char buf[16384];
  for (;;) {
    pollfd p[2] = {{local_fd_, short(POLLIN | (to_client.empty() ? 0 : POLLOUT)), 0}, {tcp_fd_, POLLIN, 0}};
    // Decrypted bytes OpenSSL holds already do not show on the socket: do not wait for them.
    if (::poll(p, 2, SSL_pending(ssl_) > 0 ? 0 : -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (SSL_pending(ssl_) > 0 || (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      const int n = SSL_read(ssl_, buf, sizeof buf);
      if (n > 0) {
        to_client.append(buf, size_t(n));
      } else {
        const int e = SSL_get_error(ssl_, n);
        if (e == SSL_ERROR_SSL) {
          std::lock_guard<std::mutex> lock(mu_);
          failure_ = ssl_errors();
        }
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) break;  // closed, or the session failed
      }
    }
    if (!to_client.empty()) {
      const ssize_t n = ::send(local_fd_, to_client.data(), to_client.size(), MSG_NOSIGNAL);
      if (n > 0) to_client.erase(0, size_t(n));
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::recv(local_fd_, buf, sizeof buf, 0);
      if (n == 0) break;  // the client closed (redisFree)
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
      bool written = true;
      for (ssize_t off = 0; n > 0 && off < n && written;) {
        const int w = SSL_write(ssl_, buf + off, int(n - off));
        if (w > 0)
          off += w;
        else
          written = SSL_get_error(ssl_, w) == SSL_ERROR_WANT_WRITE || SSL_get_error(ssl_, w) == SSL_ERROR_WANT_READ;
      }
      if (!written) break;
    }
  }
  // What the server sent before it closed still reaches the client, then the client sees EOF.
  set_nonblocking(local_fd_, false);
  if (!to_client.empty()) ::send(local_fd_, to_client.data(), to_client.size(), MSG_NOSIGNAL);
  ::shutdown(local_fd_, SHUT_WR);
}

}  // namespace zkmill::farm
