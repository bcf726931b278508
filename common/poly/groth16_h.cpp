// SPDX-License-Identifier: MIT
// Groth16 quotient h = (A B - C) / Z by coset FFTs: bellman's pipeline with the coset shift,
// the n^-1 and the division by Z folded into the transforms; instantiated for BN254/BLS12-381 Fr.
//
// Why the coset. On H itself Z vanishes, so (A B - C) / Z cannot be evaluated there. On the
// coset gH, g = F::generator() outside every 2-power subgroup, Z(g w^i) = g^n w^(in) - 1 =
// g^n - 1 is one non-zero constant. A B - C has degree <= 2n - 2, so it is not determined by
// its n values on gH, but h = (A B - C) / Z has degree <= n - 2 < n and therefore is: h is the
// coset interpolant of the values (A B - C)(g w^i) / (g^n - 1).
//
// The pipeline per input vector v in {a, b, c} (values on H, natural order):
//   1. fft_natural_to_bitrev(v, inverse, s = n^-1, coset +1): the interpolant's coefficients
//      v'_i = n^-1 sum_j v_j w^(-ij), already multiplied by g^i (the coset shift, so that the next
//      forward transform evaluates on gH), left in bit-reversed order;
//   2. fft_bitrev_to_natural(v, forward): sum_i v'_i g^i w^(ik) = V(g w^k), natural order.
// No bit reversal is needed in between because step 1 leaves exactly the order step 2 reads.
// Then a_k <- a_k b_k - c_k pointwise (groth16_coset_values_in_place stops here: a key whose H is
// in the coset's Lagrange basis takes these n values as they are), and finally the inverse
// coset FFT of a with the constant factor (g^n - 1)^-1 merged into its n^-1 (one scalar, folded
// into the twiddle products):
//   3. fft_natural_to_bitrev(a, inverse, s = n^-1 (g^n - 1)^-1, coset -1), then bit reversal.
// Bellman (src/groth16/prover.rs, src/domain.rs) does the same algebra as ifft, coset_fft
// (distribute_powers + fft), mul_assign, sub_assign, divide_by_z_on_coset, icoset_fft, each FFT
// with its own bit-reversal and log n passes over memory.
//
// Memory passes over an n-element array (read + write each): steps 1 and 2 are two passes each
// (column pass, row pass; see evaluation_domain.cpp), so 12 for a, b, c; the pointwise step reads
// three arrays and writes one; step 3 is two passes plus one bit-reversal pass.
//
// Unsatisfied systems. Write A B - C = Q Z + R with deg R < n; R(w^j) = a_j b_j - c_j. On gH,
// (A B - C) / Z = Q + R / (g^n - 1), and both terms have degree < n, so the computed polynomial
// is Q + R / (g^n - 1): its x^(n-1) coefficient is R_(n-1) / (g^n - 1). If only row j0 is violated
// by e != 0, R = e L_j0 with the Lagrange basis L_j0(x) = (w^j0 / n) (x^n - 1) / (x - w^j0),
// whose leading coefficient w^j0 / n is non-zero: the top coefficient is then non-zero too.
#include "common/poly/groth16_h.hpp"

#include <initializer_list>
#include <stdexcept>
#include <string>

namespace zkmill::poly {

namespace {

template <class F>
void require_length(const EvaluationDomain<F>& domain, size_t len, const char* name, bool allow_shorter) {
  if (len == domain.size() || (allow_shorter && len < domain.size())) return;
  throw std::invalid_argument(std::string("groth16_h: vector ") + name + " has " + std::to_string(len) +
                              " elements, domain size is " + std::to_string(domain.size()));
}

// Steps 1 and 2: values on H (natural order) -> values on gH (natural order).
template <class F>
void values_to_coset_values(const EvaluationDomain<F>& domain, std::span<F> v, ThreadPool& pool) {
  domain.fft_natural_to_bitrev(v, FftDir::kInverse, domain.size_inv(), 1, pool);
  domain.fft_bitrev_to_natural(v, FftDir::kForward, F::one(), 0, pool);
}

// a_k <- a_k b_k - c_k.
template <class F>
void mul_sub(std::span<F> a, std::span<const F> b, std::span<const F> c, ThreadPool& pool) {
  F* pa = a.data();
  const F* pb = b.data();
  const F* pc = c.data();
  pool.parallel_for(
      a.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) pa[i] = pa[i] * pb[i] - pc[i];
      },
      size_t(1) << 12);
}

// Step 3: the inverse coset FFT of the quotient values, divided by Z(g w^i) = g^n - 1.
template <class F>
void coset_values_to_h(const EvaluationDomain<F>& domain, std::span<F> a, ThreadPool& pool) {
  domain.fft_natural_to_bitrev(a, FftDir::kInverse, domain.size_inv() * domain.z_on_coset_inv(), -1, pool);
  EvaluationDomain<F>::bit_reverse_permute(a, pool);
}

}  // namespace

template <class F>
void groth16_coset_values_in_place(const EvaluationDomain<F>& domain, std::span<F> a, std::span<F> b, std::span<F> c,
                                   ThreadPool& pool) {
  require_length(domain, a.size(), "a", false);
  require_length(domain, b.size(), "b", false);
  require_length(domain, c.size(), "c", false);
  for (std::span<F> v : {a, b, c}) values_to_coset_values(domain, v, pool);
  mul_sub<F>(a, b, c, pool);
}

template <class F>
void groth16_h_in_place(const EvaluationDomain<F>& domain, std::span<F> a, std::span<F> b, std::span<F> c,
                        ThreadPool& pool) {
  groth16_coset_values_in_place(domain, a, b, c, pool);
  coset_values_to_h(domain, a, pool);
}

template <class F>
std::vector<F> groth16_h(const EvaluationDomain<F>& domain, std::vector<F> a, std::vector<F> b, std::vector<F> c,
                         ThreadPool& pool) {
  require_length(domain, a.size(), "a", true);
  require_length(domain, b.size(), "b", true);
  require_length(domain, c.size(), "c", true);
  const size_t n = domain.size();
  // Padded one at a time, so a reallocation (capacity < n) holds at most one old buffer extra.
  for (std::vector<F>* v : {&a, &b, &c}) {
    v->resize(n);
    values_to_coset_values(domain, std::span<F>(*v), pool);
  }
  mul_sub<F>(a, b, c, pool);
  std::vector<F>().swap(b);  // release before the last transform
  std::vector<F>().swap(c);
  coset_values_to_h(domain, std::span<F>(a), pool);
  a.resize(n - 1);  // the x^(n-1) coefficient is zero for a satisfied system
  return a;
}

#define ZKMILL_INSTANTIATE_GROTH16_H(F)                                                                                \
  template void groth16_coset_values_in_place<F>(const EvaluationDomain<F>&, std::span<F>, std::span<F>, std::span<F>, \
                                                 ThreadPool&);                                                         \
  template void groth16_h_in_place<F>(const EvaluationDomain<F>&, std::span<F>, std::span<F>, std::span<F>,            \
                                      ThreadPool&);                                                                    \
  template std::vector<F> groth16_h<F>(const EvaluationDomain<F>&, std::vector<F>, std::vector<F>, std::vector<F>,     \
                                       ThreadPool&);

ZKMILL_INSTANTIATE_GROTH16_H(ff::Bn254Fr)
ZKMILL_INSTANTIATE_GROTH16_H(ff::Bls12381Fr)

#undef ZKMILL_INSTANTIATE_GROTH16_H

}  // namespace zkmill::poly
