// SPDX-License-Identifier: MIT
// A whole farm inside this process, for `zkmill demo` and `zkmill bench farm`: a private
// redis-server child (LocalRedis, unix socket in a temp dir), the real Coordinator and real
// Workers on threads, talking over ipc:// (control) and loopback TCP (bundles) exactly as
// separate processes would — so what the demo shows and the bench times is the farm's code
// path, not a shortcut. Destruction drains the workers, stops the coordinator, kills Redis
// and removes the temp dir, also when unwinding from an error.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/local_redis.hpp"
#include "farm/farm_config.hpp"

namespace zkmill::farm {

class EmbeddedFarm {
 public:
  // Creates the temp dir, starts Redis and the coordinator. Workers come later
  // (start_workers), once the caller has put proving keys into key_dir().
  // `tweak` may change the configuration (coordinator settings, for benchmarks) before the
  // coordinator starts.
  explicit EmbeddedFarm(const std::function<void(FarmConfig&)>& tweak = {});
  ~EmbeddedFarm();
  EmbeddedFarm(const EmbeddedFarm&) = delete;
  EmbeddedFarm& operator=(const EmbeddedFarm&) = delete;

  const std::string& dir() const { return dir_; }
  std::string key_dir() const { return dir_ + "/keys"; }
  const FarmConfig& config() const { return cfg_; }
  pid_t redis_pid() const { return redis_->pid(); }

  // Starts worker threads (ids synth-<i>, prove-<i>, both-<i>) serving key_dir().
  void start_workers(unsigned synth, unsigned prove, unsigned both = 0);
  // Rethrows the first exception a farm thread died of (call while waiting on a job).
  void check() const;
  // Drains the workers, then stops the coordinator; idempotent.
  void stop();

 private:
  void spawn(const std::string& id, const std::string& role);

  std::string dir_;
  FarmConfig cfg_;
  std::unique_ptr<LocalRedis> redis_;
  std::atomic<bool> stop_workers_{false}, stop_coordinator_{false};
  std::thread coordinator_;
  std::vector<std::thread> workers_;
  mutable std::mutex err_mu_;
  std::exception_ptr error_;
};

}  // namespace zkmill::farm
