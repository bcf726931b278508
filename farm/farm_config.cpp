// SPDX-License-Identifier: MIT
// YAML -> FarmConfig. The farm sections are read here; the rest of the document goes through
// util::parse_config, so log/threads keep their one strict parser.
#include "farm/farm_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <vector>

namespace zkmill::farm {

namespace {

using util::ConfigError;

// One farm mapping: typed getters that remember consumed keys, then reject_unknown().
class FarmSection {
 public:
  FarmSection(YAML::Node node, std::string path, std::string source)
      : node_(std::move(node)), path_(std::move(path)), source_(std::move(source)) {
    if (node_.IsDefined() && !node_.IsNull() && !node_.IsMap())
      fail("key '" + path_ + "' must be a mapping (a section of keys)");
  }
  [[noreturn]] void fail(const std::string& what) const { throw ConfigError(source_ + ": " + what); }
  std::string key(const std::string& n) const { return path_ + "." + n; }

  YAML::Node take(const std::string& n) {
    seen_.insert(n);
    if (!node_.IsDefined() || node_.IsNull()) return YAML::Node();
    const YAML::Node& m = node_;
    return m[n];
  }
  void str(const std::string& n, std::string& out) {
    YAML::Node v = take(n);
    if (!v.IsDefined() || v.IsNull()) return;
    if (!v.IsScalar()) fail("key '" + key(n) + "' must be a string");
    out = v.Scalar();
  }
  template <class T>
  void num(const std::string& n, T& out, T min, T max) {
    YAML::Node v = take(n);
    if (!v.IsDefined() || v.IsNull()) return;
    const std::string bad =
        "key '" + key(n) + "' must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (!v.IsScalar()) fail(bad);
    const std::string& s = v.Scalar();
    T x{};
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || x < min || x > max)
      fail(bad + " (got '" + s + "')");
    out = x;
  }
  void str_list(const std::string& n, std::vector<std::string>& out) {
    YAML::Node v = take(n);
    if (!v.IsDefined() || v.IsNull()) return;
    if (!v.IsSequence()) fail("key '" + key(n) + "' must be a list of strings");
    out.clear();
    for (const auto& e : v) {
      if (!e.IsScalar()) fail("key '" + key(n) + "' must be a list of strings");
      out.push_back(e.Scalar());
    }
  }
  void boolean(const std::string& n, bool& out) {
    YAML::Node v = take(n);
    if (!v.IsDefined() || v.IsNull()) return;
    if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false"))
      fail("key '" + key(n) + "' must be true or false");
    out = v.Scalar() == "true";
  }
  void reject_unknown() const {
    if (!node_.IsDefined() || node_.IsNull()) return;
    for (const auto& kv : node_)
      if (!seen_.count(kv.first.Scalar())) fail("unknown key '" + key(kv.first.Scalar()) + "'");
  }

