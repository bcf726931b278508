// SPDX-License-Identifier: MIT
// Groth16 verification with a prepared verifying key, one multi-pairing per proof, and
// batch verification of many proofs of one circuit with one multi-pairing for the batch.
//
// A proof verifies iff e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta), where
// IC(x) = ic_0 + sum_i x_i ic_{i+1}. We check the product
//   e(A, B) e(-IC(x), gamma) e(-C, delta) e(-alpha, beta) = 1
// with a shared Miller loop and one final exponentiation.
//
// Batch (Bellare-Garay-Rabin small-exponent test): with independent random 128-bit
// rho_k, all k proofs verify (except with probability 2^-128) iff
//   prod_k e(rho_k A_k, B_k) * e(-sum rho_k IC_k, gamma) * e(-sum rho_k C_k, delta)
//   * e(-(sum rho_k) alpha, beta) = 1.
#pragma once

#include <random>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/ec/subgroup.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/msm/straus.hpp"
#include "common/pairing/engine.hpp"

namespace zkmill::groth16 {

class VerifyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class E>
class PreparedVerifyingKey {
 public:
  using Fr = typename E::Fr;
  using G1 = typename E::G1;
  using G1A = typename E::G1Affine;
  using G2A = typename E::G2Affine;

  using Engine = pairing::Engine<E>;

  // The fixed G2 points' Miller-loop lines are computed once here, not per verification.
  explicit PreparedVerifyingKey(VerifyingKey<E> vk)
      : vk_(std::move(vk)),
        beta_(Engine::prepare(vk_.beta_g2)),
        gamma_(Engine::prepare(vk_.gamma_g2)),
        delta_(Engine::prepare(vk_.delta_g2)),
        alpha_beta_(Engine::pairing(vk_.alpha_g1, beta_)) {
    if (vk_.ic.empty()) throw VerifyError("verifying key has no IC points");
  }
  const VerifyingKey<E>& vk() const { return vk_; }
  size_t num_public_inputs() const { return vk_.ic.size() - 1; }

  // Structural validity: points on the curve and in the prime-order subgroups.
  static bool proof_is_well_formed(const Proof<E>& p) {
    return p.a.is_on_curve() && p.b.is_on_curve() && p.c.is_on_curve() && ec::is_in_subgroup(p.a) &&
           ec::is_in_subgroup(p.b) && ec::is_in_subgroup(p.c);
  }

  // IC(x) = ic_0 + sum x_i ic_{i+1}; throws VerifyError on a wrong input count.
  G1 input_commitment(std::span<const Fr> inputs) const {
    if (inputs.size() != num_public_inputs())
      throw VerifyError("expected " + std::to_string(num_public_inputs()) + " public inputs, got " +
                        std::to_string(inputs.size()));
    // One interleaved GLV chain for all inputs (msm/straus.hpp), not a 254-bit double-and-add
    // each: ~0.15 ms less per input of a BN254 check.
    return G1::from_affine(vk_.ic[0]) +
           msm::straus_msm<typename E::G1Params>(std::span<const G1A>(vk_.ic).subspan(1), inputs);
  }

  bool verify(const Proof<E>& proof, std::span<const Fr> inputs) const {
    if (!proof_is_well_formed(proof)) return false;
    G1 ic = input_commitment(inputs);
    auto b = Engine::prepare(proof.b);
    // e(A, B) e(-IC, gamma) e(-C, delta) = e(alpha, beta), the right side computed once (the
    // key's constant): three Miller-loop pairs instead of four.
    typename Engine::PreparedPair pairs[] = {{proof.a, &b}, {(-ic).to_affine(), &gamma_}, {-proof.c, &delta_}};
    return Engine::final_exponentiation(
               Engine::multi_miller_loop(std::span<const typename Engine::PreparedPair>(pairs))) == alpha_beta_;
  }

