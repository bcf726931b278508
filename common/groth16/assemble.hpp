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

#include "common/ec/gls4.hpp"
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

// The blinders enter through five G1 and one G2 scalar multiplications (the fixed cost of every
// proof, ~1 ms of a tiny circuit's ~3 by plain double-and-add). C is regrouped so that B1 is
// never formed:
//   s A + r B1 - r s delta1 = s (a + alpha1) + r (b1 + beta1) + r s delta1,
// and the five G1 products go through GLV (ec/glv.hpp: ~127 shared doublings instead of 254,
// their tables made affine together), the G2 one through the 4-dimensional GLS (ec/gls4.hpp,
// ~66 doublings). The same group elements, so the same proof bits for the same r, s.
template <class E>
Proof<E> assemble_proof(const VerifyingKey<E>& vk, const MsmSums<E>& m, const typename E::Fr& r,
                        const typename E::Fr& s) {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using G2P = typename E::G2Params;
  const G1 delta1 = G1::from_affine(vk.delta_g1);
  const G1 a0 = m.a.add_mixed(vk.alpha_g1), b0 = m.b1.add_mixed(vk.beta_g1);
  G1 r_delta = delta1, s_delta = delta1, rs_delta = delta1, s_a = a0, r_b = b0;
  const ec::GlvScalar kr = ec::glv_decompose(r), ks = ec::glv_decompose(s), krs = ec::glv_decompose(r * s);
  G1* pts[] = {&r_delta, &s_delta, &rs_delta, &s_a, &r_b};
  const ec::GlvScalar* ks_of[] = {&kr, &ks, &krs, &ks, &kr};
  ec::glv_mul_batch<typename E::G1Params>(pts, ks_of, 5);
  const G1 pa = a0 + r_delta;
  G2 s_delta2 = G2::from_affine(vk.delta_g2);
  const ec::Gls4Scalar ks2 = ec::gls4_decompose<G2P>(s);
  G2* pts2[] = {&s_delta2};
  const ec::Gls4Scalar* ks2_of[] = {&ks2};
  ec::gls4_mul_batch<G2P>(pts2, ks2_of, 1);
  const G2 pb2 = m.b2.add_mixed(vk.beta_g2) + s_delta2;
  const G1 pc = m.c + m.h + s_a + r_b + rs_delta;
  return {pa.to_affine(), pb2.to_affine(), pc.to_affine()};
}

}  // namespace zkmill::groth16
