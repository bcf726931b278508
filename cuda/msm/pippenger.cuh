// SPDX-License-Identifier: MIT
// GPU Pippenger MSM over G1 or G2: the engine's interface (CUDA-only). The kernels and the
// engine's member definitions are in pippenger_impl.cuh and pippenger_reduce.cuh, which only
// the units that instantiate an engine include (msm_g1.cu for both curves' G1, msm_g2_<curve>.cu
// and msm_g2_<curve>_reduce.cu for each G2); everything else (the prover, the benchmark suite)
// includes this header and links to those instantiations (the extern template declarations at
// the end). Each group's kernels are thus compiled once per build: a G2 (Fq2) engine takes
// cicc and ptxas minutes, a G1 one about a minute.
// The algorithm is described at the top of pippenger_impl.cuh; the arithmetic that does not
// depend on CUDA (window choice, digits, window combination) is in pippenger_plan.hpp.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/ec/g1.hpp"
#include "cuda/ec/g2.hpp"
#include "cuda/msm/accumulation.hpp"
#include "cuda/msm/pippenger_plan.hpp"
#include "cuda/runtime/gpu_memory.cuh"

namespace zkmill::cuda::pippenger {

constexpr int kThreads = 256;     // light 1-D kernels
constexpr int kAccThreads = 128;  // register-heavy point-addition kernels
constexpr int kReduceThreads = 128;

inline unsigned blocks_for(uint64_t n, int threads) {
  return unsigned((n + uint64_t(threads) - 1) / uint64_t(threads));
}

// Milliseconds spent in each phase of the last run (filled only when asked for: the events
// between phases cost a little). digits / sort / bounds are 0 for a run on shared digits.
struct MsmPhaseTimes {
  float digits = 0, sort = 0, bounds = 0, accumulate = 0, reduce = 0, host_tail = 0, total = 0;
  int levels = 0;       // XYZZ accumulation levels run (1 when no bucket exceeded one chunk), or batch-affine rounds
  bool affine = false;  // the windows' buckets were accumulated by batch-affine rounds
  uint32_t n_one = 0, n_other = 0;  // scalars equal to 1 (plain sum) and neither 0 nor 1 (windows)
};

// The scalar side of an MSM: the plan, the sorted (bucket key, point index | sign) pairs and the
// per-bucket runs. It depends on the scalars only, so MSMs over the same scalars (Groth16's A,
// B_G1 and B_G2 all take z) share one (Engine::prepare, then Engine::sum for each point set),
// and engines of different groups can share one to share its memory (W n pairs, double-buffered:
// 16 bytes per digit). Also holds the byte buffers the engines carve their partial sums from.
struct MsmScratch {
  MsmPlan plan;  // over the n_other scalars that are neither 0 nor 1
  uint32_t n_one = 0, n_other = 0;
  DeviceBuffer<uint32_t> idx_other, idx_one, counts;  // bit-aware split (classify_kernel)
  DeviceBuffer<uint8_t> flags;
  const uint32_t* keys = nullptr;  // into keys_[.] after prepare(); sorted
  const uint32_t* vals = nullptr;
  uint32_t max_count = 0;  // points in the fullest bucket
  bool ready = false;
  DeviceBuffer<uint32_t> keys_buf[2], vals_buf[2];
  // Per-bucket (start, count): [0] the sorted runs (kept for later sums), [1] / [2] alternate
  // between accumulation levels.
  DeviceBuffer<uint32_t> start[3], count[3], max;
  DeviceBuffer<uint8_t> temp, part[3];  // part: XYZZ partial sums, or batch-affine arrays
  // Batch-affine accumulation: the host copy of count[0] (fetched by the first sum that needs
  // it after a prepare) and the bucket slices [first, end) cut from it for a given budget.
  std::vector<uint32_t> host_count;
  uint64_t slices_cap = 0;
  std::vector<uint32_t> slice_ends;
};

template <class G>
class AffineRounds;

template <class G>
class Engine {
 public:
  using Affine = typename G::Affine;
  using Fr = typename G::Fr;
  using Bucket = typename G::Bucket;
  using HostJacobian = typename G::HostJacobian;
  using HostImage = typename G::HostImage;

  // `shared`: scratch owned by the caller and shared with other engines on the same stream
  // (nullptr: the engine's own).
  explicit Engine(cudaStream_t stream, MsmScratch* shared = nullptr) : stream_(stream), s_(shared ? shared : &own_) {}
  ~Engine();  // out of line: AffineRounds is complete only in pippenger_impl.cuh
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // MSM of n device-resident points (compact affine) and scalars (Montgomery form). With
  // `copies` (copies.copies > 1) the points are precomputed copies (precompute()): d_points holds
  // copies.copies * copies.n points and the width is theirs.
  HostJacobian run(const Affine* d_points, const Fr* d_scalars, size_t n, int c_override = 0,
                   MsmPhaseTimes* times = nullptr, const PointCopies& copies = {});

