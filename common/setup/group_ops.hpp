// SPDX-License-Identifier: MIT
// Group arithmetic of the circuit-specific setup: scalar multiplication by arbitrary field
// elements (signed fixed windows), and the inverse FFT over a group used by prepare phase2.
//
// Group IFFT (the Lagrange basis from the monomial one): for points P_j = tau^j X, j < n,
//   Q_i = n^-1 sum_j w^(-ij) P_j = L_i(tau) X,   L_i the Lagrange polynomial of w^i on <w>,
// with w snarkjs's primitive n-th root of unity (formats/snarkjs_roots.hpp), so that the output
// is the same group element, hence (affine, normalised) the same bytes, as snarkjs's
// G.lagrangeEvaluations (ffjavascript engine_fft.js) for n <= 2^s. Radix-2 decimation in time
// after a bit-reversal permutation (Cooley-Tukey); every butterfly with a twiddle other than 1
// costs one scalar multiplication, so a size-n transform costs about (n/2)(log n - 2) + n of them
// (the last n for the n^-1). Stages run their butterflies across the thread pool.
#pragma once

#include <span>
#include <vector>

#include "common/ec/short_weierstrass.hpp"
#include "common/ff/bigint.hpp"
#include "common/formats/snarkjs_roots.hpp"
#include "common/util/progress.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::setup {

// k P for an integer k given as little-endian limbs, with signed 4-bit windows: digits in
// [-8, 8], a table of P..8P, 4 doublings and at most one addition per window. Not constant
// time: setup scalars are public (twiddles, r1cs coefficients) or used once (a contribution's
// secret only multiplies points in the contributor's own process).
template <class C, size_t M>
ec::Jacobian<C> mul_signed_window(const ec::Jacobian<C>& p, const ff::Limbs<M>& k) {
  using J = ec::Jacobian<C>;
  constexpr int W = 4;
  const size_t bits = ff::num_bits(k);
  if (bits == 0 || p.is_identity()) return J::identity();
  if (bits <= 2) return bits == 1 ? p : (ff::bit(k, 0) ? p.dbl() + p : p.dbl());
  // Recode: digit_i = (window_i + carry) in [-8, 8].
  int8_t digits[(64 * M) / W + 2];
  size_t nd = 0;
  int carry = 0;
  for (size_t pos = 0; pos < bits || carry; pos += W) {
    int v = carry;
    for (int b = 0; b < W; ++b)
      if (pos + b < 64 * M && ff::bit(k, pos + b)) v += 1 << b;
    if (v > (1 << (W - 1))) {
      v -= 1 << W;
      carry = 1;
    } else {
      carry = 0;
    }
    digits[nd++] = int8_t(v);
  }
  J table[1 << (W - 1)];  // table[d - 1] = d P
  table[0] = p;
  table[1] = p.dbl();
  for (int d = 2; d < (1 << (W - 1)); ++d) table[d] = table[d - 1] + p;
  J acc = J::identity();
  for (size_t i = nd; i-- > 0;) {
    if (!acc.is_identity())
      for (int b = 0; b < W; ++b) acc = acc.dbl();
    const int d = digits[i];
    if (d > 0) acc += table[d - 1];
    if (d < 0) acc += -table[-d - 1];
  }
  return acc;
}

// s P for a field element s; fast paths for 0, 1, -1 and small |s| (r1cs coefficients are
// mostly 1, -1 or powers of two).
template <class C>
ec::Jacobian<C> mul_fr(const ec::Jacobian<C>& p, const typename C::Scalar& s) {
  using Fr = typename C::Scalar;
  if (s.is_zero()) return ec::Jacobian<C>::identity();
  if (s.is_one()) return p;
  const auto k = s.to_canonical();
  const Fr neg = -s;
  if (neg.is_one()) return -p;
  const auto kn = neg.to_canonical();
  // The shorter of s and -s.
  if (ff::num_bits(kn) < ff::num_bits(k)) return -mul_signed_window<C>(p, kn);
  return mul_signed_window<C>(p, k);
}

// In-place inverse FFT of a power-of-two number of points with snarkjs's root (see above).
// `progress` (optional) advances by one unit per scalar multiplication.
template <class C>
void group_ifft(std::span<ec::Jacobian<C>> a, util::ThreadPool& pool, util::Progress* progress = nullptr,
                uint64_t unit_weight = 1) {
  using Fr = typename C::Scalar;
  using J = ec::Jacobian<C>;
  const size_t n = a.size();
  if (n <= 1) return;
  size_t log_n = 0;
  while ((size_t(1) << log_n) < n) ++log_n;
  if ((size_t(1) << log_n) != n) throw std::invalid_argument("group_ifft: size is not a power of two");
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const Fr w_inv = formats::snarkjs_root_of_unity<Fr>(log_n).inverse();
  for (size_t s = 1; s <= log_n; ++s) {
    const size_t half = size_t(1) << (s - 1);
    const Fr wm = w_inv.pow(uint64_t(n >> s));  // a primitive 2^s-th root (inverse direction)
    std::vector<Fr> tw(half);
    tw[0] = Fr::one();
    for (size_t j = 1; j < half; ++j) tw[j] = tw[j - 1] * wm;
    pool.parallel_for(
        n / 2,
        [&](size_t begin, size_t end) {
          uint64_t muls = 0;
          for (size_t b = begin; b < end; ++b) {
            const size_t g = b / half, j = b % half;
            const size_t i1 = g * 2 * half + j, i2 = i1 + half;
            J t = a[i2];
            if (j != 0) {
              t = mul_fr<C>(t, tw[j]);
              ++muls;
            }
            a[i2] = a[i1] - t;
            a[i1] += t;
          }
          if (progress) progress->add(muls * unit_weight);
        },
        64);
  }
  const Fr n_inv = Fr::from_u64(n).inverse();
  pool.parallel_for(
      n,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) a[i] = mul_fr<C>(a[i], n_inv);
        if (progress) progress->add((end - begin) * unit_weight);
      },
      64);
}

// Scalar multiplications group_ifft performs for n points (for progress totals).
inline uint64_t group_ifft_cost(uint64_t n) {
  uint64_t muls = n;
  for (uint64_t half = 1; half < n; half *= 2) muls += (n / (2 * half)) * (half - 1);
  return muls;
}

// Affine normalisation across the pool (Montgomery's trick per chunk).
template <class C>
std::vector<ec::Affine<C>> normalize_parallel(std::span<const ec::Jacobian<C>> pts, util::ThreadPool& pool) {
  std::vector<ec::Affine<C>> out(pts.size());
  pool.parallel_for(
      pts.size(),
      [&](size_t begin, size_t end) {
        auto part = ec::batch_normalize<C>(pts.subspan(begin, end - begin));
        std::copy(part.begin(), part.end(), out.begin() + ptrdiff_t(begin));
      },
      1024);
  return out;
}

}  // namespace zkmill::setup
