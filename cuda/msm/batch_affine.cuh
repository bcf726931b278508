// SPDX-License-Identifier: MIT
// Batch-affine bucket accumulation for the GPU Pippenger MSM (CUDA-only; included by
// pippenger_impl.cuh, so only the units that instantiate an engine compile it).
//
// Why: a mixed XYZZ addition (madd-2008-s) costs 10 field products. An affine addition
//   lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1
// costs 3 products plus one inversion, and Montgomery's trick (P. L. Montgomery, "Speeding the
// Pollard and elliptic curve methods of factorization", Math. Comp. 48, 1987, section 10.3.1)
// turns m inversions into 1 inversion and 3 (m - 1) products: prefix products p_i = d_1 ... d_i
// going up; then, from inv = p_m^-1 going down, d_i^-1 = inv p_{i-1} and inv <- inv d_i. So an
// addition costs about 6 products when the additions are independent and numerous.
//
// Independent additions: the points of a bucket are one contiguous run of the sorted digits
// (and the 1-scalar points one run of their own), so a *round* pairs the points of every run,
// (2k, 2k+1) -> k, with an odd last point carried over; pairs never straddle runs, and a run
// of c points becomes ceil(c / 2). Rounds repeat until every run is short, then each run is
// summed by the XYZZ formulas (a few additions per bucket).
//
// One round, over its m output slots, split into two kernels and one batch inversion:
//   up:    each thread owns `per` slots; for each, where its pair is (SlotSource, to global
//          memory: the kernels below read it instead of searching the slot's bucket again), the
//          denominator d_j of its pair (below) and the running product p_j (to global memory);
//          the thread's product goes into totals[t].
//   invert totals (batch_invert: the same trick level by level over the totals, 16 per thread,
//          down to one element, which the host inverts: one exact inversion per round).
//   down:  the thread walks its slots backwards from inv = totals[t]^-1: d_j^-1 = inv p_prev,
//          inv <- inv d_j, and writes the pair's sum to the next round's array. For most groups
//          in two kernels (affine_split_down): the walk writes d_j^-1 over p_j, then the sums.
// A thread's slots are contiguous, or interleaved across its block so that a warp's lanes touch
// consecutive prefixes, outputs and input pairs (MsmAffineRound, msm.hpp). (A round fused into
// one kernel, with one Fermat inversion per block of 1024 slots instead of the cross-block
// inversion, was measured 2.6-4.2x slower on G1 and removed: cuda/bench/NOTES-batch-affine.md.)
// Denominators, exactly (the exceptional pairs cost nothing extra and need no side path):
//   P + O or O + Q (O: point at infinity, stored as (0, 0)), or P + (-P)  -> d = 1, the sum
//          is the other point / O;
//   P + P (x1 == x2, y1 == y2; y != 0 in a group of odd order)              -> d = 2 y1 and
//          lambda = 3 x1^2 / (2 y1) (the tangent), x3 = lambda^2 - 2 x1;
//   otherwise                                                            -> d = x2 - x1.
// Memory: the round's output points (m affine points), the prefix products (m elements), the
// slot sources (8 bytes a slot) and the totals; the caller slices the buckets so that this stays
// within a byte budget.
#pragma once

#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/ec/affine_pair.hpp"
#include "cuda/msm/pippenger.cuh"

