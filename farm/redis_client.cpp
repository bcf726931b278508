// SPDX-License-Identifier: MIT
// hiredis wrapper: connection, AUTH, reply conversion, pipelining and EVALSHA with reload.
#include "farm/redis_client.hpp"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <tuple>

namespace zkmill::farm {

namespace {

timeval to_timeval(uint32_t ms) { return timeval{time_t(ms / 1000), suseconds_t((ms % 1000) * 1000)}; }

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::Integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::String;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::Status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::Array;
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    case REDIS_REPLY_ERROR:
      throw RedisReplyError(std::string(r->str, r->len));
    default:
      break;
  }
  return out;
}

// hiredis 0.14 (Debian 12) reports a connect timeout as an I/O error with ETIMEDOUT's text;
// hiredis 1.x has an error code of its own for it.
bool connect_timed_out(const redisContext* c) {
  bool timed_out = c->err == REDIS_ERR_IO && std::string_view(c->errstr) == std::strerror(ETIMEDOUT);
#ifdef REDIS_ERR_TIMEOUT
  timed_out = timed_out || c->err == REDIS_ERR_TIMEOUT;
#endif
  return timed_out;
}

}  // namespace

long long RedisReply::as_int() const {
  if (type == Type::Integer) return integer;
  if (type == Type::Nil) return 0;
  try {
    return std::stoll(str);
  } catch (const std::exception&) {
    throw RedisError("redis: expected an integer, got '" + str + "'");
  }
}

std::map<std::string, std::string> RedisReply::as_map() const {
  std::map<std::string, std::string> m;
  for (size_t i = 0; i + 1 < elements.size(); i += 2) m[elements[i].as_string()] = elements[i + 1].as_string();
  return m;
}

void RedisClient::CtxFree::operator()(redisContext* c) const { redisFree(c); }

RedisClient::RedisClient(RedisConfig cfg) : cfg_(std::move(cfg)) {
  if (!cfg_.tls_ca.empty())
    tls_ = std::make_unique<TlsContext>(TlsOptions{cfg_.tls_ca, cfg_.tls_cert, cfg_.tls_key, cfg_.tls_server_name});
}
RedisClient::~RedisClient() = default;

void RedisClient::drop_connection() {
  ctx_.reset();
  tunnel_.reset();
}

std::string RedisClient::lost(const std::string& err) const {
  const std::string tls = tunnel_ ? tunnel_->failure() : std::string();
  return "redis: connection lost: " + err + (tls.empty() ? "" : " (TLS: " + tls + ")");
}

void RedisClient::disconnect() {
  drop_connection();
  where_.clear();
}

RedisClient::Connect RedisClient::connect_retrying(const std::string& host, int port) const {
  const timeval tv = to_timeval(cfg_.connect_timeout_ms);
  Connect out;
  for (out.attempts = 1;; ++out.attempts) {
    if (tls_ && !host.empty()) {
      TlsTunnel::Opened t = TlsTunnel::open(*tls_, host, port, cfg_.connect_timeout_ms);
      out.tls_error = t.error;
      out.tls_refused = t.refused;
      if (t.tunnel) {
        out.ctx.reset(redisConnectFd(t.tunnel->release_client_fd()));
        out.tunnel = std::move(t.tunnel);
        return out;
      }
      if (!t.timed_out || out.attempts >= cfg_.connect_attempts) return out;
      continue;
    }
    out.ctx.reset(host.empty() ? redisConnectUnixWithTimeout(cfg_.unix_socket.c_str(), tv)
                               : redisConnectWithTimeout(host.c_str(), port, tv));
    if (!out.ctx || !out.ctx->err || !connect_timed_out(out.ctx.get()) || out.attempts >= cfg_.connect_attempts)
      return out;
  }
}

std::string RedisClient::Connect::error() const {
  const std::string what = ctx                  ? std::string(ctx->errstr)
                           : !tls_error.empty() ? tls_error
                                                : "cannot allocate a connection";
  return what + (attempts > 1 ? " (" + std::to_string(attempts) + " connects tried)" : std::string());
}