  // Bit-aware split, digits, sort and bucket runs of n scalars into the scratch (for sum()), for
  // plain points or for precomputed copies as described by `copies`.
  void prepare(const Fr* d_scalars, size_t n, int c_override = 0, bool timed = false, const PointCopies& copies = {});

  // sum_i scalars[i] * points[i] for the scalars of the last prepare() on this scratch (by this
  // or another engine sharing it); points must hold at least that many entries (laid out as the
  // prepare's PointCopies say: every engine sharing a prepare sums copies of the same shape).
  HostJacobian sum(const Affine* d_points, MsmPhaseTimes* times = nullptr, bool after_prepare = false);

  const MsmPlan& plan() const { return plan_; }

  // Frees the batch-affine rounds' buffers and the shared XYZZ partials, which are kept from one
  // MSM to the next (no reallocation per proof): for a caller short of device memory for its
  // next step (prove.cuh). Waits for the stream first.
  void release_round_scratch();

  // XYZZ or batch-affine accumulation (kAuto: by size and free memory, cuda/msm/accumulation.cpp)
  // for the windows' buckets and the 1-scalar sum; set_ones_accumulation then overrides the
  // latter alone (measurements: the same proof with only the 1-scalar sums forced).
  void set_accumulation(MsmAccumulation a) { accumulation_ = ones_accumulation_ = a; }
  void set_ones_accumulation(MsmAccumulation a) { ones_accumulation_ = a; }
  // How a batch-affine round runs (kAuto: the environment's or the default, accumulation.cpp).
  void set_affine_round(MsmAffineRound r) { affine_round_ = r; }
  // Cap on the rounds' byte budget (0: the default; MsmOptions::affine_budget_bytes).
  void set_affine_budget(uint64_t cap_bytes) { affine_cap_ = cap_bytes; }

  // CPU-layout points (the bytes of an array of the CPU's affine points, uploaded as they are)
  // to the compact affine layout the kernels read, n of them, ordered on `stream`. The key
  // upload of the prover and the MSM entry use it; here so that its kernel is compiled with
  // the engine's.
  static void points_from_image(const HostImage* in, Affine* out, uint32_t n, cudaStream_t stream);

  // Precomputed copies in place: pts holds room for `copies` * n points, the first n filled;
  // copy j becomes 2^(shift j) times them (shift = precompute_shift(bits, c, copies)). Ordered
  // on `stream`.
  static void precompute(Affine* pts, uint32_t n, int copies, int shift, cudaStream_t stream);

 private:
  uint64_t affine_room() const;
  void sum_ones(const Affine* d_points, Bucket* dst);
  void sum_ones_affine(const Affine* d_points, Bucket* dst, uint64_t slices);
  void sum_list_xyzz(const uint32_t* vals, const Affine* pts, uint32_t count, Bucket* dst);
  int sum_windows(const Affine* d_points);
  int sum_windows_affine(const Affine* d_points, uint64_t free_bytes);
  void trace(uint32_t nsums, int levels, uint64_t free_bytes) const;
  AffineRounds<G>& affine();
  void reduce_windows(uint32_t nsums);

  // The partial-sum buffers are raw device bytes shared between engines of different groups;
  // cudaMalloc's 256-byte alignment covers every Bucket type.
  Bucket* partials(int k) const { return reinterpret_cast<Bucket*>(s_->part[k].get()); }

  cudaStream_t stream_;
  MsmScratch own_;
  MsmScratch* s_;
  MsmPlan plan_;
  Event ev_[7];
  bool prepared_timed_ = false;
  DeviceBuffer<Bucket> buckets_, tri_, run_, sums_, ones_[2];
  DeviceBuffer<uint32_t> ones_dev_;
  std::vector<uint32_t> ones_meta_;  // host copy of ones_dev_ (kept alive for the async upload)
  std::vector<Bucket> host_sums_;
  MsmAccumulation accumulation_ = MsmAccumulation::kAuto, ones_accumulation_ = MsmAccumulation::kAuto;
  uint64_t affine_cap_ = 0;
  MsmAffineRound affine_round_ = MsmAffineRound::kAuto;
  std::unique_ptr<AffineRounds<G>> affine_;  // its buffers, allocated on first use
  bool last_affine_ = false;
  bool last_fallback_ = false;  // the rounds ran out of device memory and XYZZ took over
  uint64_t last_budget_ = 0;    // the rounds' byte budget and slices in the last batch-affine sum
  size_t last_slices_ = 0;
  uint64_t last_ones_slices_ = 0;    // the last 1-scalar sum: batch-affine slices (0: XYZZ)
  bool last_ones_fallback_ = false;  // ... whose rounds ran out of device memory
  uint64_t last_ones_room_ = 0;      // the room its choice saw
};

// Instantiated once each, in msm_g1.cu and msm_g2_<curve>.cu (+ _reduce.cu).
extern template class Engine<curve::Bn254G1>;
extern template class Engine<curve::Bls12381G1>;
extern template class Engine<curve::Bn254G2>;
extern template class Engine<curve::Bls12381G2>;

}  // namespace zkmill::cuda::pippenger
