// SPDX-License-Identifier: MIT
// GPU inverse FFT over elliptic-curve points (interface: point_ntt.hpp): kernels and the host
// body that launches them; CUDA-only, included only by point_ntt_bn254.cu and point_ntt_bls12_381.cu, which instantiate
// it for G1 and G2 of BN254 and BLS12-381. Generic over the device group G (cuda/ec/device_group.hpp), whose XYZZ
// formulas (cuda/ec/xyzz.hpp) cover every exceptional case, so inputs with repeated, opposite or infinite points need
// no side path.
//
// Algorithm: the CPU's (setup/group_ops.hpp, group_ifft), so each intermediate point is the
// same group element on both sides: radix-2 decimation in time after a bit-reversal
// permutation, the n^-1 folded into the twiddles of each stage's first group (w^j / n) and
// point 0 scaled before stage 1, so a transform of n points costs (n/2)(log n - 2) + log n + 2
// scalar multiplications. Unlike a field NTT, memory traffic is nothing next to the arithmetic
// (one butterfly reads and writes 2 points but multiplies one by a 254-bit twiddle: ~2,000
// field multiplications), so there is one kernel per stage, one thread per butterfly, and no
// shared-memory tiling. Radix-4 or four-step layouts would not cut the work either (the 4th
// root of unity is a full-size multiplication in the group: prepare_phase2.hpp).
//
// Scalar multiplication: GLV (ec/glv.hpp), k P = k1 P + k2 phi(P), |k1|, |k2| < 2^127 with
// phi(X, Y, ZZ, ZZZ) = (beta X, Y, ZZ, ZZZ) in XYZZ (beta in Fq; for G2 it scales both Fq2
// halves, as on the CPU). The twiddles are decomposed on the host (2 per butterfly column, n/2
// each) and read from a table, stage s at stride 2^(log n - s) as in the field NTT
// (ntt_impl.cuh). Each half is recoded into Booth (signed) 4-bit windows, digit i =
// w_i + b_(4i-1) - 16 b_(4i+3) in [-8, 8], readable in any order from the bits alone, and the
// two are evaluated with one doubling chain (Shamir's trick) from a table of P..8P in XYZZ:
// 128 doublings, about 60 additions and 7 for the table, against 254 doublings and 64
// additions for a 4-bit window on the full scalar.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "common/ec/glv.hpp"
#include "common/formats/snarkjs_roots.hpp"
#include "cuda/ec/g1.hpp"
#include "cuda/ec/g2.hpp"
#include "cuda/ec/xyzz_out_of_line.cuh"
#include "cuda/ntt/point_ntt.hpp"
#include "cuda/runtime/gpu_memory.cuh"

namespace zkmill::cuda::point_ntt {

// One twiddle's GLV decomposition: k = (-1)^(neg & 1) k1 + (-1)^(neg >> 1) k2 lambda.
struct GlvWords {
  uint32_t k1[4], k2[4];
  uint32_t neg;
};

inline GlvWords glv_words(const ec::GlvScalar& s) {
  GlvWords w{};
  for (int i = 0; i < 4; ++i) {
    w.k1[i] = uint32_t(s.k1 >> (32 * i));
    w.k2[i] = uint32_t(s.k2 >> (32 * i));
  }
  w.neg = (s.neg1 ? 1u : 0u) | (s.neg2 ? 2u : 0u);
  return w;
}

// The device field of the x coordinate's scale by beta (Fq for both groups).
template <class G>
using BetaField = field::Fp32<typename G::Host::Fq::Params>;

template <class F, class B>
__device__ __forceinline__ F scale_by_beta(const F& x, const B& beta) {
  if constexpr (sizeof(F) == sizeof(B))
    return x * beta;
  else
    return F{x.c0 * beta, x.c1 * beta};
}

// Booth digit i of a 128-bit k (4 words): w_i + b_(4i-1) - 16 b_(4i+3), from bits 4i-1 .. 4i+3.
__device__ __forceinline__ int booth_digit(const uint32_t (&k)[4], int i) {
  const int lo = 4 * i - 1;  // may be -1: b_(-1) = 0
  uint32_t v;
  if (lo < 0) {
    v = (k[0] & 15u) << 1;
  } else {
    const int w = lo >> 5, b = lo & 31;
    uint64_t pair = k[w];
    if (w + 1 < 4) pair |= uint64_t(k[w + 1]) << 32;
    v = uint32_t(pair >> b) & 31u;  // lo <= 127, so w <= 3
  }
  return int(v >> 1) + int(v & 1u) - 16 * int(v >> 4);
}

// The group operations are out of line (cuda/ec/xyzz_out_of_line.cuh): inlined at each of the
// ~10 sites (XYZZ's add inlines its doubling case too), the BLS12-381 unit (G1 and Fq2 G2) took
// over 20 CPU minutes to compile.
// k P for a GLV-decomposed k (see the top of the file).
template <class G>
__device__ __noinline__ typename G::Bucket glv_mul(const typename G::Bucket& p, const GlvWords& k,
                                                   const BetaField<G>& beta) {
  using Xyzz = typename G::Bucket;
  Xyzz table[8];  // table[d - 1] = d P
  table[0] = p;
  table[1] = curve::dbl_out_of_line(p);
#pragma unroll 1
  for (int d = 2; d < 8; ++d) {
    table[d] = table[d - 1];
    curve::add_out_of_line(table[d], p);
  }
  Xyzz acc = Xyzz::infinity();
  bool started = false;
  // Window 32 holds only the borrow of bit 127, zero since k1, k2 < 2^127; it is kept for safety.
#pragma unroll 1
  for (int i = 32; i >= 0; --i) {
    if (started) {
#pragma unroll 1
      for (int b = 0; b < 4; ++b) acc = curve::dbl_out_of_line(acc);
    }
#pragma unroll 1
    for (int h = 0; h < 2; ++h) {
      int d = booth_digit(h == 0 ? k.k1 : k.k2, i);
      if (d == 0) continue;
      if ((k.neg >> h) & 1u) d = -d;
      Xyzz q = table[(d < 0 ? -d : d) - 1];
      if (d < 0) q.Y = -q.Y;
      if (h == 1) q.X = scale_by_beta(q.X, beta);
      curve::add_out_of_line(acc, q);
      started = true;
    }
  }
  return acc;
}

// a[i] = in[bitrev(i)] as XYZZ; a[0] (which is in[0]) times n^-1.
template <class G>
__global__ void load_kernel(const typename G::HostImage* in, typename G::Bucket* a, uint32_t log_n, GlvWords n_inv,
                            BetaField<G> beta) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << log_n)) return;
  using F = typename G::Fq;
  using Xyzz = typename G::Bucket;
  const uint32_t j = log_n == 0 ? 0 : __brev(i) >> (32 - log_n);
  const typename G::HostImage& h = in[j];
  Xyzz p = h.infinity ? Xyzz::infinity() : Xyzz::from_affine(F::from_words(h.x), F::from_words(h.y));
  if (i == 0) p = glv_mul<G>(p, n_inv, beta);
  a[i] = p;
}

