// SPDX-License-Identifier: MIT
// Radix-2 evaluation domains {w^i} and cosets {g w^i} of size n = 2^k over a prime field, with
// cache-blocked multithreaded FFTs: the polynomial layer of the Groth16 prover (CPU side).
//
// Conventions (bellman's, src/domain.rs, so proofs and keys agree across implementations):
//   w        a primitive n-th root of unity, F::root_of_unity(k);
//   g        the coset shift F::generator() (a generator of F^*, hence outside every 2-power
//            subgroup), so Z(x) = x^n - 1 takes the single non-zero value g^n - 1 on g<w>;
//   fft        x_j (coefficients)            -> X_i = sum_j x_j w^(ij)        (evaluations)
//   ifft       X_i (evaluations)             -> x_j = n^-1 sum_i X_i w^(-ij)
//   coset_fft  x_j (coefficients)            -> X_i = sum_j x_j (g w^i)^j = fft(x_j g^j)
//   icoset_fft X_i (evaluations on g<w>)     -> x_j = g^-j ifft(X)_j
// All transforms work in place on exactly n elements and give results independent of the
// thread count (field arithmetic is exact; threads only split independent work).
//
// Algorithm (details in evaluation_domain.cpp): the array is viewed as an R x C matrix
// (R = 2^floor(k/2), C = 2^ceil(k/2); R = 1 for small k) and transformed by Bailey's
// four-step decomposition (Bailey, "FFTs in external or hierarchical memory", J. Supercomputing
// 4, 1990): length-R DFTs down the columns (gathered a few columns at a time into a per-thread
// scratch buffer), a twiddle multiplication by w^(row * col), and length-C DFTs along the rows.
// Using a Gentleman-Sande (DIF) kernel for natural -> bit-reversed order, or Cooley-Tukey (DIT)
// for bit-reversed -> natural order, makes the combined result land in exact bit-reversed order
// with no transpose, so each transform is two passes over memory plus, where the caller wants
// natural order on both sides, one cache-blocked bit-reversal pass.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::poly {

using util::ThreadPool;

// Which root a transform uses: w (evaluate) or w^-1 (interpolate, before the n^-1 factor).
enum class FftDir { kForward, kInverse };

template <class F>
class EvaluationDomain {
 public:
  // The smallest domain with n = 2^k >= min_size (min_size 0 gives n = 1). Throws
  // std::invalid_argument when that needs k > F::kTwoAdicity.
  explicit EvaluationDomain(size_t min_size);
  // The domain of size exactly 2^log_n; throws std::invalid_argument if log_n > kTwoAdicity.
  static EvaluationDomain from_log_size(size_t log_n);

  size_t size() const { return n_; }
  size_t log_size() const { return log_n_; }
  const F& omega() const { return omega_; }          // w
  const F& omega_inv() const { return omega_inv_; }  // w^-1
  const F& size_inv() const { return n_inv_; }       // n^-1
  const F& coset_generator() const { return g_; }    // g = F::generator()
  const F& coset_generator_inv() const { return g_inv_; }
  // Z(g w^i) = g^n - 1 for every i: the vanishing polynomial is constant on the coset.
  const F& z_on_coset() const { return z_coset_; }
  const F& z_on_coset_inv() const { return z_coset_inv_; }
  // Z(x) = x^n - 1 at an arbitrary point.
  F evaluate_vanishing(const F& x) const { return x.pow(uint64_t(n_)) - F::one(); }

  // The four transforms above, in place; x.size() must equal size() (std::invalid_argument
  // otherwise). The std::vector overloads first zero-pad a shorter vector up to n.
  void fft(std::span<F> x, ThreadPool& pool = ThreadPool::global()) const;
  void ifft(std::span<F> x, ThreadPool& pool = ThreadPool::global()) const;
  void coset_fft(std::span<F> x, ThreadPool& pool = ThreadPool::global()) const;
  void icoset_fft(std::span<F> x, ThreadPool& pool = ThreadPool::global()) const;
  void fft(std::vector<F>& x, ThreadPool& pool = ThreadPool::global()) const { fft(std::span<F>(pad(x)), pool); }
  void ifft(std::vector<F>& x, ThreadPool& pool = ThreadPool::global()) const { ifft(std::span<F>(pad(x)), pool); }
  void coset_fft(std::vector<F>& x, ThreadPool& pool = ThreadPool::global()) const {
    coset_fft(std::span<F>(pad(x)), pool);
  }
  void icoset_fft(std::vector<F>& x, ThreadPool& pool = ThreadPool::global()) const {
    icoset_fft(std::span<F>(pad(x)), pool);
  }

