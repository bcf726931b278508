// SPDX-License-Identifier: MIT
// How much of a device one proving key may take (host-only arithmetic; prove.cuh applies it).
//
// The key cache's budget (half the device unless set: set_key_cache_budget) bounds what the cache
// keeps for speed: precomputed copies and several keys at once. It must not decide whether a key
// can be proved at all: a 130M-constraint BLS12-381 PoRep partition's key is 70.2 GiB with B_G2
// (A, B_G1, L, H 46.9 GiB, B_G2 23.3 GiB) and its circuit's matrices 8.6 GiB, over half of an H200's
// 140 GiB, yet the three fit beside one proof's scratch (docs/benchmarks/gpu-porep.md). So one key
// (with its matrices) is admitted above the budget when the device holds it beside that scratch;
// it is then the cache's only entry and gets no copies (resident_key.cuh: key_copies).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/msm/pippenger_plan.hpp"

namespace zkmill::cuda::g16 {

// A lower bound on the device bytes one proof needs beside its key and matrices (gpu_parts):
// the scalars z, the four domain vectors of H (a, b, c and the quotient), the largest MSM's digit
// sort (4-byte keys and values, both double-buffered: 16 bytes a digit) and 1 GiB for the small
// arrays (bucket indexes, window sums, CUB's scratch). The batch-affine rounds take what is left,
// in more slices, or fall back to XYZZ; so a proof that has this much runs, if not at full speed.
// L and H joined into one MSM (prove.cuh: at most 2^30 digits) only ever happens where the key
// is far below the budget, so the largest MSM here is over max(n_vars, n_h) points.
inline uint64_t proof_scratch_bytes(uint64_t n_vars, uint64_t n_h, uint64_t n, uint64_t fr_bytes, int fr_bits) {
  const uint64_t largest = std::max(n_vars, n_h);
  const uint64_t digits = largest == 0 ? 0 : pippenger::make_plan(size_t(largest), fr_bits).digits();
  return n_vars * fr_bytes + 4 * n * fr_bytes + 16 * digits + (uint64_t(1) << 30);
}

// The limit for one key plus its matrices on a device: the budget, or, when more, the device's
// memory less one proof's scratch (then the key is resident alone).
struct KeyRoom {
  uint64_t budget = 0;         // the key cache's budget
  uint64_t device_bytes = 0;   // the device's memory (cudaMemGetInfo's total)
  uint64_t proof_scratch = 0;  // proof_scratch_bytes for this key's shape

  uint64_t alone() const { return device_bytes > proof_scratch ? device_bytes - proof_scratch : 0; }
  uint64_t limit() const { return std::max(budget, alone()); }
  bool admits(uint64_t bytes) const { return bytes <= limit(); }

  // Why `bytes` (what: "proving key", "proving key and PCE matrices") are refused on `device`.
  std::string refusal(const std::string& what, uint64_t bytes, int device) const {
    auto mib = [](uint64_t b) { return std::to_string(b >> 20) + " MiB"; };
    return "GPU prover: " + what + " need " + mib(bytes) + " resident on device " + std::to_string(device) +
           ", over the key-cache budget of " + mib(budget) + " and over the " + mib(alone()) +
           " one key may take alone (the device's " + mib(device_bytes) + " less a proof's scratch of " +
           mib(proof_scratch) + ")";
  }
};

}  // namespace zkmill::cuda::g16
