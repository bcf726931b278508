// SPDX-License-Identifier: MIT
// GPU number-theoretic transform over a scalar field Fr: the kernels and the definitions of the
// engine members that launch them (interface: ntt.cuh); CUDA-only, included only by ntt.cu.
//
// Convention (the CPU's, so results compare element for element): natural order in and out,
//   forward:       e_k = sum_j a_j w^(jk),            w = Fr::root_of_unity(log n)
//   inverse:       a_j = n^-1 sum_k e_k w^(-jk)
//   coset forward: e_k = sum_j a_j (g w^k)^j,          g = Fr::generator() unless given
//   coset inverse: a_j = g^-j n^-1 sum_k e_k w^(-jk)
//   inverse to coset: b_j = g^j n^-1 sum_k e_k w^(-jk) = g^j a_j (kInverseToCoset), whose plain
//                  forward transform is the coset forward of a: the prover's interpolate-then-
//                  evaluate pair pays g^j once, in this inverse's last pass, not in both.
// The coset shift g is an argument of Engine::run: the native prover takes the multiplicative
// generator, the snarkjs (.zkey) prover a primitive 2n-th root of unity (its odd coset).
//
// Method: iterative Cooley-Tukey DIT (bit-reversed input, natural output) with the log n
// radix-2 stages grouped into passes; a pass runs its stages on a tile of up to 2^10 elements in
// shared memory, so a 2^24 transform reads and writes device memory 3 times instead of 24 (the
// "high-radix" schedule; cf. Bailey, "FFTs in external or hierarchical memory", 1990).
// A pass that starts at stage s0 > 0 owns the elements whose indices differ only in bits
// [s0, s0 + k); it also takes 4 consecutive low indices so each load is a 128-byte run.
// Passes are balanced (plan_passes): the fewest that the tile allows, stages spread evenly, so no
// pass is left with one or two stages on tiny blocks (2^27 was split 10 + 8 + 8 + 1: its last
// pass ran 4-thread blocks and took more than half of the transform).
// Inside a pass each thread owns 4 elements and runs two stages per step on registers (a
// radix-2^2 step: 4 multiplications, one shared-memory exchange and one barrier per two stages;
// an odd stage count ends with a radix-2 step of two butterflies per thread). The first step reads
// its 4 elements straight from device memory and the last writes them straight back, so a pass of
// k stages makes ceil(k/2) - 1 shared-memory round trips. Twiddles of the later steps are staged
// in shared memory by one prologue load per element, issued together with the data loads.
// Stage 0 multiplies by w_2^0 = 1 and stage 1 by w_4^0 = 1 or w_4: the first step of the first
// pass makes 1 multiplication per 4 elements instead of 4 (11.25 n instead of 12 n at 2^24).
// Everything else is folded into the passes to save memory round trips:
//  - the bit-reversal permutation is the first pass's gather (each Fr is one 32-byte sector,
//    so the scattered reads waste no bandwidth);
//  - the inverse uses inverse_DFT(a) = forward_DFT(a') / n with a'_j = a_(-j mod n) (substitute
//    j -> -j), i.e. a negated gather index; n^-1 = 2^-log n is not a product but a k-bit
//    Montgomery reduction step (Fp32::div_pow2, ~a tenth of one), on the gather of the inverse
//    and on the last step's per-thread factor of the coset inverse and the inverse to coset;
//  - coset scaling by g^j (forward, on input) multiplies by hi[j >> 12] * lo[j & 4095] from two
//    small tables instead of a table of n powers; g^-j (coset inverse) and g^j (inverse to coset)
//    on output go into the last step: h^j0 from the tables once per thread, folded into the
//    twiddle its x1 and x3 get, and three constants h^(cD) (ntt_pass_kernel's step_compute).
// Twiddles: stage s uses w_(2^(s+1))^j = W^(j 2^(m-1-s)) for j < 2^s, W = w_(2^m), so one table
// T[i] = W^i, i < 2^(m-1), holds every stage's (stage s at stride 2^(m-1-s)); m is the largest
// log n seen, so the table serves every smaller size. n/2 entries: 2 GiB at 2^27, where per-stage
// tables (n - 1 entries) took 4 GiB of a card that a PoRep partition fills. The strided reads
// are the shared-memory prologue's alone, and the early stages' few entries stay in L2.
// Indices are 32-bit: n <= 2^30 (max_log_n).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/ntt/ntt.cuh"

