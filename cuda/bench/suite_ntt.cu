// SPDX-License-Identifier: MIT
// The NTT part of the GPU benchmark suite (suite_common.cuh): the four directions at each size,
// timed on device-resident data, then every size checked exactly, so a figure is never quoted
// for a wrong transform (the unit tests compare with the CPU only up to 2^22; this covers the
// largest sizes, 2^27 included, whose pass splits no test reaches).
//
// The input is an arithmetic progression a_j = x0 + j d, whose transforms have closed forms:
// with z = w^k (forward) or z = g w^k (coset forward) and S(z) = sum_{j<n} z^j,
//   e_k = x0 S(z) + d T(z),  S(z) = (1 - z^n) / (1 - z),  T(z) = sum_j j z^j = (z - n z^n + (n-1) z^(n+1)) / (1 - z)^2
// (z != 1; for z = 1, S = n and T = n(n-1)/2). So 33 outputs of each forward direction are
// checked in O(log n) host work each, and each inverse direction is checked on every element by
// a round trip on the device (inverse(forward(a)) == a). The inverse to coset is checked as the
// prover uses it: forward(inverse_to_coset(forward(a))) against the closed form of the coset
// forward at 33 indices, then against the coset forward of a on every element.
#include <algorithm>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/bench/suite_common.cuh"
#include "cuda/ntt/ntt.cuh"

namespace zkmill::cuda::bench {
namespace {

// *count += number of i < n with a[i] != b[i].
template <class F>
__global__ void count_mismatches_kernel(const F* a, const F* b, uint64_t n, unsigned long long* count) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && a[i] != b[i]) atomicAdd(count, 1ull);
}

template <class F>
uint64_t count_mismatches(const F* a, const F* b, uint64_t n, cudaStream_t stream) {
  DeviceBuffer<unsigned long long> d_count(1, "bench NTT mismatch count");
  ZK_CUDA_OK(cudaMemsetAsync(d_count.get(), 0, sizeof(unsigned long long), stream));
  count_mismatches_kernel<F><<<unsigned((n + 255) / 256), 256, 0, stream>>>(a, b, n, d_count.get());
  ZK_CUDA_OK_LAUNCH();
  unsigned long long h = 0;
  ZK_CUDA_OK(cudaMemcpyAsync(&h, d_count.get(), sizeof h, cudaMemcpyDeviceToHost, stream));
  ZK_CUDA_OK(cudaStreamSynchronize(stream));
  return h;
}

// sum_{j<n} (x0 + j d) z^j, from the closed forms in the header comment.
template <class Fr>
Fr progression_sum(const Fr& x0, const Fr& d, const Fr& z, uint64_t n) {
  const Fr nf = Fr::from_u64(n);
  if (z == Fr::one()) return x0 * nf + d * Fr::from_u64(n * (n - 1) / 2);
  const Fr zn = z.pow(n), one_minus = Fr::one() - z;
  const Fr inv = one_minus.inverse();
  const Fr s = (Fr::one() - zn) * inv;
  const Fr t = (z - nf * zn + (nf - Fr::one()) * zn * z) * inv * inv;
  return x0 * s + d * t;
}

// Checks out = forward (coset: g-shifted) transform of the progression at 33 indices.
template <class HostFr, class F>
void check_forward(const F* d_out, int lg, bool coset, const HostFr& x0, const HostFr& d, std::mt19937_64& rng,
                   cudaStream_t stream) {
  const uint64_t n = uint64_t(1) << lg;
  const HostFr w = HostFr::root_of_unity(size_t(lg)), g = HostFr::generator();
  std::vector<uint64_t> ks{0, n - 1};
  while (ks.size() < 33) ks.push_back(rng() & (n - 1));
  for (uint64_t k : ks) {
    HostFr got;
    ZK_CUDA_OK(cudaMemcpyAsync(&got, d_out + k, sizeof got, cudaMemcpyDeviceToHost, stream));
    ZK_CUDA_OK(cudaStreamSynchronize(stream));
    const HostFr z = coset ? g * w.pow(k) : w.pow(k);
    if (got != progression_sum(x0, d, z, n))
      throw std::runtime_error("NTT 2^" + std::to_string(lg) + (coset ? " coset" : "") +
                               " forward: wrong output at index " + std::to_string(k));
  }
}

}  // namespace

