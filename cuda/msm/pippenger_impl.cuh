// SPDX-License-Identifier: MIT
// GPU Pippenger MSM over G1 or G2: the member definitions of the engine that sequences the
// kernels (interface: pippenger.cuh; kernels of steps 0-4: pippenger_kernels.cuh; step 5, the
// window reduction: pippenger_reduce.cuh); CUDA-only. Included only by the units that instantiate an engine
// (msm_g1.cu, msm_g2_<curve>*.cu), so each group's kernels are compiled once per build.
// The algebra (windows, signed digits, bucket reduction identity) is in pippenger_plan.hpp.
//
// Pipeline for n points and W windows of c bits, everything on one stream:
//  0. classify:   bit-aware split (the PoRep workload: ~95% of witness values are 0 or 1):
//                 scalars equal to 0 are dropped, those equal to 1 are listed and their points
//                 summed by a plain reduction (no windows), and only the rest (n' of them) go
//                 through the steps below, whose sort and plan are sized by n', not n.
//  1. digits:     one thread per remaining scalar: Montgomery -> canonical, signed recoding, and for each
//                 window a (key = window * B + |d| - 1, value = point index | sign) pair; zero
//                 digits get a sentinel key that sorts after every bucket.
//  2. sort:       CUB radix sort of the W * n pairs on key_bits bits: each bucket's points become
//                 one contiguous run.
//  3. bounds:     run starts / ends per bucket from the sorted keys.
//  4. accumulate: batch-affine rounds (batch_affine.cuh: affine pair additions inside each
//                 bucket's run sharing one inversion per round, ~6 products per point) when the
//                 buckets are large enough for them to pay (accumulation.cpp), then one XYZZ
//                 addition per bucket. Otherwise XYZZ throughout, with load balancing that does
//                 not collapse on skewed scalars (70% zeros, 20% ones put a fifth of all points
//                 into one bucket): every bucket is cut into chunks of at most `chunk` points,
//                 one thread per chunk (the chunk -> bucket map is a binary search over the
//                 exclusive scan of chunk counts), each producing an XYZZ partial sum; the
//                 partials of a bucket are contiguous, so the same step is repeated on them with
//                 `chunk2` until every bucket has one sum. A bucket of n points costs about
//                 log_{chunk2}(n / chunk) short extra levels, never a thread that walks n points.
//  5. reduce:     per window, groups of G buckets are summed by running sums (T_g, R_g), and one
//                 block per (window, output) reduces those to 1 + log2 K points in shared memory
//                 (pippenger_reduce.cuh).
//  6. host:       the W * (1 + log2 K) points are combined with a few hundred doublings on the
//                 CPU (pippenger_plan.hpp: combine_windows), plus the sum of the 1-scalar points.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <stdexcept>
#include <vector>

#include "cuda/msm/batch_affine.cuh"
#include "cuda/msm/pippenger.cuh"
#include "cuda/msm/pippenger_kernels.cuh"

