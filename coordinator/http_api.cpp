// SPDX-License-Identifier: MIT
// HttpApi: routes, authentication and the Redis connection pool (see http_api.hpp).
#include "coordinator/http_api.hpp"

#include <httplib.h>
#include <prometheus/text_serializer.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include "coordinator/dashboard.hpp"
#include "coordinator/farm_client.hpp"
#include "coordinator/farm_state_collector.hpp"
#include "coordinator/http_listener.hpp"

namespace zkmill::farm {

namespace {

// Requests served at once; each holds one listener thread and, while it reads Redis, one
// Redis connection. A stalled client holds its thread until its request's deadline at most.
constexpr size_t kThreads = 8;
constexpr std::chrono::seconds kRequestDeadline{10};
constexpr size_t kMaxJobsPerPage = 1000;

void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump() + "\n", "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, status, {{"error", message}});
}

// An optional non-negative integer query parameter in [lo, hi]; false (and a 400 sent) when
// it is malformed or out of range.
bool size_param(const httplib::Request& req, httplib::Response& res, const char* name, size_t lo, size_t hi,
                size_t& out) {
  if (!req.has_param(name)) return true;
  const std::string v = req.get_param_value(name);
  size_t x = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size() || x < lo || x > hi) {
    send_error(res, 400,
               std::string(name) + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return false;
  }
  out = x;
  return true;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]" || host == "::1";
}

// Comparison that takes as long whatever the first differing byte (no timing oracle for the token).
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= uint8_t(a[i]) ^ uint8_t(i < b.size() ? b[i] : 0);
  return diff == 0;
}

std::string read_token(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("coordinator.api_token_file: cannot read " + path);
  std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!token.empty() && std::isspace(uint8_t(token.back()))) token.pop_back();
  while (!token.empty() && std::isspace(uint8_t(token.front()))) token.erase(token.begin());
  if (token.empty()) throw std::runtime_error("coordinator.api_token_file: " + path + " is empty");
  if (token.find_first_of(" \t\r\n") != std::string::npos)
    throw std::runtime_error("coordinator.api_token_file: " + path + " must hold one token (no whitespace inside)");
  return token;
}

}  // namespace

// FarmClients (each with its own Redis connection), lent one per request. A client whose
// Redis call failed is dropped rather than returned, so the next request reconnects.
class HttpApi::ClientPool {
 public:
  explicit ClientPool(RedisConfig cfg) : cfg_(std::move(cfg)) {}

  template <class Fn>
  void with_client(httplib::Response& res, Fn&& fn) {
    std::unique_ptr<FarmClient> c;
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        c = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!c) c = std::make_unique<FarmClient>(cfg_);
    try {
      fn(*c);
    } catch (const std::invalid_argument& e) {
      send_error(res, 400, e.what());
    } catch (const RedisError& e) {
      send_error(res, 503, std::string("redis unavailable: ") + e.what());
      return;  // c is dropped
    } catch (const std::exception& e) {
      send_error(res, 500, e.what());
    }
    std::lock_guard lock(mu_);
    if (idle_.size() < kThreads) idle_.push_back(std::move(c));
  }

 private:
  RedisConfig cfg_;
  std::mutex mu_;
  std::vector<std::unique_ptr<FarmClient>> idle_;
};

HttpApi::HttpApi(const FarmConfig& cfg, std::shared_ptr<prometheus::Collectable> registry, uint64_t started_ms)
    : redis_(cfg.redis),
      started_ms_(started_ms),
      pool_(std::make_unique<ClientPool>(cfg.redis)),
      server_(std::make_unique<HttpRoutes>()) {
  const std::string& listen = cfg.coordinator.metrics_listen;
  if (!cfg.coordinator.api_token_file.empty()) token_ = read_token(cfg.coordinator.api_token_file);
  const size_t colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  int port = 0;
  std::from_chars(listen.data() + colon + 1, listen.data() + listen.size(), port);
  loopback_ = is_loopback(host);
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);

  collectables_ = {std::move(registry), std::make_shared<FarmStateCollector>(cfg.redis, 1000)};
  server_->set_payload_max_length(64 * 1024);  // no endpoint takes a body
  routes();
  HttpListener::Options lo;
  lo.threads = kThreads;
  lo.deadline = kRequestDeadline;
  lo.threads_per_client = std::min<size_t>(cfg.coordinator.http_threads_per_client, kThreads);
  lo.queued_per_client = 4 * lo.threads_per_client;
  try {
    listener_ = std::make_unique<HttpListener>(*server_, host, port, lo);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("coordinator.metrics_listen: cannot listen on " + listen + ": " + e.what() +
                             " (address in use, or not an address of this host)");
  }
  port_ = listener_->port();
  // The bound port (port 0 in the config: any free one).
  spdlog::info("coordinator: HTTP on http://{}:{}: /metrics, JSON API /api/v1 ({}), dashboard /",
               listen.substr(0, colon), port_, token_.empty() ? "no token" : "bearer token required");
  if (!loopback_ && token_.empty())
    spdlog::warn(
        "coordinator: {} is not a loopback address and coordinator.api_token_file is not set: the API is "
        "read-only from there (POST answers 403)",
        listen);
}