namespace zkmill::cuda::pippenger {

using curve::pair_denominator;
using curve::pair_kind;
using curve::pair_sum;
using curve::PairKind;

// Where slot j's pair is (the `up` kernel finds it, the round's later kernels read it): two
// positions in the round's input points with bit 31 set where the point's y is negated (round
// one's sorted values carry the digit's sign there), i2 = kLonePartner for a run's odd last
// point (its partner is O). Before these records each kernel of a round found the pair by a
// chain of dependent loads (the owner search, in_start / in_count, round one's sorted value);
// reading one coalesced 8-byte record instead made the G1 / G2 MSMs 1-5% faster (H100, H200;
// cuda/bench/NOTES-slices.md, "Slot sources"). Positions stay below 2^31 (the points of a slice).
struct SlotSource {
  uint32_t i1, i2;
};
constexpr uint32_t kLonePartner = 0xffffffffu;

// Slot j of a round (bucket b, k = j - out_start[b]): the points in_start[b] + 2k and, unless
// it is the run's odd last point, in_start[b] + 2k + 1 (in round one, through the sorted values).
__device__ __forceinline__ SlotSource slot_source(const uint32_t* in_start, const uint32_t* in_count,
                                                  const uint32_t* out_start, uint32_t b, uint32_t j,
                                                  const uint32_t* vals) {
  const uint32_t k = j - out_start[b];
  const uint32_t q = in_start[b] + 2 * k;
  const bool lone = 2 * k + 1 >= in_count[b];
  if (vals == nullptr) return {q, lone ? kLonePartner : q + 1};
  return {vals[q], lone ? kLonePartner : vals[q + 1]};
}

template <class G>
__device__ __forceinline__ typename G::Affine source_point(const typename G::Affine* pts, uint32_t i) {
  typename G::Affine p = pts[i & 0x7fffffffu];
  if (i >> 31) p.y = -p.y;  // -0 = 0: the point at infinity stays (0, 0)
  return p;
}

// Point q of a round's input: the first round reads the sorted (index | sign) values and the
// MSM's points; later rounds read the previous round's array directly (vals == nullptr).
template <class G>
__device__ __forceinline__ typename G::Affine round_input(const uint32_t* vals, const typename G::Affine* pts,
                                                          uint32_t q) {
  return vals == nullptr ? pts[q] : source_point<G>(pts, vals[q]);
}

template <class G>
__device__ __forceinline__ void source_pair(SlotSource s, const typename G::Affine* pts, typename G::Affine& p1,
                                            typename G::Affine& p2) {
  p1 = source_point<G>(pts, s.i1);
  p2 = s.i2 == kLonePartner ? G::Affine::infinity() : source_point<G>(pts, s.i2);
}

// out_count[b] = ceil(count[b] / 2) for b < nb, out_count[nb] = 0 (so the exclusive scan's last
// entry is the number of output slots).
static __global__ void half_counts_kernel(const uint32_t* count, uint32_t nb, uint32_t* out_count) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > nb) return;
  out_count[b] = b < nb ? (count[b] + 1) / 2 : 0u;
}

// owner_of (pippenger_plan.hpp) when the answer is known to be >= lo: a few linear steps first
// (consecutive slots of a thread are usually in the same bucket or the next), then a binary
// search over the rest. off[] has count + 1 entries, off[count] past every slot.
__device__ __forceinline__ uint32_t owner_from(const uint32_t* off, uint32_t lo, uint32_t count, uint32_t j) {
  for (int s = 0; s < 4; ++s) {
    if (lo + 1 >= count || off[lo + 1] > j) return lo;
    ++lo;
  }
  return owner_of(off, count, j, lo);
}

// The slots a thread of a round owns: first + k step for k < n.
//   contiguous:  thread t owns [t per, t per + per) (the first layout; lanes of a warp read
//                addresses per slots apart);
//   interleaved: block g owns [g T per, (g + 1) T per) and its thread i the slots g T per + i + k T,
//                so the lanes of a warp read consecutive slots: consecutive prefixes, consecutive
//                output points and, from the second round on, consecutive input pairs (coalesced).
struct SlotWalk {
  uint32_t first, step, n;
};

__device__ __forceinline__ uint32_t min_slots(uint64_t a, uint64_t b) { return uint32_t(a < b ? a : b); }

__device__ __forceinline__ SlotWalk slot_walk(uint32_t t, uint32_t m, uint32_t per, bool interleaved) {
  if (!interleaved) {
    const uint64_t j0 = uint64_t(t) * per;
    return j0 >= m ? SlotWalk{0, 1, 0} : SlotWalk{uint32_t(j0), 1, min_slots(per, m - j0)};
  }
  const uint32_t T = kAccThreads;
  const uint64_t j0 = uint64_t(t / T) * T * per + t % T;
  if (j0 >= m) return {0, T, 0};
  return {uint32_t(j0), T, min_slots(per, (m - j0 + T - 1) / T)};
}

