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
// once; anything else is an error naming the variable), else by size.

// Batch-affine for the windows' buckets? `digits` points over `buckets` buckets, coordinates of
// `coord_bytes` bytes (48 for BLS12-381 G1, 64 for BN254 G2, ...).
bool batch_affine_windows(MsmAccumulation requested, uint64_t digits, uint32_t buckets, size_t coord_bytes);

// Batch-affine for the sum of the n_one points whose scalar is 1?
bool batch_affine_ones(MsmAccumulation requested, uint64_t n_one, size_t coord_bytes);

// How one batch-affine round runs (MsmAffineRound, msm.hpp): the requested kind, else
// ZKMILL_GPU_MSM_AFFINE_ROUND = contiguous | interleaved | fused (read once), else the default.
// Never kAuto.
MsmAffineRound batch_affine_round(MsmAffineRound requested);

// Rounds run while the longest run holds more points than this; the rest is XYZZ.
// ZKMILL_GPU_MSM_AFFINE_STOP = 1..64 (measurements), else the default.
uint32_t batch_affine_stop();

// Device bytes the batch-affine rounds may hold at once (their arrays), given the free memory:
// the buckets are processed in slices that fit.
uint64_t batch_affine_budget(uint64_t free_bytes);

// The pieces above without the environment, for tests: the size policy, and the parsers of the
// variables (nullptr or "" = unset; a bad value throws std::invalid_argument naming the variable).
bool batch_affine_windows_by_size(uint64_t digits, size_t coord_bytes);
bool batch_affine_ones_by_size(uint64_t n_one, size_t coord_bytes);
struct AccumulationChoice {
  MsmAccumulation windows = MsmAccumulation::kAuto, ones = MsmAccumulation::kAuto;
};
AccumulationChoice parse_accumulate_env(const char* value);
MsmAffineRound parse_affine_round_env(const char* value);  // kAuto when unset
uint32_t parse_affine_stop_env(const char* value);

}  // namespace zkmill::cuda::pippenger
