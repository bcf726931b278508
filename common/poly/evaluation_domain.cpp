// SPDX-License-Identifier: MIT
// EvaluationDomain: twiddle tables, the four-step (Bailey) FFT passes, bit reversal and the
// coset helpers, explicitly instantiated for the Groth16 scalar fields of BN254 and BLS12-381.
//
// The math. Let n = R C with R = 2^r rows and C = 2^c columns, u a primitive n-th root.
//
// Natural -> bit-reversed (decimation in frequency). Write the input index j = j1 C + j2 (row
// j1, column j2 of the row-major R x C view) and the output index k = k1 + R k2. Since
// u^(R C) = 1,
//   X[k1 + R k2] = sum_j2 u_C^(j2 k2) [ u^(j2 k1) sum_j1 u_R^(j1 k1) x[j1 C + j2] ],
// with u_R = u^C, u_C = u^R. So: (1) a length-R DFT down each column, (2) multiply by
// u^(j2 k1), (3) a length-C DFT along each row. With Gentleman-Sande kernels (natural in,
// bit-reversed out), step 1 leaves Y[k1] in row bitrev_r(k1) and step 3 leaves k2 in column
// bitrev_c(k2), i.e. X[k] at position bitrev_r(k1) C + bitrev_c(k2) = bitrev_(r+c)(k): the full
// bit-reversed order, with no transpose. The twiddle of row p is u^(bitrev_r(p) j2).
//
// Bit-reversed -> natural (decimation in time) is the mirror image: input index j = j1 + R j2
// sits at row bitrev_r(j1), column bitrev_c(j2); output k = k1 C + k2 at row k1, column k2:
//   X[k1 C + k2] = sum_j1 u_R^(j1 k1) [ u^(j1 k2) sum_j2 u_C^(j2 k2) x[j1 + R j2] ],
// i.e. Cooley-Tukey row DFTs (bit-reversed in, natural out), twiddles u^(bitrev_r(p) k2) in row
// p, then Cooley-Tukey column DFTs.
//
// On the bit-reversed side the element at row p, column q has natural index
// i = bitrev_r(p) + R bitrev_c(q), so a coset scaling s h^i factors as
// [s h^bitrev_r(p)] * [h^(R bitrev_c(q))]: the row factor is a scalar per row and folds for free
// into the running twiddle product (the row DFT is linear); the column factor is one table
// lookup and one multiplication per element.
//
// Memory traffic: column pass + row pass = two reads and two writes of the array, against log n
// for a stage-by-stage radix-2 FFT. Columns are processed W at a time: the W-wide tile (R rows
// of W contiguous elements) is copied into a per-task scratch buffer, transformed there with
// every butterfly applied to all W columns under one twiddle, and copied back. Rows (C elements)
// are transformed in place: C <= 2^14 elements (512 KiB for 32-byte elements) for n <= 2^28, so
// a row stays within a server core's L2.
#include "common/poly/evaluation_domain.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <utility>