// Denominator of a slot (see the top): from the x coordinates alone when they are distinct and
// non-zero (two distinct finite points: the chord, d = x2 - x1); the y are read only for the rare
// pairs with equal x or an x of 0 (which may be the point at infinity).
template <class G>
__device__ __forceinline__ typename G::Fq source_denominator(SlotSource s, const typename G::Affine* pts) {
  using F = typename G::Fq;
  const F x1 = pts[s.i1 & 0x7fffffffu].x;
  const F x2 = s.i2 == kLonePartner ? F::zero() : pts[s.i2 & 0x7fffffffu].x;
  if (x1 == x2 || x1.is_zero() || x2.is_zero()) {
    typename G::Affine p1, p2;
    source_pair<G>(s, pts, p1, p2);
    return pair_denominator(p1, p2, pair_kind(p1, p2));
  }
  return x2 - x1;
}

// How a group's round ends (measured per group on the H200, cuda/bench/NOTES-down-kernel.md):
// split, the down kernel's work in two kernels (affine_round_inverses_kernel, then
// affine_round_sums_kernel, below); or whole, affine_round_down_kernel. The split gained 10-32%
// of the accumulation for BLS12-381 G1 and both G2 groups, where `down` carried both points and
// the running inverse at 110-247 registers (2-4 blocks of 128 a SM) and each slot's loads waited
// on the previous slot's products; BN254 G1 (76 registers, 6 blocks) lost 5-7% to it.
template <class G>
constexpr bool affine_split_down() {
  return !std::is_same_v<G, curve::Bn254G1>;
}

// Blocks of kAccThreads a SM that the sums kernel asks ptxas to fit (__launch_bounds__'s second
// argument): with the running inverse gone, BLS12-381 G1 / BN254 G2 / BLS12-381 G2 fit 5 / 4 / 4
// blocks at 88 / 128 / 128 registers (1: no bound). BLS12-381 G2 spills 816 bytes a thread there
// (218 registers unbounded), yet 4 blocks beat 3 (168 registers, 260 bytes of spill), 2 (no spill)
// and 5 on the H200: more warps hide the loads better than fewer spills save (cuda/bench/NOTES-down-kernel.md,
// NOTES-square.md).
template <class G>
constexpr int affine_sums_min_blocks() {
  if constexpr (std::is_same_v<G, curve::Bls12381G1>) {
    return 5;
  } else if constexpr (std::is_same_v<G, curve::Bn254G2> || std::is_same_v<G, curve::Bls12381G2>) {
    return 4;
  } else {
    return 1;
  }
}

// The same for the up and inverses kernels (one value for both). Unbounded, BLS12-381 G2's take 134 and 168 registers
// (3 blocks); bounded at 4 blocks, 128 each with 20 and 88 bytes of spill. With all three of its
// round kernels at 4 blocks its G2 MSM is 7.6% faster at 2^24 on the H200 (up and inverses alone:
// 3.4%; the inverses walk is a chain of products per thread, which a fourth block's warps hide).
// BLS12-381 G1 at 8 blocks (64 registers, 64-72 bytes of spill) was 1.5% slower; the other groups
// were not measured bounded (cuda/bench/NOTES-down-kernel.md).
template <class G>
constexpr int affine_walk_min_blocks() {
  return std::is_same_v<G, curve::Bls12381G2> ? 4 : 1;
}

