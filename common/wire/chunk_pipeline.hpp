// SPDX-License-Identifier: MIT
// ChunkPipeline: the prove worker's chunk processing, off the thread that reads the socket.
//
// fetch_bundle's receiving thread takes a CHUNK off the DEALER, reserves its slot in the
// cs::BundleReceiver and submit()s the message here. `workers` threads place() chunks
// concurrently (copy into the final buffer, checksum64 of the chunk compared with the one
// the server sent, field-element checks; the destination pages are first touched there, so
// the kernel's page clearing is spread over the workers too) and free the message; one more
// thread runs the bundle's serial trailing hash in chunk order over the placed bytes.
//
// A chunk counts as released once its bytes are placed and its message freed: the fetcher
// re-grants credit against released chunks, which keeps its extra memory at (window + 1) x
// chunk however many workers there are. wake_fd() (an eventfd) becomes readable at each
// release, so the receiving thread can wait on it and on the socket in one zmq::poll.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "common/cs/bundle_receiver.hpp"
#include "common/wire/message.hpp"

namespace zkmill::wire {

class ChunkPipeline {
 public:
  // workers >= 1. `rx` must outlive the pipeline.
  ChunkPipeline(cs::BundleReceiver& rx, size_t workers);
  ~ChunkPipeline();  // stops and joins; chunks not yet placed are dropped
  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;

  // Receiving thread: `slot` from rx.reserve(), in arrival order; `data` is the chunk's
  // message (slot.size bytes), `checksum` the checksum64 its CHUNK message announced.
  void submit(cs::BundleReceiver::Slot slot, zmq::message_t data, uint64_t checksum);

  uint64_t released() const;
  // The offset of the lowest chunk whose bytes did not match their checksum, once one has.
  std::optional<uint64_t> corrupt_offset() const;
  // Rethrows an unexpected error a worker met (none is expected: place() reports bad
  // elements through the receiver, and checksum mismatches through corrupt_offset()).
  void rethrow_worker_error() const;

  int wake_fd() const { return wake_fd_; }
  void clear_wake();  // drains the eventfd after a poll found it readable

  // Waits until every submitted chunk is placed and hashed; then rx.finish() is O(slots).
  void drain();

 private:
  struct Job {
    uint64_t seq;
    cs::BundleReceiver::Slot slot;
    zmq::message_t data;
    uint64_t checksum;
  };
  void shutdown();
  void work();
  void hash_in_order();
  void wake();

  cs::BundleReceiver& rx_;
  int wake_fd_ = -1;
  mutable std::mutex mu_;
  std::condition_variable job_cv_;   // workers: a job or stop
  std::condition_variable hash_cv_;  // hasher: the next chunk in order is placed, or stop
  std::condition_variable done_cv_;  // drain(): all hashed
  std::deque<Job> jobs_;
  std::map<uint64_t, uint64_t> placed_;  // seq -> end offset, placed but not yet hashed
  uint64_t submitted_ = 0, released_ = 0, hashed_seq_ = 0;
  std::optional<uint64_t> corrupt_;
  std::exception_ptr error_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace zkmill::wire
