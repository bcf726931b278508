// SPDX-License-Identifier: MIT
// The GPU benchmark suite (cuda/bench/suite.hpp): card ceilings, G1 and G2 MSM with an exact check,
// NTT, full proofs through prove_gpu<E> with synthetic keys, and a PoRep-sized partition.
//
// MSM inputs: scalars a progression s0 + i d (random s0, d: every c-bit digit looks uniform);
// points P_i = Q_(i mod 2^16) + R_(i >> 16), Q_j = [q0 + j dq] G, R_k = [r0 + k dr] G, summed and
// normalised on the GPU, so all are distinct with known discrete logs: the expected MSM is one
// CPU scalar multiplication.
// Synthetic proving keys (a real setup at 2^20+ takes hours on the CPU): every G1 section is a
// tiling of 2^16 distinct progression points (offset per section), G2 likewise with 2^12; the
// witness is a = progression, b = progression, c = a o b, z = progression. Proofs over such a key
// do not verify (no trapdoor relation); at check_cpu_log the GPU proof is compared with the CPU
// prover's on the same synthetic key instead. The PoRep rows build their key on the device from
// 2^20 distinct points (tiled: 50 GiB of G1 and 25 GiB of G2 for BLS12-381 at 2^27) and prove a
// synthetic witness, or real `porep` witnesses synthesized on host threads while the GPU proves
// (a whole pipelined job: bench_porep, cuda/bench/porep_bench.cuh).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/groth16/prover.hpp"
#include "cuda/bench/limb_width_bench.cuh"
#include "cuda/bench/suite.hpp"
#include "cuda/groth16/prove.cuh"
#include "zkmill/build_info.hpp"

namespace zkmill::cuda {
namespace {

constexpr int kQLog = 16;

struct Row {
  std::string op, curve;
  int log_n;
  float median_ms, min_ms;
  std::string note;
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// out[i] = Q[i mod 2^16] + R[i >> 16], in affine coordinates (one inversion per point).
template <class G>
__global__ void make_points_kernel(const typename G::Affine* q, const typename G::Affine* r, typename G::Affine* out,
                                   uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const auto& a = q[i & ((1u << kQLog) - 1)];
  const auto& b = r[i >> kQLog];
  auto s = G::Bucket::from_affine(a.x, a.y);
  s.add_affine(b.x, b.y);
  const auto t = (s.ZZ * s.ZZZ).inverse();  // 1/ZZ = ZZZ t, 1/ZZZ = ZZ t
  out[i] = {s.X * (s.ZZZ * t), s.Y * (s.ZZ * t)};
}

// out[i] = src[(i * stride + offset) mod m], m a power of two.
template <class T>
__global__ void tile_kernel(const T* src, uint64_t m, T* out, uint64_t n, uint64_t stride, uint64_t offset) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = src[(i * stride + offset) & (m - 1)];
}

// 8 independent mad.lo.cc / madc.hi chains per thread: the IMAD lo+hi pair rate.
__global__ void imad_kernel(uint32_t* sink, uint32_t seed, int iters) {
  uint32_t lo[8], hi[8];
  const uint32_t a = seed ^ threadIdx.x, b = seed * 2654435761u + blockIdx.x;
#pragma unroll
  for (int j = 0; j < 8; ++j) lo[j] = hi[j] = a + uint32_t(j);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j)
      asm volatile("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.u32 %1, %2, %3, %1;"
                   : "+r"(lo[j]), "+r"(hi[j])
                   : "r"(a), "r"(b));
  }
  uint32_t x = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) x ^= lo[j] ^ hi[j];
  if (x == 0x12345678u) sink[0] = x;  // keeps the chains alive
}

template <class Curve, class GP>
std::vector<ec::Affine<GP>> progression(const typename Curve::Fr& a, const typename Curve::Fr& d, size_t n,
                                        const ec::Affine<GP>& gen) {
  using J = ec::Jacobian<GP>;
  std::vector<J> jac(n);
  J p = J::from_affine(gen) * a;
  const auto step = (J::from_affine(gen) * d).to_affine();
  for (size_t i = 0; i < n; ++i) {
    jac[i] = p;
    p = p.add_mixed(step);
  }
  return ec::batch_normalize<GP>(std::span<const J>(jac));
}