  // All-or-nothing: true iff every proof verifies (with overwhelming probability).
  bool verify_batch(std::span<const Proof<E>> proofs, std::span<const std::vector<Fr>> inputs) const {
    if (proofs.size() != inputs.size()) throw VerifyError("batch verify: proofs and inputs differ in count");
    if (proofs.empty()) return true;
    std::random_device rd;  // the prover must not predict rho
    std::vector<typename Engine::PreparedG2> bs;
    bs.reserve(proofs.size());
    std::vector<typename Engine::PreparedPair> pairs;
    pairs.reserve(proofs.size() + 3);
    std::vector<ff::Limbs<Fr::N>> rhos;
    rhos.reserve(proofs.size());
    std::vector<G1> rho_a;
    rho_a.reserve(proofs.size());
    Fr rho_sum = Fr::zero();
    // sum_k rho_k IC(x_k) = (sum_k rho_k) ic_0 + sum_i (sum_k rho_k x_{k,i}) ic_{i+1}: the
    // scalars are summed in Fr, so the batch costs n_public + 1 scalar multiplications for
    // the inputs whatever its size, not one per input per proof.
    std::vector<Fr> input_sums(num_public_inputs(), Fr::zero());
    for (size_t k = 0; k < proofs.size(); ++k) {
      if (!proof_is_well_formed(proofs[k])) return false;
      if (inputs[k].size() != num_public_inputs())
        throw VerifyError("expected " + std::to_string(num_public_inputs()) + " public inputs, got " +
                          std::to_string(inputs[k].size()));
      const auto rho_bits = random_rho(rd);
      const Fr rho = Fr::from_canonical_unchecked(rho_bits);
      rhos.push_back(rho_bits);
      rho_sum += rho;
      for (size_t i = 0; i < input_sums.size(); ++i) input_sums[i] += rho * inputs[k][i];
      bs.push_back(Engine::prepare(proofs[k].b));
      // rho_k A_k by double-and-add over rho's 128 bits, adding the affine A_k (mixed additions).
      G1 r = G1::identity();
      for (size_t i = kRhoBits; i-- > 0;) {
        r = r.dbl();
        if (ff::bit(rho_bits, i)) r = r.add_mixed(proofs[k].a);
      }
      rho_a.push_back(r);
    }
    // All rho_k A_k to affine with one inversion.
    const auto rho_a_affine = ec::batch_normalize<typename E::G1Params>(std::span<const G1>(rho_a));
    for (size_t k = 0; k < proofs.size(); ++k) pairs.emplace_back(rho_a_affine[k], &bs[k]);
    // sum_k rho_k C_k with the 128 doublings shared by all k (interleaved double-and-add).
    G1 c_sum = G1::identity();
    for (size_t i = kRhoBits; i-- > 0;) {
      c_sum = c_sum.dbl();
      for (size_t k = 0; k < proofs.size(); ++k)
        if (ff::bit(rhos[k], i)) c_sum = c_sum.add_mixed(proofs[k].c);
    }
    std::vector<Fr> ic_scalars{rho_sum};
    ic_scalars.insert(ic_scalars.end(), input_sums.begin(), input_sums.end());
    const G1 ic_sum = msm::straus_msm<typename E::G1Params>(vk_.ic, ic_scalars);
    pairs.emplace_back((-ic_sum).to_affine(), &gamma_);
    pairs.emplace_back((-c_sum).to_affine(), &delta_);
    pairs.emplace_back((ec::glv_mul(G1::from_affine(-vk_.alpha_g1), rho_sum)).to_affine(), &beta_);
    return Engine::pairing_product_is_one(std::span<const typename Engine::PreparedPair>(pairs));
  }

 private:
  static constexpr size_t kRhoBits = 128;
  // A random nonzero 128-bit integer (< r, so also its own canonical Fr value).
  static ff::Limbs<Fr::N> random_rho(std::random_device& rd) {
    for (;;) {
      ff::Limbs<Fr::N> l{};
      for (int i = 0; i < 4; ++i) l[i / 2] |= uint64_t(rd()) << (32 * (i % 2));  // 128 bits
      if (l[0] != 0 || l[1] != 0) return l;
    }
  }
  VerifyingKey<E> vk_;
  typename Engine::PreparedG2 beta_, gamma_, delta_;
  typename Engine::GT alpha_beta_;  // e(alpha, beta), the right side of every single check
};

}  // namespace zkmill::groth16