namespace zkmill::cuda::pippenger {

template <class G>
Engine<G>::~Engine() = default;

template <class G>
AffineRounds<G>& Engine<G>::affine() {
  if (!affine_) affine_ = std::make_unique<AffineRounds<G>>();
  return *affine_;
}

template <class G>
typename Engine<G>::HostJacobian Engine<G>::run(const Affine* d_points, const Fr* d_scalars, size_t n, int c_override,
                                                MsmPhaseTimes* times, const PointCopies& copies) {
  if (n == 0) return HostJacobian::identity();
  prepare(d_scalars, n, c_override, times != nullptr, copies);
  return sum(d_points, times, true);
}

template <class G>
void Engine<G>::prepare(const Fr* d_scalars, size_t n, int c_override, bool timed, const PointCopies& copies) {
  MsmScratch& S = *s_;
  S.ready = false;
  S.host_count.clear();
  S.slice_ends.clear();
  S.slices_cap = 0;
  (void)make_plan(n, Fr::kBits, c_override, copies);  // rejects bad sizes and widths before any work
  auto mark = [&](int i) {
    if (timed) ev_[i].record(stream_);
  };
  mark(0);
  // 0. Split off the scalars equal to 0 (dropped) and 1 (summed apart in sum()).
  const uint32_t n32 = uint32_t(n);
  S.idx_other.reserve(n, "MSM scalar index");
  S.idx_one.reserve(n, "MSM scalar index");
  S.flags.reserve(2 * n, "MSM scalar classes");
  S.counts.reserve(2, "MSM scalar counts");
  if (n32 > 0) {
    classify_kernel<Fr><<<blocks_for(n, kThreads), kThreads, 0, stream_>>>(
        d_scalars, n32, S.idx_other.get(), S.flags.get(), S.idx_one.get(), S.flags.get() + n);
    ZK_CUDA_OK_LAUNCH();
  }
  size_t temp_bytes = 0;
  ZK_CUDA_OK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, S.idx_other.get(), S.flags.get(), S.counts.get(),
                                        int64_t(n), stream_));
  S.temp.reserve(temp_bytes, "MSM select scratch");
  ZK_CUDA_OK(cub::DeviceSelect::Flagged(S.temp.get(), temp_bytes, S.idx_other.get(), S.flags.get(), S.counts.get(),
                                        int64_t(n), stream_));
  ZK_CUDA_OK(cub::DeviceSelect::Flagged(S.temp.get(), temp_bytes, S.idx_one.get(), S.flags.get() + n,
                                        S.counts.get() + 1, int64_t(n), stream_));
  uint32_t counts[2] = {0, 0};
  ZK_CUDA_OK(cudaMemcpyAsync(counts, S.counts.get(), sizeof counts, cudaMemcpyDeviceToHost, stream_));
  ZK_CUDA_OK(cudaStreamSynchronize(stream_));
  S.n_other = counts[0];
  S.n_one = counts[1];

  S.plan = make_plan(S.n_other, Fr::kBits, c_override, copies);
  const MsmPlan& p = S.plan;
  S.max_count = 0;
  if (S.n_other == 0) {  // every scalar is 0 or 1: no windows at all
    for (int i = 1; i <= 3; ++i) mark(i);
    prepared_timed_ = timed;
    S.ready = true;
    return;
  }
  const uint32_t total = uint32_t(p.digits());
  const uint32_t nb = p.total_buckets;
  if (take_alloc_failure(AllocSite::kSort))  // the device tests' stand-in for a full card
    throw DeviceAllocError("MSM sort keys (injected failure)", size_t(total) * sizeof(uint32_t), __FILE__, __LINE__);
  for (int k = 0; k < 2; ++k) {
    S.keys_buf[k].reserve(total, "MSM sort keys");
    S.vals_buf[k].reserve(total, "MSM sort values");
  }
  digits_kernel<Fr><<<blocks_for(p.n, kThreads), kThreads, 0, stream_>>>(d_scalars, S.idx_other.get(), p,
                                                                         S.keys_buf[0].get(), S.vals_buf[0].get());
  ZK_CUDA_OK_LAUNCH();
  mark(1);

  cub::DoubleBuffer<uint32_t> dk(S.keys_buf[0].get(), S.keys_buf[1].get()),
      dv(S.vals_buf[0].get(), S.vals_buf[1].get());
  temp_bytes = 0;
  ZK_CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, dk, dv, total, 0, p.key_bits, stream_));
  S.temp.reserve(temp_bytes, "MSM sort scratch");
  ZK_CUDA_OK(cub::DeviceRadixSort::SortPairs(S.temp.get(), temp_bytes, dk, dv, total, 0, p.key_bits, stream_));
  S.keys = dk.Current();
  S.vals = dv.Current();
  mark(2);

  for (int k = 0; k < 3; ++k) {
    S.start[k].reserve(size_t(nb) + 1, "MSM bucket index");
    S.count[k].reserve(size_t(nb) + 1, "MSM bucket index");
  }
  S.max.reserve(1, "MSM max bucket");
  ZK_CUDA_OK(cudaMemsetAsync(S.start[0].get(), 0, S.start[0].bytes(), stream_));
  ZK_CUDA_OK(cudaMemsetAsync(S.count[0].get(), 0, S.count[0].bytes(), stream_));
  bucket_bounds_kernel<<<blocks_for(total, kThreads), kThreads, 0, stream_>>>(S.keys, total, nb, S.start[0].get(),
                                                                              S.count[0].get());
  ZK_CUDA_OK_LAUNCH();
  end_to_count_kernel<<<blocks_for(nb, kThreads), kThreads, 0, stream_>>>(S.start[0].get(), S.count[0].get(), nb);
  ZK_CUDA_OK_LAUNCH();
  temp_bytes = 0;
  ZK_CUDA_OK(cub::DeviceReduce::Max(nullptr, temp_bytes, S.count[0].get(), S.max.get(), nb, stream_));
  S.temp.reserve(temp_bytes, "MSM reduce scratch");
  ZK_CUDA_OK(cub::DeviceReduce::Max(S.temp.get(), temp_bytes, S.count[0].get(), S.max.get(), nb, stream_));
  ZK_CUDA_OK(cudaMemcpyAsync(&S.max_count, S.max.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, stream_));
  ZK_CUDA_OK(cudaStreamSynchronize(stream_));
  mark(3);
  prepared_timed_ = timed;
  S.ready = true;
}

