// SPDX-License-Identifier: MIT
// A synchronous Redis connection (hiredis) for the farm: AUTH with an ACL user/password,
// replies copied into plain values, Lua scripts run by EVALSHA with a transparent reload on
// NOSCRIPT (a restarted Redis forgets its script cache), and reconnect-on-demand so a Redis
// restart costs the caller one failed call, not the process. With Redis Sentinel
// (redis.sentinels) every connect asks the sentinels for the current primary and checks it is
// one (ROLE); a READONLY reply (the server was demoted by a failover) drops the connection like
// a network error, so the caller's ordinary retry reaches the new primary. A NOREPLICAS reply (a
// primary configured with min-replicas-to-write refuses writes while too few replicas are in
// step) stays a reply error, reworded to say so; redis_error_kind tells it from a bad command.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "farm/farm_config.hpp"
#include "farm/tls_tunnel.hpp"

struct redisContext;

namespace zkmill::farm {

// Connection or protocol trouble (retryable after reconnect), as opposed to a Redis error
// reply to a well-formed command, which is RedisReplyError.
class RedisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class RedisReplyError : public RedisError {
 public:
  using RedisError::RedisError;
};
// AUTH refused (wrong redis.user / redis.password), or with TLS the server's certificate
// refused (not from redis.tls_ca, or for another name): a configuration error, not an outage,
// so long-running components stop on it at startup instead of retrying forever.
class RedisAuthError : public RedisError {
 public:
  using RedisError::RedisError;
};

// What a Redis failure says about retrying, for logs and metrics (zkmill_redis_errors_total):
//   "connection"  the connection failed or was lost, or the server was demoted (READONLY);
//   "noreplicas"  a primary with min-replicas-to-write has too few replicas in step: writes
//                 are refused until one is back (reads still work);
//   "not_ready"   LOADING (restarted, reading its AOF), BUSY (a slow script), MASTERDOWN or
//                 TRYAGAIN (a replica or cluster in the middle of a failover);
//   "reply"       any other error reply: a bad command or script (a bug, or an ACL refusal).
// All but "reply" are outages that a component waits out.
const char* redis_error_kind(const RedisError& e);
inline bool redis_retryable(const RedisError& e) { return std::string_view(redis_error_kind(e)) != "reply"; }

struct RedisReply {
  enum class Type { Nil, Integer, String, Array, Status };
  Type type = Type::Nil;
  long long integer = 0;
  std::string str;  // String and Status
  std::vector<RedisReply> elements;

  bool is_nil() const { return type == Type::Nil; }
  // The reply as a string ("" for nil); integers are formatted.
  std::string as_string() const { return type == Type::Integer ? std::to_string(integer) : str; }
  long long as_int() const;
  // An array of alternating field/value strings (HGETALL) as a map.
  std::map<std::string, std::string> as_map() const;
};

class RedisClient {
 public:
  // With redis.tls_ca, loads the CA and the client's certificate now: throws TlsConfigError
  // (the key and the file named) when they cannot be used.
  explicit RedisClient(RedisConfig cfg);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Runs one command. Reconnects first if the connection was lost. Throws RedisError
  // (connection: the connection is dropped and retried on the next call) or RedisReplyError
  // (an error reply; NOREPLICAS reworded to name the server and min-replicas-to-write).
  RedisReply command(const std::vector<std::string>& argv);
  // The server's clock (TIME), ms since the Unix epoch: the farm's one clock, for what clients
  // stamp (FarmClient) and what the coordinator keeps (FarmClock), as the scripts'
  // redis.call('TIME') is for what they record.
  uint64_t server_time_ms();
  // Several commands in one round trip (no atomicity; use scripts for that).
  std::vector<RedisReply> pipeline(const std::vector<std::vector<std::string>>& cmds);
  // EVALSHA of a registered script, loading it on NOSCRIPT.
  RedisReply eval(const std::string& script, const std::vector<std::string>& keys,
                  const std::vector<std::string>& args);

  void ensure_connected();
  void disconnect();
  // After a write that must survive a failover: WAIT until redis.min_replicas replicas have
  // everything the server connected to holds now, at most redis.wait_timeout_ms (or
  // `timeout_ms` when smaller and not 0). True when they did (or none is asked for). False when
  // not connected: a new connection, perhaps to another server after a failover, cannot confirm
  // what was written on the lost one (see connection_id).
  bool wait_replicas(uint32_t timeout_ms = 0);
  // Counts the connections made: a confirmation by wait_replicas covers only what was written
  // or read while connection_id() was the same.
  uint64_t connection_id() const { return connection_id_; }
  // "HOST:PORT" (or the socket path) of the server connected to; "" when not connected.
  const std::string& where() const { return where_; }

  // Pub/sub, used to wake the coordinator when a job is submitted: after subscribe() this
  // connection only receives messages.
  void subscribe(const std::string& channel);
  // The socket to poll; -1 when not connected.
  int fd() const;
  // Call once the socket polled readable: consumes what arrived with a single read (so it
  // never blocks) and returns the number of messages. Throws RedisError when the connection
  // is lost.
  size_t drain_pubsub();
  const RedisConfig& config() const { return cfg_; }

 private:
  struct CtxFree {
    void operator()(redisContext* c) const;
  };
  RedisReply read_reply();
  // Throws what an error reply to a command means for the caller (see command()).
  [[noreturn]] void throw_reply_error(const std::string& what);
  void append(const std::vector<std::string>& argv);

  // A connect to host:port (host "": to cfg_.unix_socket), tried again while it times out (most
  // often a lost SYN), cfg_.connect_attempts times in all; one refused or failed otherwise is not
  // tried again. The primary's connect and each sentinel's go through it.
  struct Connect {
    std::unique_ptr<TlsTunnel> tunnel;           // with redis.tls_ca: hiredis's socket's other end
    std::unique_ptr<redisContext, CtxFree> ctx;  // null, or with err set, when it failed
    std::string tls_error;                       // why the TLS connect failed (ctx null)
    bool tls_refused = false;                    // the server's certificate was refused
    uint32_t attempts = 0;
    std::string error() const;  // hiredis's text, and how many connects were tried when more than one
  };
  Connect connect_retrying(const std::string& host, int port) const;
  // The primary's host and port as the sentinels name it now.
  std::pair<std::string, int> ask_sentinels() const;

  // The connection and what it runs through, dropped together (hiredis's socket closed first).
  void drop_connection();
  // "redis: connection lost: ERR", with why the TLS session failed when it did.
  std::string lost(const std::string& err) const;

  RedisConfig cfg_;
  std::unique_ptr<TlsContext> tls_;  // with redis.tls_ca
  std::unique_ptr<TlsTunnel> tunnel_;
  std::unique_ptr<redisContext, CtxFree> ctx_;
  std::string where_;
  uint64_t connection_id_ = 0;
  std::map<std::string, std::string> sha_of_;  // script text -> SHA1 as Redis knows it
};

}  // namespace zkmill::farm