namespace zkmill::cuda::ntt {

// How a pass reads its input; a template argument of the pass kernel, so each instantiation
// carries only its own scaling code (fewer registers: the forward pass has none of the others').
enum class Gather : int {
  kInPlace = 0,  // not the first pass: read and write dst
  kForward,      // bit-reversed gather
  kCoset,        // bit-reversed gather times g^j
  kInverse,      // negated bit-reversed gather, times n^-1 (Fp32::div_pow2: no product)
  kNegated,      // negated bit-reversed gather (coset inverse, inverse to coset: n^-1 goes with g^-j
                 // or g^j into the last step)
};

template <class F>
struct PassArgs {
  uint32_t log_n;
  uint32_t s0;       // first stage of this pass
  uint32_t k;        // stages in this pass
  uint32_t lo_bits;  // log2 of the consecutive low indices a tile takes (0 on the first pass)
  uint32_t tw_top;   // m - 1: stage s reads the twiddle table at stride 2^(tw_top - s)
  F post_g[3];       // post-scaled last pass: h^D, h^2D, h^3D, D = 2^(s0 + its last step's stage)
};

// x^e for e < 2^(kPowLoLog + hi_bits), from lo[i] = x^i (i < 2^kPowLoLog) and hi[h] = x^(h 2^kPowLoLog).
template <class F>
__device__ __forceinline__ F table_pow(const F* lo, const F* hi, uint64_t e) {
  return hi[e >> kPowLoLog] * lo[e & (kPowLo - 1)];
}

template <class F>
__global__ void twiddles_kernel(F* tw, uint64_t count, const F* w_lo, const F* w_hi) {
  const uint64_t q = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q < count) tw[q] = table_pow(w_lo, w_hi, q);  // W^q
}

// Threads per block of the largest tile: 4 elements each.
constexpr uint32_t kPassThreads = 1u << (kTileLog - 2);

// Stages per pass for a 2^log_n transform: the fewest passes (the first takes up to kTileLog
// stages, each later one kTileLog - 2 because its tile also spans 4 low indices), with the
// stages spread evenly (the first takes any excess). Returns the number of passes.
inline int plan_passes(uint32_t log_n, uint32_t (&k)[8]) {
  const uint32_t later_max = uint32_t(kTileLog) - 2;
  const uint32_t passes =
      log_n <= uint32_t(kTileLog) ? 1 : 1 + (log_n - uint32_t(kTileLog) + later_max - 1) / later_max;
  const uint32_t even = (log_n + passes - 1) / passes;
  const uint32_t first = std::max(log_n - later_max * (passes - 1), even);
  k[0] = first;
  const uint32_t rest = log_n - first;
  for (uint32_t p = 1; p < passes; ++p) k[p] = rest / (passes - 1) + (p - 1 < rest % (passes - 1) ? 1 : 0);
  return int(passes);
}

template <class F>
__device__ __forceinline__ void butterfly(F& u, F& v) {
  const F t = v;
  v = u - t;
  u = u + t;
}

