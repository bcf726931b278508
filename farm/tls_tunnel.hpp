// SPDX-License-Identifier: MIT
// TLS to a Redis server (its `tls-port`) for hiredis 0.14, the version Debian 12 ships, which
// has no TLS of its own. A TlsTunnel connects, completes the handshake with OpenSSL (the server
// must chain to the configured CA and name the host asked for), then hands hiredis one end of a
// socketpair and moves bytes between that end and the TLS session on a thread of its own until
// either side closes. hiredis 1.x's redisInitiateSSL would make it unnecessary.
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace zkmill::farm {

// What redis.tls_* say (docs/config.md): the CA that signs the server's certificate, the
// client's own certificate and key (for servers with `tls-auth-clients yes`, Redis's default),
// and the name to check the server's certificate against when it is not the host connected to.
struct TlsOptions {
  std::string ca_file;
  std::string cert_file;  // empty: no client certificate
  std::string key_file;
  std::string server_name;  // empty: the host (a DNS name or an IP address) connected to
};

// A bad CA, certificate or key file: a configuration error, said with the key and the file.
class TlsConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The client's SSL_CTX, loaded once from TlsOptions and shared by its connections: TLS 1.2 or
// later, the peer verified against ca_file only (not the system's store: a farm's Redis has a
// CA of its own). Throws TlsConfigError.
class TlsContext {
 public:
  explicit TlsContext(TlsOptions options);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const { return ctx_; }
  const TlsOptions& options() const { return options_; }

 private:
  TlsOptions options_;
  SSL_CTX* ctx_ = nullptr;
};

class TlsTunnel {
 public:
  struct Opened {
    std::unique_ptr<TlsTunnel> tunnel;  // null when it failed
    std::string error;                  // why, e.g. "TLS: server certificate refused: ..."
    bool timed_out = false;             // the TCP connect or the handshake ran out of time
    bool refused = false;               // the server's certificate failed verification
  };
  // Connects to host:port and completes the handshake, both within timeout_ms.
  static Opened open(const TlsContext& ctx, const std::string& host, int port, uint32_t timeout_ms);
  // Stops the pump (the TLS socket shut down, the thread joined).
  ~TlsTunnel();
  TlsTunnel(const TlsTunnel&) = delete;
  TlsTunnel& operator=(const TlsTunnel&) = delete;

  // The socketpair's other end, for hiredis (redisConnectFd), which closes it; once only.
  int release_client_fd();
  // Why the TLS session ended, when it failed rather than closed (e.g. the server's alert
  // "tlsv13 alert certificate required"); "" while it runs or after a clean close.
  std::string failure() const;

 private:
  TlsTunnel(SSL* ssl, int tcp_fd, int local_fd, int client_fd);
  void pump();

  SSL* ssl_;
  int tcp_fd_;
  int local_fd_;   // the pump's end of the socketpair (non-blocking)
  int client_fd_;  // hiredis's end until released
  mutable std::mutex mu_;
  std::string failure_;
  std::thread thread_;
};

}  // namespace zkmill::farm
