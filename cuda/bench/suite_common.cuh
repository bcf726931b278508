// SPDX-License-Identifier: MIT
// What the parts of the GPU benchmark suite share (CUDA-only, internal to cuda/bench/): the
// result row, the host-side input generators and the declarations of each part. The suite is
// four translation units, so that they compile in parallel and none holds the others' kernels:
//   suite.cu        run_gpu_bench (the driver), card ceilings, 32- vs 64-bit limbs;
//   suite_msm.cu    G1/G2 MSM and NTT rows, and make_points (distinct points of known logs);
//   suite_prove.cu  full proofs on synthetic keys (and the synthetic witness, the phase note);
//   suite_porep.cu  the PoRep-sized partitions (synthetic or real `porep` witnesses, pipelined).
// The MSM and NTT engines and the prover's device code are not compiled here at all: they are
// instantiated once, in cuda/msm/msm_g1.cu, msm_g2_<curve>*.cu, cuda/ntt/ntt.cu and
// cuda/groth16/prover_<curve>.cu (extern templates).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cs/witness_bundle.hpp"
#include "common/ec/short_weierstrass.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/util/thread_pool.hpp"
#include "cuda/bench/suite.hpp"
#include "cuda/ec/g1.hpp"
#include "cuda/ec/g2.hpp"
#include "cuda/groth16/prover.hpp"

namespace zkmill::cuda::bench {

constexpr int kQLog = 16;

struct Row {
  std::string op, curve;
  int log_n;
  float median_ms, min_ms;
  std::string note;
};

// The items of a comma-separated option value ("" has none; "a,,b" has an empty middle one).
inline std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  for (size_t at = 0; !list.empty() && at <= list.size();) {
    const size_t end = std::min(list.find(',', at), list.size());
    out.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// GpuBenchOptions::h_basis as a list; throws std::invalid_argument on an unknown name or none.
inline std::vector<groth16::HBasis> h_bases(const std::string& list) {
  std::vector<groth16::HBasis> out;
  for (const std::string& item : split_list(list)) {
    if (item == "coset_lagrange")
      out.push_back(groth16::HBasis::kCosetLagrange);
    else if (item == "monomial")
      out.push_back(groth16::HBasis::kMonomial);
    else
      throw std::invalid_argument("--h-basis takes coset_lagrange and monomial, got '" + item + "'");
  }
  if (out.empty()) throw std::invalid_argument("--h-basis names no basis");
  return out;
}

inline float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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

// out[i] = Q[i mod 2^16] + R[i >> 16] on the device, in affine coordinates, ordered on `stream`;
// defined (with its kernel) in suite_msm.cu for the four device groups.
template <class G>
void make_points(const typename G::Affine* q, const typename G::Affine* r, typename G::Affine* out, uint32_t n,
                 cudaStream_t stream);

// A witness bundle of the synthetic shape (2 inputs, n - 2 aux, n rows, c = a o b, every value a
// progression) and the one-line phase breakdown of a GPU proof; defined in suite_prove.cu (E:
// both curves), used by the proof and PoRep rows.
template <class E>
cs::WitnessBundle synthetic_bundle(uint32_t log_n, std::mt19937_64& rng);
std::string phase_note(const GpuProveTimings& t);

// The parts (suite_msm.cu, suite_prove.cu, suite_porep.cu); each returns false when a checked result was wrong.
template <class G>
bool bench_msm(const char* op, const char* name, const std::vector<int>& sizes, const GpuBenchOptions& o,
               std::vector<Row>& rows);
template <class HostFr>
void bench_ntt(const char* name, const GpuBenchOptions& o, std::vector<Row>& rows);
template <class E>
bool bench_prove(const GpuBenchOptions& o, std::vector<Row>& rows);
bool bench_porep(const GpuBenchOptions& o, bool bn254, bool bls12_381, std::vector<Row>& rows);

}  // namespace zkmill::cuda::bench
