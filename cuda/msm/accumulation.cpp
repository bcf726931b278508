// SPDX-License-Identifier: MIT
// The GPU MSM's choice between XYZZ and batch-affine bucket accumulation (accumulation.hpp).
// Thresholds from measurements on the H200 (cuda/bench/NOTES.md, "Batch-affine accumulation").
#include "cuda/msm/accumulation.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace zkmill::cuda::pippenger {

namespace {

// The environment's choice for the windows' buckets and for the 1-scalar sum (kAuto: none).
struct EnvChoice {
  MsmAccumulation windows = MsmAccumulation::kAuto, ones = MsmAccumulation::kAuto;
};

EnvChoice from_env() {
  const char* v = std::getenv("ZKMILL_GPU_MSM_ACCUMULATE");
  if (v == nullptr || *v == '\0') return {};
  const std::string s(v);
  constexpr auto X = MsmAccumulation::kXyzz, A = MsmAccumulation::kBatchAffine, U = MsmAccumulation::kAuto;
  if (s == "auto") return {U, U};
  if (s == "xyzz") return {X, X};
  if (s == "affine") return {A, A};
  if (s == "affine-windows") return {A, X};  // measurement: one part at a time
  if (s == "affine-ones") return {X, A};
  throw std::invalid_argument(
      "ZKMILL_GPU_MSM_ACCUMULATE must be xyzz, affine, auto, affine-windows or affine-ones, got '" + s + "'");
}

const EnvChoice& env_choice() {
  static const EnvChoice c = from_env();
  return c;
}

}  // namespace

bool batch_affine_windows(MsmAccumulation requested, uint64_t digits, uint32_t buckets, size_t coord_bytes) {
  switch (requested == MsmAccumulation::kAuto ? env_choice().windows : requested) {
    case MsmAccumulation::kXyzz:
      return false;
    case MsmAccumulation::kBatchAffine:
      return true;
    default:
      break;
  }
  (void)coord_bytes;
  // A round costs a few fixed latencies (two host syncs, ~12 launches): worth it once buckets
  // hold enough points for the rounds to be wide.
  return buckets != 0 && digits >= 16 * uint64_t(buckets) && digits >= (uint64_t(1) << 22);
}

bool batch_affine_ones(MsmAccumulation requested, uint64_t n_one, size_t coord_bytes) {
  switch (requested == MsmAccumulation::kAuto ? env_choice().ones : requested) {
    case MsmAccumulation::kXyzz:
      return false;
    case MsmAccumulation::kBatchAffine:
      return true;
    default:
      break;
  }
  (void)coord_bytes;
  return n_one >= (uint64_t(1) << 18);
}

uint32_t batch_affine_stop() { return 2; }

uint64_t batch_affine_budget(uint64_t free_bytes) {
  const uint64_t cap = uint64_t(8) << 30;
  return std::max<uint64_t>(uint64_t(256) << 20, std::min<uint64_t>(cap, free_bytes / 2));
}

}  // namespace zkmill::cuda::pippenger