template <class G>
typename Engine<G>::HostJacobian Engine<G>::sum(const Affine* d_points, MsmPhaseTimes* times, bool after_prepare) {
  MsmScratch& S = *s_;
  if (!S.ready) throw std::logic_error("GPU MSM: sum() without prepare()");
  const MsmPlan& p = S.plan;
  plan_ = p;
  const bool with_prepare = after_prepare && prepared_timed_;
  auto mark = [&](int i) {
    if (times) ev_[i].record(stream_);
  };
  if (!with_prepare) mark(3);
  // Slot nsums of the window sums receives the sum of the 1-scalar points, so one copy brings
  // everything back; with no windows (every scalar 0 or 1) it is the only slot.
  const bool windows = S.max_count != 0;
  const uint32_t nsums = windows ? uint32_t(p.windows) * uint32_t(p.sums_per_window()) : 0u;
  sums_.reserve(size_t(nsums) + 1, "MSM window sums");
  sum_ones(d_points, sums_.get() + nsums);
  int levels = 0;
  last_affine_ = last_fallback_ = false;
  uint64_t free_bytes = 0;
  if (windows) {
    free_bytes = affine_room();
    last_affine_ =
        batch_affine_windows(accumulation_, p.digits(), S.max_count, sizeof(typename G::Fq), free_bytes, affine_cap_);
    if (last_affine_) {
      try {
        levels = sum_windows_affine(d_points, free_bytes);
      } catch (const DeviceAllocError&) {
        // The card filled up under the rounds (another stream's allocation, or a forced choice
        // on a full card): sum by XYZZ from the sorted runs, which the rounds only read, as the
        // MSM did before batch-affine. A proof never fails for them.
        release_round_scratch();
        last_affine_ = false;
        last_fallback_ = true;
      }
    }
    if (!last_affine_) levels = sum_windows(d_points);
  }
  mark(4);
  if (msm_trace()) trace(nsums, levels, free_bytes);
  if (windows) reduce_windows(nsums);
  host_sums_.resize(size_t(nsums) + 1);
  ZK_CUDA_OK(cudaMemcpyAsync(host_sums_.data(), sums_.get(), (size_t(nsums) + 1) * sizeof(Bucket),
                             cudaMemcpyDeviceToHost, stream_));
  ZK_CUDA_OK(cudaStreamSynchronize(stream_));
  mark(5);

  HostJacobian result = G::to_host(host_sums_[nsums]);
  if (windows) {
    std::vector<HostJacobian> jac(nsums);
    for (uint32_t i = 0; i < nsums; ++i) jac[i] = G::to_host(host_sums_[i]);
    result += combine_windows(p, jac.data());
  }
  mark(6);
  if (times) {
    *times = MsmPhaseTimes{};
    if (with_prepare) {
      times->digits = ev_[1].since(ev_[0]);
      times->sort = ev_[2].since(ev_[1]);
      times->bounds = ev_[3].since(ev_[2]);
      times->total = ev_[6].since(ev_[0]);
    } else {
      times->total = ev_[6].since(ev_[3]);
    }
    times->accumulate = ev_[4].since(ev_[3]);
    times->reduce = ev_[5].since(ev_[4]);
    times->host_tail = ev_[6].since(ev_[5]);
    times->levels = levels;
    times->affine = last_affine_;
    times->n_one = S.n_one;
    times->n_other = S.n_other;
  }
  return result;
}

