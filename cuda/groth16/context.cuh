// SPDX-License-Identifier: MIT
// Per-device state of the GPU prover (CUDA-only): pinned staging pool, resident-key cache with
// an LRU byte budget, per-curve MSM/NTT engines and working buffers, and the device registry.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "common/util/thread_pool.hpp"
#include "cuda/ec/g1.hpp"
#include "cuda/ec/g2.hpp"
#include "cuda/groth16/prover.hpp"
// batch_affine.cuh: the engine's batch-affine state (AffineRounds) must be a complete type
// wherever an Engine is constructed (its unique_ptr member); it includes pippenger.cuh.
#include "cuda/msm/batch_affine.cuh"
#include "cuda/msm/pippenger.cuh"
#include "cuda/ntt/ntt.cuh"
#include "cuda/runtime/gpu_memory.cuh"

namespace zkmill::cuda::g16 {

// One page-locked host buffer (cudaHostAlloc), owned.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t bytes) : bytes_(bytes) {
    const cudaError_t e = cudaHostAlloc(&p_, bytes, cudaHostAllocDefault);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      p_ = nullptr;
      throw DeviceAllocError("pinned staging buffer (host)", bytes, __FILE__, __LINE__);
    }
    ZK_CUDA_OK(e);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (p_) (void)cudaFreeHost(p_);
  }
  uint8_t* get() const { return static_cast<uint8_t*>(p_); }
  size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;  // cudaHostAlloc's out-parameter type; never leaves this class
  size_t bytes_;
};

// The staging pool's thread count and slot size: ZKMILL_GPU_STAGING_THREADS and
// ZKMILL_GPU_STAGING_SLOT_MIB (prover.hpp), read once (context.cu).
size_t staging_threads();
size_t staging_slot_bytes();

// A bounded ring of pinned staging slots. upload() copies host memory into a free slot, then
// issues the slot -> device copy on `stream`; the slot is reused once the event recorded after
// its copy has completed, so the host's memcpy into slot k+1 overlaps the DMA of slot k. Only
// kSlots x slot_bytes() is ever pinned, whatever the bundle's size. The host copy into a slot is
// split over a few staging threads of the pool's own: one thread stages pageable memory at
// ~9 GB/s on the H200 host (cuda/bench/NOTES.md), a sixth of the 55 GB/s the DMA takes, and
// the per-proof upload was 431 of a 752 ms BN254 2^24 proof. Its own pool, not the global one:
// a CPU-G2 MSM on the global pool must not queue the uploads behind its batches. The thread
// count and the slot size come from ZKMILL_GPU_STAGING_THREADS / ZKMILL_GPU_STAGING_SLOT_MIB
// (prover.hpp), read when the device's context is created.
class PinnedPool {
 public:
  static constexpr int kSlots = 4;

  PinnedPool() : slot_bytes_(staging_slot_bytes()), stagers_(staging_threads()) {
    for (int i = 0; i < kSlots; ++i) slot_[i] = std::make_unique<PinnedBuffer>(slot_bytes_);
  }
  size_t slot_bytes() const { return slot_bytes_; }

  static bool page_locked(const void* p) {
    cudaPointerAttributes at{};
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
      (void)cudaGetLastError();  // not an error of the proof: the memory is simply not the driver's
      return false;
    }
    return at.type == cudaMemoryTypeHost;
  }

  // Streams src[0 .. count) through the slots: per chunk, the host copies it into a free slot,
  // then `issue(pinned_chunk, off, len)` queues on `stream` whatever reads the chunk (a copy to
  // the device, a conversion kernel); the slot is reused once that work has completed.
  template <class T, class Issue>
  void stream_chunks(const T* src, size_t count, cudaStream_t stream, Issue&& issue) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t per = slot_bytes_ / sizeof(T);
    for (size_t off = 0; off < count; off += per) {
      const size_t len = count - off < per ? count - off : per;
      Event& ev = ev_[next_];
      if (used_[next_]) ZK_CUDA_OK(cudaEventSynchronize(ev.get()));
      uint8_t* slot = slot_[next_]->get();
      const uint8_t* from = reinterpret_cast<const uint8_t*>(src + off);
      stagers_.parallel_for(
          len * sizeof(T), [&](size_t lo, size_t hi) { std::memcpy(slot + lo, from + lo, hi - lo); }, size_t(1) << 20);
      issue(reinterpret_cast<const T*>(slot), off, len);
      ev.record(stream);
      used_[next_] = true;
      next_ = (next_ + 1) % kSlots;
    }
  }
  // dst[0 .. count) <- src[0 .. count), ordered on `stream`. A source already page-locked (both
  // ends: cudaHostRegister, cudaMallocHost) goes to the device directly, without the slots'
  // staging copies.
  template <class T>
  void upload(T* dst, const T* src, size_t count, cudaStream_t stream) {
    if (count != 0 && page_locked(src) && page_locked(src + count - 1)) {
      ZK_CUDA_OK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, stream));
      return;
    }
    stream_chunks(src, count, stream, [&](const T* chunk, size_t off, size_t len) {
      ZK_CUDA_OK(cudaMemcpyAsync(dst + off, chunk, len * sizeof(T), cudaMemcpyHostToDevice, stream));
    });
  }

 private:
  size_t slot_bytes_;  // before stagers_ and the slots: both are sized from it
  util::ThreadPool stagers_;
  std::unique_ptr<PinnedBuffer> slot_[kSlots];
  Event ev_[kSlots];
  bool used_[kSlots] = {};
  int next_ = 0;
};

