// SPDX-License-Identifier: MIT
// Which bucket accumulation the GPU MSM uses (XYZZ additions or batch-affine rounds,
// cuda/msm/batch_affine.cuh), by size, how a batch-affine round runs, and the device-memory
// budget of the rounds. Plain C++ (accumulation.cpp), apart from the kernels, so that tuning a
// threshold recompiles one small unit instead of every engine, and the policy is unit-tested on
// any host (tests/cuda/accumulation_policy_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/msm/msm.hpp"

namespace zkmill::cuda::pippenger {

// kAuto below means: as the environment says (ZKMILL_GPU_MSM_ACCUMULATE = xyzz | affine | auto,
// or for measurements affine-windows | affine-ones: one part batch-affine, the other XYZZ; read
// once; anything else is an error naming the variable), else by size and free memory.

// Batch-affine for the windows' buckets? `digits` points over the buckets, the fullest holding
// `longest`, coordinates of `coord_bytes` bytes (48 for BLS12-381 G1, 64 for BN254 G2, ...),
// `free_bytes` of device memory free when the accumulation starts. kAuto: inside the measured
// size ranges and only when the rounds fit (batch_affine_fits), else XYZZ.
bool batch_affine_windows(MsmAccumulation requested, uint64_t digits, uint64_t longest, size_t coord_bytes,
                          uint64_t free_bytes, uint64_t cap_bytes = 0);

// Batch-affine for the sum of the n_one points whose scalar is 1: the number of slices its rounds
// run in (consecutive pieces of the one run, each reduced by its own rounds; the pieces' sums are
// added by XYZZ), or 0 for the XYZZ list sum. kAuto: inside the measured size range and only when
// the rounds fit (batch_affine_ones_fits); forced batch-affine: as many slices as the budget needs.
// `cap_bytes`: the call's own cap on the rounds' budget (0: none; see batch_affine_budget).
uint64_t batch_affine_ones(MsmAccumulation requested, uint64_t n_one, size_t coord_bytes, uint64_t free_bytes,
                           uint64_t cap_bytes = 0);

// How one batch-affine round runs (MsmAffineRound, msm.hpp): the requested kind, else
// ZKMILL_GPU_MSM_AFFINE_ROUND = contiguous | interleaved (read once), else the measured default
// of the group (coordinates of `coord_bytes` bytes; today interleaved for every group). Never kAuto.
MsmAffineRound batch_affine_round(MsmAffineRound requested, size_t coord_bytes);

// Rounds run while the longest run holds more points than this; the rest is XYZZ.
// ZKMILL_GPU_MSM_AFFINE_STOP = 1..64 (measurements), else the default.
uint32_t batch_affine_stop();

// Device bytes the batch-affine rounds may hold at once (their arrays), given the free memory:
// all but half of it or 20 GiB, whichever is less, and at most 48 GiB, or instead at most `cap_bytes` (the call's
// MsmOptions::affine_budget_bytes) or else ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB MiB when either is
// set (knobs for measurements and tests: small budgets cut more slices, large ones fewer). The
// buckets are processed in slices that fit.
uint64_t batch_affine_budget(uint64_t free_bytes, uint64_t cap_bytes = 0);

// Device bytes of the rounds per input point (AffineRounds::bytes_per_input: three quarters of
// an affine point, half a coordinate and half an 8-byte slot source): 2 x coord_bytes + 4.
constexpr uint64_t batch_affine_bytes_per_input(size_t coord_bytes) { return 2 * uint64_t(coord_bytes) + 4; }

// Slices the rounds cut `digits` points into for a budget (a lower bound: a slice ends at a
// bucket's end; at least 1).
uint64_t batch_affine_slices(uint64_t digits, size_t coord_bytes, uint64_t budget);

// Do the rounds fit `free_bytes`? Their budget must hold the fullest bucket (a slice never splits
// a bucket) and slices of at least batch_affine_min_slice_digits points (or the whole MSM when it
// is smaller): every slice pays each of its ~10 rounds' fixed cost (~0.4 ms: host syncs and ~15
// launches) again, which small slices do not earn back. When not, the MSM runs XYZZ, as it did
// before batch-affine; an allocation that fails inside the rounds anyway falls back to XYZZ too
// (pippenger_impl.cuh).
uint64_t batch_affine_min_slice_digits(size_t coord_bytes);
bool batch_affine_fits(uint64_t digits, uint64_t longest, size_t coord_bytes, uint64_t free_bytes,
                       uint64_t cap_bytes = 0);

// The same for the 1-scalar sum, which has no buckets: it is cut anywhere, into equal pieces of at
// most budget / bytes-per-input points (at least 256: batch_affine_ones_slices), and each piece must hold the
// break-even count batch_affine_ones_min_slice (or all the ones): one run of m points takes
// log2(m) rounds at ~0.4 ms of fixed cost each, which a small piece does not earn back.
uint64_t batch_affine_ones_min_slice(size_t coord_bytes);
uint64_t batch_affine_ones_slices(uint64_t n_one, size_t coord_bytes, uint64_t budget);
bool batch_affine_ones_fits(uint64_t n_one, size_t coord_bytes, uint64_t free_bytes, uint64_t cap_bytes = 0);

// Test hook for the out-of-memory paths (device tests): reservation number `after` from now (0:
// the next one) at `site` throws DeviceAllocError as if the card were full, once; a negative value
// disarms it. kRounds: the batch-affine rounds' buffers (they fall back to XYZZ); kSort: an MSM's
// digit sort arrays (the prover makes room and runs the MSM again, prove.cuh). Each site asks
// take_alloc_failure(site) before its reservations.
enum class AllocSite { kRounds, kSort };
void inject_alloc_failure(AllocSite site, int after);
bool alloc_failure_pending(AllocSite site);
bool take_alloc_failure(AllocSite site);

// Precomputed copies of fixed bases (pippenger_plan.hpp, PointCopies): `requested` when > 0 (an
// MsmOptions / GpuProveOptions field), else ZKMILL_GPU_MSM_PRECOMPUTE = t (an integer in 1..64,
// read once; t >= W means one window), else 1 (off).
int precompute_factor(int requested);

// ZKMILL_GPU_MSM_TRACE=1: each MSM prints its accumulation, free memory, slices and rounds to
// stderr (measurements; read once).
bool msm_trace();

// The pieces above without the environment, for tests: the size policy, and the parsers of the
// variables (nullptr or "" = unset; a bad value throws std::invalid_argument naming the variable).
bool batch_affine_windows_by_size(uint64_t digits, size_t coord_bytes);
bool batch_affine_ones_by_size(uint64_t n_one, size_t coord_bytes);
struct AccumulationChoice {
  MsmAccumulation windows = MsmAccumulation::kAuto, ones = MsmAccumulation::kAuto;
};
AccumulationChoice parse_accumulate_env(const char* value);
MsmAffineRound parse_affine_round_env(const char* value);  // kAuto when unset
MsmAffineRound default_affine_round(size_t coord_bytes);
uint32_t parse_affine_stop_env(const char* value);
uint64_t parse_affine_budget_env(const char* value);  // MiB as bytes; 0 when unset (no cap)
int parse_precompute_env(const char* value);          // 0 when unset
// An integer in [lo, hi] from the environment variable `name`'s value, digits only (std::stoull
// alone would skip blanks and take a sign); anything else is refused with a message naming it.
uint64_t parse_bounded(const char* value, const char* name, uint64_t lo, uint64_t hi);
// The rounds' memory rule (batch_affine_budget): the free memory they leave (half, at most this)
// and their ceiling.
constexpr uint64_t kAffineKeepBytes = uint64_t(20) << 30;
constexpr uint64_t kAffineCeilingBytes = uint64_t(48) << 30;
uint64_t budget_for(uint64_t free_bytes, uint64_t cap_bytes);  // batch_affine_budget with an explicit cap, no env

}  // namespace zkmill::cuda::pippenger
