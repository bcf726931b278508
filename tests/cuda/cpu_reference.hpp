// SPDX-License-Identifier: MIT
// CPU references for the GPU tests: points with known discrete logs (so a 2^18-term MSM has an
// exact expected value for the price of one scalar multiplication), a naive MSM, a naive DFT
// and a textbook radix-2 NTT with the CPU convention the GPU must match. Deliberately simple
// and independent of the GPU code's structure.
#pragma once

#include <cstddef>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/ntt/ntt.hpp"

namespace zkmill::test {

// P_i = [a + i b] G for random a, b: n mixed additions and one batch normalisation. GP: the
// group's params (G1 by default; Curve::G2Params for G2).
template <class Curve, class GP = typename Curve::G1Params>
struct KnownPoints {
  std::vector<ec::Affine<GP>> points;
  typename Curve::Fr a, b;
};

template <class Curve, class GP = typename Curve::G1Params>
KnownPoints<Curve, GP> progression_points(size_t n, std::mt19937_64& rng) {
  using Fr = typename Curve::Fr;
  using J = ec::Jacobian<GP>;
  KnownPoints<Curve, GP> kp;
  kp.a = Fr::random(rng);
  kp.b = Fr::random(rng);
  const auto step = (J::generator() * kp.b).to_affine();
  std::vector<J> jac(n);
  J p = J::generator() * kp.a;
  for (size_t i = 0; i < n; ++i) {
    jac[i] = p;
    p = p.add_mixed(step);
  }
  kp.points = ec::batch_normalize<GP>(std::span<const J>(jac));
  return kp;
}

// sum_i s_i [a + i b] G = [sum_i s_i (a + i b)] G.
template <class Curve, class GP>
ec::Jacobian<GP> expected_msm(const KnownPoints<Curve, GP>& kp, std::span<const typename Curve::Fr> scalars) {
  using Fr = typename Curve::Fr;
  Fr e = Fr::zero(), k = kp.a;
  for (const Fr& s : scalars) {
    e += s * k;
    k += kp.b;
  }
  return ec::Jacobian<GP>::generator() * e;
}

template <class Curve, class GP = typename Curve::G1Params>
ec::Jacobian<GP> naive_msm(std::span<const std::type_identity_t<ec::Affine<GP>>> points,
                           std::span<const typename Curve::Fr> scalars) {
  using J = ec::Jacobian<GP>;
  J acc = J::identity();
  for (size_t i = 0; i < points.size(); ++i) acc += J::from_affine(points[i]) * scalars[i];
  return acc;
}

// 70% zeros, 20% ones, 10% uniform: the skew of real witnesses (most wires are bits).
template <class Fr>
std::vector<Fr> skewed_scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const uint64_t u = rng() % 10;
    x = u < 7 ? Fr::zero() : (u < 9 ? Fr::one() : Fr::random(rng));
  }
  return s;
}

// The PoRep mix: `zero_pct`% zeros, `one_pct`% ones, the rest uniform (SHA-256 circuits: about
// 95% of witness values are bits). Exercises the GPU MSM's bit-aware split.
template <class Fr>
std::vector<Fr> bit_heavy_scalars(size_t n, std::mt19937_64& rng, unsigned zero_pct = 55, unsigned one_pct = 40) {
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const uint64_t u = rng() % 100;
    x = u < zero_pct ? Fr::zero() : (u < zero_pct + one_pct ? Fr::one() : Fr::random(rng));
  }
  return s;
}

template <class Fr>
std::vector<Fr> random_scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> s(n);
  for (auto& x : s) x = Fr::random(rng);
  return s;
}

// e_k = sum_j a_j w^(jk), O(n^2).
template <class F>
std::vector<F> dft_naive(const std::vector<F>& a, const F& w) {
  const size_t n = a.size();
  std::vector<F> e(n, F::zero());
  F wk = F::one();  // w^k
  for (size_t k = 0; k < n; ++k) {
    F x = F::one();  // w^(jk)
    for (size_t j = 0; j < n; ++j) {
      e[k] += a[j] * x;
      x *= wk;
    }
    wk *= w;
  }
  return e;
}

// Textbook iterative radix-2 DIT (bit reversal, then log n butterfly stages).
template <class F>
void fft_reference(std::vector<F>& a, const F& w) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const F wl = w.pow(uint64_t(n / len));
    for (size_t i = 0; i < n; i += len) {
      F wj = F::one();
      for (size_t j = 0; j < len / 2; ++j) {
        const F u = a[i + j], v = a[i + j + len / 2] * wj;
        a[i + j] = u + v;
        a[i + j + len / 2] = u - v;
        wj *= wl;
      }
    }
  }
}

template <class F>
void ntt_reference(std::vector<F>& a, cuda::NttDirection dir) {
  size_t log_n = 0;
  while ((size_t(1) << log_n) < a.size()) ++log_n;
  const F w = F::root_of_unity(log_n);
  const F g = F::generator();
  switch (dir) {
    case cuda::NttDirection::kForward:
      fft_reference(a, w);
      break;
    case cuda::NttDirection::kCosetForward: {
      F x = F::one();
      for (auto& v : a) {
        v *= x;
        x *= g;
      }
      fft_reference(a, w);
      break;
    }
    case cuda::NttDirection::kInverse:
    case cuda::NttDirection::kCosetInverse:
    case cuda::NttDirection::kInverseToCoset: {
      fft_reference(a, w.inverse());
      const F n_inv = F::from_u64(a.size()).inverse();
      const F step = dir == cuda::NttDirection::kInverse        ? F::one()
                     : dir == cuda::NttDirection::kCosetInverse ? g.inverse()
                                                                : g;
      F x = n_inv;
      for (auto& v : a) {
        v *= x;
        x *= step;
      }
      break;
    }
  }
}

}  // namespace zkmill::test