// v[i] = x0 + i d, filled in parallel.
template <class Fr>
void fill_progression(std::span<Fr> v, const Fr& x0, const Fr& d) {
  util::ThreadPool::global().parallel_for(
      v.size(),
      [&](size_t lo, size_t hi) {
        Fr x = x0 + d * Fr::from_u64(lo);
        for (size_t i = lo; i < hi; ++i, x += d) v[i] = x;
      },
      size_t(1) << 14);
}

void ceilings(std::vector<Row>& rows) {
  Stream st;
  cudaDeviceProp prop{};
  ZK_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  DeviceBuffer<uint32_t> sink(1, "sink");
  const unsigned blocks = unsigned(prop.multiProcessorCount) * 8;
  const int iters = 1 << 14;
  imad_kernel<<<blocks, 256, 0, st.get()>>>(sink.get(), 1, 64);
  ZK_CUDA_OK_LAUNCH();
  Event a, b;
  a.record(st.get());
  imad_kernel<<<blocks, 256, 0, st.get()>>>(sink.get(), 1, iters);
  ZK_CUDA_OK_LAUNCH();
  b.record(st.get());
  float ms = b.since(a);
  const double pairs = double(blocks) * 256 * 8 * iters;
  char note[160];
  std::snprintf(note, sizeof note, "%.2f T IMAD lo+hi pairs/s (mad.lo.cc + madc.hi, 8 chains/thread)",
                pairs / ms / 1e9);
  rows.push_back({"ceiling_imad", "-", 0, ms, ms, note});

  const size_t bytes = size_t(4) << 30;
  DeviceBuffer<uint8_t> x(bytes, "D2D src"), y(bytes, "D2D dst");
  ZK_CUDA_OK(cudaMemsetAsync(x.get(), 1, bytes, st.get()));
  std::vector<float> v;
  for (int r = 0; r < 4; ++r) {
    a.record(st.get());
    ZK_CUDA_OK(cudaMemcpyAsync(y.get(), x.get(), bytes, cudaMemcpyDeviceToDevice, st.get()));
    b.record(st.get());
    v.push_back(b.since(a));
  }
  std::snprintf(note, sizeof note, "4 GiB cudaMemcpy D2D: %.2f TB/s read+write (%.2f TB/s copied)",
                2.0 * double(bytes) / median(v) / 1e9, double(bytes) / median(v) / 1e9);
  rows.push_back({"ceiling_d2d", "-", 32, median(v), *std::min_element(v.begin(), v.end()), note});

  const size_t hbytes = size_t(1) << 30;
  g16::PinnedBuffer pin(hbytes);
  std::vector<uint8_t> pageable(hbytes, 3);
  v.clear();
  for (int r = 0; r < 4; ++r) {
    a.record(st.get());
    ZK_CUDA_OK(cudaMemcpyAsync(y.get(), pin.get(), hbytes, cudaMemcpyHostToDevice, st.get()));
    b.record(st.get());
    v.push_back(b.since(a));
  }
  std::snprintf(note, sizeof note, "1 GiB pinned H2D: %.1f GB/s", double(hbytes) / median(v) / 1e6);
  rows.push_back({"ceiling_h2d_pinned", "-", 30, median(v), *std::min_element(v.begin(), v.end()), note});
  v.clear();
  for (int r = 0; r < 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(pin.get(), pageable.data(), hbytes);
    v.push_back(float(g16::ms_since(t0)));
  }
  std::snprintf(note, sizeof note, "1 GiB host memcpy pageable->pinned, one thread: %.1f GB/s (the staging step)",
                double(hbytes) / median(v) / 1e6);
  rows.push_back({"ceiling_host_stage", "-", 30, median(v), *std::min_element(v.begin(), v.end()), note});
  for (size_t i = rows.size() - 4; i < rows.size(); ++i)
    std::printf("%s: %s\n", rows[i].op.c_str(), rows[i].note.c_str());

  // 32-bit vs 64-bit limbs for the Montgomery product (issue 6): both Fq's.
  auto limb_row = [&](const char* curve, const limbs::LimbWidthResult& lw) {
    std::snprintf(note, sizeof note, "%s Fq Montgomery mul: 32-bit limbs %.1f G/s, 64-bit limbs %.1f G/s (x%.2f)%s",
                  curve, lw.g_mul_32, lw.g_mul_64, lw.g_mul_64 / lw.g_mul_32,
                  lw.same_bits ? "" : " WRONG: results differ");
    rows.push_back({"limb_width", curve, 0, float(lw.g_mul_32), float(lw.g_mul_64),
                    lw.same_bits ? std::string(note) : std::string("WRONG: ") + note});
    std::printf("limb_width: %s\n", note);
  };
  limb_row("bls12-381", limbs::compare_limb_widths<ff::Bls12381FqParams>(blocks, 1 << 11));
  limb_row("bn254", limbs::compare_limb_widths<ff::Bn254FqParams>(blocks, 1 << 11));
}

