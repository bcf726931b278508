// SPDX-License-Identifier: MIT
// The MSM part of the GPU benchmark suite (suite_common.cuh): G1 and G2 MSM at each size, every
// result checked exactly against one CPU scalar multiplication (the NTT part: suite_ntt.cu).
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda/bench/suite_common.cuh"
// batch_affine.cuh: the engine's batch-affine state (AffineRounds) must be a complete type
// wherever an Engine is constructed (its unique_ptr member); it includes pippenger.cuh.
#include "cuda/ec/xyzz_out_of_line.cuh"
#include "cuda/msm/batch_affine.cuh"
#include "cuda/msm/pippenger.cuh"

namespace zkmill::cuda::bench {
namespace {

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
  out[i] = curve::affine_out_of_line(s);
}

}  // namespace

template <class G>
void make_points(const typename G::Affine* q, const typename G::Affine* r, typename G::Affine* out, uint32_t n,
                 cudaStream_t stream) {
  make_points_kernel<G><<<unsigned((uint64_t(n) + 255) / 256), 256, 0, stream>>>(q, r, out, n);
  ZK_CUDA_OK_LAUNCH();
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
  make_points<G>(d_q.get(), d_r.get(), d_pts.get(), uint32_t(nmax), stream.get());
  stream.sync();

  bool all_ok = true;
  // The engines' kernels are compiled in msm_g1.cu / msm_g2_<curve>*.cu (extern templates in pippenger.cuh).
  pippenger::Engine<G> engine(stream.get());
  DeviceBuffer<typename G::Affine> copies;  // precomputed copies of the first n points (t > 1)
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
      for (int tp : o.precompute)
        for (int c : o.msm_widths) {
          // Precomputed copies (t > 1): made once here, outside the timed runs (their build time
          // and bytes go into the note); c = 0 takes the width chosen for them.
          const pippenger::PointCopies pc = pippenger::copies_for(n, Fr::kBits, tp, c);
          const typename G::Affine* pts = d_pts.get();
          float build_ms = 0;
          if (tp > 1) {
            // Copies that do not fit beside the bench's own points skip this row (the prover makes
            // fewer copies instead); the other rows of this size still run.
            try {
              copies.reserve(n * size_t(pc.copies), "bench precomputed copies");
            } catch (const DeviceAllocError& e) {
              std::printf("%s_pre%d %-10s 2^%d  skipped: %s\n", row_op.c_str(), tp, name, lg, e.what());
              std::fflush(stdout);
              continue;
            }
            Event a, b;
            a.record(stream.get());
            ZK_CUDA_OK(cudaMemcpyAsync(copies.get(), d_pts.get(), n * sizeof(typename G::Affine),
                                       cudaMemcpyDeviceToDevice, stream.get()));
            pippenger::Engine<G>::precompute(copies.get(), uint32_t(n), pc.copies,
                                             pippenger::precompute_shift(Fr::kBits, pc.c, pc.copies), stream.get());
            b.record(stream.get());
            stream.sync();
            build_ms = b.since(a);
            pts = copies.get();
          }
          const auto got = engine.run(pts, d_scalars, n, c, nullptr, pc);  // warm-up, also the correctness check
          const bool ok = got == want;
          all_ok = all_ok && ok;
          std::vector<float> ms;
          Event a, b;
          for (int r = 0; r < o.runs; ++r) {
            a.record(stream.get());
            (void)engine.run(pts, d_scalars, n, c, nullptr, pc);
            b.record(stream.get());
            ms.push_back(b.since(a));
          }
          pippenger::MsmPhaseTimes t;
          (void)engine.run(pts, d_scalars, n, c, &t, pc);
          const auto& p = engine.plan();
          char pre[96] = "";
          if (tp > 1)
            std::snprintf(pre, sizeof pre, " t=%d (%.0f MiB, built in %.0f ms)", pc.copies,
                          double(n * size_t(pc.copies) * sizeof(typename G::Affine)) / double(1 << 20), build_ms);
          char note[352];
          std::snprintf(
              note, sizeof note,
              "%s c=%d%s W=%d%s ones=%u windowed=%u | split+digits %.2f sort %.2f bounds %.2f acc %.2f (%d %s) "
              "reduce %.2f host %.2f",
              ok ? "OK" : "WRONG", p.c, c == 0 ? "(auto)" : "", p.windows, pre, t.n_one, t.n_other, t.digits, t.sort,
              t.bounds, t.accumulate, t.levels, t.affine ? "affine rounds" : "xyzz lvl", t.reduce, t.host_tail);
          const std::string op_t = tp > 1 ? row_op + "_pre" + std::to_string(tp) : row_op;
          rows.push_back({op_t, name, lg, median(ms), *std::min_element(ms.begin(), ms.end()), note});
          std::printf("%s %-10s 2^%d  median %8.2f ms  %s\n", op_t.c_str(), name, lg, rows.back().median_ms, note);
          std::fflush(stdout);
        }
    }
  return all_ok;
}

template void make_points<curve::Bn254G1>(const curve::Bn254G1::Affine*, const curve::Bn254G1::Affine*,
                                          curve::Bn254G1::Affine*, uint32_t, cudaStream_t);
template void make_points<curve::Bls12381G1>(const curve::Bls12381G1::Affine*, const curve::Bls12381G1::Affine*,
                                             curve::Bls12381G1::Affine*, uint32_t, cudaStream_t);
template void make_points<curve::Bn254G2>(const curve::Bn254G2::Affine*, const curve::Bn254G2::Affine*,
                                          curve::Bn254G2::Affine*, uint32_t, cudaStream_t);
template void make_points<curve::Bls12381G2>(const curve::Bls12381G2::Affine*, const curve::Bls12381G2::Affine*,
                                             curve::Bls12381G2::Affine*, uint32_t, cudaStream_t);
template bool bench_msm<curve::Bn254G1>(const char*, const char*, const std::vector<int>&, const GpuBenchOptions&,
                                        std::vector<Row>&);
template bool bench_msm<curve::Bls12381G1>(const char*, const char*, const std::vector<int>&, const GpuBenchOptions&,
                                           std::vector<Row>&);
template bool bench_msm<curve::Bn254G2>(const char*, const char*, const std::vector<int>&, const GpuBenchOptions&,
                                        std::vector<Row>&);
template bool bench_msm<curve::Bls12381G2>(const char*, const char*, const std::vector<int>&, const GpuBenchOptions&,
                                           std::vector<Row>&);

}  // namespace zkmill::cuda::bench
