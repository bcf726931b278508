// SPDX-License-Identifier: MIT
// Which bucket accumulation the GPU MSM uses (XYZZ additions or batch-affine rounds,
// cuda/msm/batch_affine.cuh), by size, and the device-memory budget of the batch-affine rounds.
// Plain C++ (accumulation.cpp), apart from the kernels, so that tuning a threshold recompiles
// one small unit instead of every engine.
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

// Rounds run while the longest run holds more points than this; the rest is XYZZ.
uint32_t batch_affine_stop();

// Device bytes the batch-affine rounds may hold at once (their arrays), given the free memory:
// the buckets are processed in slices that fit.
uint64_t batch_affine_budget(uint64_t free_bytes);

}  // namespace zkmill::cuda::pippenger