 private:
  YAML::Node node_;
  std::string path_, source_;
  std::set<std::string> seen_;
};

void check_endpoint(FarmSection& s, const std::string& name, const std::string& v) {
  if (v.rfind("tcp://", 0) != 0 && v.rfind("ipc://", 0) != 0 && v.rfind("inproc://", 0) != 0)
    s.fail("key '" + s.key(name) + "' must be a ZeroMQ endpoint (tcp://HOST:PORT or ipc://PATH), got '" + v + "'");
}

// HOST:PORT (an IPv6 host in brackets, [::1]:9464), the form the metrics HTTP server binds.
// Empty means off. A bare port would listen on every interface: say 0.0.0.0:PORT if meant.
void check_listen_address(FarmSection& s, const std::string& name, const std::string& v) {
  if (v.empty()) return;
  const size_t colon = v.rfind(':');
  const std::string host = colon == std::string::npos ? "" : v.substr(0, colon);
  const std::string port = colon == std::string::npos ? v : v.substr(colon + 1);
  unsigned p = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
  const bool host_ok = !host.empty() && (bracketed || host.find_first_of(":[]") == std::string::npos);
  if (!host_ok || port.empty() || ec != std::errc() || end != port.data() + port.size() || p < 1 || p > 65535)
    s.fail("key '" + s.key(name) + "' must be HOST:PORT with a port in [1, 65535] (e.g. 127.0.0.1:9464), got '" + v +
           "'");
}

void parse_redis(FarmSection s, RedisConfig& r) {
  s.str("host", r.host);
  s.num<uint32_t>("port", r.port, 1, 65535);
  s.str("unix_socket", r.unix_socket);
  s.str("user", r.user);
  s.str("password", r.password);
  s.num<uint32_t>("connect_timeout_ms", r.connect_timeout_ms, 1, 600000);
  s.num<uint32_t>("command_timeout_ms", r.command_timeout_ms, 1, 600000);
  if (!r.user.empty() && r.password.empty()) s.fail("key '" + s.key("user") + "' needs 'redis.password' too");
  s.str("tls_ca", r.tls_ca);
  s.str("tls_cert", r.tls_cert);
  s.str("tls_key", r.tls_key);
  s.str("tls_server_name", r.tls_server_name);
  if (r.tls_ca.empty() && (!r.tls_cert.empty() || !r.tls_key.empty() || !r.tls_server_name.empty()))
    s.fail("key '" +
           s.key(!r.tls_cert.empty()  ? "tls_cert"
                 : !r.tls_key.empty() ? "tls_key"
                                      : "tls_server_name") +
           "' needs 'redis.tls_ca' too (the CA that signs the server's certificate)");
  if (r.tls_cert.empty() != r.tls_key.empty())
    s.fail("key '" + s.key(r.tls_cert.empty() ? "tls_key" : "tls_cert") + "' needs 'redis." +
           (r.tls_cert.empty() ? "tls_cert" : "tls_key") + "' too");
  for (const auto& [k, path] : {std::pair<const char*, const std::string*>{"tls_ca", &r.tls_ca},
                                {"tls_cert", &r.tls_cert},
                                {"tls_key", &r.tls_key}})
    if (!path->empty() && !std::ifstream(*path)) s.fail("key '" + s.key(k) + "': cannot read '" + *path + "'");
  if (!r.tls_ca.empty() && !r.unix_socket.empty())
    s.fail("key '" + s.key("tls_ca") + "' and 'redis.unix_socket' exclude each other (TLS is for TCP)");
  s.str_list("sentinels", r.sentinels);
  for (const auto& a : r.sentinels) check_listen_address(s, "sentinels", a);
  s.str("master_name", r.master_name);
  s.str("sentinel_password", r.sentinel_password);
  if (!r.sentinels.empty() && r.master_name.empty())
    s.fail("key '" + s.key("sentinels") + "' needs 'redis.master_name' too");
  if (r.sentinels.empty() && !r.master_name.empty())
    s.fail("key '" + s.key("master_name") + "' needs 'redis.sentinels' too");
  if (!r.sentinels.empty() && !r.unix_socket.empty())
    s.fail("key '" + s.key("sentinels") + "' and 'redis.unix_socket' exclude each other");
  s.num<uint32_t>("min_replicas", r.min_replicas, 0, 100);
  s.num<uint32_t>("wait_timeout_ms", r.wait_timeout_ms, 1, 600000);
  s.reject_unknown();
}

void parse_coordinator(FarmSection s, CoordinatorConfig& c) {
  s.str("endpoint", c.endpoint);
  check_endpoint(s, "endpoint", c.endpoint);
  s.str("bind", c.bind);
  if (c.bind.empty()) c.bind = c.endpoint;
  check_endpoint(s, "bind", c.bind);
  s.num<uint32_t>("heartbeat_ms", c.heartbeat_ms, 10, 60000);
  s.num<uint32_t>("liveness", c.liveness, 2, 100);
  s.num<uint32_t>("dead_silence_ms", c.dead_silence_ms, 0, 3600000);
  s.num<uint32_t>("lease_ms", c.lease_ms, 100, 3600000);
  s.num<uint32_t>("max_attempts", c.max_attempts, 1, 1000);
  s.num<uint32_t>("backoff_ms", c.backoff_ms, 0, 3600000);
  s.num<uint32_t>("backoff_max_ms", c.backoff_max_ms, 0, 3600000);
  s.num<uint32_t>("synth_lookahead", c.synth_lookahead, 1, 1000);
  s.str("metrics_listen", c.metrics_listen);
  check_listen_address(s, "metrics_listen", c.metrics_listen);
  s.str("api_token_file", c.api_token_file);
  s.num<uint32_t>("http_threads_per_client", c.http_threads_per_client, 1, 8);
  s.num<uint32_t>("max_witness_mb", c.max_witness_mb, 1, 64);
  s.boolean("standby", c.standby);
  s.num<uint32_t>("verify_threads", c.verify_threads, 0, 64);
  s.num<uint32_t>("verify_batch_window_us", c.verify_batch_window_us, 0, 10000000);
  s.num<uint32_t>("verify_batch_max", c.verify_batch_max, 1, 4096);
  s.boolean("final_check_all", c.final_check_all);
  s.num<uint32_t>("max_worker_slots", c.max_worker_slots, 1, 64);
  s.num<uint32_t>("retention_s", c.retention_s, 0, 10 * 366 * 24 * 3600);
  s.num<uint32_t>("worker_failure_limit", c.worker_failure_limit, 0, 1000);
  s.num<uint32_t>("worker_pause_ms", c.worker_pause_ms, 100, 3600000);
  s.str_list("standby_endpoints", c.standby_endpoints);
  for (const auto& e : c.standby_endpoints) check_endpoint(s, "standby_endpoints", e);
  // A lease shorter than the dead-peer window would requeue work of workers that are alive.
  if (uint64_t(c.lease_ms) < uint64_t(c.heartbeat_ms) * 2)
    s.fail("key '" + s.key("lease_ms") + "' must be at least twice coordinator.heartbeat_ms");
  s.reject_unknown();
}

void parse_worker(FarmSection s, WorkerConfig& w) {
  s.str("key_dir", w.key_dir);
  s.str("bundle_bind", w.bundle_bind);
  check_endpoint(s, "bundle_bind", w.bundle_bind);
  s.str("id", w.id);
  if (w.id.size() > 128) s.fail("key '" + s.key("id") + "' must be at most 128 characters");
  s.num<uint32_t>("cores", w.cores, 0, 1u << 20);
  s.num<uint64_t>("memory_mb", w.memory_mb, 0, uint64_t(1) << 40);
  s.num<uint32_t>("max_held_bundles", w.max_held_bundles, 1, 100000);
  s.num<uint32_t>("drain_hold_s", w.drain_hold_s, 0, 86400);
  s.num<uint32_t>("key_rescan_s", w.key_rescan_s, 0, 86400);
  s.num<uint32_t>("prefetch", w.prefetch, 0, 16);
  s.num<uint32_t>("lookahead", w.lookahead, 0, 16);
  s.str("bundle_kind", w.bundle_kind);
  if (w.bundle_kind != "witness" && w.bundle_kind != "full")
    s.fail("key '" + s.key("bundle_kind") + "' must be 'witness' or 'full', got '" + w.bundle_kind + "'");
  s.num<uint64_t>("max_bundle_mb", w.max_bundle_mb, 1, uint64_t(1) << 30);
  s.num<uint64_t>("zkey_cache_mb", w.zkey_cache_mb, 0, uint64_t(1) << 30);
  s.boolean("pce", w.pce);
  s.boolean("gpu_pce", w.gpu_pce);
  s.reject_unknown();
}

void parse_zmq(FarmSection s, ZmqConfig& z) {
  s.boolean("curve", z.curve);
  s.str("key_file", z.key_file);
  s.str("coordinator_public_key_file", z.coordinator_public_key_file);
  s.str("allowed_keys_file", z.allowed_keys_file);
  s.num<uint32_t>("max_message_kb", z.max_message_kb, 1, 65536);
  s.boolean("insecure", z.insecure);
  s.reject_unknown();
}

}  // namespace