HttpApi::~HttpApi() = default;  // listener_ goes first (declared last): no request outlives the routes

void HttpApi::routes() {
  auto& s = *server_;
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const bool protected_path = req.path.rfind("/api/", 0) == 0 || req.path == "/metrics";
    if (!protected_path) return httplib::Server::HandlerResponse::Unhandled;
    if (!token_.empty()) {
      const std::string auth = req.get_header_value("Authorization");
      const std::string prefix = "Bearer ";
      if (auth.rfind(prefix, 0) != 0 || !same_secret(auth.substr(prefix.size()), token_)) {
        res.set_header("WWW-Authenticate", "Bearer realm=\"zkmill\"");
        send_error(res, 401, "missing or wrong bearer token (coordinator.api_token_file)");
        return httplib::Server::HandlerResponse::Handled;
      }
    } else if (req.method == "POST" && !loopback_) {
      send_error(res, 403, "control requests need coordinator.api_token_file on a non-loopback listener");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send_error(res, 500, "internal error");
  });
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) return send_error(res, 404, "no route for " + req.method + " " + req.path);
    // cpp-httplib answers 400 itself for a request it cannot read, e.g. a POST without
    // Content-Length (`curl -X POST` sends none; `curl -d ''` does).
    send_error(res, res.status,
               res.status == 400 ? "bad request (a POST needs a Content-Length header, 0 for no body)"
                                 : "HTTP " + std::to_string(res.status));
  });

  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::vector<prometheus::MetricFamily> families;
    for (const auto& c : collectables_) {
      auto f = c->Collect();
      families.insert(families.end(), std::make_move_iterator(f.begin()), std::make_move_iterator(f.end()));
    }
    res.set_content(prometheus::TextSerializer().Serialize(families), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) { send_json(res, 200, {{"status", "ok"}}); });
  s.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    pool_->with_client(res, [&](FarmClient& c) {
      auto co = c.coordinator();
      // Active: this coordinator's event loop published its summary within the summary's
      // expiry (a stalled loop lets it expire), and no other coordinator has replaced it.
      const bool active = co.is_object() && co.value("started_ms", uint64_t(0)) == started_ms_;
      send_json(res, active ? 200 : 503,
                {{"ready", active}, {"redis", true}, {"coordinator_active", active}, {"started_ms", started_ms_}});
    });
    if (res.status == 503 && res.body.find("redis unavailable") != std::string::npos)
      send_json(res, 503, {{"ready", false}, {"redis", false}, {"coordinator_active", false}});
  });
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_header("Content-Security-Policy",
                   "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
                   "img-src 'self' data:");
    res.set_content(std::string(dashboard_html()), "text/html; charset=utf-8");
  });

  s.Get("/api/v1/farm", [this](const httplib::Request& req, httplib::Response& res) {
    size_t recent = 20;
    if (!size_param(req, res, "recent", 0, kMaxJobsPerPage, recent)) return;
    pool_->with_client(res, [&](FarmClient& c) { send_json(res, 200, c.overview(recent)); });
  });
  s.Get("/api/v1/jobs", [this](const httplib::Request& req, httplib::Response& res) {
    size_t limit = 50;
    if (!size_param(req, res, "limit", 1, kMaxJobsPerPage, limit)) return;
    pool_->with_client(res, [&](FarmClient& c) {
      send_json(res, 200, c.jobs_page(req.get_param_value("state"), limit, req.get_param_value("cursor")));
    });
  });
  s.Get(R"(/api/v1/jobs/([A-Za-z0-9_.-]{1,64}))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    pool_->with_client(res, [&](FarmClient& c) {
      auto j = c.status(id);
      if (j.is_null()) return send_error(res, 404, c.no_job(id));
      send_json(res, 200, j);
    });
  });
  s.Get("/api/v1/workers", [this](const httplib::Request&, httplib::Response& res) {
    pool_->with_client(res, [&](FarmClient& c) { send_json(res, 200, c.workers()); });
  });
  s.Post(R"(/api/v1/jobs/([A-Za-z0-9_.-]{1,64})/cancel)", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    pool_->with_client(res, [&](FarmClient& c) {
      const std::string r = c.cancel(id);
      if (r.empty()) return send_error(res, 404, c.no_job(id));
      if (r != "cancelled") return send_json(res, 409, {{"error", "job " + id + " is already " + r}, {"state", r}});
      spdlog::info("coordinator: job {} cancelled through the HTTP API", id);
      send_json(res, 200, {{"job", id}, {"state", "cancelled"}});
    });
  });
  s.Post(R"(/api/v1/workers/([^/]{1,128})/drain)", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    pool_->with_client(res, [&](FarmClient& c) {
      if (!c.drain(id)) return send_error(res, 404, "no registered worker '" + id + "'");
      spdlog::info("coordinator: drain of worker {} requested through the HTTP API", id);
      send_json(res, 202, {{"worker", id}, {"drain", "requested"}});
    });
  });
}

}  // namespace zkmill::farm
