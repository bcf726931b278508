// SPDX-License-Identifier: MIT
// The GPU MSM's choice between XYZZ and batch-affine bucket accumulation (accumulation.hpp).
// Thresholds from measurements on the H200 (cuda/bench/NOTES-batch-affine.md, "Batch-affine accumulation",
// "Fused and interleaved rounds" and "Round kind per group, BN254 G2 to 2^24, the PoRep H MSM").
#include "cuda/msm/accumulation.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace zkmill::cuda::pippenger {

namespace {

// BN254 Fq2 and BLS12-381 Fq2; G1's Fq is 32 or 48.
constexpr size_t kG2CoordBytes = 64;
constexpr size_t kBlsG2CoordBytes = 96;
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
  throw std::invalid_argument("ZKMILL_GPU_MSM_AFFINE_ROUND must be contiguous or interleaved, got '" + s + "'");
}

MsmAffineRound default_affine_round(size_t coord_bytes) {
  // Measured (NOTES-batch-affine.md, "Fused and interleaved rounds" and "Round kind per group, BN254
  // G2 to 2^24, the PoRep H MSM"): interleaved rounds beat contiguous ones on G1 by 9-19% at
  // 2^22-2^24 points; on BN254 G2 contiguous won at 2^22 (66.5 against 68.9 ms, one call) and lost
  // at 2^23 / 2^24 (127.0 / 244.6 against 124.5 / 237.7 ms, another): no group gains enough from
  // its own kind, so every group takes interleaved; the engines pass their coordinate size so a
  // measured per-group default needs no engine change.
  (void)coord_bytes;
  return MsmAffineRound::kInterleaved;
}

