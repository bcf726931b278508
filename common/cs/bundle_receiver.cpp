// SPDX-License-Identifier: MIT
// BundleReceiver: fused copy + chunk hash + element checks per slot, serial trailing hash, O(slots) finish.
#include "common/cs/bundle_receiver.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace zkmill::cs {

namespace {
constexpr uint64_t kElem = WitnessBundle::kElementSize;
}

BundleReceiver::BundleReceiver(std::span<const uint8_t> first_bytes, uint64_t max_total_size, bool huge_pages) {
  BundleHeader h = WitnessBundle::parse_header(first_bytes);
  bundle_.header_ = h;
  bundle_.layout_ = BundleLayout::of(h);
  if (bundle_.layout_.total_size > max_total_size)
    throw BundleError("bundle of " + std::to_string(bundle_.layout_.total_size) +
                      " bytes exceeds the receiver's limit of " + std::to_string(max_total_size) + " bytes");
  // Uninitialised on purpose: every byte is about to be written, and the pages are first
  // touched by the threads that place() into them, so the kernel's page clearing is spread
  // over those threads instead of being paid up front by one.
  bundle_.buf_ = WitnessBundle::allocate_buffer(bundle_.layout_.total_size, huge_pages);
  write(first_bytes);
}

void BundleReceiver::write(std::span<const uint8_t> chunk) {
  if (hashed_ != std::min(reserved_, bundle_.layout_.checksum_offset))
    throw BundleError("write() after reserve()/place() without hash_through(): the stream would skip bytes");
  Slot slot = reserve(chunk.size());
  place(slot, chunk);
  hash_through(slot.offset + slot.size);
}

BundleReceiver::Slot BundleReceiver::reserve(uint64_t size) {
  if (size > remaining())
    throw BundleError("overrun: the header describes " + std::to_string(total_size()) + " bytes, received " +
                      std::to_string(reserved_ + size));
  Slot s{reserved_, size};
  reserved_ += size;
  return s;
}

uint64_t BundleReceiver::place(Slot slot, std::span<const uint8_t> data) {
  if (data.size() != slot.size || slot.offset + slot.size > total_size())
    throw BundleError("place(): " + std::to_string(data.size()) + " bytes for a slot of " + std::to_string(slot.size) +
                      " at offset " + std::to_string(slot.offset));
  // The elements run from E0 to E1; this slot holds elements [first, last) whole.
  const uint64_t e0 = WitnessBundle::kHeaderSize, e1 = e0 + kElem * bundle_.n_elements();
  const uint64_t lo = std::clamp(slot.offset, e0, e1), hi = std::clamp(slot.offset + slot.size, e0, e1);
  const uint64_t first = (lo - e0 + kElem - 1) / kElem, last = (hi - e0) / kElem;
  if ((lo - e0) % kElem != 0 && lo < hi) {
    // The slot starts inside an element (any element spanning slots spans such a start).
    std::lock_guard lock(cut_mu_);
    cut_elements_.push_back((lo - e0) / kElem);
  }
  uint8_t* dst = bundle_.buf_.get();
  const CurveId curve = bundle_.curve();
  Checksum64 sum;
  uint64_t next = first;  // the next whole element to check
  for (uint64_t off = 0; off < slot.size; off += kPieceBytes) {
    const size_t n = size_t(std::min<uint64_t>(kPieceBytes, slot.size - off));
    const uint64_t at = slot.offset + off;
    std::memcpy(dst + at, data.data() + off, n);
    sum.update(data.subspan(size_t(off), n));
    // Whole elements that end inside what is copied so far, read back while in cache.
    const uint64_t end = at + n;
    const uint64_t stop = end <= e0 ? first : std::min(last, (std::min(end, e1) - e0) / kElem);
    if (stop > next) {
      uint64_t bad = WitnessBundle::first_non_canonical(curve, dst + e0 + kElem * next, stop - next);
      if (bad != stop - next) note_bad_element(next + bad);
      next = stop;
    }
  }
  placed_.fetch_add(slot.size, std::memory_order_relaxed);
  return sum.digest();
}

void BundleReceiver::hash_through(uint64_t end) {
  end = std::min(end, bundle_.layout_.checksum_offset);  // the trailer is not hashed
  if (end <= hashed_) return;
  hash_.update({bundle_.buf_.get() + hashed_, size_t(end - hashed_)});
  hashed_ = end;
}

void BundleReceiver::note_bad_element(uint64_t k) {
  uint64_t cur = first_bad_.load(std::memory_order_relaxed);
  while (k < cur && !first_bad_.compare_exchange_weak(cur, k, std::memory_order_relaxed)) {
  }
}

WitnessBundle BundleReceiver::finish() {
  const uint64_t placed = placed_.load();
  if (placed != total_size() || !complete())
    throw BundleError("truncated: need " + std::to_string(total_size()) + " bytes, have " + std::to_string(placed));
  hash_through(total_size());
  bundle_.check_trailer(hash_.digest());
  const uint8_t* elems = bundle_.buf_.get() + WitnessBundle::kHeaderSize;
  for (uint64_t k : cut_elements_)
    if (WitnessBundle::first_non_canonical(bundle_.curve(), elems + kElem * k, 1) == 0) note_bad_element(k);
  if (uint64_t bad = first_bad_.load(); bad != UINT64_MAX)
    throw BundleError("field element not canonical at " + bundle_.element_name(bad));
  bundle_.check_constant_and_padding();
  return std::move(bundle_);
}

}  // namespace zkmill::cs