// G1 or G2 MSM (G: the device group traits) at the sizes given, every result exact-checked.
template <class G>
bool bench_msm(const char* op, const char* name, const std::vector<int>& sizes, const GpuBenchOptions& o,
               std::vector<Row>& rows) {
  using Curve = typename G::Host;
  using Fr = typename Curve::Fr;
  using Jac = typename G::HostJacobian;
  const int max_log = *std::max_element(sizes.begin(), sizes.end());
  const size_t nmax = size_t(1) << max_log;
  std::mt19937_64 rng(42);
  const Fr q0 = Fr::random(rng), dq = Fr::random(rng), r0 = Fr::random(rng), dr = Fr::random(rng);
  const size_t rcount = std::max<size_t>(1, nmax >> kQLog);
  const auto gen = Jac::generator().to_affine();
  const auto qh = progression<Curve>(q0, dq, size_t(1) << kQLog, gen);
  const auto rh = progression<Curve>(r0, dr, rcount, gen);
  std::vector<typename G::Affine> qd(qh.size()), rd(rh.size());
  for (size_t i = 0; i < qh.size(); ++i) qd[i] = G::to_device_affine(qh[i]);
  for (size_t i = 0; i < rh.size(); ++i) rd[i] = G::to_device_affine(rh[i]);
  std::vector<Fr> all_scalars(nmax);
  fill_progression<Fr>(all_scalars, Fr::random(rng), Fr::random(rng));
  // The PoRep mix for the "_bits" rows: 55% zeros, 40% ones, 5% progression values.
  std::vector<Fr> bits(o.msm_bits ? nmax : 0);
  for (size_t i = 0; i < bits.size(); ++i) {
    const uint64_t u = rng() % 100;
    bits[i] = u < 55 ? Fr::zero() : (u < 95 ? Fr::one() : all_scalars[i]);
  }

  Stream stream;
  DeviceBuffer<typename G::Affine> d_q(qd.size(), "bench Q"), d_r(rd.size(), "bench R"), d_pts(nmax, "bench points");
  DeviceBuffer<typename G::Fr> d_sc(nmax, "bench scalars"), d_bits(bits.size(), "bench bit scalars");
  ZK_CUDA_OK(cudaMemcpyAsync(d_q.get(), qd.data(), qd.size() * sizeof(qd[0]), cudaMemcpyHostToDevice, stream.get()));
  ZK_CUDA_OK(cudaMemcpyAsync(d_r.get(), rd.data(), rd.size() * sizeof(rd[0]), cudaMemcpyHostToDevice, stream.get()));
  ZK_CUDA_OK(cudaMemcpyAsync(d_sc.get(), all_scalars.data(), nmax * sizeof(Fr), cudaMemcpyHostToDevice, stream.get()));
  if (!bits.empty())
    ZK_CUDA_OK(cudaMemcpyAsync(d_bits.get(), bits.data(), nmax * sizeof(Fr), cudaMemcpyHostToDevice, stream.get()));
  make_points_kernel<G>
      <<<unsigned((nmax + 255) / 256), 256, 0, stream.get()>>>(d_q.get(), d_r.get(), d_pts.get(), uint32_t(nmax));
  ZK_CUDA_OK_LAUNCH();
  stream.sync();

  bool all_ok = true;
  // G2 kernels are compiled once, behind G2Engine (cuda/msm/g2_engine.cuh).
  using Eng =
      std::conditional_t<std::is_same_v<G, curve::G2Device<Curve>>, pippenger::G2Engine<Curve>, pippenger::Engine<G>>;
  Eng engine(stream.get());
  for (int lg : sizes)
    for (int mix = 0; mix < (o.msm_bits ? 2 : 1); ++mix) {
      const size_t n = size_t(1) << lg;
      const std::vector<Fr>& scalars = mix == 0 ? all_scalars : bits;
      const typename G::Fr* d_scalars = mix == 0 ? d_sc.get() : d_bits.get();
      const std::string row_op = std::string(op) + (mix == 0 ? "" : "_bits");
      std::vector<Fr> sq(size_t(1) << kQLog, Fr::zero()), sr(rcount, Fr::zero());
      for (size_t i = 0; i < n; ++i) {
        sq[i & ((size_t(1) << kQLog) - 1)] += scalars[i];
        sr[i >> kQLog] += scalars[i];
      }
      Fr e = Fr::zero(), qj = q0, rk = r0;
      for (const Fr& s : sq) {
        e += s * qj;
        qj += dq;
      }
      for (const Fr& s : sr) {
        e += s * rk;
        rk += dr;
      }
      const auto want = Jac::generator() * e;
      for (int c : o.msm_widths) {
        const auto got = engine.run(d_pts.get(), d_scalars, n, c);  // warm-up, also the correctness check
        const bool ok = got == want;
        all_ok = all_ok && ok;
        std::vector<float> ms;
        Event a, b;
        for (int r = 0; r < o.runs; ++r) {
          a.record(stream.get());
          (void)engine.run(d_pts.get(), d_scalars, n, c);
          b.record(stream.get());
          ms.push_back(b.since(a));
        }
        pippenger::MsmPhaseTimes t;
        (void)engine.run(d_pts.get(), d_scalars, n, c, &t);
        const auto& p = engine.plan();
        char note[256];
        std::snprintf(note, sizeof note,
                      "%s c=%d%s W=%d ones=%u windowed=%u | split+digits %.2f sort %.2f bounds %.2f acc %.2f (%d lvl) "
                      "reduce %.2f host %.2f",
                      ok ? "OK" : "WRONG", p.c, c == 0 ? "(auto)" : "", p.windows, t.n_one, t.n_other, t.digits, t.sort,
                      t.bounds, t.accumulate, t.levels, t.reduce, t.host_tail);
        rows.push_back({row_op, name, lg, median(ms), *std::min_element(ms.begin(), ms.end()), note});
        std::printf("%s %-10s 2^%d  median %8.2f ms  %s\n", row_op.c_str(), name, lg, rows.back().median_ms, note);
        std::fflush(stdout);
      }
    }
  return all_ok;
}

