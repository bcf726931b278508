// SPDX-License-Identifier: MIT
// The coordinator's one HTTP listener (coordinator.metrics_listen): Prometheus /metrics, the
// JSON API under /api/v1 (docs/api.md), /healthz and /readyz, and the live dashboard at /.
//
// It never touches the coordinator's event loop: requests are served by the listener's own
// threads (http_listener.hpp: 8, each request within 10 s of its accept), every Redis read or
// write goes through connections of this server's own (a small pool, one per concurrent
// request), and the only things shared with the loop are the Prometheus registry (atomic
// counters) and the start time. A slow or stalled client holds one thread until its request's
// deadline at most, never the loop.
//
// The JSON is produced by FarmClient, the same code `zkmill status --json` uses, so the API
// and the CLI always agree.
//
// Authentication: with coordinator.api_token_file set, /api/* and /metrics need
// `Authorization: Bearer <token>` (401 otherwise); /healthz, /readyz and the page at / (which
// holds no data) stay open for probes and browsers. Without a token, control requests (POST)
// are only accepted when the listener is a loopback address.
#pragma once

#include <prometheus/collectable.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "farm/farm_config.hpp"

namespace zkmill::farm {

class FarmClient;
class HttpListener;
class HttpRoutes;

class HttpApi {
 public:
  // Binds `cfg.coordinator.metrics_listen` and starts serving. `registry` is the coordinator's
  // own metrics; `started_ms` identifies this coordinator in zk:coordinator (readiness).
  // Throws std::runtime_error naming the key and address when it cannot listen there, or when
  // the token file cannot be read or is empty.
  HttpApi(const FarmConfig& cfg, std::shared_ptr<prometheus::Collectable> registry, uint64_t started_ms);
  ~HttpApi();
  HttpApi(const HttpApi&) = delete;
  HttpApi& operator=(const HttpApi&) = delete;

  int port() const { return port_; }

 private:
  class ClientPool;
  void routes();

  RedisConfig redis_;
  std::string token_;  // empty: no authentication
  bool loopback_ = false;
  uint64_t started_ms_;
  int port_ = 0;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::unique_ptr<ClientPool> pool_;
  std::unique_ptr<HttpRoutes> server_;
  std::unique_ptr<HttpListener> listener_;  // last: stops serving before the routes go
};

}  // namespace zkmill::farm