namespace zkmill::poly {

namespace {

// The low `bits` bits of x in reverse order (bits <= 64).
inline size_t reverse_bits(size_t x, size_t bits) {
  if (bits == 0) return 0;
  uint64_t v = x;
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
  v = __builtin_bswap64(v);
  return size_t(v >> (64 - bits));
}

// Scratch per column-pass task: W R elements should stay well inside a core's L2.
constexpr size_t kColumnScratchBytes = size_t(512) << 10;
// Smallest amount of work (elements) worth handing to a pool task.
constexpr size_t kMinTaskElems = size_t(1) << 12;

// In-place DIF (Gentleman-Sande) on `width` interleaved sequences of length 2^log_len: element
// i of sequence q is x[i * width + q]. Natural order in, bit-reversed order out. Stage with
// half-size m: (a, b) <- (a + b, (a - b) u_(2m)^j) for the pair (i, i + m), j = i mod 2m.
template <class F, bool kUnitWidth = false>
void dif_kernel(F* x, size_t log_len, size_t width_arg, const F* tw) {
  const size_t len = size_t(1) << log_len;
  const size_t width = kUnitWidth ? 1 : width_arg;  // lets the compiler drop the q loop for rows
  for (size_t half = len >> 1; half > 0; half >>= 1) {
    const F* t = tw + (half - 1);
    for (size_t blk = 0; blk < len; blk += 2 * half) {
      F* lo = x + blk * width;
      F* hi = lo + half * width;
      for (size_t q = 0; q < width; ++q) {  // j = 0: twiddle 1
        F u = lo[q], v = hi[q];
        lo[q] = u + v;
        hi[q] = u - v;
      }
      for (size_t j = 1; j < half; ++j) {
        const F w = t[j];
        F* l = lo + j * width;
        F* h = hi + j * width;
        for (size_t q = 0; q < width; ++q) {
          F u = l[q], v = h[q];
          l[q] = u + v;
          h[q] = (u - v) * w;
        }
      }
    }
  }
}

// In-place DIT (Cooley-Tukey), same layout: bit-reversed order in, natural order out.
// Stage with half-size m: (a, b) <- (a + b u_(2m)^j, a - b u_(2m)^j).
template <class F, bool kUnitWidth = false>
void dit_kernel(F* x, size_t log_len, size_t width_arg, const F* tw) {
  const size_t len = size_t(1) << log_len;
  const size_t width = kUnitWidth ? 1 : width_arg;  // lets the compiler drop the q loop for rows
  for (size_t half = 1; half < len; half <<= 1) {
    const F* t = tw + (half - 1);
    for (size_t blk = 0; blk < len; blk += 2 * half) {
      F* lo = x + blk * width;
      F* hi = lo + half * width;
      for (size_t q = 0; q < width; ++q) {
        F u = lo[q], v = hi[q];
        lo[q] = u + v;
        hi[q] = u - v;
      }
      for (size_t j = 1; j < half; ++j) {
        const F w = t[j];
        F* l = lo + j * width;
        F* h = hi + j * width;
        for (size_t q = 0; q < width; ++q) {
          F u = l[q], v = h[q] * w;
          l[q] = u + v;
          h[q] = u - v;
        }
      }
    }
  }
}

// x[i] *= start * base^i for i < len (len a power of two). Four interleaved running products
// keep four independent multiplication chains in flight.
template <class F>
void mul_by_powers(F* x, size_t len, const F& start, const F& base) {
  if (base.is_one()) {
    if (start.is_one()) return;
    for (size_t i = 0; i < len; ++i) x[i] *= start;
    return;
  }
  if (len < 4) {
    F t = start;
    for (size_t i = 0; i < len; ++i, t *= base) x[i] *= t;
    return;
  }
  const F b2 = base.square(), b4 = b2.square();
  F t0 = start, t1 = start * base, t2 = start * b2, t3 = t1 * b2;
  for (size_t i = 0; i < len; i += 4) {
    x[i] *= t0;
    x[i + 1] *= t1;
    x[i + 2] *= t2;
    x[i + 3] *= t3;
    t0 *= b4;
    t1 *= b4;
    t2 *= b4;
    t3 *= b4;
  }
}

template <class F>
void mul_pointwise(F* x, const F* y, size_t len) {
  for (size_t i = 0; i < len; ++i) x[i] *= y[i];
}

// v[i] = base^bitrev_bits(i), i < 2^bits.
template <class F>
std::vector<F> powers_bitrev(const F& base, size_t bits) {
  const size_t len = size_t(1) << bits;
  std::vector<F> pw(len), out(len);
  F t = F::one();
  for (size_t i = 0; i < len; ++i, t *= base) pw[i] = t;
  for (size_t i = 0; i < len; ++i) out[i] = pw[reverse_bits(i, bits)];
  return out;
}

// Concatenated stage tables for DFTs up to length 2^log_c with root uc (order exactly 2^log_c):
// T_m[j] = uc^((2^log_c / 2m) j), j < m, stored at offset m - 1, m = 1, 2, ..., 2^(log_c - 1).
template <class F>
std::vector<F> stage_table(const F& uc, size_t log_c) {
  const size_t len = size_t(1) << log_c;
  if (len < 2) return {};
  std::vector<F> t(len - 1);
  const size_t top = len / 2;
  F p = F::one();
  for (size_t j = 0; j < top; ++j, p *= uc) t[top - 1 + j] = p;
  for (size_t m = top / 2; m > 0; m /= 2)
    for (size_t j = 0; j < m; ++j) t[m - 1 + j] = t[2 * m - 1 + 2 * j];
  return t;
}

template <class F>
std::string field_name() {
  if constexpr (requires { F::Params::kName; })
    return std::string(F::Params::kName);
  else
    return "field";
}

template <class F>
[[noreturn]] void throw_too_large(const std::string& what) {
  throw std::invalid_argument("EvaluationDomain: " + what + " exceeds 2^" + std::to_string(F::kTwoAdicity) +
                              ", the largest power-of-two subgroup of " + field_name<F>() + "^*");
}

void check_coset_power(int e) {
  if (e < -1 || e > 1)
    throw std::invalid_argument("EvaluationDomain: coset_power must be -1, 0 or 1, got " + std::to_string(e));
}

}  // namespace

template <class F>
EvaluationDomain<F>::EvaluationDomain(size_t min_size)
    : EvaluationDomain(
          [min_size] {
            size_t k = 0;
            while ((size_t(1) << k) < min_size) {
              if (++k > F::kTwoAdicity || k >= 63) throw_too_large<F>("size " + std::to_string(min_size));
            }
            return k;
          }(),
          0) {}

template <class F>
EvaluationDomain<F> EvaluationDomain<F>::from_log_size(size_t log_n) {
  return EvaluationDomain(log_n, 0);
}

template <class F>
EvaluationDomain<F>::EvaluationDomain(size_t log_n, int) {
  if (log_n > F::kTwoAdicity || log_n >= 63) throw_too_large<F>("size 2^" + std::to_string(log_n));
  log_n_ = log_n;
  n_ = size_t(1) << log_n;
  // R <= C, R = 1 for small sizes: one in-cache DFT of length C = n.
  log_rows_ = log_n > kDirectLog ? log_n / 2 : 0;
  log_cols_ = log_n - log_rows_;
  const size_t rows = size_t(1) << log_rows_;

  omega_ = F::root_of_unity(log_n);
  omega_inv_ = omega_.inverse();
  n_inv_ = F::from_u64(uint64_t(n_)).inverse();
  g_ = F::generator();
  g_inv_ = g_.inverse();
  // g generates F^*, whose order p - 1 does not divide n, so g^n != 1.
  z_coset_ = g_.pow(uint64_t(n_)) - F::one();
  z_coset_inv_ = z_coset_.inverse();

  for (int d = 0; d < 2; ++d) {
    const F& u = d ? omega_inv_ : omega_;
    stage_tw_[d] = stage_table(u.pow(uint64_t(rows)), log_cols_);  // u^R: order C
    row_base_[d] = powers_bitrev(u, log_rows_);
  }
  coset_row_[0] = powers_bitrev(g_, log_rows_);
  coset_row_[1] = powers_bitrev(g_inv_, log_rows_);
  coset_col_[0] = powers_bitrev(g_.pow(uint64_t(rows)), log_cols_);
  coset_col_[1] = powers_bitrev(g_inv_.pow(uint64_t(rows)), log_cols_);
}

template <class F>
void EvaluationDomain<F>::column_pass(F* data, bool dif, const F* tw, ThreadPool& pool) const {
  const size_t rows = size_t(1) << log_rows_, cols = size_t(1) << log_cols_;
  // Tile width W: as wide as the scratch budget allows (long contiguous runs per row for the
  // prefetcher, one twiddle load per W butterflies) but leaving >= 4 tiles per thread.
  size_t width = std::bit_floor(std::max<size_t>(1, kColumnScratchBytes / (sizeof(F) * rows)));
  width = std::min(width, std::bit_floor(std::max<size_t>(1, cols / (4 * pool.size()))));
  width = std::max<size_t>(width, std::min<size_t>(2, cols));  // at least a cache line
  const size_t tiles = cols / width;
  pool.parallel_for(tiles, [&](size_t t0, size_t t1) {
    std::vector<F> scratch(rows * width);
    for (size_t t = t0; t < t1; ++t) {
      F* tile = data + t * width;
      for (size_t r = 0; r < rows; ++r) std::copy_n(tile + r * cols, width, scratch.data() + r * width);
      if (dif)
        dif_kernel(scratch.data(), log_rows_, width, tw);
      else
        dit_kernel(scratch.data(), log_rows_, width, tw);
      for (size_t r = 0; r < rows; ++r) std::copy_n(scratch.data() + r * width, width, tile + r * cols);
    }
  });
}

template <class F>
void EvaluationDomain<F>::fft_natural_to_bitrev(std::span<F> x, FftDir dir, const F& s, int coset_power,
                                                ThreadPool& pool) const {
  check_length(x.size());
  check_coset_power(coset_power);
  const size_t d = dir == FftDir::kInverse;
  const size_t rows = size_t(1) << log_rows_, cols = size_t(1) << log_cols_;
  F* data = x.data();
  const F* tw = stage_tw_[d].data();
  if (rows > 1) column_pass(data, /*dif=*/true, tw, pool);
  const F* base = row_base_[d].data();
  const F* crow = coset_power ? coset_row_[coset_power < 0].data() : nullptr;
  const F* ccol = coset_power ? coset_col_[coset_power < 0].data() : nullptr;
  pool.parallel_for(
      rows,
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) {
          F* row = data + r * cols;
          // Twiddle u^(bitrev(r) j2), times the row's share s h^bitrev(r) of the output scaling.
          mul_by_powers(row, cols, crow ? s * crow[r] : s, base[r]);
          dif_kernel<F, true>(row, log_cols_, 1, tw);
          if (ccol) mul_pointwise(row, ccol, cols);  // h^(R bitrev(q))
        }
      },
      std::max<size_t>(1, kMinTaskElems >> log_cols_));
}