// Round, step 1: each slot's source into src[j], the denominators of the thread's slots, their
// running products p_j into prefix[j], the thread's product into totals[t] (1 for a thread with
// no slot).
template <class G>
__global__ void __launch_bounds__(kAccThreads, affine_walk_min_blocks<G>())
    affine_round_up_kernel(const uint32_t* in_start, const uint32_t* in_count, const uint32_t* out_start, uint32_t nb,
                           uint32_t m, uint32_t per, bool interleaved, uint32_t threads, const uint32_t* vals,
                           const typename G::Affine* pts, SlotSource* src, typename G::Fq* prefix,
                           typename G::Fq* totals) {
  using F = typename G::Fq;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const SlotWalk w = slot_walk(t, m, per, interleaved);
  if (w.n == 0) {
    totals[t] = F::one();
    return;
  }
  uint32_t b = owner_of(out_start, nb, w.first);
  F acc = F::one();
  for (uint32_t k = 0, j = w.first; k < w.n; ++k, j += w.step) {
    b = owner_from(out_start, b, nb, j);
    const SlotSource s = slot_source(in_start, in_count, out_start, b, j, vals);
    src[j] = s;
    const F d = source_denominator<G>(s, pts);
    acc = k == 0 ? d : acc * d;
    prefix[j] = acc;
  }
  totals[t] = acc;
}

// Round, step 3 (after the inversion of the totals): the thread walks its slots backwards
// from inv = 1 / (d_first ... d_last): d_j^-1 = inv p_prev, inv <- inv d_j, and writes each sum.
// The kernels from here on read each slot's source one slot ahead of its use.
template <class G>
__global__ void __launch_bounds__(kAccThreads)
    affine_round_down_kernel(uint32_t m, uint32_t per, bool interleaved, uint32_t threads, const SlotSource* src,
                             const typename G::Affine* pts, const typename G::Fq* prefix,
                             const typename G::Fq* inv_totals, typename G::Affine* out) {
  using F = typename G::Fq;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const SlotWalk w = slot_walk(t, m, per, interleaved);
  if (w.n == 0) return;
  uint32_t j = w.first + (w.n - 1) * w.step;
  F inv = inv_totals[t];
  SlotSource s = src[j];
  for (uint32_t k = w.n; k-- > 0; j -= w.step) {
    const SlotSource here = s;
    if (k > 0) s = src[j - w.step];
    typename G::Affine p1, p2;
    source_pair<G>(here, pts, p1, p2);
    const PairKind kind = pair_kind(p1, p2);
    F inv_j = inv;
    if (k > 0) {
      inv_j = inv * prefix[j - w.step];            // 1 / d_j
      inv = inv * pair_denominator(p1, p2, kind);  // 1 / (d_first ... d_prev)
    }
    out[j] = pair_sum(p1, p2, kind, inv_j);
  }
}

// Round, step 3 split in two (affine_split_down): first the walk alone, prefix[j] <- 1 / d_j,
// with the up kernel's loads (the x only, but for the rare pairs) and 2 products a slot ...
template <class G>
__global__ void __launch_bounds__(kAccThreads, affine_walk_min_blocks<G>())
    affine_round_inverses_kernel(uint32_t m, uint32_t per, bool interleaved, uint32_t threads, const SlotSource* src,
                                 const typename G::Affine* pts, typename G::Fq* prefix,
                                 const typename G::Fq* inv_totals) {
  using F = typename G::Fq;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const SlotWalk w = slot_walk(t, m, per, interleaved);
  if (w.n == 0) return;
  uint32_t j = w.first + (w.n - 1) * w.step;
  F inv = inv_totals[t];
  SlotSource s = src[j];
  for (uint32_t k = w.n - 1; k > 0; --k, j -= w.step) {
    const SlotSource here = s;
    s = src[j - w.step];
    const F d = source_denominator<G>(here, pts);
    prefix[j] = inv * prefix[j - w.step];  // 1 / d_j (this thread alone reads and writes its slots)
    inv = inv * d;
  }
  prefix[j] = inv;  // the first slot: 1 / d_first
}

