// SPDX-License-Identifier: MIT
// The proof parts of the GPU benchmark suite (suite_common.cuh): full GPU proofs through
// prove_gpu<E> on synthetic keys (cold and warm key cache, B_G2 on the GPU and on the CPU, and the
// CPU prover's proof on the same inputs at check_cpu_log), and the GPU side of a PoRep-sized
// BLS12-381 partition on a key generated on the device.
#include <chrono>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/groth16/prover.hpp"
#include "cuda/bench/suite_common.cuh"
#include "cuda/groth16/prove.cuh"

namespace zkmill::cuda::bench {
namespace {

// out[i] = src[(i * stride + offset) mod m], m a power of two.
template <class T>
__global__ void tile_kernel(const T* src, uint64_t m, T* out, uint64_t n, uint64_t stride, uint64_t offset) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = src[(i * stride + offset) & (m - 1)];
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

}  // namespace

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

// The GPU side of a PoRep-sized BLS12-381 partition, on a key generated on the device: the G1
// side of a proof (gpu_parts without B_G2), then B_G2 over the same scalars on a G2 key.
bool bench_porep(const GpuBenchOptions& o, std::vector<Row>& rows) {
  using E = curves::Bls12381;
  using G = curve::Bls12381G1;
  using Fr = E::Fr;
  const uint32_t lg = uint32_t(o.porep_log);
  const uint64_t n = uint64_t(1) << lg;
  std::mt19937_64 rng(27);
  const auto t0 = std::chrono::steady_clock::now();
  auto w = synthetic_bundle<E>(lg, rng);
  const double bundle_ms = g16::ms_since(t0);
  g16::ContextLease lease = g16::acquire_context(0);
  g16::DeviceContext& ctx = *lease.ctx;
  const auto gen = E::G1::generator().to_affine();
  const auto qh = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << kQLog, gen);
  const auto rh = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << 4, gen);
  std::vector<G::Affine> qd(qh.size()), rd(rh.size());
  for (size_t i = 0; i < qh.size(); ++i) qd[i] = G::to_device_affine(qh[i]);
  for (size_t i = 0; i < rh.size(); ++i) rd[i] = G::to_device_affine(rh[i]);
  const cudaStream_t st = ctx.compute.get();
  const auto k0 = std::chrono::steady_clock::now();
  DeviceBuffer<G::Affine> d_q(qd.size(), "porep Q"), d_r(rd.size(), "porep R");
  DeviceBuffer<G::Affine> base(size_t(1) << 20, "porep distinct points");
  ZK_CUDA_OK(cudaMemcpyAsync(d_q.get(), qd.data(), qd.size() * sizeof(qd[0]), cudaMemcpyHostToDevice, st));
  ZK_CUDA_OK(cudaMemcpyAsync(d_r.get(), rd.data(), rd.size() * sizeof(rd[0]), cudaMemcpyHostToDevice, st));
  make_points<G>(d_q.get(), d_r.get(), base.get(), 1u << 20, st);
  bool ok = true;
  GpuProveTimings t_g1;
  {
    DeviceBuffer<G::Affine> ka(n, "porep key A"), kb(n, "porep key B_G1"), kl(n - 2, "porep key L"),
        kh(n, "porep key H");
    uint64_t off = 1;
    for (auto* buf : {&ka, &kb, &kl, &kh}) {
      tile_kernel<G::Affine><<<unsigned((buf->size() + 255) / 256), 256, 0, st>>>(base.get(), uint64_t(1) << 20,
                                                                                  buf->get(), buf->size(), 3, off);
      ZK_CUDA_OK_LAUNCH();
      off += 77777;
    }
    ZK_CUDA_OK(cudaStreamSynchronize(st));
    const double key_ms = g16::ms_since(k0);
    const g16::DeviceKeyView<G> view{ka.get(), kb.get(), kl.get(), kh.get(), n, n - 2, n};
    g16::GpuParts<E> first;
    for (int rep = 0; rep < 2; ++rep) {
      GpuProveTimings t;
      const auto p0 = std::chrono::steady_clock::now();
      const auto parts = g16::gpu_parts<E>(ctx, view, w, lg, t);
      if (rep == 0) first = parts;
      const bool same =
          rep == 0 || (parts.a == first.a && parts.b1 == first.b1 && parts.l == first.l && parts.h == first.h);
      ok = ok && same;
      t.total_ms = g16::ms_since(p0);
      t.key_cache_hit = true;
      t_g1 = t;
      char note[400];
      std::snprintf(note, sizeof note, "%s%s | device key gen %.0f ms, host bundle %.0f ms; G2 in the next row",
                    same ? "" : "WRONG (not deterministic) ", phase_note(t).c_str(), key_ms, bundle_ms);
      rows.push_back({"porep_gpu_g1", E::kName, int(lg), float(t.total_ms), float(t.total_ms), note});
      std::printf("porep_gpu_g1 2^%u total %.1f ms  %s\n", lg, t.total_ms, note);
      std::fflush(stdout);
    }
  }  // the G1 key is freed here: G1 key + G2 key + sort scratch would not fit one H200 together
  // B_G2 of the same partition: its scalars z are still on the device from the proof above; the
  // G2 key (24 GiB) is tiled on the device from 2^20 distinct points like the G1 key.
  using G2 = curve::Bls12381G2;
  const auto gen2 = E::G2::generator().to_affine();
  const auto qh2 = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << kQLog, gen2);
  const auto rh2 = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << 4, gen2);
  std::vector<G2::Affine> qd2(qh2.size()), rd2(rh2.size());
  for (size_t i = 0; i < qh2.size(); ++i) qd2[i] = G2::to_device_affine(qh2[i]);
  for (size_t i = 0; i < rh2.size(); ++i) rd2[i] = G2::to_device_affine(rh2[i]);
  DeviceBuffer<G2::Affine> d_q2(qd2.size(), "porep Q2"), d_r2(rd2.size(), "porep R2");
  DeviceBuffer<G2::Affine> base2(size_t(1) << 20, "porep distinct G2 points"), kb2(n, "porep key B_G2");
  ZK_CUDA_OK(cudaMemcpyAsync(d_q2.get(), qd2.data(), qd2.size() * sizeof(qd2[0]), cudaMemcpyHostToDevice, st));
  ZK_CUDA_OK(cudaMemcpyAsync(d_r2.get(), rd2.data(), rd2.size() * sizeof(rd2[0]), cudaMemcpyHostToDevice, st));
  make_points<G2>(d_q2.get(), d_r2.get(), base2.get(), 1u << 20, st);
  tile_kernel<G2::Affine>
      <<<unsigned((n + 255) / 256), 256, 0, st>>>(base2.get(), uint64_t(1) << 20, kb2.get(), n, 3, 7);
  ZK_CUDA_OK_LAUNCH();
  ZK_CUDA_OK(cudaStreamSynchronize(st));
  auto& cs = ctx.state<G>();
  E::G2 first2;
  for (int rep = 0; rep < 2; ++rep) {
    const auto p0 = std::chrono::steady_clock::now();
    cs.msm.prepare(cs.z.get(), n);  // in a proof this sort is shared with A and B_G1
    const double sort_ms = g16::ms_since(p0);
    const E::G2 b2 = cs.msm2.sum(kb2.get());
    const double ms = g16::ms_since(p0);
    if (rep == 0) first2 = b2;
    const bool same = rep == 0 || b2 == first2;
    ok = ok && same;
    char note[300];
    std::snprintf(note, sizeof note,
                  "%sB_G2 MSM on the device: %.1f ms (digit sort %.1f of it, shared with A/B1 in a proof); "
                  "partition GPU total = G1 side %.1f + B_G2 sum %.1f = %.1f ms",
                  same ? "" : "WRONG (not deterministic) ", ms, sort_ms, t_g1.total_ms, ms - sort_ms,
                  t_g1.total_ms + ms - sort_ms);
    rows.push_back({"porep_gpu_g2", E::kName, int(lg), float(ms), float(ms), note});
    std::printf("porep_gpu_g2 2^%u %.1f ms  %s\n", lg, ms, note);
    std::fflush(stdout);
  }
  lease.lock.unlock();
  (void)release_gpu_context(0);
  return ok;
}

template bool bench_prove<curves::Bn254>(const GpuBenchOptions&, std::vector<Row>&);
template bool bench_prove<curves::Bls12381>(const GpuBenchOptions&, std::vector<Row>&);

}  // namespace zkmill::cuda::bench
