// SPDX-License-Identifier: MIT
// ChunkPipeline: worker threads place chunks, one thread hashes them in order, an eventfd signals releases.
#include "common/wire/chunk_pipeline.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace zkmill::wire {

ChunkPipeline::ChunkPipeline(cs::BundleReceiver& rx, size_t workers) : rx_(rx) {
  if (workers == 0) throw TransferError(ErrorCode::Internal, "ChunkPipeline needs at least one worker");
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw TransferError(ErrorCode::Internal, std::string("eventfd: ") + std::strerror(errno));
  try {
    for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
    threads_.emplace_back([this] { hash_in_order(); });
  } catch (...) {
    shutdown();  // join what started: the destructor does not run for a throwing constructor
    throw;
  }
}

ChunkPipeline::~ChunkPipeline() { shutdown(); }

void ChunkPipeline::shutdown() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  job_cv_.notify_all();
  hash_cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  if (wake_fd_ >= 0) close(wake_fd_);
  wake_fd_ = -1;
}

void ChunkPipeline::submit(cs::BundleReceiver::Slot slot, zmq::message_t data, uint64_t checksum) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(Job{submitted_++, slot, std::move(data), checksum});
  }
  job_cv_.notify_one();
}

uint64_t ChunkPipeline::released() const {
  std::lock_guard lock(mu_);
  return released_;
}

std::optional<uint64_t> ChunkPipeline::corrupt_offset() const {
  std::lock_guard lock(mu_);
  return corrupt_;
}

void ChunkPipeline::rethrow_worker_error() const {
  std::lock_guard lock(mu_);
  if (error_) std::rethrow_exception(error_);
}

void ChunkPipeline::wake() {
  uint64_t one = 1;
  // Cannot fail short of a counter overflow (2^64 - 2 releases); the poll then simply wakes.
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);
}

void ChunkPipeline::clear_wake() {
  uint64_t count;
  [[maybe_unused]] ssize_t n = read(wake_fd_, &count, sizeof count);  // EAGAIN when already clear
}

void ChunkPipeline::drain() {
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [this] { return hashed_seq_ == submitted_ || error_; });
  if (error_) std::rethrow_exception(error_);
}

void ChunkPipeline::work() {
  for (;;) {
    std::unique_lock lock(mu_);
    job_cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    bool corrupt = false;
    std::exception_ptr err;
    try {
      corrupt = rx_.place(job.slot, {job.data.data<uint8_t>(), job.data.size()}) != job.checksum;
    } catch (...) {
      err = std::current_exception();
    }
    job.data = zmq::message_t();  // free the chunk before counting it released
    lock.lock();
    if (err && !error_) error_ = err;
    if (corrupt && (!corrupt_ || job.slot.offset < *corrupt_)) corrupt_ = job.slot.offset;
    placed_.emplace(job.seq, job.slot.offset + job.slot.size);
    ++released_;
    lock.unlock();
    hash_cv_.notify_one();
    done_cv_.notify_all();
    wake();
  }
}

void ChunkPipeline::hash_in_order() {
  std::unique_lock lock(mu_);
  for (;;) {
    hash_cv_.wait(lock, [this] { return stop_ || placed_.count(hashed_seq_); });
    if (stop_) return;
    // Take every chunk that is now contiguous, and hash them outside the lock.
    uint64_t end = 0, upto = hashed_seq_;
    for (auto it = placed_.find(upto); it != placed_.end() && it->first == upto; it = placed_.erase(it), ++upto)
      end = it->second;
    lock.unlock();
    try {
      rx_.hash_through(end);
    } catch (...) {
      lock.lock();
      if (!error_) error_ = std::current_exception();
      done_cv_.notify_all();
      return;
    }
    lock.lock();
    hashed_seq_ = upto;
    done_cv_.notify_all();
  }
}

}  // namespace zkmill::wire
