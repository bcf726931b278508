// SPDX-License-Identifier: MIT
// JobProgress: the bar and the plain lines (see job_progress.hpp).
#include "coordinator/job_progress.hpp"

#include <cmath>

namespace zkmill::farm {

namespace {

std::string clock_text(double seconds) {
  const uint64_t s = uint64_t(std::llround(seconds));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
                  (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%llu:%02llu", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
  return buf;
}

}  // namespace

std::string JobProgress::bar_line(const std::string& job, const std::string& state, uint64_t verified, uint64_t total,
                                  double rate, size_t width) {
  const double frac = total ? double(std::min(verified, total)) / double(total) : 0.0;
  const size_t filled = size_t(frac * double(width));
  std::string bar(filled, '#');
  bar.append(width - filled, '-');
  char buf[256];
  std::string eta = "--:--";
  if (verified >= total && total)
    eta = "0:00";
  else if (rate > 0)
    eta = clock_text(double(total - verified) / rate);
  std::snprintf(buf, sizeof buf, "%s %-9s [%s] %llu/%llu partitions %3.0f%%  %.2f/s  ETA %s", job.c_str(),
                state.c_str(), bar.c_str(), (unsigned long long)verified, (unsigned long long)total, frac * 100, rate,
                eta.c_str());
  return buf;
}

void JobProgress::update(const nlohmann::json& s) {
  const std::string job = s.value("job", std::string("?")), state = s.value("state", std::string("?"));
  const uint64_t verified = s.value("verified", uint64_t(0)), total = s.value("partitions", uint64_t(0));
  const auto now = std::chrono::steady_clock::now();
  if (!t0_) {
    t0_ = now;
    verified0_ = verified;
  }
  const double elapsed = std::chrono::duration<double>(now - *t0_).count();
  const double rate = elapsed > 0.5 && verified > verified0_ ? double(verified - verified0_) / elapsed : 0.0;
  if (tty_) {
    std::fprintf(out_, "\r\x1b[K%s", bar_line(job, state, verified, total, rate, 30).c_str());
    std::fflush(out_);
    drawn_ = true;
    return;
  }
  // Plain: one line per change of the per-state counts.
  std::string line = job + " " + state + ": " + s.value("counts", nlohmann::json::object()).dump();
  if (line == last_) return;
  last_ = line;
  char rate_text[64] = "";
  if (rate > 0) std::snprintf(rate_text, sizeof rate_text, " (%.2f partitions/s)", rate);
  std::fprintf(out_, "%s%s\n", line.c_str(), rate_text);
}

void JobProgress::finish() {
  if (!drawn_) return;
  std::fprintf(out_, "\n");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace zkmill::farm
