// SPDX-License-Identifier: MIT
// What `zkmill wait` and `zkmill submit --wait` show while a job runs. On a terminal (stderr
// is a TTY) one line redrawn in place: a bar of verified partitions, done/total, the rate
// (partitions verified per second since waiting began) and the ETA at that rate. Otherwise
// (a log, a pipe, CI) a plain line each time the job's counts change, which is what scripts
// and log readers want. Pure presentation: FarmClient::wait feeds it the job's status JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace zkmill::farm {

class JobProgress {
 public:
  // `tty`: draw the redrawn bar; otherwise print plain lines.
  JobProgress(std::FILE* out, bool tty) : out_(out), tty_(tty) {}
  ~JobProgress() { finish(); }

  // A fresh status (FarmClient::status) of the job waited for.
  void update(const nlohmann::json& status);
  // Ends the bar's line (before the final message); idempotent.
  void finish();

  // The bar line for `verified` of `total` at `rate` partitions/s (exposed for tests).
  static std::string bar_line(const std::string& job, const std::string& state, uint64_t verified, uint64_t total,
                              double rate, size_t width);

 private:
  std::FILE* out_;
  bool tty_;
  bool drawn_ = false;
  std::string last_;
  std::optional<std::chrono::steady_clock::time_point> t0_;
  uint64_t verified0_ = 0;
};

}  // namespace zkmill::farm