template <class HostFr>
void bench_ntt(const char* name, const GpuBenchOptions& o, std::vector<Row>& rows) {
  using F = typename ntt::Engine<HostFr>::F;
  const int max_log = *std::max_element(o.ntt_sizes.begin(), o.ntt_sizes.end());
  const size_t nmax = size_t(1) << max_log;
  std::mt19937_64 rng(7);
  std::vector<HostFr> host(nmax);
  fill_progression<HostFr>(host, HostFr::random(rng), HostFr::random(rng));
  Stream stream;
  DeviceBuffer<F> in(nmax, "bench NTT in"), out(nmax, "bench NTT out");
  ZK_CUDA_OK(cudaMemcpyAsync(in.get(), host.data(), nmax * sizeof(HostFr), cudaMemcpyHostToDevice, stream.get()));
  ntt::Engine<HostFr> engine(stream.get());
  const std::pair<const char*, NttDirection> dirs[] = {{"ntt_fwd", NttDirection::kForward},
                                                       {"ntt_inv", NttDirection::kInverse},
                                                       {"ntt_coset_fwd", NttDirection::kCosetForward}};
  for (int lg : o.ntt_sizes) {
    for (const auto& [op, dir] : dirs) {
      engine.run(in.get(), out.get(), lg, dir);  // warm-up (and table setup)
      stream.sync();
      std::vector<float> ms;
      Event a, b;
      for (int r = 0; r < 2 * o.runs; ++r) {
        a.record(stream.get());
        engine.run(in.get(), out.get(), lg, dir);
        b.record(stream.get());
        ms.push_back(b.since(a));
      }
      const double gb = 2.0 * double(size_t(1) << lg) * sizeof(HostFr) / 1e9;
      char note[96];
      std::snprintf(note, sizeof note, "%.0f GB/s effective (one read + one write)", gb / (median(ms) / 1e3));
      rows.push_back({op, name, lg, median(ms), *std::min_element(ms.begin(), ms.end()), note});
      std::printf("%s %-10s 2^%d  median %8.3f ms  %s\n", op, name, lg, rows.back().median_ms, note);
    }
    std::fflush(stdout);
  }
}

