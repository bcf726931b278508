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
// costs one scalar multiplication, and the n^-1 is folded into the twiddles (see group_ifft), so
// a size-n transform costs (n/2)(log n - 2) + log n + 2 of them. Stages run their butterflies across the
// thread pool.
#pragma once

#include <deque>
#include <mutex>
#include <span>
#include <vector>

#include "common/ec/gls4.hpp"
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
// mostly 1, -1 or powers of two), GLV for the rest.
template <class C>
ec::Jacobian<C> mul_fr(const ec::Jacobian<C>& p, const typename C::Scalar& s) {
  using Fr = typename C::Scalar;
  if (s.is_zero()) return ec::Jacobian<C>::identity();
  if (s.is_one()) return p;
  const auto k = s.to_canonical();
  const Fr neg = -s;
  if (neg.is_one()) return -p;
  const auto kn = neg.to_canonical();
  // Short scalars (up to 2^96 in absolute value): fewer doublings than GLV's ~127.
  constexpr size_t kShort = 96;
  if (ff::num_bits(kn) <= kShort) return -mul_signed_window<C>(p, kn);
  if (ff::num_bits(k) <= kShort) return mul_signed_window<C>(p, k);
  return ec::fast_mul(p, s);
}

// GLV decompositions of the twiddles of each FFT stage, keyed by the stage's root w and a
// scale c: entry j is the decomposition of c w^j, j < half. Thread-safe; entries are never
// removed, so references stay valid for the cache's lifetime.
template <class C>
class TwiddleCache {
 public:
  using Fr = typename C::Scalar;
  using Dec = typename ec::FastMul<C>::Dec;
  const std::vector<Dec>& stage(const Fr& root, const Fr& scale, size_t half, util::ThreadPool& pool) {
    {
      std::lock_guard lock(mu_);
      for (const auto& e : entries_)
        if (e.root == root && e.scale == scale && e.tw.size() >= half) return e.tw;
    }
    Entry e{root, scale, std::vector<Dec>(half)};
    // Powers in chunks (each chunk starts from c w^begin), decomposed across the pool.
    pool.parallel_for(
        half,
        [&](size_t b, size_t end) {
          Fr w = scale * root.pow(uint64_t(b));
          for (size_t j = b; j < end; ++j, w *= root) e.tw[j] = ec::FastMul<C>::decompose(w);
        },
        256);
    std::lock_guard lock(mu_);
    entries_.push_back(std::move(e));
    return entries_.back().tw;
  }

 private:
  struct Entry {
    Fr root, scale;
    std::vector<Dec> tw;
  };
  std::mutex mu_;
  std::deque<Entry> entries_;
};

// In-place inverse FFT of a power-of-two number of points with snarkjs's root (see above).
// `progress` (optional) advances by one unit per scalar multiplication; `cache` (optional)
// keeps twiddle decompositions for later transforms.
//
// The n^-1 costs log n + 1 multiplications, not n: in the decimation-in-time recursion
//   Q_i = (X_i + w^i Y_i) / n,  Q_(i+n/2) = (X_i - w^i Y_i) / n
// (X, Y the half-size transforms of the even and odd points), so only X needs the scale, and
// Y's twiddles absorb it (w^i / n for every i, including i = 0). Recursing on X, the scaled
// sub-transform is always the first group of each stage: its butterflies use the twiddles
// w^j / n, every other group plain w^j (w^0 = 1 free), and point 0 is scaled before stage 1.
// Butterflies are multiplied in batches (ec::FastMul: affine tables, mixed additions).
template <class C>
void group_ifft(std::span<ec::Jacobian<C>> a, util::ThreadPool& pool, util::Progress* progress = nullptr,
                uint64_t unit_weight = 1, TwiddleCache<C>* cache = nullptr) {
  using Fr = typename C::Scalar;
  using J = ec::Jacobian<C>;
  const size_t n = a.size();
  if (n <= 1) return;
  size_t log_n = 0;
  while ((size_t(1) << log_n) < n) ++log_n;
  if ((size_t(1) << log_n) != n) throw std::invalid_argument("group_ifft: size is not a power of two");
  using Mul = ec::FastMul<C>;
  TwiddleCache<C> local;
  if (!cache) cache = &local;
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const Fr w_inv = formats::snarkjs_root_of_unity<Fr>(log_n).inverse();
  const Fr n_inv = Fr::from_u64(n).inverse();
  a[0] = ec::fast_mul(a[0], n_inv);
  if (progress) progress->add(unit_weight);
  for (size_t s = 1; s <= log_n; ++s) {
    const size_t half = size_t(1) << (s - 1);
    const Fr wm = w_inv.pow(uint64_t(n >> s));  // a primitive 2^s-th root (inverse direction)
    const auto& tw = cache->stage(wm, Fr::one(), half, pool);
    const auto& tw_scaled = cache->stage(wm, n_inv, half, pool);
    pool.parallel_for(
        n / 2,
        [&](size_t begin, size_t end) {
          constexpr size_t kBatch = 32;
          J t[kBatch];
          J* tp[kBatch];
          const typename Mul::Dec* kp[kBatch];
          uint64_t muls = 0;
          for (size_t b0 = begin; b0 < end; b0 += kBatch) {
            const size_t b1 = std::min(end, b0 + kBatch);
            size_t m = 0;
            for (size_t b = b0; b < b1; ++b) {
              const size_t g = b / half, j = b % half;
              J& tb = t[b - b0];
              tb = a[g * 2 * half + j + half];
              if (g == 0 || j != 0) {
                tp[m] = &tb;
                kp[m++] = g == 0 ? &tw_scaled[j] : &tw[j];
              }
            }
            Mul::batch(tp, kp, m);
            muls += m;
            for (size_t b = b0; b < b1; ++b) {
              const size_t g = b / half, j = b % half;
              const size_t i1 = g * 2 * half + j, i2 = i1 + half;
              a[i2] = a[i1] - t[b - b0];
              a[i1] += t[b - b0];
            }
          }
          if (progress) progress->add(muls * unit_weight);
        },
        64);
  }
}

// Scalar multiplications group_ifft performs for n points (for progress totals): point 0's
// scale, then per stage every butterfly but those with w^0 outside the first group.
inline uint64_t group_ifft_cost(uint64_t n) {
  if (n <= 1) return 0;
  uint64_t muls = 1;
  for (uint64_t half = 1; half < n; half *= 2) muls += n / 2 - (n / (2 * half) - 1);
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