// Device bytes the batch-affine rounds may count as room: the free memory plus the arrays this
// engine's scratch already holds (S.part: the last sum's rounds or partial sums), which the rounds
// reuse, and which a regrowing reserve frees first. Without them a warm MSM saw half the room of
// the first and cut twice the slices.
template <class G>
uint64_t Engine<G>::affine_room() const {
  size_t free_b = 0, total_b = 0;
  ZK_CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  uint64_t room = free_b;
  for (const auto& b : s_->part) room += b.bytes();
  return room;
}

// After an allocation failed inside the rounds: wait for the work already queued on their
// buffers, then release them (and the rounds' own arrays), so that XYZZ gets the room.
template <class G>
void Engine<G>::release_round_scratch() {
  ZK_CUDA_OK(cudaStreamSynchronize(stream_));
  affine_.reset();
  for (auto& b : s_->part) b = DeviceBuffer<uint8_t>();
}

template <class G>
void Engine<G>::precompute(Affine* pts, uint32_t n, int copies, int shift, cudaStream_t stream) {
  if (n == 0 || copies <= 1) return;
  precompute_copies_kernel<G><<<blocks_for(n, kAccThreads), kAccThreads, 0, stream>>>(pts, n, copies, shift);
  ZK_CUDA_OK_LAUNCH();
}

template <class G>
void Engine<G>::points_from_image(const HostImage* in, Affine* out, uint32_t n, cudaStream_t stream) {
  if (n == 0) return;
  image_to_affine_kernel<G><<<blocks_for(n, kThreads), kThreads, 0, stream>>>(in, out, n);
  ZK_CUDA_OK_LAUNCH();
}

// One line per MSM on stderr (ZKMILL_GPU_MSM_TRACE=1, measurements): how the buckets were
// accumulated, with the free memory the choice saw and the rounds' slices.
template <class G>
void Engine<G>::trace(uint32_t nsums, int levels, uint64_t free_bytes) const {
  const MsmScratch& S = *s_;
  const char* how = nsums == 0       ? "no windows"
                    : last_affine_   ? "batch-affine"
                    : last_fallback_ ? "XYZZ (fallback: rounds out of memory)"
                                     : "XYZZ";
  std::fprintf(stderr,
               "zkmill msm: %zu-byte coordinates, %u points (%u ones), %llu digits, longest bucket %u, free %llu MiB: "
               "%s, %d %s",
               sizeof(typename G::Fq), S.n_other + S.n_one, S.n_one, (unsigned long long)S.plan.digits(), S.max_count,
               (unsigned long long)(free_bytes >> 20), how, levels, last_affine_ ? "rounds" : "levels");
  if (last_affine_)
    std::fprintf(
        stderr, " in %zu slices (budget %llu MiB, %s rounds)", last_slices_, (unsigned long long)(last_budget_ >> 20),
        batch_affine_round(affine_round_, sizeof(typename G::Fq)) == MsmAffineRound::kInterleaved ? "interleaved"
                                                                                                  : "contiguous");
  if (S.n_one != 0) {
    std::fprintf(stderr, "; ones (room %llu MiB): ", (unsigned long long)(last_ones_room_ >> 20));
    if (last_ones_slices_ != 0)
      std::fprintf(stderr, "batch-affine in %llu slices", (unsigned long long)last_ones_slices_);
    else
      std::fprintf(stderr, last_ones_fallback_ ? "XYZZ (fallback: rounds out of memory)" : "XYZZ");
  }
  std::fprintf(stderr, "\n");
}