// ... then each slot's sum from its own inverse (3 products): no chain from one slot to the next,
// so a slot's loads need not wait on the previous slot's products, and neither kernel holds both
// points and the running inverse at once (down's register peak).
template <class G>
__global__ void __launch_bounds__(kAccThreads, affine_sums_min_blocks<G>())
    affine_round_sums_kernel(uint32_t m, uint32_t per, bool interleaved, uint32_t threads, const SlotSource* src,
                             const typename G::Affine* pts, const typename G::Fq* inv_d, typename G::Affine* out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const SlotWalk w = slot_walk(t, m, per, interleaved);
  if (w.n == 0) return;
  SlotSource s = src[w.first];
  for (uint32_t k = 0, j = w.first; k < w.n; ++k, j += w.step) {
    const SlotSource here = s;
    if (k + 1 < w.n) s = src[j + w.step];
    typename G::Affine p1, p2;
    source_pair<G>(here, pts, p1, p2);
    out[j] = pair_sum(p1, p2, pair_kind(p1, p2), inv_d[j]);
  }
}

// XYZZ sum of each (short) run into buckets[b] (infinity for an empty run).
template <class G>
__global__ void __launch_bounds__(kAccThreads)
    runs_to_buckets_kernel(const uint32_t* start, const uint32_t* count, uint32_t nb, const uint32_t* vals,
                           const typename G::Affine* pts, typename G::Bucket* buckets) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nb) return;
  typename G::Bucket acc = G::Bucket::infinity();
  const uint32_t first = start[b], stop = first + count[b];
  for (uint32_t q = first; q < stop; ++q) {
    const typename G::Affine p = round_input<G>(vals, pts, q);
    if (!p.is_infinity()) acc.add_affine(p.x, p.y);
  }
  buckets[b] = acc;
}

// Montgomery's trick over a[0, m), one level: thread t owns a[t + k s] (k < per), s = threads:
// prefix products in place of the thread's own positions in `prefix`, the product in totals[t].
template <class F>
__global__ void __launch_bounds__(kThreads)
    batch_inv_up_kernel(const F* a, F* prefix, F* totals, uint32_t m, uint32_t s, uint32_t per) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= s) return;
  F acc = a[t];  // t < s <= m
  prefix[t] = acc;
  for (uint32_t k = 1, i = t + s; k < per && i < m; ++k, i += s) {
    acc = acc * a[i];
    prefix[i] = acc;
  }
  totals[t] = acc;
}

// The way down: totals[t] now holds the inverse of the thread's product; a[i] <- 1 / a[i].
template <class F>
__global__ void __launch_bounds__(kThreads)
    batch_inv_down_kernel(F* a, const F* prefix, const F* inv_totals, uint32_t m, uint32_t s, uint32_t per) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= s) return;
  uint32_t last = t;
  for (uint32_t k = 1; k < per && last + s < m; ++k) last += s;
  F inv = inv_totals[t];
  for (uint32_t i = last; i != t; i -= s) {
    const F ai = a[i];
    a[i] = inv * prefix[i - s];
    inv = inv * ai;
  }
  a[t] = inv;
}

// In-place inversion of m non-zero elements on the device by Montgomery's trick, level by
// level (16 per thread) down to a single element that the host inverts (an exact inversion of
// the CPU field; one small copy each way instead of a ~400-product Fermat chain on one GPU
// thread, whose latency would dominate a round). Costs 3 products per element plus 3/16 per
// element for the levels above.
template <class F>
class BatchInverter {
 public:
  static constexpr uint32_t kPer = 16;