std::pair<std::string, int> RedisClient::ask_sentinels() const {
  std::string errors;
  for (const auto& addr : cfg_.sentinels) {
    const size_t colon = addr.rfind(':');
    std::string host = addr.substr(0, colon);
    if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
    const int port = std::atoi(addr.c_str() + colon + 1);
    Connect conn = connect_retrying(host, port);
    if (!conn.ctx || conn.ctx->err) {
      errors += "; sentinel " + addr + ": " + conn.error();
      continue;
    }
    const auto& c = conn.ctx;
    redisSetTimeout(c.get(), to_timeval(cfg_.command_timeout_ms));
    auto ask = [&](std::vector<std::string> argv) -> std::unique_ptr<redisReply, void (*)(void*)> {
      std::vector<const char*> a;
      std::vector<size_t> l;
      for (const auto& x : argv) {
        a.push_back(x.data());
        l.push_back(x.size());
      }
      return {static_cast<redisReply*>(redisCommandArgv(c.get(), int(a.size()), a.data(), l.data())), freeReplyObject};
    };
    if (!cfg_.sentinel_password.empty()) {
      auto r = ask({"AUTH", cfg_.sentinel_password});
      if (!r || r->type == REDIS_REPLY_ERROR) {
        errors += "; sentinel " + addr + ": AUTH failed (redis.sentinel_password)";
        continue;
      }
    }
    auto r = ask({"SENTINEL", "get-master-addr-by-name", cfg_.master_name});
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 && r->element[0]->type == REDIS_REPLY_STRING &&
        r->element[1]->type == REDIS_REPLY_STRING)
      return {std::string(r->element[0]->str, r->element[0]->len), std::atoi(r->element[1]->str)};
    errors += "; sentinel " + addr + ": " +
              (!r                             ? std::string(c->errstr)
               : r->type == REDIS_REPLY_ERROR ? std::string(r->str, r->len)
                                              : "does not know master '" + cfg_.master_name + "'");
  }
  throw RedisError("redis: no sentinel named the primary of '" + cfg_.master_name + "'" + errors);
}

void RedisClient::ensure_connected() {
  if (ctx_) return;
  std::string host = cfg_.host;
  int port = int(cfg_.port);
  if (!cfg_.sentinels.empty()) std::tie(host, port) = ask_sentinels();
  const std::string where = cfg_.unix_socket.empty() ? host + ":" + std::to_string(port) : cfg_.unix_socket;
  Connect conn = connect_retrying(cfg_.unix_socket.empty() ? host : std::string(), port);
  if (conn.tls_refused) throw RedisAuthError("redis " + where + ": " + conn.error());
  if (!conn.ctx || conn.ctx->err) throw RedisError("redis " + where + ": " + conn.error());
  redisSetTimeout(conn.ctx.get(), to_timeval(cfg_.command_timeout_ms));
  ctx_ = std::move(conn.ctx);
  tunnel_ = std::move(conn.tunnel);
  where_ = where;
  ++connection_id_;
  if (!cfg_.password.empty()) {
    try {
      if (cfg_.user.empty())
        command({"AUTH", cfg_.password});
      else
        command({"AUTH", cfg_.user, cfg_.password});
    } catch (const RedisReplyError& e) {
      // Only Redis's answer to AUTH is a credentials problem. A connection dropped during AUTH
      // (a Redis restarting: it accepted, then closed) stays a RedisError, an outage that
      // callers wait out; taking it for wrong credentials stopped a coordinator for good.
      drop_connection();
      throw RedisAuthError("redis " + where + ": authentication as " +
                           (cfg_.user.empty() ? "the default user" : "user '" + cfg_.user + "'") +
                           " failed (check redis.user / redis.password): " + e.what());
    } catch (const RedisError&) {
      drop_connection();
      throw;
    }
  }
  // Sentinels can lag a failover by a moment: never write to a server that is a replica now.
  if (!cfg_.sentinels.empty()) {
    const RedisReply role = command({"ROLE"});
    if (role.elements.empty() || role.elements[0].as_string() != "master") {
      disconnect();
      throw RedisError("redis " + where + ": the sentinels name it the primary of '" + cfg_.master_name +
                       "', but it is not (a failover in progress); retrying");
    }
  }
}

uint64_t RedisClient::server_time_ms() {
  const auto t = command({"TIME"});
  if (t.elements.size() != 2) throw RedisError("TIME: unexpected reply from " + where_);
  return std::stoull(t.elements[0].as_string()) * 1000 + std::stoull(t.elements[1].as_string()) / 1000;
}

bool RedisClient::wait_replicas(uint32_t timeout_ms) {
  if (cfg_.min_replicas == 0) return true;
  if (!ctx_) return false;
  const uint32_t t = timeout_ms ? std::min(timeout_ms, cfg_.wait_timeout_ms) : cfg_.wait_timeout_ms;
  // WAIT waits for the replication offset this connection saw after its previous command (as
  // the first command of a connection: for nothing, and it counts every replica, a stopped one
  // included). A PUBLISH on a channel nobody listens to is propagated: it makes that offset the
  // primary's current one, whatever the connection did before, in the same round trip.
  // WAIT answers after up to `t` ms by design: the reply may take that long plus a round trip.
  // Under the plain command timeout (redis.command_timeout_ms, often no longer than `t`) an
  // unconfirmed write read as a lost connection (the chaos run's submits: "connection lost:
  // Resource temporarily unavailable") instead of "not confirmed".
  redisSetTimeout(ctx_.get(), to_timeval(t + cfg_.command_timeout_ms));
  std::vector<RedisReply> r;
  try {
    r = pipeline({{"PUBLISH", "zk:durable", ""}, {"WAIT", std::to_string(cfg_.min_replicas), std::to_string(t)}});
  } catch (const RedisError&) {
    if (ctx_) redisSetTimeout(ctx_.get(), to_timeval(cfg_.command_timeout_ms));  // an error reply keeps it
    throw;
  }
  redisSetTimeout(ctx_.get(), to_timeval(cfg_.command_timeout_ms));
  return r[1].as_int() >= (long long)cfg_.min_replicas;
}