// kPostScale: multiply the output by h^j n^-1 (last pass of a coset inverse, h = g^-1, or of an
// inverse to coset, h = g), inside the last step (see step_compute).
template <class F, Gather kGather, bool kPostScale>
__global__ void __launch_bounds__(kPassThreads, 3)
    ntt_pass_kernel(const F* __restrict__ src, F* __restrict__ dst, const F* __restrict__ tw, PassArgs<F> a,
                    const F* g_lo, const F* g_hi, const F* post_lo, const F* post_hi) {
  extern __shared__ __align__(16) unsigned char ntt_smem[];
  const uint32_t lb = a.lo_bits, k = a.k, s0 = a.s0;
  const uint32_t tile_log = k + lb;
  F* sm = reinterpret_cast<F*>(ntt_smem);  // the tile, 2^tile_log elements
  F* stw = sm + (1u << tile_log);          // twiddles of local stages 2..k-1 (see below)
  const uint32_t q = threadIdx.x, nthreads = blockDim.x;
  const uint32_t lo_mask = (1u << lb) - 1;
  const uint32_t lo_groups_log = s0 - lb;
  const uint32_t tb = blockIdx.x;
  const uint32_t lo_base = (tb & ((1u << lo_groups_log) - 1)) << lb;
  const uint32_t hi = tb >> lo_groups_log;
  const uint32_t n_mask = (1u << a.log_n) - 1;
  // A tile of 2 elements (n = 2) has one butterfly: the radix-2 step's second one is absent.
  const bool has_second = tile_log >= 2;

  auto global_index = [&](uint32_t e) -> uint32_t {
    return (hi << (s0 + k)) | ((e >> lb) << s0) | (lo_base + (e & lo_mask));
  };
  // Twiddle of local stage st for the element with mid index m (low = m mod 2^st), lane lo_off.
  auto tw_global = [&](uint32_t st, uint32_t low, uint32_t lo_off) -> F {
    return tw[((low << s0) + lo_base + lo_off) << (a.tw_top - s0 - st)];
  };
  constexpr uint32_t kSkip = 3;  // shared twiddle slots of local stages 0 and 1 (read from tw)
  auto tw_shared = [&](uint32_t st, uint32_t low, uint32_t lo_off) -> F {
    return stw[((((1u << st) - 1 + low) - kSkip) << lb) | lo_off];
  };

  // Twiddle prologue: stages 2..k-1 of this pass (stages 0 and 1 are the first step's, read
  // from tw directly). (2^k - 4) 2^lb < 4 nthreads entries: at most 4 loads per thread.
  if (k > 2) {
    const uint32_t count = ((1u << k) - 4) << lb;
#pragma unroll
    for (uint32_t r = 0; r < 4; ++r) {
      const uint32_t idx = q + r * nthreads;
      if (idx < count) {
        const uint32_t slot = (idx >> lb) + kSkip;
        const uint32_t st = 31 - __clz(slot + 1);
        stw[idx] = tw_global(st, slot + 1 - (1u << st), idx & lo_mask);
      }
    }
  }

  // The tile indices of this thread's 4 elements in a step at local stage st: radix-2^2 (stages
  // st, st+1) takes e0 + {0, 1, 2, 3} 2^(st+lb); radix-2 takes two butterflies' pairs.
  auto step_indices = [&](uint32_t st, bool r4, uint32_t(&e)[4]) {
    const uint32_t sh = st + lb, d = 1u << sh;
    if (r4) {
      const uint32_t e0 = ((q >> sh) << (sh + 2)) | (q & (d - 1));
      e[0] = e0, e[1] = e0 + d, e[2] = e0 + 2 * d, e[3] = e0 + 3 * d;
    } else {
      const uint32_t b1 = q + nthreads;
      const uint32_t ea = ((q >> sh) << (sh + 1)) | (q & (d - 1));
      const uint32_t eb = ((b1 >> sh) << (sh + 1)) | (b1 & (d - 1));
      e[0] = ea, e[1] = ea + d, e[2] = eb, e[3] = eb + d;
    }
  };
  // One step on registers. first: twiddles from tw (the prologue is not yet visible).
  // last (post-scaled pass only): every output j also gets h^j n^-1. The step's outputs sit at
  // j0 + c D (radix-2^2, c = 0..3) or at two pairs (j, j + D) (radix-2), D = 2^(s0 + st), so
  // h^j n^-1 = K h^(cD) with K = h^j0 n^-1 shared by the thread's four (or each pair's two): K goes
  // on the step's inputs (a linear map commutes with it), folded into the twiddle that x1 and x3
  // get anyway, and h^(cD) (PassArgs::post_g) on the outputs: 7 products per 4 elements with K's
  // (n^-1 by div_pow2), where a product to form h^j and one to apply it made 8 (+1 for n^-1).
  auto step_compute = [&](uint32_t st, bool r4, bool first, bool last, const uint32_t(&e)[4], F(&x)[4]) {
    auto w = [&](uint32_t s, uint32_t low, uint32_t lo_off) {
      return first ? tw_global(s, low, lo_off) : tw_shared(s, low, lo_off);
    };
    // Stage 0 is the first step of the first pass. A post-scaled step that is also the first is
    // stage 0 of a one-step pass (n <= 4: later passes have k >= 3), one thread with j0 = 0, so
    // K = n^-1 (div_pow2, no table). Spelled with `first` and kGather so that each inlined copy
    // (first step, loop; in-place or gathering) carries only the code it can run (compile time).
    const bool stage0 = kGather != Gather::kInPlace && first && s0 == 0;
    const bool ps = kPostScale && last && (kGather != Gather::kInPlace || !first);
    F ka = F::one(), kb = F::one();
    if (ps && !first) {
      ka = table_pow(post_lo, post_hi, global_index(e[0])).div_pow2(a.log_n);
      if (!r4 && has_second) kb = table_pow(post_lo, post_hi, global_index(e[2])).div_pow2(a.log_n);
    }
    const uint32_t m_mask = (1u << st) - 1;
    if (r4) {
      const uint32_t low = (e[0] >> lb) & m_mask, lo_off = e[0] & lo_mask;
      if (stage0) {
        // Stage 0 (w_2^0 = 1), then stage 1: x2 by w_4^0 = 1, x3 by w_4.
        if (ps) {
#pragma unroll
          for (int c = 0; c < 4; ++c) x[c] = x[c].div_pow2(a.log_n);
        }
        butterfly(x[0], x[1]);
        butterfly(x[2], x[3]);
        x[3] = x[3] * w(1, 1, 0);
      } else {
        F wa = w(st, low, lo_off);
        if (ps && !first) {
          wa = wa * ka;
          x[0] = x[0] * ka;
          x[2] = x[2] * ka;
        }
        x[1] = x[1] * wa;
        x[3] = x[3] * wa;
        butterfly(x[0], x[1]);
        butterfly(x[2], x[3]);
        x[2] = x[2] * w(st + 1, low, lo_off);
        x[3] = x[3] * w(st + 1, low + (1u << st), lo_off);
      }
      butterfly(x[0], x[2]);
      butterfly(x[1], x[3]);
      if (ps) {
        x[1] = x[1] * a.post_g[0];
        x[2] = x[2] * a.post_g[1];
        x[3] = x[3] * a.post_g[2];
      }
    } else {
      if (!stage0) {
        F wa = w(st, (e[0] >> lb) & m_mask, e[0] & lo_mask);
        if (ps && !first) {
          wa = wa * ka;
          x[0] = x[0] * ka;
        }
        x[1] = x[1] * wa;
        if (has_second) {
          F wb = w(st, (e[2] >> lb) & m_mask, e[2] & lo_mask);
          if (ps && !first) {
            wb = wb * kb;
            x[2] = x[2] * kb;
          }
          x[3] = x[3] * wb;
        }
      } else if (ps) {
#pragma unroll
        for (int c = 0; c < 4; ++c) x[c] = x[c].div_pow2(a.log_n);
      }
      butterfly(x[0], x[1]);
      butterfly(x[2], x[3]);
      if (ps) {
        x[1] = x[1] * a.post_g[0];
        x[3] = x[3] * a.post_g[0];
      }
    }
  };

  const uint32_t steps = k / 2 + (k & 1);
  auto step_st = [&](uint32_t i) { return 2 * i; };  // radix-2^2 steps first, the radix-2 one last
  auto step_r4 = [&](uint32_t i) { return 2 * i + 1 < k; };

  uint32_t e[4];
  F x[4];
  // First step: gather from device memory.
  step_indices(0, step_r4(0), e);
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    if (c >= 2 && !has_second) {
      x[c] = F::zero();
      continue;
    }
    const uint32_t gi = global_index(e[c]);
    if constexpr (kGather == Gather::kInPlace) {
      x[c] = dst[gi];
    } else {
      uint32_t from = __brev(gi) >> (32 - a.log_n);
      if (kGather == Gather::kInverse || kGather == Gather::kNegated) from = (n_mask + 1 - from) & n_mask;
      F v = src[from];
      if constexpr (kGather == Gather::kCoset) v = v * table_pow(g_lo, g_hi, from);
      if constexpr (kGather == Gather::kInverse) v = v.div_pow2(a.log_n);
      x[c] = v;
    }
  }
  step_compute(0, step_r4(0), true, steps == 1, e, x);
  for (uint32_t i = 1; i < steps; ++i) {
#pragma unroll
    for (int c = 0; c < 4; ++c)
      if (c < 2 || has_second) sm[e[c]] = x[c];
    __syncthreads();
    const uint32_t st = step_st(i);
    const bool r4 = step_r4(i);
    step_indices(st, r4, e);
#pragma unroll
    for (int c = 0; c < 4; ++c) x[c] = sm[e[c]];
    step_compute(st, r4, false, i + 1 == steps, e, x);
    // No barrier before the next write: each thread writes back only the elements it read.
  }
  // Last step's results: straight to device memory.
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    if (c >= 2 && !has_second) continue;
    dst[global_index(e[c])] = x[c];
  }
}