template <class F>
void EvaluationDomain<F>::fft_bitrev_to_natural(std::span<F> x, FftDir dir, const F& s, int coset_power,
                                                ThreadPool& pool) const {
  check_length(x.size());
  check_coset_power(coset_power);
  const size_t d = dir == FftDir::kInverse;
  const size_t rows = size_t(1) << log_rows_, cols = size_t(1) << log_cols_;
  F* data = x.data();
  const F* tw = stage_tw_[d].data();
  const F* base = row_base_[d].data();
  const F* crow = coset_power ? coset_row_[coset_power < 0].data() : nullptr;
  const F* ccol = coset_power ? coset_col_[coset_power < 0].data() : nullptr;
  pool.parallel_for(
      rows,
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) {
          F* row = data + r * cols;
          if (ccol) mul_pointwise(row, ccol, cols);  // input scaling, column share h^(R bitrev(q))
          dit_kernel<F, true>(row, log_cols_, 1, tw);
          // Twiddle u^(bitrev(r) k2), times the row's share s h^bitrev(r) of the input scaling.
          mul_by_powers(row, cols, crow ? s * crow[r] : s, base[r]);
        }
      },
      std::max<size_t>(1, kMinTaskElems >> log_cols_));
  if (rows > 1) column_pass(data, /*dif=*/false, tw, pool);
}