template <class HostFr>
void bench_ntt(const char* name, const GpuBenchOptions& o, std::vector<Row>& rows) {
  using F = typename ntt::Engine<HostFr>::F;
  static_assert(sizeof(F) == sizeof(HostFr), "device Fr must have the CPU Fr's bytes");
  const int max_log = *std::max_element(o.ntt_sizes.begin(), o.ntt_sizes.end());
  const size_t nmax = size_t(1) << max_log;
  std::mt19937_64 rng(7);
  const HostFr x0 = HostFr::random(rng), d = HostFr::random(rng);
  std::vector<HostFr> host(nmax);
  fill_progression<HostFr>(host, x0, d);
  Stream stream;
  DeviceBuffer<F> in(nmax, "bench NTT in"), out(nmax, "bench NTT out"), back(nmax, "bench NTT round trip");
  ZK_CUDA_OK(cudaMemcpyAsync(in.get(), host.data(), nmax * sizeof(HostFr), cudaMemcpyHostToDevice, stream.get()));
  ntt::Engine<HostFr> engine(stream.get());
  const std::pair<const char*, NttDirection> dirs[] = {{"ntt_fwd", NttDirection::kForward},
                                                       {"ntt_inv", NttDirection::kInverse},
                                                       {"ntt_coset_fwd", NttDirection::kCosetForward},
                                                       {"ntt_coset_inv", NttDirection::kCosetInverse},
                                                       {"ntt_inv_to_coset", NttDirection::kInverseToCoset}};
  for (int lg : o.ntt_sizes) {
    const uint64_t n = uint64_t(1) << lg;
    // The prefix of `in` is the progression of length n too: check before timing.
    engine.run(in.get(), out.get(), lg, NttDirection::kForward);
    check_forward<HostFr>(out.get(), lg, false, x0, d, rng, stream.get());
    engine.run(out.get(), back.get(), lg, NttDirection::kInverse);
    uint64_t bad = count_mismatches(in.get(), back.get(), n, stream.get());
    engine.run(out.get(), back.get(), lg, NttDirection::kInverseToCoset);  // out: forward(a), still
    engine.run(back.get(), out.get(), lg, NttDirection::kForward);         // out: the prover's pair
    check_forward<HostFr>(out.get(), lg, true, x0, d, rng, stream.get());
    engine.run(in.get(), back.get(), lg, NttDirection::kCosetForward);
    bad += count_mismatches(out.get(), back.get(), n, stream.get());
    engine.run(back.get(), out.get(), lg, NttDirection::kCosetInverse);
    bad += count_mismatches(in.get(), out.get(), n, stream.get());
    if (bad != 0)
      throw std::runtime_error("NTT 2^" + std::to_string(lg) + ": round trips or the coset pair differ at " +
                               std::to_string(bad) + " elements");
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
      const double gb = 2.0 * double(n) * sizeof(HostFr) / 1e9;
      char note[128];
      std::snprintf(note, sizeof note, "%.0f GB/s effective (one read + one write); checked OK",
                    gb / (median(ms) / 1e3));
      rows.push_back({op, name, lg, median(ms), *std::min_element(ms.begin(), ms.end()), note});
      std::printf("%s %-10s 2^%d  median %8.3f ms  %s\n", op, name, lg, rows.back().median_ms, note);
    }
    std::fflush(stdout);
  }
}

template void bench_ntt<ff::Bn254Fr>(const char*, const GpuBenchOptions&, std::vector<Row>&);
template void bench_ntt<ff::Bls12381Fr>(const char*, const GpuBenchOptions&, std::vector<Row>&);

}  // namespace zkmill::cuda::bench
