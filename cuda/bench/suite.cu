// SPDX-License-Identifier: MIT
// The GPU benchmark suite (cuda/bench/suite.hpp): card ceilings, G1 and G2 MSM with an exact check,
// NTT, full proofs through prove_gpu<E> with synthetic keys, and a PoRep-sized partition. This unit
// is the driver, the card ceilings and the limb-width rows; the other parts are in suite_msm.cu,
// suite_prove.cu and suite_porep.cu (suite_common.cuh says why the suite is split).
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
// (a whole pipelined job: bench_porep, suite_porep.cu).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/bench/fp64_mul_bench.cuh"
#include "cuda/bench/karatsuba_bench.cuh"
#include "cuda/bench/limb_width_bench.cuh"
#include "cuda/bench/suite_common.cuh"
#include "cuda/groth16/context.cuh"
#include "zkmill/build_info.hpp"

namespace zkmill::cuda {
namespace bench {
namespace {

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
  char note[320];
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
    v.push_back(float(ms_since(t0)));
  }
  std::snprintf(note, sizeof note, "1 GiB host memcpy pageable->pinned, one thread: %.1f GB/s (the staging step)",
                double(hbytes) / median(v) / 1e6);
  rows.push_back({"ceiling_host_stage", "-", 30, median(v), *std::min_element(v.begin(), v.end()), note});
  for (size_t i = rows.size() - 4; i < rows.size(); ++i)
    std::printf("%s: %s\n", rows[i].op.c_str(), rows[i].note.c_str());

  // The product microbenchmarks' rows: `note` (formatted by the caller) printed and kept, marked
  // WRONG when the run's chains disagreed; the two figures are the row's reference and its
  // alternative, in G products per second.
  auto product_row = [&](const char* op, const char* curve, double reference, double alternative, bool same) {
    rows.push_back(
        {op, curve, 0, float(reference), float(alternative), same ? std::string(note) : std::string("WRONG: ") + note});
    std::printf("%s: %s\n", op, note);
  };

  // 32-bit vs 64-bit limbs for the Montgomery product (issue 6): both Fq's.
  auto limb_row = [&](const char* curve, const limbs::LimbWidthResult& lw) {
    std::snprintf(note, sizeof note, "%s Fq Montgomery mul: 32-bit limbs %.1f G/s, 64-bit limbs %.1f G/s (x%.2f)%s",
                  curve, lw.g_mul_32, lw.g_mul_64, lw.g_mul_64 / lw.g_mul_32,
                  lw.same_bits ? "" : " WRONG: results differ");
    product_row("limb_width", curve, lw.g_mul_32, lw.g_mul_64, lw.same_bits);
  };
  limb_row("bls12-381", limbs::compare_limb_widths<ff::Bls12381FqParams>(blocks, 1 << 11));
  limb_row("bn254", limbs::compare_limb_widths<ff::Bn254FqParams>(blocks, 1 << 11));

  // The Montgomery product on the FP64 pipe against the IMAD one (issue 16, NOTES-fp64.md).
  auto fp64_row = [&](const char* curve, const limbs::Fp64MulResult& f) {
    std::snprintf(note, sizeof note,
                  "%s Fq Montgomery mul: IMAD %.1f G/s, FP64 %.1f G/s (x%.2f), FP64 lazy %.1f G/s (x%.2f), "
                  "both pipes %.1f G/s (x%.2f), FP64 on Fp32 words %.1f G/s (x%.2f)%s",
                  curve, f.g_mul_imad, f.g_mul_fp64, f.g_mul_fp64 / f.g_mul_imad, f.g_mul_fp64_lazy,
                  f.g_mul_fp64_lazy / f.g_mul_imad, f.g_mul_both, f.g_mul_both / f.g_mul_imad, f.g_mul_words,
                  f.g_mul_words / f.g_mul_imad, f.exact ? "" : " WRONG: FP64 chains differ from the CPU field or Fp32");
    product_row("fp64_mul", curve, f.g_mul_imad, f.g_mul_fp64_lazy, f.exact);
  };
  fp64_row("bls12-381", limbs::compare_fp64_mul<ff::Bls12381FqParams>(blocks, 1 << 11));
  fp64_row("bn254", limbs::compare_fp64_mul<ff::Bn254FqParams>(blocks, 1 << 11));

  // One Karatsuba level in the product half (cuda/ff/karatsuba.hpp) against CIOS and plain SOS.
  auto karatsuba_row = [&](const char* curve, const limbs::WideMulResult& k) {
    std::snprintf(note, sizeof note,
                  "%s Fq Montgomery mul: CIOS %.1f G/s, SOS %.1f G/s (x%.2f), Karatsuba+SOS %.1f G/s (x%.2f)%s", curve,
                  k.g_cios, k.g_sos, k.g_sos / k.g_cios, k.g_karatsuba, k.g_karatsuba / k.g_cios,
                  k.same_bits ? "" : " WRONG: the forms differ");
    product_row("karatsuba_mul", curve, k.g_cios, k.g_karatsuba, k.same_bits);
  };
  karatsuba_row("bls12-381", limbs::compare_wide_mul_forms<ff::Bls12381FqParams>(blocks, 1 << 11));
  karatsuba_row("bn254", limbs::compare_wide_mul_forms<ff::Bn254FqParams>(blocks, 1 << 11));
}

}  // namespace
}  // namespace bench

int run_gpu_bench(const GpuBenchOptions& o) noexcept {
  using namespace bench;  // the rows and parts of the suite (suite_common.cuh)
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
  if (o.porep_log > 0) guarded("porep", [&] { return bench_porep(o, bn, bls, rows); });

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
