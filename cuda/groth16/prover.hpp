// SPDX-License-Identifier: MIT
// Public entry points of the GPU Groth16 prover (BN254, BLS12-381): same inputs and same proof,
// bit for bit, as groth16::prove_with_randomness; plain C++ so callers built without nvcc link it.
//
// Per device index (cudaSetDevice) the backend keeps one context: two streams, a bounded pool
// of pinned staging buffers, the MSM / NTT engines with their scratch, and a KeyCache holding
// the sections (A, B_G1, L, H, and B_G2 unless g2_on_cpu) of recently used proving keys
// resident on that device, under a byte budget with LRU eviction. A proof then uploads only the
// bundle's a, b, c and scalars. H is computed on the device (iNTT, coset NTT, (a b - c) / Z(g),
// inverse coset NTT) and its n - 1 coefficients feed the H MSM without leaving the device; the
// G2 MSM (B_G2) runs on the device too, or on the CPU thread pool while the GPU works when
// GpuProveOptions::g2_on_cpu is set. Nothing throws across this API: every failure, device
// out-of-memory included, is a GpuResult (the caller can fall back to the CPU prover).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/cs/witness_bundle.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_key.hpp"
#include "cuda/runtime/gpu_result.hpp"

namespace zkmill::cs {
class PceMatrices;
}

