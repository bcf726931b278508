// SPDX-License-Identifier: MIT
// A fast 64-bit non-cryptographic checksum for witness bundles and other bulk payloads.
//
// It detects accidental corruption (bit flips, truncation, misordered chunks), NOT attacks:
// anyone can forge a payload with a chosen checksum. Authenticity, where needed, comes from
// the transport (TLS) or a signature over the circuit id, never from this.
//
// Design: four independent lanes each absorb every fourth 8-byte little-endian word as
//   s = (s ^ w) * K;  s ^= s >> 32
// Both steps are bijections of s for a fixed word, and s ^ w is injective in w, so changing
// any single word always changes that lane's final state; multi-word changes collide with
// probability about 2^-64. Four lanes hide the multiply latency (about 6 cycles per word
// per lane), giving roughly 4 words per 6 cycles, i.e. memory speed on current CPUs. The
// lanes and the length are folded with a bijective finaliser (xorshift-multiply), so the
// digest depends on every lane and on the exact length. The streaming form gives the same
// digest for any chunking.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace zkmill::cs {

class Checksum64 {
 public:
  explicit Checksum64(uint64_t seed = 0) {
    for (size_t j = 0; j < kLanes; ++j) lane_[j] = seed + kLaneInit[j];
  }

  Checksum64& update(std::span<const uint8_t> data) {
    const uint8_t* p = data.data();
    size_t n = data.size();
    length_ += n;
    if (buffered_) {  // finish a block started by an earlier chunk
      size_t take = kBlock - buffered_ < n ? kBlock - buffered_ : n;
      std::memcpy(buf_ + buffered_, p, take);
      buffered_ += take;
      p += take;
      n -= take;
      if (buffered_ < kBlock) return *this;
      absorb_block(buf_);
      buffered_ = 0;
    }
    if (n >= kBlock) {
      // The lanes live in locals here: written back through lane_ on every block, they
      // would have to be reloaded after each store, since p (bytes) may alias them. That
      // halved the speed; the arithmetic, and so the digest, is the same either way.
      static_assert(kLanes == 4, "the unrolled loop below absorbs one word per lane");
      uint64_t s0 = lane_[0], s1 = lane_[1], s2 = lane_[2], s3 = lane_[3];
      for (; n >= kBlock; p += kBlock, n -= kBlock) {
        s0 = step(s0, load_le(p));
        s1 = step(s1, load_le(p + 8));
        s2 = step(s2, load_le(p + 16));
        s3 = step(s3, load_le(p + 24));
      }
      lane_[0] = s0, lane_[1] = s1, lane_[2] = s2, lane_[3] = s3;
    }
    if (n) {
      std::memcpy(buf_, p, n);
      buffered_ = n;
    }
    return *this;
  }

  uint64_t digest() const {
    uint64_t s[kLanes];
    for (size_t j = 0; j < kLanes; ++j) s[j] = lane_[j];
    // Tail: whole words into successive lanes, a final partial word zero-padded (the
    // length folded in below tells "ab" from "ab\0").
    size_t words = (buffered_ + 7) / 8;
    for (size_t i = 0; i < words; ++i) {
      uint8_t w8[8] = {};
      size_t take = buffered_ - 8 * i < 8 ? buffered_ - 8 * i : 8;
      std::memcpy(w8, buf_ + 8 * i, take);
      s[i] = step(s[i], load_le(w8));
    }
    uint64_t h = fmix(length_ * kMul ^ kLaneInit[0]);
    for (size_t j = 0; j < kLanes; ++j) h = fmix(h ^ s[j]) + kLaneInit[j];
    return fmix(h);
  }

  uint64_t length() const { return length_; }

 private:
  static constexpr size_t kLanes = 4;
  static constexpr size_t kBlock = 8 * kLanes;
  static constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;  // odd: multiplication is a bijection
  static constexpr uint64_t kLaneInit[kLanes] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                                                 0x082efa98ec4e6c89ull};  // pi digits

  static uint64_t load_le(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);  // one unaligned load; the bundle code already requires a little-endian host
    static_assert(std::endian::native == std::endian::little);
    return w;
  }
  static uint64_t step(uint64_t s, uint64_t w) {
    s = (s ^ w) * kMul;
    return s ^ (s >> 32);
  }
  static uint64_t fmix(uint64_t x) {
    x ^= x >> 31;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 29;
    x *= 0xc2b2ae3d27d4eb4full;
    return x ^ (x >> 32);
  }
  void absorb_block(const uint8_t* p) {
    for (size_t j = 0; j < kLanes; ++j) lane_[j] = step(lane_[j], load_le(p + 8 * j));
  }

  uint64_t lane_[kLanes];
  uint8_t buf_[kBlock] = {};
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

inline uint64_t checksum64(std::span<const uint8_t> data, uint64_t seed = 0) {
  return Checksum64(seed).update(data).digest();
}

}  // namespace zkmill::cs