// Sum of the points whose scalar is 1, into *dst (device): batch-affine rounds over their one
// run, in slices, when there are enough of them and the rounds fit the room (accumulation.cpp),
// else the XYZZ list sum below; XYZZ too when an allocation fails inside the rounds (the run,
// idx_one, is only read by them). Infinity (all-zero words) when there are none.
template <class G>
void Engine<G>::sum_ones(const Affine* d_points, Bucket* dst) {
  MsmScratch& S = *s_;
  last_ones_slices_ = 0;
  last_ones_fallback_ = false;
  last_ones_room_ = 0;
  if (S.n_one == 0) {
    ZK_CUDA_OK(cudaMemsetAsync(dst, 0, sizeof(Bucket), stream_));
    return;
  }
  if (ones_accumulation_ != MsmAccumulation::kXyzz) {  // a device query only where the rounds may run
    last_ones_room_ = affine_room();
    const uint64_t slices =
        batch_affine_ones(ones_accumulation_, S.n_one, sizeof(typename G::Fq), last_ones_room_, affine_cap_);
    if (slices != 0) {
      try {
        sum_ones_affine(d_points, dst, slices);
        last_ones_slices_ = slices;
        return;
      } catch (const DeviceAllocError&) {
        release_round_scratch();
        last_ones_fallback_ = true;
      }
    }
  }
  sum_list_xyzz(S.idx_one.get(), d_points, S.n_one, dst);
}

// The 1-scalar sum by batch-affine rounds: the run idx_one[0, n_one) cut into `slices` equal
// pieces (as the budget requires), each piece reduced by its own rounds to one XYZZ sum, and the
// pieces' sums added by one XYZZ thread (a few of them: the budget holds ~40 M points a piece).
template <class G>
void Engine<G>::sum_ones_affine(const Affine* d_points, Bucket* dst, uint64_t slices) {
  MsmScratch& S = *s_;
  const uint32_t n = S.n_one;
  const uint32_t piece = uint32_t((uint64_t(n) + slices - 1) / slices);
  const uint32_t k = (n + piece - 1) / piece;  // pieces cut (<= slices)
  // (start, count) of each piece over idx_one; then (0, k) and output offsets [0, 1) for the sum
  // of the pieces' sums (the layout accumulate_partials_kernel reads for one bucket).
  ones_meta_.clear();
  for (uint32_t i = 0; i < k; ++i) ones_meta_.insert(ones_meta_.end(), {i * piece, std::min(piece, n - i * piece)});
  ones_meta_.insert(ones_meta_.end(), {0u, k, 0u, 1u});
  ones_dev_.reserve(ones_meta_.size(), "MSM 1-scalar index");
  ZK_CUDA_OK(cudaMemcpyAsync(ones_dev_.get(), ones_meta_.data(), ones_meta_.size() * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, stream_));
  for (int j = 1; j < 3; ++j) {
    S.start[j].reserve(2, "MSM bucket index");
    S.count[j].reserve(2, "MSM bucket index");
  }
  if (k > 1) ones_[0].reserve(k, "MSM sum of 1-scalar points");
  uint32_t* const meta[4] = {S.start[1].get(), S.count[1].get(), S.start[2].get(), S.count[2].get()};
  const MsmAffineRound kind = batch_affine_round(affine_round_, sizeof(typename G::Fq));
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t* m = ones_dev_.get() + 2 * i;
    const auto r = affine().run(m, m + 1, 1, ones_meta_[2 * i + 1], S.idx_one.get(), d_points, batch_affine_stop(),
                                kind, meta, S.temp, S.part, stream_);
    runs_to_buckets_kernel<G>
        <<<1, kAccThreads, 0, stream_>>>(r.start, r.count, 1, r.vals, r.pts, k == 1 ? dst : ones_[0].get() + i);
    ZK_CUDA_OK_LAUNCH();
  }
  if (k > 1) {
    const uint32_t* m = ones_dev_.get() + 2 * k;
    accumulate_partials_kernel<G><<<1, kAccThreads, 0, stream_>>>(m, m + 1, m + 2, 1, k, 1, ones_[0].get(), dst);
    ZK_CUDA_OK_LAUNCH();
  }
}

