// SPDX-License-Identifier: MIT
// The Groth16 quotient h(x) = (A(x)B(x) - C(x)) / Z(x), Z(x) = x^n - 1, computed from the
// constraint-wise evaluations of A, B, C the way bellman's prover does, in place.
//
// Setting (Groth, "On the size of pairing-based non-interactive arguments", EUROCRYPT 2016,
// section 3.2, with bellman's domain choice). The prover holds, for every constraint row j of a
// QAP over the domain H = {w^j : j < n}, the values a_j = A(w^j), b_j = B(w^j), c_j = C(w^j),
// where A, B, C are the interpolants of degree < n. The witness satisfies the system iff
// a_j b_j = c_j for every j, iff Z divides A B - C; then h = (A B - C) / Z has degree <= n - 2,
// i.e. n - 1 coefficients, and the prover commits to them with the proving key's h query
// (bellman: params.get_h(n - 1); snarkjs / arkworks use a different domain and are not
// interchangeable with this one).
//
// Inputs may be shorter than n (constraints + public inputs, as bellman counts them); they are
// zero-padded, which is consistent: the padding rows 0 * 0 = 0 are satisfied.
//
// Only the two Groth16 scalar fields are instantiated: ff::Bn254Fr and ff::Bls12381Fr.
#pragma once

#include <span>
#include <vector>

#include "common/poly/evaluation_domain.hpp"

namespace zkmill::poly {

// In place over caller buffers of exactly domain.size() = n elements each (std::invalid_argument
// otherwise). On return:
//   a[0 .. n-2]  the coefficients h_0 .. h_(n-2) of h (lowest degree first);
//   a[n-1]       the x^(n-1) coefficient of the coset interpolant: zero whenever the system is
//                satisfied, non-zero when exactly one row is violated (in general, for an
//                unsatisfied system, it is R_(n-1) / (g^n - 1) where R = (A B - C) mod Z);
//   b, c         overwritten (their coset evaluations).
// Peak memory: the 3n caller elements, O(sqrt n) twiddle tables in the domain, and per pool
// task one column tile of at most 512 KiB. Nothing of size n is allocated.
template <class F>
void groth16_h_in_place(const EvaluationDomain<F>& domain, std::span<F> a, std::span<F> b, std::span<F> c,
                        ThreadPool& pool = ThreadPool::global());

// Steps 1 and 2 and the pointwise product of groth16_h_in_place, without its final inverse
// coset FFT: on return a[i] = (A B - C)(g w^i) for i < n, g = domain.coset_generator(), natural
// order (the scalars of a proving key whose H points are in the coset's Lagrange basis,
// groth16::HBasis::kCosetLagrange); b, c overwritten. Same lengths and memory as above.
template <class F>
void groth16_coset_values_in_place(const EvaluationDomain<F>& domain, std::span<F> a, std::span<F> b, std::span<F> c,
                                   ThreadPool& pool = ThreadPool::global());

// Owning form: takes a, b, c (move them in to avoid copies; each may be shorter than n and is
// zero-padded, longer throws std::invalid_argument) and returns h's n - 1 coefficients, lowest
// degree first (the vector is a's storage, truncated). b and c are freed before the final
// inverse coset FFT, so peak memory is 3n elements during the forward transforms (plus a's
// reallocation if a vector's capacity was below n: reserve(n) beforehand to avoid it) and n
// afterwards. For n = 1 the result is empty (h = 0).
template <class F>
std::vector<F> groth16_h(const EvaluationDomain<F>& domain, std::vector<F> a, std::vector<F> b, std::vector<F> c,
                         ThreadPool& pool = ThreadPool::global());

}  // namespace zkmill::poly