const char* redis_error_kind(const RedisError& e) {
  if (dynamic_cast<const RedisReplyError*>(&e) == nullptr) return "connection";
  // Searched, not matched at the start: an error raised inside a script is reported as the
  // script's error, with the code first on Redis 7 but after "ERR Error running script" on 6.
  const std::string_view what = e.what();
  if (what.find("NOREPLICAS") != std::string_view::npos) return "noreplicas";
  for (const char* code : {"LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN"})
    if (what.find(code) != std::string_view::npos) return "not_ready";
  return "reply";
}

void RedisClient::throw_reply_error(const std::string& what) {
  // A demoted primary answers writes with READONLY: for the caller that is the same as a lost
  // connection (retry, which asks the sentinels again), not a bad command.
  if (what.find("READONLY") != std::string::npos) {
    const std::string where = where_;
    disconnect();
    throw RedisError("redis " + where + " is no longer the primary (" + what + "); reconnecting");
  }
  // Redis's own text ("Not enough good replicas to write") does not say whose setting it is.
  if (what.find("NOREPLICAS") != std::string::npos)
    throw RedisReplyError("redis " + where_ +
                          " refuses writes: fewer replicas in step than its min-replicas-to-write (" + what +
                          "); retry once a replica is back");
  throw RedisReplyError(what);
}

void RedisClient::subscribe(const std::string& channel) { command({"SUBSCRIBE", channel}); }

int RedisClient::fd() const { return ctx_ ? ctx_->fd : -1; }

size_t RedisClient::drain_pubsub() {
  if (!ctx_) return 0;
  if (redisBufferRead(ctx_.get()) != REDIS_OK) {
    const std::string what = lost(ctx_->errstr);
    drop_connection();
    throw RedisError(what);
  }
  size_t n = 0;
  void* raw = nullptr;
  while (redisGetReplyFromReader(ctx_.get(), &raw) == REDIS_OK && raw) {
    freeReplyObject(raw);
    raw = nullptr;
    ++n;
  }
  return n;
}

void RedisClient::append(const std::vector<std::string>& argv) {
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  if (redisAppendCommandArgv(ctx_.get(), int(args.size()), args.data(), lens.data()) != REDIS_OK) {
    std::string err = ctx_->errstr;
    drop_connection();
    throw RedisError("redis: " + err);
  }
}

RedisReply RedisClient::read_reply() {
  void* raw = nullptr;
  if (redisGetReply(ctx_.get(), &raw) != REDIS_OK || !raw) {
    const std::string what = lost(ctx_->err ? ctx_->errstr : "no reply");
    drop_connection();  // the stream is out of step; a fresh connection is the only safe state
    throw RedisError(what);
  }
  std::unique_ptr<redisReply, void (*)(redisReply*)> r(static_cast<redisReply*>(raw),
                                                       [](redisReply* p) { freeReplyObject(p); });
  return convert(r.get());
}

RedisReply RedisClient::command(const std::vector<std::string>& argv) {
  ensure_connected();
  append(argv);
  try {
    return read_reply();
  } catch (const RedisReplyError& e) {
    throw_reply_error(e.what());
  }
}

std::vector<RedisReply> RedisClient::pipeline(const std::vector<std::vector<std::string>>& cmds) {
  ensure_connected();
  for (const auto& c : cmds) append(c);
  std::vector<RedisReply> out;
  std::string first_error;
  for (size_t i = 0; i < cmds.size(); ++i) {
    try {
      out.push_back(read_reply());
    } catch (const RedisReplyError& e) {
      // Keep reading so the connection stays in step, then report the first error.
      if (first_error.empty()) first_error = e.what();
      out.emplace_back();
    }
  }
  if (!first_error.empty()) throw_reply_error(first_error);
  return out;
}

RedisReply RedisClient::eval(const std::string& script, const std::vector<std::string>& keys,
                             const std::vector<std::string>& args) {
  ensure_connected();
  auto build = [&](const std::string& sha) {
    std::vector<std::string> argv{"EVALSHA", sha, std::to_string(keys.size())};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto it = sha_of_.find(script);
    if (it == sha_of_.end()) it = sha_of_.emplace(script, command({"SCRIPT", "LOAD", script}).as_string()).first;
    try {
      return command(build(it->second));
    } catch (const RedisReplyError& e) {
      if (std::strncmp(e.what(), "NOSCRIPT", 8) != 0 || attempt == 1) throw;
      sha_of_.erase(it);  // Redis restarted (or SCRIPT FLUSH): load again
    }
  }
  throw RedisError("redis: script could not be loaded");
}

}  // namespace zkmill::farm
