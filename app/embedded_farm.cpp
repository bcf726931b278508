// SPDX-License-Identifier: MIT
// EmbeddedFarm: temp dir, LocalRedis, coordinator and worker threads, ordered teardown.
#include "app/embedded_farm.hpp"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

#include "coordinator/coordinator.hpp"
#include "worker/worker.hpp"

namespace zkmill::farm {

namespace {

std::string make_temp_dir() {
  // ipc:// and unix socket paths are limited to ~107 bytes: prefer a short base directory.
  std::string base = std::filesystem::temp_directory_path().string();
  if (base.size() > 60) base = "/tmp";
  std::string tmpl = base + "/zkmill-farm-XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temp dir under " + base);
  return tmpl;
}

}  // namespace

EmbeddedFarm::EmbeddedFarm(const std::function<void(FarmConfig&)>& tweak) : dir_(make_temp_dir()) {
  try {
    std::filesystem::create_directories(key_dir());
    redis_ = std::make_unique<LocalRedis>(dir_);
    cfg_.redis = redis_->config();
    cfg_.coordinator.endpoint = cfg_.coordinator.bind = "ipc://" + dir_ + "/coordinator.sock";
    // Tight timings: one machine, nothing slow in between (as deploy/local-farm.sh).
    cfg_.coordinator.heartbeat_ms = 250;
    cfg_.coordinator.liveness = 8;
    cfg_.coordinator.lease_ms = 4000;
    cfg_.coordinator.backoff_ms = 50;
    cfg_.coordinator.backoff_max_ms = 1000;
    cfg_.worker.key_dir = key_dir();
    cfg_.source = "(embedded farm)";
    if (tweak) tweak(cfg_);
    coordinator_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "zk-coordinator");  // `zkmill bench-farm` times its CPU by this name
      try {
        Coordinator c(cfg_);
        c.run(stop_coordinator_);
      } catch (...) {
        std::lock_guard<std::mutex> lk(err_mu_);
        if (!error_) error_ = std::current_exception();
      }
    });
  } catch (...) {
    redis_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    throw;
  }
}

EmbeddedFarm::~EmbeddedFarm() {
  stop();
  redis_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void EmbeddedFarm::spawn(const std::string& id, const std::string& role) {
  FarmConfig wc = cfg_;
  wc.worker.id = id;
  WorkerOptions wo;
  wo.role = parse_role(role).value();
  workers_.emplace_back([this, wc = std::move(wc), wo = std::move(wo)]() mutable {
    try {
      // Built on its own thread: its ZeroMQ sockets are used from this thread only.
      Worker w(std::move(wc), std::move(wo));
      w.run(stop_workers_);
    } catch (...) {
      std::lock_guard<std::mutex> lk(err_mu_);
      if (!error_) error_ = std::current_exception();
    }
  });
}

void EmbeddedFarm::start_workers(unsigned synth, unsigned prove, unsigned both) {
  for (unsigned i = 1; i <= synth; ++i) spawn("synth-" + std::to_string(i), "synth");
  for (unsigned i = 1; i <= prove; ++i) spawn("prove-" + std::to_string(i), "prove");
  for (unsigned i = 1; i <= both; ++i) spawn("both-" + std::to_string(i), "both");
}

void EmbeddedFarm::check() const {
  std::lock_guard<std::mutex> lk(err_mu_);
  if (error_) std::rethrow_exception(error_);
}

void EmbeddedFarm::stop() {
  // Workers first, while the coordinator can still ack their last results; a worker whose
  // coordinator is gone stops waiting for acks after its liveness period.
  stop_workers_.store(true);
  for (auto& t : workers_)
    if (t.joinable()) t.join();
  stop_coordinator_.store(true);
  if (coordinator_.joinable()) coordinator_.join();
}

}  // namespace zkmill::farm
