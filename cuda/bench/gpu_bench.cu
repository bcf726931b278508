// zkmill_gpu_bench: times the GPU G1 MSM (BN254, BLS12-381) and the GPU NTT with inputs
// already on the device, prints a table (median and minimum of several runs, CUDA events),
// and checks every MSM it times against an exact CPU value so a fast wrong answer cannot pass.
//
//   zkmill_gpu_bench [--msm-sizes 20,22,24] [--ntt-sizes 20,21,22,23,24] [--runs 5]
//                    [--curves bn254,bls12-381] [--msm-c 0,16,18]   (window widths; 0 = automatic)
//
// Inputs: scalars uniform in Fr (never zeros); points P_i = Q_(i mod 2^16) + R_(i >> 16) with
// Q_j = [q0 + j dq] G and R_j = [r0 + j dr] G built on the CPU, summed and normalised on the GPU,
// so every point is distinct, lies on the curve, and has a known discrete log: the expected
// MSM is [sum_i s_i log(P_i)] G, one CPU scalar multiplication.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/ec/g1.hpp"
#include "cuda/ff/gpu_memory.cuh"
#include "cuda/msm/pippenger.cuh"
#include "cuda/ntt/ntt.cuh"
#include "zkmill/build_info.hpp"

// Everything lives inside zkmill::cuda: a file-scope `using namespace zkmill` would make
// `cuda` ambiguous with CCCL's ::cuda in the stubs nvcc generates for CUB's kernels.
namespace zkmill::cuda {
namespace {

constexpr int kQLog = 16;

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

template <class Curve>
std::vector<typename Curve::G1Affine> progression(const typename Curve::Fr& a, const typename Curve::Fr& d, size_t n) {
  using G1 = typename Curve::G1;
  std::vector<G1> jac(n);
  G1 p = G1::generator() * a;
  const auto step = (G1::generator() * d).to_affine();
  for (size_t i = 0; i < n; ++i) {
    jac[i] = p;
    p = p.add_mixed(step);
  }
  return ec::batch_normalize<typename Curve::G1Params>(std::span<const G1>(jac));
}

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

std::vector<int> parse_list(const char* s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

template <class G>
void bench_msm(const char* name, const std::vector<int>& logs, const std::vector<int>& widths, int runs,
               std::vector<Row>& rows) {
  using Curve = typename G::Host;
  using Fr = typename Curve::Fr;
  const int max_log = *std::max_element(logs.begin(), logs.end());
  const size_t nmax = size_t(1) << max_log;
  std::mt19937_64 rng(42);
  const Fr q0 = Fr::random(rng), dq = Fr::random(rng), r0 = Fr::random(rng), dr = Fr::random(rng);
  const size_t rcount = std::max<size_t>(1, nmax >> kQLog);
  const auto qh = progression<Curve>(q0, dq, size_t(1) << kQLog);
  const auto rh = progression<Curve>(r0, dr, rcount);
  std::vector<typename G::Affine> qd(qh.size()), rd(rh.size());
  for (size_t i = 0; i < qh.size(); ++i) qd[i] = G::to_device_affine(qh[i]);
  for (size_t i = 0; i < rh.size(); ++i) rd[i] = G::to_device_affine(rh[i]);
  std::vector<Fr> scalars(nmax);
  for (auto& s : scalars) s = Fr::random(rng);

  Stream stream;
  DeviceBuffer<typename G::Affine> d_q(qd.size(), "bench Q"), d_r(rd.size(), "bench R"), d_pts(nmax, "bench points");
  DeviceBuffer<typename G::Fr> d_sc(nmax, "bench scalars");
  ZK_CUDA_OK(cudaMemcpyAsync(d_q.get(), qd.data(), qd.size() * sizeof(qd[0]), cudaMemcpyHostToDevice, stream.get()));
  ZK_CUDA_OK(cudaMemcpyAsync(d_r.get(), rd.data(), rd.size() * sizeof(rd[0]), cudaMemcpyHostToDevice, stream.get()));
  ZK_CUDA_OK(cudaMemcpyAsync(d_sc.get(), scalars.data(), nmax * sizeof(Fr), cudaMemcpyHostToDevice, stream.get()));
  make_points_kernel<G><<<unsigned((nmax + 255) / 256), 256, 0, stream.get()>>>(d_q.get(), d_r.get(), d_pts.get(),
                                                                                uint32_t(nmax));
  ZK_CUDA_OK_LAUNCH();
  stream.sync();

  pippenger::Engine<G> engine(stream.get());
  for (int lg : logs) {
    const size_t n = size_t(1) << lg;
    // Exact expected value: log(P_i) = q_(i mod 2^16) + r_(i >> 16) with q_j = q0 + j dq and
    // r_k = r0 + k dr, so sum_i s_i log(P_i) = sum_j q_j S_j + sum_k r_k T_k where S_j, T_k are
    // sums of the scalars sharing j or k: additions only over the n scalars.
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
    const auto want = Curve::G1::generator() * e;
    for (int c : widths) {
      const auto got = engine.run(d_pts.get(), d_sc.get(), n, c);  // warm-up, also the correctness check
      const bool ok = got == want;
      std::vector<float> ms;
      Event a, b;
      for (int r = 0; r < runs; ++r) {
        a.record(stream.get());
        (void)engine.run(d_pts.get(), d_sc.get(), n, c);
        b.record(stream.get());
        ms.push_back(b.since(a));
      }
      pippenger::MsmPhaseTimes t;
      (void)engine.run(d_pts.get(), d_sc.get(), n, c, &t);
      const auto& p = engine.plan();
      char note[256];
      std::snprintf(note, sizeof note,
                    "%s c=%d%s W=%d | digits %.2f sort %.2f bounds %.2f acc %.2f (%d lvl) reduce %.2f host %.2f",
                    ok ? "OK" : "WRONG", p.c, c == 0 ? "(auto)" : "", p.windows, t.digits, t.sort, t.bounds,
                    t.accumulate, t.levels, t.reduce, t.host_tail);
      rows.push_back({"msm_g1", name, lg, median(ms), *std::min_element(ms.begin(), ms.end()), note});
      std::printf("msm_g1 %-10s 2^%d  median %8.2f ms  %s\n", name, lg, rows.back().median_ms, note);
      std::fflush(stdout);
    }
  }
}

template <class HostFr>
void bench_ntt(const char* name, const std::vector<int>& logs, int runs, std::vector<Row>& rows) {
  using F = typename ntt::Engine<HostFr>::F;
  const int max_log = *std::max_element(logs.begin(), logs.end());
  const size_t nmax = size_t(1) << max_log;
  std::mt19937_64 rng(7);
  std::vector<HostFr> host(nmax);
  for (auto& x : host) x = HostFr::random(rng);
  Stream stream;
  DeviceBuffer<F> in(nmax, "bench NTT in"), out(nmax, "bench NTT out");
  ZK_CUDA_OK(cudaMemcpyAsync(in.get(), host.data(), nmax * sizeof(HostFr), cudaMemcpyHostToDevice, stream.get()));
  ntt::Engine<HostFr> engine(stream.get());
  const std::pair<const char*, NttDirection> dirs[] = {{"ntt_fwd", NttDirection::kForward},
                                                       {"ntt_inv", NttDirection::kInverse},
                                                       {"ntt_coset_fwd", NttDirection::kCosetForward}};
  for (int lg : logs) {
    for (const auto& [op, dir] : dirs) {
      engine.run(in.get(), out.get(), lg, dir);  // warm-up (and table setup)
      stream.sync();
      std::vector<float> ms;
      Event a, b;
      for (int r = 0; r < runs; ++r) {
        a.record(stream.get());
        engine.run(in.get(), out.get(), lg, dir);
        b.record(stream.get());
        ms.push_back(b.since(a));
      }
      const double gb = 2.0 * double(size_t(1) << lg) * sizeof(HostFr) / 1e9;
      char note[96];
      std::snprintf(note, sizeof note, "%.0f GB/s effective (one read + one write)", gb / (median(ms) / 1e3));
      rows.push_back({op, name, lg, median(ms), *std::min_element(ms.begin(), ms.end()), note});
    }
  }
}

}  // namespace
}  // namespace zkmill::cuda

int main(int argc, char** argv) {
  using namespace zkmill::cuda;
  std::vector<int> msm_sizes = {20, 22, 24}, ntt_sizes = {20, 21, 22, 23, 24}, widths = {0};
  int runs = 5;
  std::string curves = "bn254,bls12-381";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--msm-sizes") msm_sizes = parse_list(argv[i + 1]);
    else if (k == "--ntt-sizes") ntt_sizes = parse_list(argv[i + 1]);
    else if (k == "--msm-c") widths = parse_list(argv[i + 1]);
    else if (k == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (k == "--curves") curves = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  try {
    cudaDeviceProp prop{};
    ZK_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    std::printf("zkmill GPU bench: commit %s (%s), device %s, %d SMs, %.0f GiB\n", zkmill::build::kGitCommit,
                zkmill::build::kBuildType,
                prop.name, prop.multiProcessorCount, double(prop.totalGlobalMem) / (1 << 30));
    std::vector<Row> rows;
    const bool bn = curves.find("bn254") != std::string::npos, bls = curves.find("bls12-381") != std::string::npos;
    if (!msm_sizes.empty() && msm_sizes[0] > 0) {
      if (bn) bench_msm<curve::Bn254G1>("bn254", msm_sizes, widths, runs, rows);
      if (bls) bench_msm<curve::Bls12381G1>("bls12-381", msm_sizes, widths, runs, rows);
    }
    if (!ntt_sizes.empty() && ntt_sizes[0] > 0) {
      if (bn) bench_ntt<zkmill::ff::Bn254Fr>("bn254", ntt_sizes, runs * 2, rows);
      if (bls) bench_ntt<zkmill::ff::Bls12381Fr>("bls12-381", ntt_sizes, runs * 2, rows);
    }
    std::printf("\n%-14s %-10s %-5s %10s %10s  %s\n", "op", "curve", "n", "median_ms", "min_ms", "notes");
    bool all_ok = true;
    for (const Row& r : rows) {
      std::printf("%-14s %-10s 2^%-3d %10.3f %10.3f  %s\n", r.op.c_str(), r.curve.c_str(), r.log_n, r.median_ms,
                  r.min_ms, r.note.c_str());
      if (r.note.rfind("WRONG", 0) == 0) all_ok = false;
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    return 1;
  }
}