uint64_t parse_bounded(const char* value, const char* name, uint64_t lo, uint64_t hi) {
  const std::string s(value);
  size_t used = 0;
  unsigned long long v = 0;
  if (!s.empty() && s[0] >= '0' && s[0] <= '9') {
    try {
      v = std::stoull(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
  }
  if (used != s.size() || used == 0 || v < lo || v > hi)
    throw std::invalid_argument(std::string(name) + " must be an integer in " + std::to_string(lo) + ".." +
                                std::to_string(hi) + ", got '" + s + "'");
  return v;
}

uint32_t parse_affine_stop_env(const char* value) {
  if (value == nullptr || *value == '\0') return kDefaultStop;
  return uint32_t(parse_bounded(value, "ZKMILL_GPU_MSM_AFFINE_STOP", 1, 64));
}

uint64_t parse_affine_budget_env(const char* value) {
  if (value == nullptr || *value == '\0') return 0;
  return parse_bounded(value, "ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB", 1, uint64_t(1) << 20) << 20;
}

bool batch_affine_windows_by_size(uint64_t digits, size_t coord_bytes) {
  // Measured on the H200 (cuda/bench/NOTES-batch-affine.md), each accumulation forced on the same
  // binary: batch-affine (interleaved rounds) wins for G1 of both curves from 2^22 points (2^26
  // digits at c = 16; BN254 -9% at 2^22, -15% at 2^24, -13% at 2^26; BLS12-381 -23%, -21%, -19%)
  // up to the 2^27-point H MSM of a 130M-constraint PoRep partition (2^31 digits, in the partition
  // with its key resident: -14% BLS12-381, -18% BN254; "Round kind per group, BN254 G2 to 2^24, the
  // PoRep H MSM"), and loses or ties below (BN254 2^20 +25%, BLS12-381 2^20 -1%, noise); for BN254
  // G2 (64-byte Fq2) from 2^20 to 2^24 points (2^24..2^28 digits; -27% at 2^22, -26% / -24% at
  // 2^23 / 2^24); for BLS12-381 G2 (96-byte Fq2) at 2^22 and 2^24 points (2^26..2^28 digits)
  // since the down kernel's split (NOTES-down-kernel.md: 160.8 against XYZZ's 204.0 ms at 2^22,
  // 562.9 against 676.3 at 2^24; before it, batch-affine lost by 8-18%). Beyond the measured
  // sizes: XYZZ.
  if (coord_bytes == 32 || coord_bytes == 48) return digits >= (uint64_t(1) << 26) && digits <= (uint64_t(1) << 31);
  if (coord_bytes == kG2CoordBytes) return digits >= (uint64_t(1) << 24) && digits <= (uint64_t(1) << 28);
  if (coord_bytes == kBlsG2CoordBytes) return digits >= (uint64_t(1) << 26) && digits <= (uint64_t(1) << 28);
  return false;
}

bool batch_affine_ones_by_size(uint64_t n_one, size_t coord_bytes) {
  // The 1-scalar sum is one run of n_one points: log2(n_one) rounds, each with ~0.4 ms of fixed
  // latency (two host syncs, ~15 launches). Measured on the H200 (NOTES-batch-affine.md, "Ones by
  // batch-affine at PoRep scale"): slower than the XYZZ list sum at 0.4-6.7 M ones (PoRep-mix
  // rows, e.g. BN254 G1 2^24: 9.66 -> 14.19 ms), faster at the 61.9 M ones of a 130M-constraint
  // PoRep partition, warm, against the same proof with the ones XYZZ: BLS12-381 G1 A / B_G1 / L
  // 71.4 / 67.6 / 70.0 -> 64.3 / 61.4 / 63.3 ms, BLS12-381 G2 269.3 -> 254.4 (two slices), BN254
  // G2 100.8 -> 75.8; BN254 G1 gains nothing (32.0 / 26.8 / 29.5 -> 29.9 / 26.6 / 29.7, the same
  // as main's 30.0 / 26.8 / 29.6 in another call): it keeps XYZZ (and its memory). From 2^25
  // ones; slices below the break-even size are refused by batch_affine_ones_fits.
  if (coord_bytes == 32) return false;
  return n_one >= (uint64_t(1) << 25);
}

uint64_t batch_affine_slices(uint64_t digits, size_t coord_bytes, uint64_t budget) {
  if (budget == 0) return digits == 0 ? 1 : digits;  // one bucket's worth at a time: as many as there are
  const uint64_t bytes = digits * batch_affine_bytes_per_input(coord_bytes);
  return std::max<uint64_t>(1, (bytes + budget - 1) / budget);
}

uint64_t batch_affine_min_slice_digits(size_t coord_bytes) {
  // Break-even slice sizes measured on the H200 (NOTES-batch-affine.md, "Round kind per group,
  // BN254 G2 to 2^24, the PoRep H MSM"): a round costs ~0.41 ms beside its work (BLS12-381 G1
  // 2^24 forced into 3 / 25 / 97 slices: 145 / 236 / 489 ms), a slice ~10-12 rounds; what a
  // slice earns is its digits times the per-digit gain over XYZZ: ~0.18-0.24 ns for BLS12-381 G1
  // (break-even ~20-25 M digits a slice), ~0.07-0.09 ns for BN254 G1 (~60 M), ~0.3 ns for BN254
  // G2 (~15 M). Thresholds at or above those.
  if (coord_bytes == 48) return uint64_t(1) << 25;
  if (coord_bytes == 32) return uint64_t(1) << 26;
  return uint64_t(1) << 24;
}

bool batch_affine_fits(uint64_t digits, uint64_t longest, size_t coord_bytes, uint64_t free_bytes, uint64_t cap_bytes) {
  const uint64_t per_input = batch_affine_bytes_per_input(coord_bytes);
  const uint64_t budget = batch_affine_budget(free_bytes, cap_bytes);
  const uint64_t slice = budget / per_input;  // points a slice holds
  return longest <= slice && slice >= std::min(digits, batch_affine_min_slice_digits(coord_bytes));
}

uint64_t batch_affine_ones_min_slice(size_t coord_bytes) {
  // Break-even pieces of the 1-scalar run: a piece of m points pays ~log2(m) ~ 25 rounds of ~0.41
  // ms (~10 ms) beside its work; the measured gain per point over the XYZZ list sum at PoRep
  // scale (NOTES-batch-affine.md) is ~0.5 ns for BN254 G2 ((101.3 - 78.6 + ~10) ms / 61.9 M:
  // ~20 M points to break even) and ~0.3 ns for BLS12-381 G1 (~33 M). G2's products cost ~3x
  // G1's on the same bytes, so its pieces pay from fewer points.
  if (coord_bytes == 32 || coord_bytes == 48) return uint64_t(1) << 25;
  return uint64_t(1) << 24;
}

uint64_t batch_affine_ones_slices(uint64_t n_one, size_t coord_bytes, uint64_t budget) {
  // At least 256 points a piece: a forced choice on a full card (or a tiny test budget) still cuts
  // a bounded number of pieces; an allocation that then fails falls back to XYZZ.
  const uint64_t piece = std::max<uint64_t>(256, budget / batch_affine_bytes_per_input(coord_bytes));
  return std::max<uint64_t>(1, (n_one + piece - 1) / piece);
}

bool batch_affine_ones_fits(uint64_t n_one, size_t coord_bytes, uint64_t free_bytes, uint64_t cap_bytes) {
  const uint64_t piece = batch_affine_budget(free_bytes, cap_bytes) / batch_affine_bytes_per_input(coord_bytes);
  return piece >= std::min(n_one, batch_affine_ones_min_slice(coord_bytes));
}

namespace {
// Per site: reservations to let through before the injected failure; < 0: none.
std::atomic<int> g_alloc_fault[2] = {-1, -1};
std::atomic<int>& fault_of(AllocSite site) { return g_alloc_fault[site == AllocSite::kSort ? 1 : 0]; }
}  // namespace

void inject_alloc_failure(AllocSite site, int after) { fault_of(site).store(after < 0 ? -1 : after); }

bool alloc_failure_pending(AllocSite site) { return fault_of(site).load() >= 0; }

bool take_alloc_failure(AllocSite site) {
  std::atomic<int>& fault = fault_of(site);
  int v = fault.load(std::memory_order_relaxed);
  while (v >= 0) {  // the one that finds 0 fails, and disarms the hook
    if (fault.compare_exchange_weak(v, v - 1)) return v == 0;
  }
  return false;
}

bool batch_affine_windows(MsmAccumulation requested, uint64_t digits, uint64_t longest, size_t coord_bytes,
                          uint64_t free_bytes, uint64_t cap_bytes) {
  if (const auto forced = forced_choice(requested, env_choice().windows)) return *forced;
  return batch_affine_windows_by_size(digits, coord_bytes) &&
         batch_affine_fits(digits, longest, coord_bytes, free_bytes, cap_bytes);
}

uint64_t batch_affine_ones(MsmAccumulation requested, uint64_t n_one, size_t coord_bytes, uint64_t free_bytes,
                           uint64_t cap_bytes) {
  if (n_one == 0) return 0;
  const auto forced = forced_choice(requested, env_choice().ones);
  if (forced ? !*forced
             : !(batch_affine_ones_by_size(n_one, coord_bytes) &&
                 batch_affine_ones_fits(n_one, coord_bytes, free_bytes, cap_bytes)))
    return 0;
  return batch_affine_ones_slices(n_one, coord_bytes, batch_affine_budget(free_bytes, cap_bytes));
}

MsmAffineRound batch_affine_round(MsmAffineRound requested, size_t coord_bytes) {
  static const MsmAffineRound from_env = parse_affine_round_env(std::getenv("ZKMILL_GPU_MSM_AFFINE_ROUND"));
  if (requested != MsmAffineRound::kAuto) return requested;
  return from_env != MsmAffineRound::kAuto ? from_env : default_affine_round(coord_bytes);
}

uint32_t batch_affine_stop() {
  static const uint32_t s = parse_affine_stop_env(std::getenv("ZKMILL_GPU_MSM_AFFINE_STOP"));
  return s;
}

uint64_t budget_for(uint64_t free_bytes, uint64_t cap_bytes) {
  // The free memory less what stays for whatever the caller allocates next (the bucket
  // reduction's scratch, a proof's later sorts; the rounds' own arrays are counted in the room and
  // reused): half of it, at most kAffineKeepBytes. At most kAffineCeilingBytes: each slice runs all
  // its rounds, and the late rounds' small kernels cost ~0.4-0.8 ms each whatever the slice's size,
  // so fewer, larger slices win. On the H200 at 2^24, 32 GiB (1-2 slices) against 8 GiB (3-6)
  // took the MSMs 2-7% and the warm proofs 3% faster; all but 20 GiB and 48 GiB against half and
  // 32 GiB put the BLS12-381 warm proof's B_G2 MSM and its joined L + H MSM in one slice each
  // instead of two (52 -> 37 rounds; docs/benchmarks/gpu-proof-scheduling.md). Where the room is
  // under 40 GiB (a 130M PoRep partition's MSMs) it stays half, the share measured there. A cap
  // replaces the ceiling, so a measurement can ask for more slices or fewer.
  const uint64_t keep = std::min(free_bytes / 2, kAffineKeepBytes);
  return std::min<uint64_t>(cap_bytes != 0 ? cap_bytes : kAffineCeilingBytes, free_bytes - keep);
}

uint64_t batch_affine_budget(uint64_t free_bytes, uint64_t cap_bytes) {
  static const uint64_t env_cap = parse_affine_budget_env(std::getenv("ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB"));
  return budget_for(free_bytes, cap_bytes != 0 ? cap_bytes : env_cap);
}

int parse_precompute_env(const char* value) {
  if (value == nullptr || *value == '\0') return 0;
  return int(parse_bounded(value, "ZKMILL_GPU_MSM_PRECOMPUTE", 1, 64));
}

int precompute_factor(int requested) {
  if (requested > 0) return requested;
  static const int from_env = parse_precompute_env(std::getenv("ZKMILL_GPU_MSM_PRECOMPUTE"));
  return from_env > 0 ? from_env : 1;
}

bool msm_trace() {
  static const bool on = [] {
    const char* v = std::getenv("ZKMILL_GPU_MSM_TRACE");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return on;
}

}  // namespace zkmill::cuda::pippenger
