// SPDX-License-Identifier: MIT
// Public entry points of the GPU NTT over the scalar fields of BN254 and BLS12-381, with the
// CPU's convention: natural order in and out, w = Fr::root_of_unity(log2 n), coset
// generator g = Fr::generator() (see cuda/ntt/ntt.cuh for the formulas). Plain C++: callers
// built without nvcc include this and link zk_cuda.
#pragma once

#include <cstddef>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "cuda/runtime/gpu_result.hpp"

namespace zkmill::cuda {

enum class NttDirection {
  kForward,       // evaluations on <w>:      e_k = sum_j a_j w^(jk)
  kInverse,       // coefficients from those: a_j = n^-1 sum_k e_k w^(-jk)
  kCosetForward,  // evaluations on g<w>:     e_k = sum_j a_j g^j w^(jk)
  kCosetInverse,  // coefficients from those: a_j = g^-j n^-1 sum_k e_k w^(-jk)
  // Evaluations on <w> -> coefficients of a(g X): b_j = g^j n^-1 sum_k e_k w^(-jk). Then
  // kForward(b) = kCosetForward(kInverse(e)) at one coset scaling instead of two (the prover's
  // interpolate-then-evaluate pair).
  kInverseToCoset,
};

// In place on a host array of n = 2^k elements (1 <= k <= the field's two-adicity, at most 30).
// Never throws; on failure the contents of `data` are unspecified only if the failure came
// after the result started to download (the message then names the failed copy).
// Fr: ff::Bn254Fr or ff::Bls12381Fr (deduced; instantiated for both in ntt.cu). `shift`: the g of
// the coset directions (ignored by the others); the snarkjs prover's is a 2n-th root of unity.
template <class Fr>
NttResult ntt_in_place(Fr* data, size_t n, NttDirection dir, const Fr& shift = Fr::generator()) noexcept;

}  // namespace zkmill::cuda
