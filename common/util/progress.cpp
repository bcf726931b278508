// SPDX-License-Identifier: MIT
// Progress (progress.hpp): a one-line bar redrawn with \r on stderr.
#include "common/util/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace zkmill::util {

Progress::Progress(uint64_t total, bool enabled)
    : total_(total ? total : 1), tty_(enabled && ::isatty(2) == 1), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::stage(const std::string& label) {
  {
    std::lock_guard lock(mu_);
    label_ = label;
  }
  draw(true);
}

void Progress::reset(uint64_t total) {
  total_ = total ? total : 1;
  done_ = 0;
}

void Progress::add(uint64_t units) {
  done_.fetch_add(units, std::memory_order_relaxed);
  if (tty_) draw(false);
}

void Progress::draw(bool force) {
  if (!tty_) return;
  const auto now = std::chrono::steady_clock::now();
  const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count();
  int64_t last = last_draw_ns_.load(std::memory_order_relaxed);
  if (!force && ns - last < 125'000'000) return;
  if (!last_draw_ns_.compare_exchange_strong(last, ns) && !force) return;
  std::lock_guard lock(mu_);
  if (finished_) return;
  const uint64_t total = total_.load(std::memory_order_relaxed);
  const uint64_t done = std::min(done_.load(std::memory_order_relaxed), total);
  const double frac = double(done) / double(total);
  const double secs = double(ns) / 1e9;
  char eta[32] = "--:--";
  if (frac > 0.001) {
    const long left = long(secs / frac - secs + 0.5);
    std::snprintf(eta, sizeof eta, "%ld:%02ld", left / 60, left % 60);
  }
  constexpr int kWidth = 30;
  const int fill = int(frac * kWidth);
  std::string bar(size_t(fill), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r\033[K%-24.24s [%s] %5.1f%%  %ld:%02ld elapsed, ETA %s", label_.c_str(), bar.c_str(),
               100.0 * frac, long(secs) / 60, long(secs) % 60, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  std::lock_guard lock(mu_);
  if (finished_) return;
  finished_ = true;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

}  // namespace zkmill::util