// Stage s (1-based) of the decimation in time: butterfly b of n/2 joins a[i1] and a[i2] =
// a[i1 + 2^(s-1)] with twiddle w_(2^s)^j (over n in the first group, g == 0; 1 elsewhere at j = 0).
template <class G>
__global__ void stage_kernel(typename G::Bucket* a, const GlvWords* tw, const GlvWords* tw_scaled, uint32_t log_n,
                             uint32_t s, BetaField<G> beta) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= (1u << (log_n - 1))) return;
  using Xyzz = typename G::Bucket;
  const uint32_t half = 1u << (s - 1);
  const uint32_t g = b >> (s - 1), j = b & (half - 1);
  const uint32_t i1 = g * 2 * half + j, i2 = i1 + half;
  Xyzz t = a[i2];
  const uint32_t idx = j << (log_n - s);
  // One call site (the multiplication is most of the kernel's code).
  const GlvWords* k = g == 0 ? &tw_scaled[idx] : j != 0 ? &tw[idx] : nullptr;
  if (k != nullptr) t = glv_mul<G>(t, *k, beta);
  const Xyzz u = a[i1];
  Xyzz sum = u;
  curve::add_out_of_line(sum, t);
  t.Y = -t.Y;
  Xyzz diff = u;
  curve::add_out_of_line(diff, t);
  a[i1] = sum;
  a[i2] = diff;
}

// The CPU's Jacobian layout {X, Y, Z}, same bytes (sizes are multiples of 16: no padding).
template <class G>
struct JacobianImage {
  typename G::Fq X, Y, Z;
};

// XYZZ (X/ZZ, Y/ZZZ) to Jacobian (X'/Z'^2, Y'/Z'^3): Z' = ZZZ, X' = X ZZ^2, Y' = Y ZZZ^2
// (DeviceGroup::to_host); infinity as the CPU's identity (0, 1, 0).
template <class G>
__global__ void to_jacobian_kernel(const typename G::Bucket* a, JacobianImage<G>* out, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using F = typename G::Fq;
  const typename G::Bucket p = a[i];
  JacobianImage<G> r;
  if (p.is_infinity()) {
    r.X = F::zero();
    r.Y = F::one();
    r.Z = F::zero();
  } else {
    r.X = p.X * p.ZZ.sqr();
    r.Y = p.Y * p.ZZZ.sqr();
    r.Z = p.ZZZ;
  }
  out[i] = r;
}