FarmConfig parse_farm_config(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = util::load_yaml(yaml_text, source);
  FarmConfig cfg;
  cfg.source = source;
  if (!root.IsDefined() || root.IsNull()) {
    cfg.coordinator.bind = cfg.coordinator.endpoint;
    return cfg;
  }
  if (!root.IsMap()) throw ConfigError(source + ": the top level must be a mapping of keys to values");
  parse_redis(FarmSection(root["redis"], "redis", source), cfg.redis);
  parse_coordinator(FarmSection(root["coordinator"], "coordinator", source), cfg.coordinator);
  parse_worker(FarmSection(root["worker"], "worker", source), cfg.worker);
  parse_zmq(FarmSection(root["zmq"], "zmq", source), cfg.zmq);
  // The rest (log, threads, and anything unknown) is util::Config's to judge.
  YAML::Node rest(YAML::NodeType::Map);
  for (const auto& kv : root) {
    const std::string k = kv.first.Scalar();
    if (k != "redis" && k != "coordinator" && k != "worker" && k != "zmq") rest[k] = kv.second;
  }
  YAML::Emitter em;
  em << rest;
  cfg.base = util::parse_config(em.c_str(), source);
  return cfg;
}

FarmConfig load_farm_config(const std::string& path) { return parse_farm_config(util::read_config_file(path), path); }

}  // namespace zkmill::farm