struct LaunchShape {
  unsigned blocks, threads;
  size_t smem;
  cudaStream_t stream;
};

// One pass launch; raises the instantiation's dynamic shared-memory limit when the tile and its
// staged twiddles pass the 48 KB a launch gets without asking (per launch: cheap, and right on
// whichever device is current).
template <class F, Gather kGather, bool kPostScale>
void launch_pass(const LaunchShape& s, const F* src, F* dst, const F* tw, const PassArgs<F>& a, const F* g_lo,
                 const F* g_hi, const F* post_lo, const F* post_hi) {
  if (s.smem > 48 * 1024)
    ZK_CUDA_OK(cudaFuncSetAttribute(ntt_pass_kernel<F, kGather, kPostScale>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(s.smem)));
  ntt_pass_kernel<F, kGather, kPostScale>
      <<<s.blocks, s.threads, s.smem, s.stream>>>(src, dst, tw, a, g_lo, g_hi, post_lo, post_hi);
  ZK_CUDA_OK_LAUNCH();
}

template <class HostFr>
void Engine<HostFr>::run(const F* d_in, F* d_out, int log_n, NttDirection dir, const HostFr& shift) {
  if (log_n < 1 || log_n > max_log_n())
    throw std::invalid_argument("GPU NTT: log2 size must be in [1, " + std::to_string(max_log_n()) + "], got " +
                                std::to_string(log_n));
  if (d_in == d_out) throw std::invalid_argument("GPU NTT: input and output must be distinct buffers");
  ensure_twiddles(log_n);
  const bool to_coset = dir == NttDirection::kInverseToCoset;
  const bool coset = dir == NttDirection::kCosetForward || dir == NttDirection::kCosetInverse || to_coset;
  const CosetTables* ct = coset ? &coset_tables(log_n, shift) : nullptr;
  const bool post = dir == NttDirection::kCosetInverse || to_coset;  // scaled on output, by g^-j or g^j
  Gather gather = dir == NttDirection::kInverse ? Gather::kInverse
                  : post                        ? Gather::kNegated
                  : coset                       ? Gather::kCoset
                                                : Gather::kForward;
  PassArgs<F> a{};
  a.log_n = uint32_t(log_n);
  a.tw_top = uint32_t(tw_log_) - 1;
  const HostFr post_h = to_coset ? shift : post ? shift.inverse() : HostFr::one();
  const F* g_lo = coset ? ct->pow.get() : nullptr;
  const F* g_hi = coset ? ct->pow.get() + 2 * kPowLo : nullptr;
  const F* ginv_lo = coset ? ct->pow.get() + kPowLo : nullptr;
  const F* ginv_hi = coset ? ct->pow.get() + 2 * kPowLo + ct->hi_count : nullptr;
  const F* post_lo = to_coset ? g_lo : ginv_lo;
  const F* post_hi = to_coset ? g_hi : ginv_hi;
  uint32_t ks[8];
  const int passes = plan_passes(uint32_t(log_n), ks);
  uint32_t s0 = 0;
  for (int p = 0; p < passes; ++p) {
    a.s0 = s0;
    a.lo_bits = s0 == 0 ? 0u : (s0 < 2 ? s0 : 2u);
    a.k = ks[p];
    const bool post_scale = post && p + 1 == passes;
    if (post_scale) {
      // The last step's output spacing D = 2^(s0 + its stage) (step_compute): h^D, h^2D, h^3D.
      const uint32_t last_st = 2 * ((a.k + 1) / 2 - 1);
      HostFr hd = post_h;
      for (uint32_t b = 0; b < s0 + last_st; ++b) hd = hd.square();
      a.post_g[0] = F::from_host(hd);
      a.post_g[1] = F::from_host(hd.square());
      a.post_g[2] = F::from_host(hd.square() * hd);
    }
    const uint32_t tile_log = a.k + a.lo_bits;
    const uint32_t threads = tile_log >= 2 ? 1u << (tile_log - 2) : 1u;
    // Shared memory: none for a one-step pass, else the tile plus the staged twiddles.
    const uint32_t staged = a.k > 2 ? ((1u << a.k) - 4) << a.lo_bits : 0u;
    const size_t smem = a.k > 2 ? ((size_t(1) << tile_log) + staged) * sizeof(F) : 0;
    const uint64_t blocks = uint64_t(1) << (uint32_t(log_n) - tile_log);
    const LaunchShape shape{unsigned(blocks), threads, smem, stream_};
    switch (gather) {
      case Gather::kInPlace:
        if (post_scale)
          launch_pass<F, Gather::kInPlace, true>(shape, d_in, d_out, tw_.get(), a, g_lo, g_hi, post_lo, post_hi);
        else
          launch_pass<F, Gather::kInPlace, false>(shape, d_in, d_out, tw_.get(), a, g_lo, g_hi, post_lo, post_hi);
        break;
      case Gather::kForward:
        launch_pass<F, Gather::kForward, false>(shape, d_in, d_out, tw_.get(), a, g_lo, g_hi, post_lo, post_hi);
        break;
      case Gather::kCoset:
        launch_pass<F, Gather::kCoset, false>(shape, d_in, d_out, tw_.get(), a, g_lo, g_hi, post_lo, post_hi);
        break;
      case Gather::kInverse:
        launch_pass<F, Gather::kInverse, false>(shape, d_in, d_out, tw_.get(), a, g_lo, g_hi, post_lo, post_hi);
        break;
      case Gather::kNegated:  // scaled on output: one pass (n <= 2^kTileLog) does it in its only pass
        if (post_scale)
          launch_pass<F, Gather::kNegated, true>(shape, d_in, d_out, tw_.get(), a, g_lo, g_hi, post_lo, post_hi);
        else
          launch_pass<F, Gather::kNegated, false>(shape, d_in, d_out, tw_.get(), a, g_lo, g_hi, post_lo, post_hi);
        break;
    }
    gather = Gather::kInPlace;
    s0 += a.k;
  }
}