  void run(F* a, uint32_t m, cudaStream_t stream) {
    if (m == 0) return;
    // Level sizes m_0 = m, m_{l+1} = ceil(m_l / kPer), until 1.
    std::vector<uint32_t> sizes{m};
    while (sizes.back() > 1) sizes.push_back((sizes.back() + kPer - 1) / kPer);
    size_t pre = 0, up = 0;
    for (size_t l = 0; l + 1 < sizes.size(); ++l) {
      pre += sizes[l];
      up += sizes[l + 1];
    }
    prefix_.reserve(pre + 1, "MSM batch-inversion prefixes");
    levels_.reserve(up + 1, "MSM batch-inversion levels");
    std::vector<F*> arr{a}, pref;
    F* pp = prefix_.get();
    F* lp = levels_.get();
    for (size_t l = 0; l + 1 < sizes.size(); ++l) {
      pref.push_back(pp);
      pp += sizes[l];
      arr.push_back(lp);
      lp += sizes[l + 1];
    }
    for (size_t l = 0; l + 1 < sizes.size(); ++l) {
      const uint32_t s = sizes[l + 1];
      batch_inv_up_kernel<F>
          <<<blocks_for(s, kThreads), kThreads, 0, stream>>>(arr[l], pref[l], arr[l + 1], sizes[l], s, kPer);
      ZK_CUDA_OK_LAUNCH();
    }
    F top;
    ZK_CUDA_OK(cudaMemcpyAsync(&top, arr.back(), sizeof(F), cudaMemcpyDeviceToHost, stream));
    ZK_CUDA_OK(cudaStreamSynchronize(stream));
    host_top_ = F::from_host(top.to_host().inverse());
    ZK_CUDA_OK(cudaMemcpyAsync(arr.back(), &host_top_, sizeof(F), cudaMemcpyHostToDevice, stream));
    for (size_t l = sizes.size() - 1; l-- > 0;) {
      const uint32_t s = sizes[l + 1];
      batch_inv_down_kernel<F>
          <<<blocks_for(s, kThreads), kThreads, 0, stream>>>(arr[l], pref[l], arr[l + 1], sizes[l], s, kPer);
      ZK_CUDA_OK_LAUNCH();
    }
    // host_top_ is a member: the host-to-device copy may still read it after we return.
  }

 private:
  DeviceBuffer<F> prefix_, levels_;
  F host_top_;
};

// Rounds of batch-affine pair additions over runs of points (see the top of this file).
template <class G>
class AffineRounds {
 public:
  using Affine = typename G::Affine;
  using F = typename G::Fq;