  // Permutation-free building blocks. "Bit-reversed order" means entry i sits at position
  // bitrev_k(i). With u = w (kForward) or w^-1 (kInverse), s a scalar and h = g^coset_power
  // (coset_power in {-1, 0, 1}):
  //   fft_natural_to_bitrev: natural x_j in; out entry i = s h^i sum_j x_j u^(ij), bit-reversed.
  //   fft_bitrev_to_natural: bit-reversed x_j in; out X_i = sum_j (s h^j x_j) u^(ij), natural.
  // The scaling costs one multiplication per element for h != 1 and nothing for s alone.
  void fft_natural_to_bitrev(std::span<F> x, FftDir dir, const F& s, int coset_power,
                             ThreadPool& pool = ThreadPool::global()) const;
  void fft_bitrev_to_natural(std::span<F> x, FftDir dir, const F& s, int coset_power,
                             ThreadPool& pool = ThreadPool::global()) const;

  // x_i <- x_{bitrev(i)} for a power-of-two length (an involution). Cache-blocked.
  static void bit_reverse_permute(std::span<F> x, ThreadPool& pool = ThreadPool::global());
  // x_i <- x_i g^i, any length (bellman's distribute_powers).
  static void distribute_powers(std::span<F> x, const F& g, ThreadPool& pool = ThreadPool::global());

  // Transforms with log_size() <= kDirectLog run as one in-cache DFT on the calling thread;
  // larger ones use the two-pass four-step layout described above.
  static constexpr size_t kDirectLog = 10;

 private:
  explicit EvaluationDomain(size_t log_n, int /*tag*/);
  void check_length(size_t len) const {
    if (len != n_)
      throw std::invalid_argument("EvaluationDomain: span of " + std::to_string(len) + " elements, domain size is " +
                                  std::to_string(n_));
  }
  std::vector<F>& pad(std::vector<F>& x) const {
    if (x.size() > n_)
      throw std::invalid_argument("EvaluationDomain: vector of " + std::to_string(x.size()) +
                                  " elements exceeds the domain size " + std::to_string(n_));
    x.resize(n_);
    return x;
  }
  // Length-R DFTs down every column, gathered W columns at a time into per-task scratch.
  void column_pass(F* data, bool dif, const F* stage_tw, ThreadPool& pool) const;

  size_t n_ = 1, log_n_ = 0;
  size_t log_rows_ = 0, log_cols_ = 0;  // n = R x C, R = 2^log_rows_ (R = 1: direct)
  F omega_, omega_inv_, n_inv_, g_, g_inv_, z_coset_, z_coset_inv_;
  // [dir]: concatenated stage tables T_m[j] = u_(2m)^j (u_(2m) a primitive 2m-th root, j < m)
  // for m = 1, 2, 4, ..., C/2; T_m starts at offset m - 1. Serves both R and C (R <= C).
  std::vector<F> stage_tw_[2];
  std::vector<F> row_base_[2];   // [dir]: u^bitrev(r), r < R (four-step twiddle base of row r)
  std::vector<F> coset_row_[2];  // [0]: g^bitrev(r), [1]: g^-bitrev(r), r < R
  std::vector<F> coset_col_[2];  // [0]: g^(R bitrev(c)), [1]: g^-(R bitrev(c)), c < C
};

extern template class EvaluationDomain<ff::Bn254Fr>;
extern template class EvaluationDomain<ff::Bls12381Fr>;

}  // namespace zkmill::poly