// The resident sections of one proving key on one device: the four G1 sections and, when the
// G2 MSM runs on the GPU, B_G2.
struct KeyEntryBase {
  virtual ~KeyEntryBase() = default;
  std::string id;
  uint64_t bytes = 0;
};

// The G2 traits that go with a G1 traits struct (same curve).
template <class G>
using G2Of = curve::G2Device<typename G::Host>;

template <class G>
struct KeyEntry final : KeyEntryBase {
  DeviceBuffer<typename G::Affine> a, b1;
  // L and H as one point set, [L; H] (n_aux + n_h points a copy): the proof's C needs only the
  // sum of their MSMs, so they can run as one (prove.cuh, gpu_parts).
  DeviceBuffer<typename G::Affine> lh;
  DeviceBuffer<typename G2Of<G>::Affine> b2;  // empty unless the key was cached for GPU G2
  size_t n_vars = 0, n_aux = 0, n_h = 0;
  bool has_b2 = false;
  // Precomputed copies (pippenger_plan.hpp, PointCopies): every section holds `copies` copies
  // of its points for window width c, one after the other (1: plain points).
  int copies = 1, c = 0;
};

// Device-resident views the prover core reads (from a KeyEntry, or synthetic in benchmarks).
template <class G>
struct DeviceKeyView {
  const typename G::Affine* a = nullptr;   // n_vars points
  const typename G::Affine* b1 = nullptr;  // n_vars points
  const typename G::Affine* l = nullptr;   // n_aux points
  const typename G::Affine* h = nullptr;   // n_h >= domain - 1 points
  size_t n_vars = 0, n_aux = 0, n_h = 0;
  const typename G2Of<G>::Affine* b2 = nullptr;  // n_vars G2 points, or nullptr: no G2 MSM on the GPU
  // Every section as `copies` precomputed copies for window width c (1: plain points; the
  // sections' sizes above are per copy).
  int copies = 1, c = 0;
  // false: L and H are sections of their own. true: h == l + n_aux, one point set [L; H] whose
  // copy j of L's (H's) point i is l[j (n_aux + n_h) + i] (h[j (n_aux + n_h) + i]), which lets
  // their two MSMs run as one.
  bool lh_one_set = false;
  pippenger::PointCopies copies_of(size_t n) const { return {copies, c, uint32_t(n)}; }
  // The copies' layout of L's or H's n points: the joint set's stride when they are one set.
  pippenger::PointCopies copies_of_lh(size_t n) const { return copies_of(lh_one_set ? n_aux + n_h : n); }
};

template <class G>
DeviceKeyView<G> view_of(const KeyEntry<G>& e) {
  return {e.a.get(), e.b1.get(), e.lh.get(), e.lh.get() + e.n_aux,
          e.n_vars,  e.n_aux,    e.n_h,      e.has_b2 ? e.b2.get() : nullptr,
          e.copies,  e.c,        true};
}

// LRU list of resident keys under a byte budget. Not thread-safe: the owning context's mutex
// serialises every use.
class KeyCache {
 public:
  KeyCacheStats stats() const {
    KeyCacheStats s = stats_;
    s.resident_bytes = resident_;
    s.budget_bytes = budget_;
    s.entries = entries_.size();
    return s;
  }
  uint64_t budget() const { return budget_; }
  void set_budget(uint64_t bytes) {
    budget_ = bytes;
    evict_until_fits(0, nullptr);
  }

