// SPDX-License-Identifier: MIT
// The last step of every Groth16 prover in zkmill (CPU native, CPU zkey, GPU native, GPU zkey):
// the MSM results and the blinders r, s combined into the proof (Groth 2016, section 3.2;
// snarkjs groth16_prove.js computes the same):
//   A = alpha1 + sum_j z_j A_j + r delta1                                     (G1)
//   B = beta2  + sum_j z_j B2_j + s delta2                                    (G2)
//   B1 = beta1 + sum_j z_j B1_j + s delta1      (B in G1, only used inside C)
//   C = sum_{aux j} z_j C_j + sum_i h_i H_i + s A + r B1 - r s delta1         (G1)
// where C_j is the native key's L section or the zkey's C section, and h_i the quotient's
// scalars in the key's convention (native: coefficients of (ab - c)/Z; zkey: evaluations on
// snarkjs's odd coset). Taking the MSM sums as inputs is what lets the provers differ only in
// where those sums come from, and compare bit for bit for fixed r, s.
#pragma once

#include "common/groth16/proof.hpp"
#include "common/groth16/proving_key.hpp"

namespace zkmill::groth16 {

// The five multi-scalar sums of a proof, before blinding.
template <class E>
struct MsmSums {
  typename E::G1 a;   // sum_j z_j A_j       (all variables)
  typename E::G1 b1;  // sum_j z_j B1_j      (all variables)
  typename E::G2 b2;  // sum_j z_j B2_j      (all variables)
  typename E::G1 c;   // sum_{aux j} z_j C_j (native: L)
  typename E::G1 h;   // sum_i h_i H_i
};

template <class E>
Proof<E> assemble_proof(const VerifyingKey<E>& vk, const MsmSums<E>& m, const typename E::Fr& r,
                        const typename E::Fr& s) {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  const G1 delta1 = G1::from_affine(vk.delta_g1);
  const G1 pa = m.a.add_mixed(vk.alpha_g1) + delta1 * r;
  const G1 pb1 = m.b1.add_mixed(vk.beta_g1) + delta1 * s;
  const G2 pb2 = m.b2.add_mixed(vk.beta_g2) + G2::from_affine(vk.delta_g2) * s;
  const G1 pc = m.c + m.h + pa * s + pb1 * r - delta1 * (r * s);
  return {pa.to_affine(), pb2.to_affine(), pc.to_affine()};
}

}  // namespace zkmill::groth16
