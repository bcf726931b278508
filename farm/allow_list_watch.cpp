// SPDX-License-Identifier: MIT
// AllowListWatch: stat, compare, re-read (allow_list_watch.hpp says why).
#include "farm/allow_list_watch.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <exception>
#include <iterator>

#include "farm/curve_keys.hpp"

namespace zkmill::farm {

AllowListWatch::AllowListWatch(std::string path, std::string config_key, const std::vector<std::string>& keys)
    : path_(std::move(path)), config_key_(std::move(config_key)), keys_(keys.begin(), keys.end()), seen_(stamp()) {}

std::optional<AllowListWatch::Stamp> AllowListWatch::stamp() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return std::nullopt;
  return Stamp{int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, uint64_t(st.st_size), uint64_t(st.st_ino)};
}

AllowListWatch::Result AllowListWatch::poll(bool force) {
  Result r;
  const auto now = stamp();
  if (!force && now == seen_) return r;
  seen_ = now;  // a bad file is reported once, not at every poll until it is fixed
  std::vector<std::string> fresh;
  try {
    fresh = CurveKeys::read_allow_list(path_, config_key_);
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  const std::set<std::string> next(fresh.begin(), fresh.end());
  if (next == keys_) return r;
  Change c;
  std::set_difference(next.begin(), next.end(), keys_.begin(), keys_.end(), std::back_inserter(c.added));
  std::set_difference(keys_.begin(), keys_.end(), next.begin(), next.end(), std::back_inserter(c.removed));
  c.keys.assign(next.begin(), next.end());
  keys_ = next;
  r.change = std::move(c);
  return r;
}

std::optional<AllowListWatch::Change> AllowListWatch::poll_logged(const std::string& who, bool force) {
  Result r = poll(force);
  if (!r.error.empty())
    spdlog::error("{}: {} changed but cannot be used ({}); the {} key(s) read before stay in force", who, config_key_,
                  r.error, keys_.size());
  else if (r.change)
    spdlog::info("{}: {} re-read{}: {} key(s) admitted, {} added, {} removed", who, config_key_,
                 force ? " (SIGHUP)" : "", r.change->keys.size(), r.change->added.size(), r.change->removed.size());
  else if (force)
    spdlog::info("{}: {} re-read (SIGHUP): {} key(s), unchanged", who, config_key_, keys_.size());
  return std::move(r.change);
}

}  // namespace zkmill::farm