  // Reduces the nb runs (start[b], count[b]) of the input (vals / pts as in round_input) while
  // the longest run (max_count) is above `stop`; returns the final runs' array and leaves their
  // (start, count) in *out_start / *out_count, which point into meta[0..3] (nb + 1 entries each,
  // the caller's). Returns the input's pts (and keeps vals) when no round runs.
  struct Result {
    const uint32_t* vals;
    const Affine* pts;
    const uint32_t* start;
    const uint32_t* count;
    int rounds;
  };
  // bufs[0..2]: device byte buffers shared with the XYZZ path and other engines (MsmScratch::part):
  // the odd and even rounds' points, and the prefix products.
  Result run(const uint32_t* start, const uint32_t* count, uint32_t nb, uint64_t max_count, const uint32_t* vals,
             const Affine* pts, uint32_t stop, MsmAffineRound kind, uint32_t* const meta[4],
             DeviceBuffer<uint8_t>& temp, DeviceBuffer<uint8_t>* bufs, cudaStream_t stream) {
    Result r{vals, pts, start, count, 0};
    int side = 0;
    while (max_count > stop) {
      uint32_t* ostart = meta[2 * side];
      uint32_t* ocount = meta[2 * side + 1];
      half_counts_kernel<<<blocks_for(uint64_t(nb) + 1, kThreads), kThreads, 0, stream>>>(r.count, nb, ocount);
      ZK_CUDA_OK_LAUNCH();
      size_t temp_bytes = 0;
      ZK_CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, ocount, ostart, nb + 1, stream));
      temp.reserve(temp_bytes, "MSM scan scratch");
      ZK_CUDA_OK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, ocount, ostart, nb + 1, stream));
      uint32_t m = 0;
      ZK_CUDA_OK(cudaMemcpyAsync(&m, ostart + nb, sizeof m, cudaMemcpyDeviceToHost, stream));
      ZK_CUDA_OK(cudaStreamSynchronize(stream));
      // Rounds alternate between bufs[0] and bufs[1] (the first reads the MSM's points).
      const int o = r.vals != nullptr || r.pts != reinterpret_cast<const Affine*>(bufs[0].get()) ? 0 : 1;
      reserve_for_rounds(bufs[o], size_t(m) * sizeof(Affine), "MSM batch-affine points");
      Affine* out = reinterpret_cast<Affine*>(bufs[o].get());
      one_round(r, ostart, nb, m, kind == MsmAffineRound::kInterleaved, out, bufs[2], stream);
      r = Result{nullptr, out, ostart, ocount, r.rounds + 1};
      side = 1 - side;
      max_count = (max_count + 1) / 2;
    }
    return r;
  }

  // Device bytes per input point for a slice of `inputs` points (round one's output points,
  // prefixes and slot sources, half the inputs each; the later rounds' array, a quarter): the
  // slicing budget.
  static constexpr double bytes_per_input() {
    return 0.75 * double(sizeof(Affine)) + 0.5 * double(sizeof(F)) + 0.5 * double(sizeof(SlotSource));
  }

 private:
  // Grows one of the rounds' shared arrays; the test hook of accumulation.hpp
  // (inject_alloc_failure, AllocSite::kRounds) makes a chosen one fail as a full card would.
  static void reserve_for_rounds(DeviceBuffer<uint8_t>& buf, size_t bytes, const char* what) {
    if (take_alloc_failure(AllocSite::kRounds))
      throw DeviceAllocError(std::string(what) + " (injected failure)", bytes, __FILE__, __LINE__);
    buf.reserve(bytes, what);
  }

  // One round: up, the inversion of the thread products, down (or its split: inverses, sums).
  void one_round(const Result& r, const uint32_t* ostart, uint32_t nb, uint32_t m, bool interleaved, Affine* out,
                 DeviceBuffer<uint8_t>& prefix_buf, cudaStream_t stream) {
    // Enough threads to fill the card (~2^16), at most 16 slots each (the inversion's levels
    // above cost 3/16 products per slot at 16).
    const uint32_t per = uint32_t(std::min<uint64_t>(16, std::max<uint64_t>(1, (uint64_t(m) + 65535) >> 16)));
    const uint64_t tile = uint64_t(kAccThreads) * per;
    const uint32_t threads =
        interleaved ? uint32_t((uint64_t(m) + tile - 1) / tile * kAccThreads) : uint32_t((uint64_t(m) + per - 1) / per);
    const uint32_t blocks = blocks_for(threads, kAccThreads);
    reserve_for_rounds(prefix_buf, size_t(m) * sizeof(F), "MSM batch-affine prefixes");
    reserve_for_rounds(sources_, size_t(m) * sizeof(SlotSource), "MSM batch-affine slot sources");
    F* prefix = reinterpret_cast<F*>(prefix_buf.get());
    SlotSource* src = reinterpret_cast<SlotSource*>(sources_.get());
    totals_.reserve(threads, "MSM batch-affine totals");
    affine_round_up_kernel<G><<<blocks, kAccThreads, 0, stream>>>(r.start, r.count, ostart, nb, m, per, interleaved,
                                                                  threads, r.vals, r.pts, src, prefix, totals_.get());
    ZK_CUDA_OK_LAUNCH();
    inverter_.run(totals_.get(), threads, stream);
    if constexpr (affine_split_down<G>()) {
      affine_round_inverses_kernel<G>
          <<<blocks, kAccThreads, 0, stream>>>(m, per, interleaved, threads, src, r.pts, prefix, totals_.get());
      ZK_CUDA_OK_LAUNCH();
      affine_round_sums_kernel<G>
          <<<blocks, kAccThreads, 0, stream>>>(m, per, interleaved, threads, src, r.pts, prefix, out);
    } else {
      affine_round_down_kernel<G>
          <<<blocks, kAccThreads, 0, stream>>>(m, per, interleaved, threads, src, r.pts, prefix, totals_.get(), out);
    }
    ZK_CUDA_OK_LAUNCH();
  }

  DeviceBuffer<F> totals_;
  DeviceBuffer<uint8_t> sources_;  // the round's SlotSource records
  BatchInverter<F> inverter_;
};

}  // namespace zkmill::cuda::pippenger