#include <arpa/inet.h>
#include <spdlog/spdlog.h>

#include "common/util/log.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::farm {

bool is_loopback_endpoint(const std::string& endpoint) {
  if (endpoint.rfind("ipc://", 0) == 0 || endpoint.rfind("inproc://", 0) == 0) return true;
  if (endpoint.rfind("tcp://", 0) != 0) return false;
  std::string addr = endpoint.substr(6);
  if (const size_t semi = addr.find(';'); semi != std::string::npos) addr = addr.substr(semi + 1);
  const size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = addr.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost" || host == "lo") return true;
  unsigned char b[16];
  if (inet_pton(AF_INET, host.c_str(), b) == 1) return b[0] == 127;
  if (inet_pton(AF_INET6, host.c_str(), b) == 1) {
    static const unsigned char kLoop6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return std::equal(b, b + 16, kLoop6) || (std::equal(b, b + 12, kMapped) && b[12] == 127);
  }
  return false;  // a host or interface name, or `*`: may be reachable from other hosts
}

void check_exposure(const FarmConfig& cfg, FarmRole role, bool serves_bundles) {
  if (cfg.zmq.curve) return;
  std::vector<std::pair<const char*, const std::string*>> used;
  if (role == FarmRole::kCoordinator) {
    used.push_back({"coordinator.bind", &cfg.coordinator.bind});
  } else {
    used.push_back({"coordinator.endpoint", &cfg.coordinator.endpoint});
    for (const auto& e : cfg.coordinator.standby_endpoints) used.push_back({"coordinator.standby_endpoints", &e});
    if (serves_bundles) used.push_back({"worker.bundle_bind", &cfg.worker.bundle_bind});
  }
  const std::string file = cfg.source.empty() ? "(defaults)" : cfg.source;
  for (const auto& [key, value] : used) {
    if (is_loopback_endpoint(*value)) continue;
    if (cfg.zmq.insecure) {
      spdlog::warn(
          "{}: INSECURE: '{}' is {}, beyond loopback, without CURVE (zmq.insecure: true): anyone on that "
          "network can read and forge farm traffic",
          file, key, *value);
      continue;
    }
    throw util::ConfigError(file + ": key '" + key + "' is " + *value +
                            ", reachable from other hosts, but zmq.curve is off: turn CURVE on (docs/farm.md, "
                            "\"Encryption and authentication\"), or set zmq.insecure: true to allow plaintext");
  }
}

std::vector<std::string> plaintext_redis_warnings(const FarmConfig& cfg) {
  const RedisConfig& r = cfg.redis;
  if (!r.tls_ca.empty() || !r.unix_socket.empty()) return {};
  std::vector<std::pair<std::string, std::string>> used;  // key, HOST:PORT
  if (r.sentinels.empty()) {
    const bool v6 = r.host.find(':') != std::string::npos;
    used.push_back({"redis.host", (v6 ? "[" + r.host + "]" : r.host) + ":" + std::to_string(r.port)});
  }
  for (const auto& s : r.sentinels) used.push_back({"redis.sentinels", s});
  std::vector<std::string> out;
  for (const auto& [key, addr] : used)
    if (!is_loopback_endpoint("tcp://" + addr))
      out.push_back((cfg.source.empty() ? std::string("(defaults)") : cfg.source) + ": '" + key + "' is " + addr +
                    ", beyond loopback, without TLS: the farm's state" +
                    (r.password.empty() && r.sentinel_password.empty() ? " crosses" : " and the Redis password cross") +
                    " the network unencrypted (set redis.tls_ca: docs/farm-encryption.md, \"Redis over "
                    "TLS\")");
  return out;
}

FarmConfig load_command_config(const std::string& path, const std::string& cli_level) {
  FarmConfig cfg = path.empty() ? parse_farm_config("", "(defaults)") : load_farm_config(path);
  util::init_logging(cli_level.empty() ? cfg.base.log.level : cli_level, cfg.base.log.file);
  try {
    util::ThreadPool::set_global_threads(cfg.base.threads);
  } catch (const std::logic_error&) {
    // The pool was already sized (by main, from the same default): nothing to change.
  }
  return cfg;
}

}  // namespace zkmill::farm
