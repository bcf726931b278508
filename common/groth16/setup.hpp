// SPDX-License-Identifier: MIT
// A development trusted setup for Groth16 (toxic waste drawn at random, or from --seed for
// reproducible test keys; NOT for production, where an MPC ceremony is required).
//
// For the QAP over the domain H = <w> of size n >= rows, with Lagrange basis L_i:
//   u_j(tau) = sum_i A_ij L_i(tau),  v_j = sum_i B_ij L_i(tau),  w_j = sum_i C_ij L_i(tau)
// and L_i(tau) = w^i (tau^n - 1) / (n (tau - w^i)). The key holds
//   A_j = u_j G1, B_j = v_j G1 and v_j G2, IC_j = (beta u_j + alpha v_j + w_j)/gamma G1 (inputs),
//   L_j = (beta u_j + alpha v_j + w_j)/delta G1 (aux), and n H points in the basis meta.h_basis
// names (proving_key.hpp's HBasis): monomial H_i = tau^i Z(tau)/delta G1, or (the default)
// coset Lagrange H_i = L'_i(tau) Z(tau) / (delta Z(x_i)) G1 over the coset x_i = g w^i,
// g = Fr::generator() (the prover's coset, common/poly/groth16_h.cpp; outside every 2-power
// subgroup, so the coset is disjoint from <w> and Z(x_i) = g^n w^(in) - 1 = g^n - 1 != 0).
// The coset's vanishing polynomial is X^n - g^n, whose derivative at x_i is n x_i^(n-1) =
// n g^n / x_i, so its Lagrange basis is
//   L'_i(X) = (X^n - g^n) / ((X - x_i) n x_i^(n-1)) = x_i (X^n - g^n) / (n g^n (X - x_i)),
// and H_i = x_i * [(tau^n - g^n) Z(tau) / (n g^n (g^n - 1) delta)] / (tau - x_i): one constant,
// one batch inversion of tau - x_i (tau must avoid the coset too: tau^n != g^n).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "common/cs/recording_cs.hpp"
#include "common/ec/fixed_base.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/poly/evaluation_domain.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::groth16 {

// The toxic waste; exposed so tests can check the key against it.
template <class Fr>
struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  template <class Rng>
  static ToxicWaste random(Rng& rng) {
    auto nz = [&] {
      for (;;)
        if (Fr x = Fr::random(rng); !x.is_zero()) return x;
    };
    return {nz(), nz(), nz(), nz(), nz()};
  }
};

namespace detail {
// The Lagrange basis of the coset x_i = s w^i (s = 1: the domain <w> itself) at tau, times
// `extra`: out[i] = extra x_i (tau^n - s^n) / (n s^n (tau - x_i)), the coset's vanishing
// polynomial X^n - s^n having derivative n s^n / x_i at x_i. One batch inversion of tau - x_i;
// tau must avoid the coset (tau^n != s^n), else `where` names it in the error.
template <class Fr>
std::vector<Fr> lagrange_at(const poly::EvaluationDomain<Fr>& domain, const Fr& tau, const Fr& s, const Fr& extra,
                            const char* where) {
  const size_t n = domain.size();
  const Fr sn = s.pow(uint64_t(n)), diff = tau.pow(uint64_t(n)) - sn;
  if (diff.is_zero()) throw std::invalid_argument(std::string("setup: tau lies in ") + where + "; draw again");
  std::vector<Fr> out(n);
  Fr xi = s;
  for (size_t i = 0; i < n; ++i, xi *= domain.omega()) out[i] = tau - xi;
  ff::batch_inverse(out.data(), n);
  const Fr scale = extra * diff * domain.size_inv() * sn.inverse();
  xi = s;
  for (size_t i = 0; i < n; ++i, xi *= domain.omega()) out[i] *= xi * scale;
  return out;
}
}  // namespace detail

template <class E>
ProvingKey<E> generate_parameters(const cs::R1CS<typename E::Fr>& r1cs, KeyMeta meta, ToxicWaste<typename E::Fr> tw,
                                  util::ThreadPool& pool = util::ThreadPool::global()) {
  using Fr = typename E::Fr;
  using G1P = typename E::G1Params;
  using G2P = typename E::G2Params;
  const uint64_t rows = r1cs.n_rows(), nvars = r1cs.n_variables();
  poly::EvaluationDomain<Fr> domain(rows);
  const size_t n = domain.size();
  // tau must avoid the domain (then tau^n != 1 and every tau - w^i is invertible).
  const Fr zt = domain.evaluate_vanishing(tw.tau);
  // Lagrange coefficients at tau.
  const std::vector<Fr> lag = detail::lagrange_at(domain, tw.tau, Fr::one(), Fr::one(), "the evaluation domain");

  // u, v, w per variable: scatter each matrix row's coefficients times L_i.
  std::vector<Fr> u(nvars, Fr::zero()), v(nvars, Fr::zero()), w(nvars, Fr::zero());
  auto scatter = [&](const cs::CsrMatrix<Fr>& m, std::vector<Fr>& out) {
    for (size_t r = 0; r < m.rows(); ++r) {
      auto cols = m.row_cols(r);
      auto vals = m.row_vals(r);
      for (size_t k = 0; k < cols.size(); ++k) out[cols[k]] += vals[k] * lag[r];
    }
  };
  scatter(r1cs.A, u);
  scatter(r1cs.B, v);
  scatter(r1cs.C, w);

  Fr gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
  std::vector<Fr> ic_s(r1cs.n_inputs), l_s(r1cs.n_aux);
  for (uint64_t j = 0; j < nvars; ++j) {
    Fr k = tw.beta * u[j] + tw.alpha * v[j] + w[j];
    if (j < r1cs.n_inputs)
      ic_s[j] = k * gamma_inv;
    else
      l_s[j - r1cs.n_inputs] = k * delta_inv;
  }
  std::vector<Fr> h_s(n);
  if (meta.h_basis == HBasis::kMonomial) {
    Fr p = zt * delta_inv;
    for (size_t i = 0; i < n; ++i, p *= tw.tau) h_s[i] = p;
  } else {
    h_s = detail::lagrange_at(domain, tw.tau, domain.coset_generator(), zt * delta_inv * domain.z_on_coset_inv(),
                              "the prover's coset");
  }

  ec::FixedBaseTable<G1P> g1(E::G1::generator());
  ec::FixedBaseTable<G2P> g2(E::G2::generator());
  VerifyingKey<E> vk;
  vk.alpha_g1 = g1.mul(tw.alpha).to_affine();
  vk.beta_g1 = g1.mul(tw.beta).to_affine();
  vk.delta_g1 = g1.mul(tw.delta).to_affine();
  vk.beta_g2 = g2.mul(tw.beta).to_affine();
  vk.gamma_g2 = g2.mul(tw.gamma).to_affine();
  vk.delta_g2 = g2.mul(tw.delta).to_affine();
  vk.ic = g1.batch_mul(ic_s, pool);

  meta.n_inputs = r1cs.n_inputs;
  meta.n_aux = r1cs.n_aux;
  meta.n_constraints = rows;
  meta.domain_log2 = uint32_t(domain.log_size());
  auto a = g1.batch_mul(u, pool);
  auto b1 = g1.batch_mul(v, pool);
  auto b2 = g2.batch_mul(v, pool);
  auto l = g1.batch_mul(l_s, pool);
  auto h = g1.batch_mul(h_s, pool);
  return ProvingKey<E>(std::move(meta), std::move(vk), std::move(a), std::move(b1), std::move(b2), std::move(l),
                       std::move(h));
}

}  // namespace zkmill::groth16
