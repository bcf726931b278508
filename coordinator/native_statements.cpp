// SPDX-License-Identifier: MIT
// NativeStatements: a queue and a few threads (native_statements.hpp says why).
#include "coordinator/native_statements.hpp"

#include <algorithm>
#include <exception>

namespace zkmill::farm {

NativeStatements::NativeStatements(size_t threads) {
  for (size_t i = 0; i < std::max<size_t>(threads, 1); ++i) threads_.emplace_back([this] { run(); });
}

NativeStatements::~NativeStatements() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void NativeStatements::compute(Entry& e) {
  try {
    e.result = e.compute();
  } catch (const std::exception& ex) {
    e.error = ex.what();
  }
}

void NativeStatements::start(const std::string& key, Compute compute) {
  auto e = std::make_shared<Entry>();
  e->compute = std::move(compute);
  {
    std::lock_guard lock(mu_);
    if (entries_.size() >= kMaxEntries) std::erase_if(entries_, [](const auto& kv) { return kv.second->done; });
    entries_[key] = e;
    queue_.push_back(std::move(e));
  }
  work_cv_.notify_one();
}

std::optional<NativeStatements::Statement> NativeStatements::take(const std::string& key, std::string* why) {
  std::unique_lock lock(mu_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (why) why->clear();
    return std::nullopt;
  }
  const std::shared_ptr<Entry> e = it->second;
  entries_.erase(it);
  if (!e->claimed) {
    e->claimed = true;  // still queued: computed here, the thread that pops it skips it
    lock.unlock();
    compute(*e);
    lock.lock();
    e->done = true;
  }
  done_cv_.wait(lock, [&] { return e->done; });
  if (!e->result && why) *why = e->error;
  return e->result;
}

size_t NativeStatements::pending() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

void NativeStatements::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    const std::shared_ptr<Entry> e = std::move(queue_.front());
    queue_.pop_front();
    if (e->claimed) continue;
    e->claimed = true;
    lock.unlock();
    compute(*e);
    lock.lock();
    e->done = true;
    done_cv_.notify_all();
  }
}

}  // namespace zkmill::farm