// Host body of group_ifft_gpu for device group G of the CPU group C.
template <class G, class C>
GpuResult run(const typename G::HostAffine* in, typename G::HostJacobian* out, size_t n, int device,
              util::ThreadPool& pool, const std::function<void(uint64_t)>& progress) noexcept {
  using HostFr = typename G::HostFr;
  static_assert(sizeof(JacobianImage<G>) == sizeof(typename G::HostJacobian), "Jacobian image has drifted");
  if (n == 0 || (n & (n - 1)) != 0)
    return {GpuErrc::kInvalidArgument, "GPU point IFFT: size must be a power of two, got " + std::to_string(n)};
  if (n > (size_t(1) << 30))
    return {GpuErrc::kInvalidArgument, "GPU point IFFT: at most 2^30 points, got " + std::to_string(n)};
  if (in == nullptr || out == nullptr) return {GpuErrc::kInvalidArgument, "GPU point IFFT: null pointer"};
  return run_guarded([&] {
    uint32_t log_n = 0;
    while ((size_t(1) << log_n) < n) ++log_n;
    ZK_CUDA_OK(cudaSetDevice(device));
    const auto beta = BetaField<G>::from_host(ec::GlvEndomorphism<C>::beta());
    const HostFr n_inv = HostFr::from_u64(n).inverse();
    // Twiddles w^-i and w^-i / n, i < n/2, decomposed across the pool.
    const size_t half = n / 2;
    std::vector<GlvWords> host_tw(2 * half);
    if (half > 0) {
      const HostFr w_inv = formats::snarkjs_root_of_unity<HostFr>(log_n).inverse();
      pool.parallel_for(
          half,
          [&](size_t b, size_t e) {
            HostFr x = w_inv.pow(uint64_t(b));
            for (size_t i = b; i < e; ++i, x *= w_inv) {
              host_tw[i] = glv_words(ec::glv_decompose(x));
              host_tw[half + i] = glv_words(ec::glv_decompose(x * n_inv));
            }
          },
          256);
    }
    Stream stream;
    DeviceBuffer<typename G::Bucket> a(n, "point IFFT: points (XYZZ)");
    DeviceBuffer<GlvWords> tw(std::max<size_t>(host_tw.size(), 1), "point IFFT: twiddles");
    if (!host_tw.empty())
      ZK_CUDA_OK(cudaMemcpyAsync(tw.get(), host_tw.data(), host_tw.size() * sizeof(GlvWords), cudaMemcpyHostToDevice,
                                 stream.get()));
    constexpr uint32_t kBlock = 128;
    const auto blocks = [](size_t threads) { return unsigned((threads + kBlock - 1) / kBlock); };
    {
      DeviceBuffer<typename G::HostImage> image(n, "point IFFT: input points");
      ZK_CUDA_OK(
          cudaMemcpyAsync(image.get(), in, n * sizeof(typename G::HostAffine), cudaMemcpyHostToDevice, stream.get()));
      load_kernel<G><<<blocks(n), kBlock, 0, stream.get()>>>(image.get(), a.get(), log_n,
                                                             glv_words(ec::glv_decompose(n_inv)), beta);
      ZK_CUDA_OK_LAUNCH();
      stream.sync();  // `image` is freed at the end of this scope
    }
    if (progress && n > 1) progress(1);  // point 0's scale (n^-1 = 1 costs nothing at n = 1)
    for (uint32_t s = 1; s <= log_n; ++s) {
      stage_kernel<G><<<blocks(half), kBlock, 0, stream.get()>>>(a.get(), tw.get(), tw.get() + half, log_n, s, beta);
      ZK_CUDA_OK_LAUNCH();
      stream.sync();
      // Every butterfly but those with w^0 outside the first group (group_ifft_cost).
      if (progress) progress(half - ((n >> s) - 1));
    }
    DeviceBuffer<JacobianImage<G>> jac(n, "point IFFT: results (Jacobian)");
    to_jacobian_kernel<G><<<blocks(n), kBlock, 0, stream.get()>>>(a.get(), jac.get(), uint32_t(n));
    ZK_CUDA_OK_LAUNCH();
    ZK_CUDA_OK(cudaMemcpyAsync(out, jac.get(), n * sizeof(JacobianImage<G>), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
  });
}

}  // namespace zkmill::cuda::point_ntt

namespace zkmill::cuda {

namespace point_ntt {
// The device group of a CPU group.
template <class C>
struct DeviceOf;
template <>
struct DeviceOf<curves::Bn254::G1Params> {
  using type = curve::Bn254G1;
};
template <>
struct DeviceOf<curves::Bn254::G2Params> {
  using type = curve::Bn254G2;
};
template <>
struct DeviceOf<curves::Bls12381::G1Params> {
  using type = curve::Bls12381G1;
};
template <>
struct DeviceOf<curves::Bls12381::G2Params> {
  using type = curve::Bls12381G2;
};
}  // namespace point_ntt

template <class C>
GpuResult group_ifft_gpu(const ec::Affine<C>* in, ec::Jacobian<C>* out, size_t n, int device, util::ThreadPool& pool,
                         const std::function<void(uint64_t)>& progress) noexcept {
  return point_ntt::run<typename point_ntt::DeviceOf<C>::type, C>(in, out, n, device, pool, progress);
}

}  // namespace zkmill::cuda