  // The entry for `id` moved to the front, or nullptr.
  KeyEntryBase* find(const std::string& id) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if ((*it)->id == id) {
        entries_.splice(entries_.begin(), entries_, it);
        ++stats_.hits;
        return entries_.front().get();
      }
    }
    return nullptr;
  }

  // Drops least-recently-used entries (never `keep`) until `incoming` more bytes fit.
  void evict_until_fits(uint64_t incoming, const KeyEntryBase* keep) {
    for (auto it = entries_.end(); it != entries_.begin() && resident_ + incoming > budget_;) {
      --it;
      if (it->get() == keep) continue;
      resident_ -= (*it)->bytes;
      it = entries_.erase(it);
      ++stats_.evictions;
    }
  }
  void evict_all_but(const KeyEntryBase* keep) {
    const uint64_t saved = budget_;
    budget_ = 0;
    evict_until_fits(0, keep);
    budget_ = saved;
  }

  KeyEntryBase* insert(std::unique_ptr<KeyEntryBase> e) {
    resident_ += e->bytes;
    ++stats_.uploads;
    entries_.push_front(std::move(e));
    return entries_.front().get();
  }
  void clear() {
    entries_.clear();
    resident_ = 0;
  }

 private:
  std::list<std::unique_ptr<KeyEntryBase>> entries_;
  uint64_t budget_ = 0, resident_ = 0;
  KeyCacheStats stats_;
};

// Engines and per-proof device buffers of one curve on one device (kept across proofs; they
// only grow).
template <class G>
struct CurveState {
  using F = typename G::Fr;
  // The MSMs on stream s, the NTTs (H) on stream h (DeviceContext says why).
  CurveState(cudaStream_t s, cudaStream_t h) : msm(s, &scratch), msm2(s, &scratch), ntt(h) {}
  // One scratch for both engines: A, B_G1 and B_G2 share one digit sort (same scalars z), and
  // the sort buffers and partial sums (the bulk of MSM memory) exist once.
  pippenger::MsmScratch scratch;
  pippenger::Engine<G> msm;
  pippenger::Engine<G2Of<G>> msm2;  // B_G2, on the same stream
  ntt::Engine<typename G::HostFr> ntt;
  DeviceBuffer<F> a, b, c, t, z;
  DeviceBuffer<F> u;  // snarkjs keys whose root differs from ours (BLS12-381): permutation scratch
  // Witness-only bundles: the packed aux as uploaded (whole values; full map and bits words)
  // and the unpack's scratch (cuda/cs/witness_unpack.cuh).
  DeviceBuffer<F> packed_full;
  DeviceBuffer<uint64_t> packed_words;
  DeviceBuffer<unsigned char> unpack_scratch;
  DeviceBuffer<unsigned long long> bad_row;
};

class DeviceContext {
 public:
  explicit DeviceContext(int dev) : device(select(dev)) {}
  std::mutex mu;     // one proof at a time per device
  const int device;  // initialised first: the streams, events and pinned pool belong to it
  // compute: the MSMs; copy: uploads (and the witness-only unpack and mat-vec); h: H's NTTs and
  // pointwise kernels (prove.cuh), concurrent with the MSMs. The MSMs sync with the host a few
  // times a batch-affine round and leave the GPU idle meanwhile; H's kernels fill those gaps,
  // and the MSMs' higher priority keeps H from delaying them where both have blocks waiting.
  Stream compute{StreamPriority::kGreatest};
  Stream copy, h;
  PinnedPool pinned;
  KeyCache cache;
  std::unique_ptr<CurveState<curve::Bn254G1>> bn254;
  std::unique_ptr<CurveState<curve::Bls12381G1>> bls12_381;

  template <class G>
  CurveState<G>& state() {
    auto& p = slot<G>();
    if (!p) p = std::make_unique<CurveState<G>>(compute.get(), h.get());
    return *p;
  }
  // Drops the per-proof buffers and MSM/NTT scratch (after an out-of-memory, to start clean).
  void drop_scratch() {
    bn254.reset();
    bls12_381.reset();
  }

 private:
  static int select(int dev) {
    ZK_CUDA_OK(cudaSetDevice(dev));
    return dev;
  }
  template <class G>
  auto& slot() {
    if constexpr (std::is_same_v<G, curve::Bn254G1>)
      return bn254;
    else
      return bls12_381;
  }
};

// The context of `device`, created on first use (cudaSetDevice is called either way), locked.
// The lease shares ownership, so release_gpu_context on another thread never frees a context
// in use (it is freed when the last lease ends).
struct ContextLease {
  std::shared_ptr<DeviceContext> hold;  // declared first: the lock is released before it
  DeviceContext* ctx;
  std::unique_lock<std::mutex> lock;
};
ContextLease acquire_context(int device);  // throws CudaError / std::invalid_argument

}  // namespace zkmill::cuda::g16