template <class F>
void EvaluationDomain<F>::fft(std::span<F> x, ThreadPool& pool) const {
  check_length(x.size());
  bit_reverse_permute(x, pool);
  fft_bitrev_to_natural(x, FftDir::kForward, F::one(), 0, pool);
}

template <class F>
void EvaluationDomain<F>::ifft(std::span<F> x, ThreadPool& pool) const {
  check_length(x.size());
  bit_reverse_permute(x, pool);
  fft_bitrev_to_natural(x, FftDir::kInverse, n_inv_, 0, pool);
}

template <class F>
void EvaluationDomain<F>::coset_fft(std::span<F> x, ThreadPool& pool) const {
  check_length(x.size());
  bit_reverse_permute(x, pool);
  fft_bitrev_to_natural(x, FftDir::kForward, F::one(), 1, pool);
}

template <class F>
void EvaluationDomain<F>::icoset_fft(std::span<F> x, ThreadPool& pool) const {
  fft_natural_to_bitrev(x, FftDir::kInverse, n_inv_, -1, pool);
  bit_reverse_permute(x, pool);
}

// Cache-blocked bit reversal in the spirit of COBRA (Carter and Gatlin, "Towards an optimal
// bit-reversal permutation program", FOCS 1998). Split an index of k bits as (a, b, c) with a
// and c of t bits: bitrev(a, b, c) = (bitrev(c), bitrev(b), bitrev(a)). For each middle b the
// 2^t x 2^t tile {(a, b, c)} exchanges with the tile of b' = bitrev(b): both tiles are read
// into buffers (2^t rows of 2^t contiguous elements each) and written back transposed and
// reversed. Tiles pair up disjointly, so tasks over ranges of b never collide.
template <class F>
void EvaluationDomain<F>::bit_reverse_permute(std::span<F> x, ThreadPool& pool) {
  const size_t n = x.size();
  if (!std::has_single_bit(n) && n != 0)
    throw std::invalid_argument("bit_reverse_permute: length " + std::to_string(n) + " is not a power of two");
  if (n <= 2) return;
  const size_t k = size_t(std::countr_zero(n));
  F* d = x.data();
  constexpr size_t kT = 4, kW = size_t(1) << kT;
  if (k < 2 * kT) {
    for (size_t i = 0; i < n; ++i) {
      size_t j = reverse_bits(i, k);
      if (i < j) std::swap(d[i], d[j]);
    }
    return;
  }
  static constexpr auto rev_t = [] {
    std::array<uint8_t, kW> r{};
    for (size_t i = 0; i < kW; ++i) {
      size_t v = 0;
      for (size_t b = 0; b < kT; ++b) v |= ((i >> b) & 1) << (kT - 1 - b);
      r[i] = uint8_t(v);
    }
    return r;
  }();
  const size_t mid = k - 2 * kT, hi_shift = k - kT;
  pool.parallel_for(
      size_t(1) << mid,
      [&](size_t b0, size_t b1) {
        std::array<F, kW * kW> ta, tb;
        for (size_t b = b0; b < b1; ++b) {
          const size_t br = reverse_bits(b, mid);
          if (br < b) continue;  // the pair is handled from its smaller end
          F* blk_b = d + (b << kT);
          F* blk_br = d + (br << kT);
          for (size_t a = 0; a < kW; ++a) std::copy_n(blk_b + (a << hi_shift), kW, ta.data() + a * kW);
          if (br != b)
            for (size_t a = 0; a < kW; ++a) std::copy_n(blk_br + (a << hi_shift), kW, tb.data() + a * kW);
          // new x(a, b, c) = old x(bitrev c, b', bitrev a), and symmetrically for b'.
          const F* src_for_b = br != b ? tb.data() : ta.data();
          for (size_t a = 0; a < kW; ++a) {
            F* dst = blk_b + (a << hi_shift);
            for (size_t c = 0; c < kW; ++c) dst[c] = src_for_b[rev_t[c] * kW + rev_t[a]];
          }
          if (br != b)
            for (size_t a = 0; a < kW; ++a) {
              F* dst = blk_br + (a << hi_shift);
              for (size_t c = 0; c < kW; ++c) dst[c] = ta[rev_t[c] * kW + rev_t[a]];
            }
        }
      },
      std::max<size_t>(1, kMinTaskElems >> (2 * kT)));
}

template <class F>
void EvaluationDomain<F>::distribute_powers(std::span<F> x, const F& g, ThreadPool& pool) {
  F* d = x.data();
  pool.parallel_for(
      x.size(),
      [&](size_t b, size_t e) {
        F t = g.pow(uint64_t(b));
        for (size_t i = b; i < e; ++i, t *= g) d[i] *= t;
      },
      kMinTaskElems);
}

template class EvaluationDomain<ff::Bn254Fr>;
template class EvaluationDomain<ff::Bls12381Fr>;

}  // namespace zkmill::poly