template <class HostFr>
void Engine<HostFr>::ensure_twiddles(int log_n) {
  if (log_n <= tw_log_) return;
  const size_t hi_count = log_n - 1 > kPowLoLog ? size_t(1) << (log_n - 1 - kPowLoLog) : 1;
  const std::vector<F> host = pow_tables(HostFr::root_of_unity(size_t(log_n)), hi_count);
  DeviceBuffer<F> tables(host.size(), "NTT twiddle seeds");
  ZK_CUDA_OK(cudaMemcpyAsync(tables.get(), host.data(), host.size() * sizeof(F), cudaMemcpyHostToDevice, stream_));
  const uint64_t count = uint64_t(1) << (log_n - 1);
  // Free the smaller table first; until the new one is complete the engine holds none, so a
  // failed allocation or launch leaves it consistent (the next run rebuilds).
  tw_log_ = 0;
  tw_ = DeviceBuffer<F>();
  tw_ = DeviceBuffer<F>(count, "NTT twiddles");
  twiddles_kernel<F>
      <<<unsigned((count + 255) / 256), 256, 0, stream_>>>(tw_.get(), count, tables.get(), tables.get() + kPowLo);
  ZK_CUDA_OK_LAUNCH();
  ZK_CUDA_OK(cudaStreamSynchronize(stream_));  // `tables` and `host` go out of scope
  tw_log_ = log_n;
}

}  // namespace zkmill::cuda::ntt