namespace zkmill::cuda {

// Wall-clock milliseconds of one GPU proof's phases (host clock; GPU phases end on a sync).
struct GpuProveTimings {
  double key_upload_ms = 0;  // 0 on a key-cache hit
  double upload_ms = 0;      // host time of the scalar and a, b, c uploads through the pinned pool
  // H (a, b, c -> the H MSM's scalars) runs on a stream of its own, concurrent with the MSMs
  // (prove.cuh; GpuHPlacement says where its kernels start), so these overlap the MSMs' times:
  //   abc_wait_ms: the H stream's idle time waiting for b and c (or, witness-only, the mat-vec)
  //     after a's first NTT (CUDA events on that stream); it delays the proof only where H ends
  //     after the L MSM. Beside B_G2, H starts after every upload was issued: about 0;
  //   h_ms: H's span on its stream, from a's first NTT to h ready, less abc_wait_ms (CUDA
  //     events): H's own time plus whatever the MSMs' kernels slowed it by (beside A and B_G1:
  //     theirs; beside B_G2: B_G2's, and L's when H outlasts it);
  //   h_wait_ms: the proof's wait for a, b, c and H after the L MSM (host time; about 0 when the
  //     MSMs hid both);
  //   upload_wait_ms: the time the proof waited for its uploads: the scalars' (the MSMs need all
  //     of z) plus min(abc_wait_ms, h_wait_ms), a bound on the part of the wait for b and c the
  //     MSMs did not hide.
  // The MSM times below include the slowdown of H's kernels beside them: A's and B_G1's under
  // the default placement (and the a, b, c copies' either way), B_G2's (and L's) beside B_G2.
  double upload_wait_ms = 0, abc_wait_ms = 0;
  double h_ms = 0, h_wait_ms = 0;
  double msm_a_ms = 0, msm_b_g1_ms = 0, msm_l_ms = 0, msm_h_ms = 0;  // G1 MSMs on the GPU
  // L and H ran as one MSM over [L; H] (lh_msm_joined): msm_h_ms is its time, msm_l_ms 0.
  bool lh_joined = false;
  // B_G2: msm_b_g2_ms on the GPU (the default), or in CPU-G2 mode (g2_on_cpu) g2_cpu_ms on the
  // CPU pool, concurrent with the above, and g2_wait_ms the GPU side's wait for it afterwards.
  double msm_b_g2_ms = 0, g2_cpu_ms = 0, g2_wait_ms = 0;
  // Witness-only bundles (GpuProveOptions::pce): unpacking the bit-packed aux into z on the
  // device, the matrices' upload into the key cache (0 when resident), and a, b, c on the
  // device (unpack and mat-vec: CUDA events).
  double unpack_ms = 0, pce_upload_ms = 0, spmv_ms = 0;
  // MSM steps that ran out of device memory and ran again after the rounds' buffers of earlier
  // MSMs were released (prove.cuh): 0 unless the card is nearly full (a 130M-constraint partition).
  int msm_room_retries = 0;
  double combine_ms = 0;  // final A/B/C combination on the host
  double total_ms = 0;
  bool key_cache_hit = false;
  bool g2_on_gpu = false;  // B_G2 was computed on the device
};

// Where H's kernels (interpolation, row check, coset NTTs, quotient: ~31 ms at 2^24 on the H200)
// run beside the MSMs of the same proof. kBesideAB: as soon as a, b, c arrive, i.e. beside the A
// and B_G1 MSMs (they then slow A and B_G1 by ~10 ms each at 2^24, and a 130M partition's
// bit-heavy A from ~70 to ~400 ms). kBesideG2: not before the B_G2 MSM starts (the L MSM's when
// B_G2 is not on the GPU); measured 2-4 ms faster at 2^24 and 45-66 ms at a 130M BLS12-381
// partition (docs/benchmarks/gpu-porep.md, 2026-12-04). kDefault: the environment's
// ZKMILL_GPU_H_BESIDE (ab or g2, read once), else kBesideG2.
enum class GpuHPlacement { kDefault, kBesideAB, kBesideG2 };

struct GpuProveOptions {
  int device = 0;  // CUDA device index
  // Identity of the key in the device key cache. Empty: a fingerprint of the key is computed
  // (curve, metadata, section sizes, vk, and 64-bit hashes of 4096 points sampled from every
  // G1 section); callers holding a key file should pass e.g. "path:size:mtime".
  std::string key_id;
  // B_G2 on the CPU thread pool (overlapping the GPU work) instead of the device. Off by
  // default: the GPU G2 MSM is 30-100x faster (cuda/bench/NOTES.md). Useful when the key's B_G2
  // section would not fit the key-cache budget alongside the G1 sections (a key cached for CPU
  // G2 holds its G1 sections only), or to compare the two.
  bool g2_on_cpu = false;
  bool skip_g2 = false;  // benchmarks only: B_G2 is taken as the identity (the proof is invalid)
  // The circuit's PCE matrices, for witness-only bundles (cs::BundleKind::Witness, native keys):
  // they stay resident in the device's key cache beside the key (same budget) and a, b, c are
  // computed there from z, so only the witness crosses PCIe. Required for such bundles (an
  // invalid-argument error without it, or when the bundle was packed for other matrices);
  // ignored for bundles that carry a, b, c.
  const cs::PceMatrices* pce = nullptr;
  // Precomputed copies of the resident key (fixed bases, pippenger_plan.hpp): t copies of every
  // section cut the MSMs' windows from W to ceil(W / t) for t times the key's device memory
  // (t >= W: one window). 0: ZKMILL_GPU_MSM_PRECOMPUTE, else off; 1: off. Fewer copies when t
  // do not fit the key-cache budget, none when that leaves fewer than four (a line on stderr; the
  // proof goes on).
  int precompute = 0;
  GpuHPlacement h_beside = GpuHPlacement::kDefault;
};

struct KeyCacheStats {
  uint64_t uploads = 0;    // keys uploaded (cache misses)
  uint64_t hits = 0;       // proofs that found their key resident
  uint64_t evictions = 0;  // keys dropped to stay within the budget
  uint64_t resident_bytes = 0;
  uint64_t budget_bytes = 0;
  uint64_t entries = 0;
};

// out is written only on success. r, s are the blinders (prove_with_randomness's r, s). E is
// curves::Bn254 or curves::Bls12381, deduced from the key and `out` (name it, prove_gpu<E>,
// when passing a null `out`); one instantiation per curve, in prover_<curve>.cu. The overload
// for snarkjs keys is in zkey_prover.hpp.
template <class E>
GpuResult prove_gpu(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                    const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* timings = nullptr,
                    const GpuProveOptions& options = {}) noexcept;

// The key-cache budget of a device in bytes (default: half of the device's memory; the rest is
// left to the per-proof buffers and MSM scratch). Shrinking evicts at once.
GpuResult set_key_cache_budget(int device, uint64_t bytes) noexcept;
GpuResult key_cache_stats(int device, KeyCacheStats* out) noexcept;
// Environment knobs of the GPU prover, each read once per process (an invalid value is a
// std::invalid_argument naming the variable); the parsers are exposed for tests.
//   ZKMILL_GPU_H_BESIDE=ab|g2: GpuHPlacement's default (unset or empty: g2).
//   ZKMILL_GPU_STAGING_THREADS=N (1..64): host threads copying pageable memory into the pinned
//     staging slots (unset: every hardware thread, at most 16).
//   ZKMILL_GPU_STAGING_SLOT_MIB=M (1..1024): the size of each of the 4 pinned slots (unset: 32).
// Both staging knobs take effect when a device's context is created (first proof on it, or after
// release_gpu_context).
//   ZKMILL_GPU_LH_MSM=joined|apart: the L and H MSMs as one MSM over [L; H] (unset or empty:
//     joined; the proof's C needs only their sum), or as two (measurements).
GpuHPlacement parse_h_beside_env(const char* value);  // kBesideG2 when unset
GpuHPlacement h_placement(GpuHPlacement requested);   // requested, else the environment's
bool parse_lh_msm_env(const char* value);             // true (joined) when unset
bool lh_msm_joined();                                 // the environment's, read once
size_t parse_staging_threads_env(const char* value, size_t hardware_threads);
size_t parse_staging_slot_mib_env(const char* value);

// Page-locks host memory [p, p + bytes) for DMA (cudaHostRegister) until unpin_host_memory(p).
// A bundle held in such memory is uploaded straight from it, without the pinned pool's staging
// copies (z at 2^24: ~10 ms at the H2D rate instead of ~15; docs/benchmarks.md). Pinning costs
// time once per range (the kernel locks every page): for buffers reused across many proofs.
GpuResult pin_host_memory(const void* p, size_t bytes) noexcept;
GpuResult unpin_host_memory(const void* p) noexcept;

// Frees everything the backend holds on `device` (resident keys, pinned buffers, scratch,
// streams); the next proof there starts cold. Call before process exit for leak checkers.
GpuResult release_gpu_context(int device) noexcept;

}  // namespace zkmill::cuda
