// SPDX-License-Identifier: MIT
// BundleReceiver: receives a witness bundle in chunks straight into its final buffer.
//
// Two ways to feed it:
//   sequential  write(chunk) from one thread, in order (the first bytes, which hold the
//               header, go to the constructor);
//   parallel    reserve(size) on the receiving thread in arrival order, place(slot, data) on
//               any thread (distinct slots run concurrently), and hash_through(end) in order
//               from one thread at a time over bytes already placed (wire::ChunkPipeline).
//
// Every byte is handled once, while it is hot in cache: place() copies it in pieces of
// kPieceBytes, folds each piece into the slot's checksum64 (returned, so the wire layer can
// check its per-chunk checksum without a second pass) and checks the field elements lying
// wholly inside the slot. An element cut by a slot boundary is remembered and checked in
// finish(). The bundle's trailing checksum is a serial hash over the stream (format v1), so
// hash_through() runs in order; it reads the bytes place() has just written.
//
// finish() is therefore O(slots), not O(bytes), and makes exactly WitnessBundle::parse's
// checks in parse's order of precedence: all bytes present ("truncated"), trailing checksum
// ("checksum mismatch": corruption is named as such even when it also broke an element),
// canonical elements (the lowest bad one is named, whichever thread found it), inputs[0] = 1,
// zero density padding.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "common/cs/checksum.hpp"
#include "common/cs/witness_bundle.hpp"

namespace zkmill::cs {

class BundleReceiver {
 public:
  // A byte range of the image, handed out by reserve() in order.
  struct Slot {
    uint64_t offset = 0;
    uint64_t size = 0;
  };
  // Bytes copied, hashed and checked per step of place(): small enough to stay in L2.
  static constexpr size_t kPieceBytes = size_t(64) << 10;

  // max_total_size: refuse (BundleError) a header describing a larger bundle before
  // allocating anything; the header checksum catches corruption, this catches a peer
  // announcing more than this worker can hold. huge_pages: ask for transparent huge pages
  // for the buffer (WitnessBundle::allocate_buffer); a win where the kernel has free 2 MiB
  // pages at hand, a loss where it must compact memory to find them (docs/benchmarks.md).
  explicit BundleReceiver(std::span<const uint8_t> first_bytes, uint64_t max_total_size = UINT64_MAX,
                          bool huge_pages = false);
  BundleReceiver(const BundleReceiver&) = delete;
  BundleReceiver& operator=(const BundleReceiver&) = delete;

  const BundleHeader& header() const { return bundle_.header(); }
  uint64_t total_size() const { return bundle_.layout().total_size; }
  uint64_t received() const { return reserved_; }  // bytes written or reserved so far
  uint64_t remaining() const { return total_size() - reserved_; }
  bool complete() const { return reserved_ == total_size(); }

  // Sequential: reserve + place + hash_through in one call.
  void write(std::span<const uint8_t> chunk);

  // Parallel, receiving thread: the next `size` bytes of the image. Throws BundleError on
  // overrun (more bytes than the header describes).
  Slot reserve(uint64_t size);
  // Parallel, any thread: copies `data` (exactly slot.size bytes) into the slot, checks the
  // elements it can and returns checksum64(data). Distinct slots may be placed concurrently;
  // placing one slot twice is a caller bug.
  uint64_t place(Slot slot, std::span<const uint8_t> data);
  // Parallel, one thread at a time: folds [hashed(), end) into the running checksum. Every
  // byte in that range must have been placed (and its place() must happen-before this).
  void hash_through(uint64_t end);
  uint64_t hashed() const { return hashed_; }

  // Checks everything (see above) and hands over the bundle. The caller must have joined any
  // threads still placing.
  WitnessBundle finish();

 private:
  void note_bad_element(uint64_t k);

  WitnessBundle bundle_;
  Checksum64 hash_;
  uint64_t reserved_ = 0;  // receiving thread only
  uint64_t hashed_ = 0;    // hashing thread only
  std::atomic<uint64_t> placed_{0};
  std::atomic<uint64_t> first_bad_{UINT64_MAX};  // lowest non-canonical element found by place()
  std::mutex cut_mu_;
  std::vector<uint64_t> cut_elements_;  // elements a slot boundary cuts: checked in finish()
};

}  // namespace zkmill::cs
