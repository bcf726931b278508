// SPDX-License-Identifier: MIT
// The GPU MSM's choice between XYZZ and batch-affine bucket accumulation (accumulation.hpp).
// Thresholds from measurements on the H200 (cuda/bench/NOTES-batch-affine.md, "Batch-affine accumulation" and
// "Fused and interleaved rounds").
#include "cuda/msm/accumulation.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace zkmill::cuda::pippenger {

namespace {

// Measured (NOTES-batch-affine.md, "Fused and interleaved rounds"): interleaved split rounds beat contiguous
// ones on G1 by 9-19% at 2^22-2^24 and lose 3-8% on G2 (whose kernels are at the register cap);
// the fused round is 2-4x slower everywhere (one Fermat inversion per 1024 slots). One default
// for both groups: the round is chosen without knowing the group (that would change the engines).
constexpr MsmAffineRound kDefaultRound = MsmAffineRound::kInterleaved;
// Rounds until the longest run holds <= 2 points: stopping at 8 measured the same within 0.5%.
constexpr uint32_t kDefaultStop = 2;

const AccumulationChoice& env_choice() {
  static const AccumulationChoice c = parse_accumulate_env(std::getenv("ZKMILL_GPU_MSM_ACCUMULATE"));
  return c;
}

// The call's choice, else the environment's; nullopt when both leave it to the size policy.
std::optional<bool> forced_choice(MsmAccumulation requested, MsmAccumulation from_env) {
  const MsmAccumulation c = requested == MsmAccumulation::kAuto ? from_env : requested;
  if (c == MsmAccumulation::kAuto) return std::nullopt;
  return c == MsmAccumulation::kBatchAffine;
}

}  // namespace

AccumulationChoice parse_accumulate_env(const char* value) {
  if (value == nullptr || *value == '\0') return {};
  const std::string s(value);
  constexpr auto X = MsmAccumulation::kXyzz, A = MsmAccumulation::kBatchAffine, U = MsmAccumulation::kAuto;
  if (s == "auto") return {U, U};
  if (s == "xyzz") return {X, X};
  if (s == "affine") return {A, A};
  if (s == "affine-windows") return {A, X};  // measurement: one part at a time
  if (s == "affine-ones") return {X, A};
  throw std::invalid_argument(
      "ZKMILL_GPU_MSM_ACCUMULATE must be xyzz, affine, auto, affine-windows or affine-ones, got '" + s + "'");
}

MsmAffineRound parse_affine_round_env(const char* value) {
  if (value == nullptr || *value == '\0') return MsmAffineRound::kAuto;
  const std::string s(value);
  if (s == "contiguous") return MsmAffineRound::kContiguous;
  if (s == "interleaved") return MsmAffineRound::kInterleaved;
  if (s == "fused") return MsmAffineRound::kFused;
  throw std::invalid_argument("ZKMILL_GPU_MSM_AFFINE_ROUND must be contiguous, interleaved or fused, got '" + s + "'");
}

uint32_t parse_affine_stop_env(const char* value) {
  if (value == nullptr || *value == '\0') return kDefaultStop;
  const std::string s(value);
  size_t used = 0;
  unsigned long v = 0;
  if (s[0] >= '0' && s[0] <= '9') {  // std::stoul alone would skip blanks and take a sign
    try {
      v = std::stoul(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
  }
  if (used != s.size() || used == 0 || v < 1 || v > 64)
    throw std::invalid_argument("ZKMILL_GPU_MSM_AFFINE_STOP must be an integer in 1..64, got '" + s + "'");
  return uint32_t(v);
}

bool batch_affine_windows_by_size(uint64_t digits, size_t coord_bytes) {
  // Measured on the H200 (cuda/bench/NOTES-batch-affine.md, "Fused and interleaved rounds", 2026-12-02), each
  // accumulation forced on the same binary, interleaved rounds: batch-affine wins for G1 of both
  // curves from 2^22 points (2^26 digits at c = 16; BN254 -9% at 2^22, -15% at 2^24, -13% at
  // 2^26; BLS12-381 -23%, -21%, -19%) and loses or ties below (BN254 2^20 +25%, BLS12-381 2^20
  // -1%, noise); for BN254 G2 (64-byte Fq2) from 2^20 points (-27% at 2^22); never for BLS12-381
  // G2 (+8-18%: its kernels spill at the register cap).
  // Only inside the measured range: beyond it (a PoRep partition's 2^27-point H MSM, 2^31
  // digits, runs with the card nearly full) the slices would be cut from a small budget and
  // each slice pays the rounds' fixed latencies again, which was not measured; XYZZ is.
  if (coord_bytes == 32 || coord_bytes == 48) return digits >= (uint64_t(1) << 26) && digits <= (uint64_t(1) << 30);
  if (coord_bytes == 64) return digits >= (uint64_t(1) << 24) && digits <= (uint64_t(1) << 26);
  return false;
}

bool batch_affine_ones_by_size(uint64_t n_one, size_t coord_bytes) {
  // The 1-scalar sum is one run: log2(n_one) rounds, each with fixed latencies (two host syncs,
  // ~15 launches); measured slower than the XYZZ list sum on every PoRep-mix row (e.g. BN254 G1
  // 2^24: 9.66 -> 14.19 ms), so it is used only when forced.
  (void)n_one;
  (void)coord_bytes;
  return false;
}

bool batch_affine_windows(MsmAccumulation requested, uint64_t digits, uint32_t buckets, size_t coord_bytes) {
  if (const auto forced = forced_choice(requested, env_choice().windows)) return *forced;
  (void)buckets;
  return batch_affine_windows_by_size(digits, coord_bytes);
}

bool batch_affine_ones(MsmAccumulation requested, uint64_t n_one, size_t coord_bytes) {
  if (const auto forced = forced_choice(requested, env_choice().ones)) return *forced;
  return batch_affine_ones_by_size(n_one, coord_bytes);
}

MsmAffineRound batch_affine_round(MsmAffineRound requested) {
  static const MsmAffineRound from_env = parse_affine_round_env(std::getenv("ZKMILL_GPU_MSM_AFFINE_ROUND"));
  if (requested != MsmAffineRound::kAuto) return requested;
  return from_env != MsmAffineRound::kAuto ? from_env : kDefaultRound;
}

uint32_t batch_affine_stop() {
  static const uint32_t s = parse_affine_stop_env(std::getenv("ZKMILL_GPU_MSM_AFFINE_STOP"));
  return s;
}

uint64_t batch_affine_budget(uint64_t free_bytes) {
  const uint64_t cap = uint64_t(8) << 30;
  return std::max<uint64_t>(uint64_t(256) << 20, std::min<uint64_t>(cap, free_bytes / 2));
}

}  // namespace zkmill::cuda::pippenger