// A witness bundle of the synthetic shape: 2 inputs, n - 2 aux, n rows, c = a o b.
template <class E>
cs::WitnessBundle synthetic_bundle(uint32_t log_n, std::mt19937_64& rng) {
  using Fr = typename E::Fr;
  const uint64_t n = uint64_t(1) << log_n;
  cs::BundleHeader h;
  h.curve = E::kId;
  h.n_inputs = 2;
  h.n_aux = n - 2;
  h.n_rows = n;
  auto w = cs::WitnessBundle::allocate(h);
  auto in = w.template section_mut<Fr>(cs::Section::Inputs);
  in[0] = Fr::one();
  in[1] = Fr::random(rng);
  fill_progression<Fr>(w.template section_mut<Fr>(cs::Section::Aux), Fr::random(rng), Fr::random(rng));
  auto a = w.template section_mut<Fr>(cs::Section::A);
  auto b = w.template section_mut<Fr>(cs::Section::B);
  auto c = w.template section_mut<Fr>(cs::Section::C);
  fill_progression<Fr>(a, Fr::random(rng), Fr::random(rng));
  fill_progression<Fr>(b, Fr::random(rng), Fr::random(rng));
  util::ThreadPool::global().parallel_for(
      n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) c[i] = a[i] * b[i];
      },
      size_t(1) << 14);
  for (auto d : {cs::DensityMap::AuxInA, cs::DensityMap::AuxInB, cs::DensityMap::InputInB}) {
    auto bits = w.density_mut(d);
    std::fill(bits.begin(), bits.end(), uint64_t(0));
  }
  w.seal();
  return w;
}

template <class P>
std::vector<P> tiled(const std::vector<P>& pool, size_t n, size_t offset) {
  std::vector<P> v(n);
  const size_t m = pool.size();
  util::ThreadPool::global().parallel_for(
      n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) v[i] = pool[(i * 5 + offset) % m];
      },
      size_t(1) << 14);
  return v;
}

template <class E>
groth16::ProvingKey<E> synthetic_key(uint32_t log_n, std::mt19937_64& rng) {
  using Fr = typename E::Fr;
  const uint64_t n = uint64_t(1) << log_n;
  const auto g1 = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << kQLog, E::G1::generator().to_affine());
  const auto g2 = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << 12, E::G2::generator().to_affine());
  groth16::KeyMeta meta;
  meta.circuit = "synthetic";
  meta.size = n;
  meta.n_inputs = 2;
  meta.n_aux = n - 2;
  meta.n_constraints = n;
  meta.domain_log2 = log_n;
  groth16::VerifyingKey<E> vk;
  vk.alpha_g1 = g1[1];
  vk.beta_g1 = g1[2];
  vk.delta_g1 = g1[3];
  vk.beta_g2 = g2[1];
  vk.gamma_g2 = g2[2];
  vk.delta_g2 = g2[3];
  vk.ic = {g1[4], g1[5]};
  return groth16::ProvingKey<E>(std::move(meta), std::move(vk), tiled(g1, n, 11), tiled(g1, n, 1234), tiled(g2, n, 7),
                                tiled(g1, n - 2, 4321), tiled(g1, n, 999));
}