// XYZZ sum of `count` points (listed by vals, or pts[0, count) when vals is null) into *dst:
// the accumulation kernels of the windows run on one "bucket" holding them (chunks of p.chunk
// points per thread, then levels of p.chunk2 partials until one is left), so the G2 unit
// compiles no extra kernels.
template <class G>
void Engine<G>::sum_list_xyzz(const uint32_t* vals, const Affine* pts, uint32_t count, Bucket* dst) {
  const MsmPlan dflt = make_plan(1, Fr::kBits);
  // Per level: (start, count) of the one bucket's input, then its output offsets [0, parts).
  ones_meta_.clear();
  std::vector<uint32_t> parts_of;
  uint32_t in = count, chunk = dflt.chunk;
  for (;;) {
    const uint32_t parts = (in + chunk - 1) / chunk;
    ones_meta_.insert(ones_meta_.end(), {0u, in, 0u, parts});
    parts_of.push_back(parts);
    if (parts == 1) break;
    in = parts;
    chunk = dflt.chunk2;
  }
  ones_dev_.reserve(ones_meta_.size(), "MSM 1-scalar index");
  ZK_CUDA_OK(cudaMemcpyAsync(ones_dev_.get(), ones_meta_.data(), ones_meta_.size() * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, stream_));
  ones_[0].reserve(parts_of[0], "MSM sum of 1-scalar points");
  if (parts_of.size() > 1) ones_[1].reserve(parts_of[1], "MSM sum of 1-scalar points");
  int cur = 0;
  for (size_t lvl = 0; lvl < parts_of.size(); ++lvl) {
    const uint32_t* m = ones_dev_.get() + 4 * lvl;
    const uint32_t parts = parts_of[lvl];
    Bucket* out = lvl + 1 == parts_of.size() ? dst : ones_[lvl == 0 ? 0 : 1 - cur].get();
    if (lvl == 0) {
      accumulate_points_kernel<G><<<blocks_for(parts, kAccThreads), kAccThreads, 0, stream_>>>(
          m, m + 1, m + 2, 1, dflt.chunk, parts, vals, pts, out);
    } else {
      accumulate_partials_kernel<G><<<blocks_for(parts, kAccThreads), kAccThreads, 0, stream_>>>(
          m, m + 1, m + 2, 1, dflt.chunk2, parts, ones_[cur].get(), out);
      cur = 1 - cur;
    }
    ZK_CUDA_OK_LAUNCH();
  }
}

// Batch-affine accumulation of the windowed scalars into buckets_, in slices of consecutive
// buckets whose points fit the memory budget (a slice's runs are contiguous in the sorted
// digits); returns the number of rounds run (summed over slices).
template <class G>
int Engine<G>::sum_windows_affine(const Affine* d_points, uint64_t free_bytes) {
  MsmScratch& S = *s_;
  const uint32_t nb = S.plan.total_buckets;
  if (S.host_count.size() != nb) {
    S.host_count.resize(nb);
    ZK_CUDA_OK(cudaMemcpyAsync(S.host_count.data(), S.count[0].get(), size_t(nb) * sizeof(uint32_t),
                               cudaMemcpyDeviceToHost, stream_));
    ZK_CUDA_OK(cudaStreamSynchronize(stream_));
    S.slices_cap = 0;
  }
  static_assert(AffineRounds<G>::bytes_per_input() == double(batch_affine_bytes_per_input(sizeof(typename G::Fq))));
  last_budget_ = batch_affine_budget(free_bytes, affine_cap_);
  const uint64_t cap = std::max<uint64_t>(1, uint64_t(double(last_budget_) / AffineRounds<G>::bytes_per_input()));
  if (S.slices_cap != cap) {  // cut slices: consecutive buckets while their points fit `cap`
    S.slice_ends.clear();
    uint64_t in_slice = 0;
    for (uint32_t b = 0; b < nb; ++b) {
      if (in_slice != 0 && in_slice + S.host_count[b] > cap) {
        S.slice_ends.push_back(b);
        in_slice = 0;
      }
      in_slice += S.host_count[b];
    }
    S.slice_ends.push_back(nb);
    S.slices_cap = cap;
  }
  for (int k = 1; k < 3; ++k) {
    S.start[k].reserve(size_t(nb) + 1, "MSM bucket index");
    S.count[k].reserve(size_t(nb) + 1, "MSM bucket index");
  }
  uint32_t* const meta[4] = {S.start[1].get(), S.count[1].get(), S.start[2].get(), S.count[2].get()};
  buckets_.reserve(nb, "MSM buckets");
  last_slices_ = S.slice_ends.size();
  const MsmAffineRound kind = batch_affine_round(affine_round_, sizeof(typename G::Fq));
  int rounds = 0;
  uint32_t first = 0;
  for (const uint32_t end : S.slice_ends) {
    uint32_t longest = 0;
    for (uint32_t b = first; b < end; ++b) longest = std::max(longest, S.host_count[b]);
    const uint32_t nbs = end - first;
    const auto r = affine().run(S.start[0].get() + first, S.count[0].get() + first, nbs, longest, S.vals, d_points,
                                batch_affine_stop(), kind, meta, S.temp, S.part, stream_);
    runs_to_buckets_kernel<G><<<blocks_for(nbs, kAccThreads), kAccThreads, 0, stream_>>>(r.start, r.count, nbs, r.vals,
                                                                                         r.pts, buckets_.get() + first);
    ZK_CUDA_OK_LAUNCH();
    rounds += r.rounds;
    first = end;
  }
  return rounds;
}

