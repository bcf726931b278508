// SPDX-License-Identifier: MIT
// A private redis-server child process on a unix socket, for the embedded farm (`zkmill demo`,
// `zkmill bench farm`): nothing listens on the network, nothing is persisted, and the server
// dies with us — RAII stops it, and PR_SET_PDEATHSIG kills it even if we are killed -9.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "farm/farm_config.hpp"

namespace zkmill::farm {

class LocalRedis {
 public:
  // Starts redis-server with its socket, log and working files in `dir` and waits (bounded)
  // until it answers PING. Throws std::runtime_error, with install advice when there is no
  // redis-server on PATH. `extra` is appended to its command line, where a later option
  // overrides an earlier one (bench_redis adds a loopback TCP and a TLS port).
  explicit LocalRedis(const std::string& dir, const std::vector<std::string>& extra = {});
  ~LocalRedis();
  LocalRedis(const LocalRedis&) = delete;
  LocalRedis& operator=(const LocalRedis&) = delete;

  // How to reach it (unix_socket set).
  const RedisConfig& config() const { return cfg_; }
  pid_t pid() const { return pid_; }
  // Whether a `redis-server` executable is on PATH.
  static bool available();

 private:
  void stop();
  RedisConfig cfg_;
  std::string log_;
  pid_t pid_ = -1;
};

}  // namespace zkmill::farm