template <class E>
GpuResult prove_dispatch(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                         const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* t,
                         const GpuProveOptions& po) {
  return prove_gpu(pk, w, r, s, out, t, po);
}

std::string phase_note(const GpuProveTimings& t) {
  char note[360];
  if (t.g2_on_gpu)
    std::snprintf(
        note, sizeof note,
        "%s key_up %.0f | up %.1f (waited %.1f) H %.1f A %.1f B1 %.1f B2(GPU) %.1f L %.1f Hmsm %.1f | comb %.1f",
        t.key_cache_hit ? "warm" : "cold", t.key_upload_ms, t.upload_ms, t.upload_wait_ms, t.h_ms, t.msm_a_ms,
        t.msm_b_g1_ms, t.msm_b_g2_ms, t.msm_l_ms, t.msm_h_ms, t.combine_ms);
  else
    std::snprintf(note, sizeof note,
                  "%s key_up %.0f | up %.1f H %.1f A %.1f B1 %.1f L %.1f Hmsm %.1f | G2cpu %.0f (wait %.0f) comb %.1f",
                  t.key_cache_hit ? "warm" : "cold", t.key_upload_ms, t.upload_ms, t.h_ms, t.msm_a_ms, t.msm_b_g1_ms,
                  t.msm_l_ms, t.msm_h_ms, t.g2_cpu_ms, t.g2_wait_ms, t.combine_ms);
  return note;
}

template <class E>
bool bench_prove(const GpuBenchOptions& o, std::vector<Row>& rows) {
  using Fr = typename E::Fr;
  bool all_ok = true;
  for (int lg : o.prove_sizes) {
    std::mt19937_64 rng(1000 + lg);
    const auto k0 = std::chrono::steady_clock::now();
    auto pk = synthetic_key<E>(uint32_t(lg), rng);
    auto w = synthetic_bundle<E>(uint32_t(lg), rng);
    std::printf("prove %-10s 2^%d: synthetic key + bundle in %.0f ms (host, not timed below)\n", E::kName, lg,
                g16::ms_since(k0));
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    groth16::Proof<E> proof{}, first{};
    // Default mode (B_G2 on the GPU) cold then warm; at g2_cpu_log also the CPU-G2 mode (its
    // own cache entry: cold then warm), whose proof must be the same.
    const bool both = lg == o.g2_cpu_log;
    for (int rep = 0; rep < (both ? 4 : 2); ++rep) {
      GpuProveTimings t;
      GpuProveOptions po;
      po.g2_on_cpu = rep >= 2;
      const char* op = po.g2_on_cpu ? "prove_gpu_g2cpu" : "prove_gpu";
      const GpuResult res = prove_dispatch<E>(pk, w, r, s, &proof, &t, po);
      if (!res.ok()) {
        std::printf("prove %s 2^%d FAILED: %s: %s\n", E::kName, lg, to_string(res.code), res.message.c_str());
        rows.push_back({op, E::kName, lg, 0, 0, "WRONG: " + res.message});
        all_ok = false;
        break;
      }
      if (rep == 0) first = proof;
      std::string note = phase_note(t);
      if (rep >= 1 && !(proof == first)) {
        note = "WRONG (differs from the first proof) " + note;
        all_ok = false;
      }
      rows.push_back({op, E::kName, lg, float(t.total_ms), float(t.total_ms), note});
      std::printf("%s %-10s 2^%d total %.1f ms  %s\n", op, E::kName, lg, t.total_ms, note.c_str());
      std::fflush(stdout);
    }
    if (lg == o.check_cpu_log) {
      groth16::ProveTimings ct;
      const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s, util::ThreadPool::global(), &ct);
      const bool same = cpu == first;
      all_ok = all_ok && same;
      char note[200];
      std::snprintf(
          note, sizeof note, "%s GPU proof == CPU proof | CPU: H %.0f A %.0f B1 %.0f B2 %.0f L %.0f Hmsm %.0f",
          same ? "OK" : "WRONG", ct.h_ms, ct.msm_a_ms, ct.msm_b_g1_ms, ct.msm_b_g2_ms, ct.msm_l_ms, ct.msm_h_ms);
      rows.push_back({"prove_cpu", E::kName, lg, float(ct.total_ms), float(ct.total_ms), note});
      std::printf("prove_cpu %-10s 2^%d total %.1f ms  %s\n", E::kName, lg, ct.total_ms, note);
    }
  }
  (void)release_gpu_context(0);
  return all_ok;
}

}  // namespace
}  // namespace zkmill::cuda

