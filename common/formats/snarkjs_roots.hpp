// SPDX-License-Identifier: MIT
// snarkjs's roots of unity next to zkmill's, shared by the CPU zkey prover
// (formats::SnarkjsQuotient) and the GPU one (cuda/groth16/prove.cuh), which both evaluate H on
// snarkjs's odd coset zeta <w_snarkjs> (see common/formats/zkey_prover.hpp for the convention).
// Light on purpose (the fields only): nvcc compiles it into the GPU prover's translation units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace zkmill::formats {

// ffjavascript's primitive 2^log_n-th root of unity: nqr^t squared down (wasm_field1.js).
template <class F>
F snarkjs_root_of_unity(size_t log_n) {
  F nqr = F::from_u64(2);
  while (nqr.legendre() != -1) nqr += F::one();
  F w = nqr.pow(F::C::t_odd);
  for (size_t i = log_n; i < F::kTwoAdicity; ++i) w = w.square();
  return w;
}

// The k with target = base^k, for base of order 2^log_n and target in <base>: bit b of k is
// read from (target base^-k)^(2^(log_n - 1 - b)) = +-1.
template <class F>
uint64_t discrete_log_2group(const F& base, const F& target, size_t log_n) {
  uint64_t k = 0;
  const F base_inv = base.inverse();
  for (size_t b = 0; b < log_n; ++b) {
    F y = target * base_inv.pow(k);
    for (size_t i = 0; i + 1 + b < log_n; ++i) y = y.square();
    if (!y.is_one()) k |= uint64_t(1) << b;
  }
  if (base.pow(k) != target) throw std::logic_error("discrete_log_2group: target is not a power of base");
  return k;
}

// snarkjs's odd coset of a 2^log_n domain in zkmill's terms: its root is ours^k (k odd; index i
// of snarkjs's domain is index k i mod n of ours) and its shift zeta a primitive 2n-th root with
// zeta^2 = snarkjs's root. For BN254 k = 1 (both take 5 as the base); for BLS12-381 k != 1.
template <class F>
struct SnarkjsCoset {
  uint64_t k = 1;
  F zeta;
  static SnarkjsCoset of(size_t log_n) {
    if (log_n + 1 > F::kTwoAdicity)  // no 2n-th root of unity: snarkjs cannot make such a key either
      throw std::invalid_argument("domain 2^" + std::to_string(log_n) + " too large for snarkjs's odd coset");
    return {discrete_log_2group(F::root_of_unity(log_n), snarkjs_root_of_unity<F>(log_n), log_n),
            snarkjs_root_of_unity<F>(log_n + 1)};
  }
};

}  // namespace zkmill::formats