// Bucket accumulation of the windowed scalars (levels of chunked sums) into buckets_;
// returns the number of levels run.
template <class G>
int Engine<G>::sum_windows(const Affine* d_points) {
  MsmScratch& S = *s_;
  const MsmPlan& p = S.plan;
  const uint32_t total = uint32_t(p.digits());
  const uint32_t nb = p.total_buckets;

  // Accumulation levels; (start[cur], count[cur]) index the current level's input per bucket.
  uint64_t bound = total / p.chunk + nb;
  S.part[0].reserve(bound * sizeof(Bucket), "MSM partial sums");
  int cur = 0, cur_part = 0, levels = 0;
  uint32_t chunk = p.chunk;
  uint64_t remaining = S.max_count;
  for (;;) {
    const int nxt = cur == 1 ? 2 : 1;
    chunk_counts_kernel<<<blocks_for(uint64_t(nb) + 1, kThreads), kThreads, 0, stream_>>>(S.count[cur].get(), nb, chunk,
                                                                                          S.count[nxt].get());
    ZK_CUDA_OK_LAUNCH();
    size_t temp_bytes = 0;
    ZK_CUDA_OK(
        cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, S.count[nxt].get(), S.start[nxt].get(), nb + 1, stream_));
    S.temp.reserve(temp_bytes, "MSM scan scratch");
    ZK_CUDA_OK(cub::DeviceScan::ExclusiveSum(S.temp.get(), temp_bytes, S.count[nxt].get(), S.start[nxt].get(), nb + 1,
                                             stream_));
    if (levels == 0) {
      accumulate_points_kernel<G><<<blocks_for(bound, kAccThreads), kAccThreads, 0, stream_>>>(
          S.start[cur].get(), S.count[cur].get(), S.start[nxt].get(), nb, chunk, uint32_t(bound), S.vals, d_points,
          partials(0));
      ZK_CUDA_OK_LAUNCH();
    } else {
      S.part[1 - cur_part].reserve(bound * sizeof(Bucket), "MSM partial sums");
      accumulate_partials_kernel<G><<<blocks_for(bound, kAccThreads), kAccThreads, 0, stream_>>>(
          S.start[cur].get(), S.count[cur].get(), S.start[nxt].get(), nb, chunk, uint32_t(bound), partials(cur_part),
          partials(1 - cur_part));
      ZK_CUDA_OK_LAUNCH();
      cur_part = 1 - cur_part;
    }
    cur = nxt;
    ++levels;
    remaining = (remaining + chunk - 1) / chunk;
    if (remaining <= 1) break;
    chunk = p.chunk2;
    bound = bound / chunk + nb;
  }
  buckets_.reserve(nb, "MSM buckets");
  gather_buckets_kernel<G><<<blocks_for(nb, kThreads), kThreads, 0, stream_>>>(S.start[cur].get(), S.count[cur].get(),
                                                                               nb, partials(cur_part), buckets_.get());
  ZK_CUDA_OK_LAUNCH();
  return levels;
}

}  // namespace zkmill::cuda::pippenger