// bench_porep: the PoRep rows, on the helpers above (same anonymous namespace).
#include "cuda/bench/porep_bench.cuh"

namespace zkmill::cuda {

int run_gpu_bench(const GpuBenchOptions& o) noexcept {
  std::vector<Row> rows;
  bool all_ok = true;
  auto guarded = [&](const char* what, auto&& body) {
    const GpuResult r = run_guarded([&] { all_ok = body() && all_ok; });
    if (!r.ok()) {
      std::printf("%s: %s: %s\n", what, to_string(r.code), r.message.c_str());
      rows.push_back({what, "-", 0, 0, 0, std::string("WRONG: ") + r.message});
      all_ok = false;
    }
    std::fflush(stdout);
  };
  guarded("device", [&] {
    cudaDeviceProp prop{};
    ZK_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    std::printf("zkmill GPU bench: commit %s (%s), device %s, %d SMs, %.0f GiB, %zu CPU threads\n",
                zkmill::build::kGitCommit, zkmill::build::kBuildType, prop.name, prop.multiProcessorCount,
                double(prop.totalGlobalMem) / (1 << 30), util::ThreadPool::global().size());
    std::printf("synthetic keys and witnesses (see cuda/bench/suite.cu): no real setup at these sizes\n");
    return true;
  });
  const bool bn = o.curves.find("bn254") != std::string::npos, bls = o.curves.find("bls12-381") != std::string::npos;
  if (o.ceilings)
    guarded("ceilings", [&] {
      ceilings(rows);
      return true;
    });
  if (!o.msm_sizes.empty()) {
    if (bn) guarded("msm bn254", [&] { return bench_msm<curve::Bn254G1>("msm_g1", "bn254", o.msm_sizes, o, rows); });
    if (bls)
      guarded("msm bls12-381",
              [&] { return bench_msm<curve::Bls12381G1>("msm_g1", "bls12-381", o.msm_sizes, o, rows); });
  }
  if (!o.msm_g2_sizes.empty()) {
    if (bn)
      guarded("msm_g2 bn254", [&] { return bench_msm<curve::Bn254G2>("msm_g2", "bn254", o.msm_g2_sizes, o, rows); });
    if (bls)
      guarded("msm_g2 bls12-381",
              [&] { return bench_msm<curve::Bls12381G2>("msm_g2", "bls12-381", o.msm_g2_sizes, o, rows); });
  }
  if (!o.ntt_sizes.empty()) {
    if (bn)
      guarded("ntt bn254", [&] {
        bench_ntt<ff::Bn254Fr>("bn254", o, rows);
        return true;
      });
    if (bls)
      guarded("ntt bls12-381", [&] {
        bench_ntt<ff::Bls12381Fr>("bls12-381", o, rows);
        return true;
      });
  }
  if (!o.prove_sizes.empty()) {
    if (bn) guarded("prove bn254", [&] { return bench_prove<curves::Bn254>(o, rows); });
    if (bls) guarded("prove bls12-381", [&] { return bench_prove<curves::Bls12381>(o, rows); });
  }
  if (o.porep_log > 0) guarded("porep", [&] { return bench_porep(o, rows); });

  std::printf("\n%-18s %-10s %-5s %10s %10s  %s\n", "op", "curve", "n", "median_ms", "min_ms", "notes");
  for (const Row& r : rows) {
    std::printf("%-18s %-10s 2^%-3d %10.3f %10.3f  %s\n", r.op.c_str(), r.curve.c_str(), r.log_n, r.median_ms, r.min_ms,
                r.note.c_str());
    if (r.note.rfind("WRONG", 0) == 0) all_ok = false;
  }
  std::fflush(stdout);
  return all_ok ? 0 : 1;
}

}  // namespace zkmill::cuda
