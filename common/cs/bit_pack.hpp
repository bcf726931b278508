// SPDX-License-Identifier: MIT
// One chunk of field elements bit-packed for an upload: every 0 and 1 as one bit, the others
// whole, in the layout of a witness-only bundle's aux (witness_bundle.hpp, kind Witness), so
// the device's witness unpack (cuda/cs/witness_unpack.cuh) expands it as it expands a bundle:
//   map:  ceil(n / 64) words, bit j set iff element j is whole (neither 0 nor 1);
//   bits: the elements that are not whole, one bit each (1 iff the element is one), in order;
//   full: the whole elements, in order, from byte `full_offset` (a multiple of 256).
// A PoRep witness is ~99% bits: the GPU prover packs a full bundle's vectors that are mostly 0
// and 1 chunk by chunk while staging them (cuda/groth16/prove.cuh), so PCIe carries ~1/50 of
// their bytes and the host reads each element once instead of copying it into pinned memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/util/thread_pool.hpp"

namespace zkmill::cs {

struct BitPackedChunk {
  uint64_t n = 0;           // elements packed
  uint64_t map_words = 0;   // ceil(n / 64)
  uint64_t bits_words = 0;  // ceil((n - n_full) / 64)
  uint64_t n_full = 0;      // whole elements
  size_t full_offset = 0;   // byte offset of the whole elements
  size_t bytes = 0;         // bytes used in all: full_offset + n_full * element size
};

// Bytes a chunk of n elements of `elem_bytes` each takes at most (every element whole).
constexpr size_t bit_packed_max_bytes(uint64_t n, size_t elem_bytes) {
  const uint64_t words = (n + 63) / 64;
  return ((16 * words + 255) & ~size_t(255)) + n * elem_bytes;
}

// Packs src into out (bit_packed_max_bytes(src.size(), sizeof(F)) bytes at least, 256-byte
// aligned) with `pool`'s threads; `scratch` is reused across calls. F: a field with zero(),
// one() and ==.
template <class F>
BitPackedChunk pack_bits(std::span<const F> src, uint8_t* out, util::ThreadPool& pool, std::vector<uint64_t>& scratch);

// The fraction of whole elements among `samples` spread evenly over src (the caller's choice
// between packing and a plain copy; reads `samples` elements).
template <class F>
double whole_fraction(std::span<const F> src, size_t samples = 1024);

}  // namespace zkmill::cs
