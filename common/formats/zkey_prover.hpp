// SPDX-License-Identifier: MIT
// The Groth16 prover for snarkjs keys, in two steps the farm can run on different machines:
//   synthesize_zkey: witness (.wtns values) + the key's coefficient section -> a cs::WitnessBundle
//     holding the inputs, the aux values and a, b, c = a o b over the domain (rapidsnark's
//     method: the zkey stores only A and B, and c is their pointwise product);
//   prove_zkey: bundle + key -> proof: groth16::prove_with_view (the one CPU prover body) with
//     the H scalars in snarkjs's convention.
//
// snarkjs's H convention (groth16_prove.js): the key's H points are tau-powers arranged for
// the evaluations of a(x) b(x) - c(x) on the coset zeta <w>, zeta a primitive 2n-th root of
// unity with zeta^2 = w, i.e. the odd powers of zeta. So h_i = a'_i b'_i - c'_i where x' is
// x interpolated over <w> (inverse NTT), scaled by zeta^j, and evaluated (NTT) at w^i; the
// division by Z (constant -2 on that coset) is folded into the H points by setup.
//
// Roots: snarkjs (ffjavascript) takes w_max = nqr^t with nqr the smallest quadratic
// non-residue, while zkmill takes generator^t. For BN254 both are 5; for BLS12-381 they
// differ (nqr 5, generator 7). So SnarkjsQuotient finds k with w_snarkjs = w_zkmill^k (k odd,
// a discrete log in a 2-group: one bit per step) and evaluates in zkmill's domain at the
// permuted index k i mod n; k = 1 skips the permutation.
//
// Proof (snarkjs): A = alpha1 + sum_i w_i A_i + r delta1; B = beta2 + sum_i w_i B2_i + s delta2;
// C = sum_{i > nPublic} w_i C_i + sum_i h_i H_i + s A + r (beta1 + sum_i w_i B1_i + s delta1)
//     - r s delta1.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cs/witness_bundle.hpp"
#include "common/formats/snarkjs_roots.hpp"
#include "common/formats/zkey.hpp"
#include "common/groth16/assemble.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover.hpp"
#include "common/msm/pippenger.hpp"
#include "common/poly/evaluation_domain.hpp"

namespace zkmill::formats {

// h on snarkjs's odd coset, from a, b, c over snarkjs's domain (see the header comment).
template <class F>
class SnarkjsQuotient {
 public:
  explicit SnarkjsQuotient(size_t log_n)
      : domain_(poly::EvaluationDomain<F>::from_log_size(log_n)), n_(size_t(1) << log_n) {
    const SnarkjsCoset<F> coset = SnarkjsCoset<F>::of(log_n);
    k_ = coset.k;
    // zeta^j / n in bit-reversed position: scales the coefficients straight out of the
    // natural->bit-reversed inverse transform, so no bit-reversal pass is needed.
    const F zeta = coset.zeta;
    scale_.resize(n_);
    F p = domain_.size_inv();
    for (size_t j = 0; j < n_; ++j, p *= zeta) scale_[j] = p;
    poly::EvaluationDomain<F>::bit_reverse_permute(std::span<F>(scale_));
  }
  uint64_t root_exponent() const { return k_; }

  // In place: a, b, c (n each, natural order over snarkjs's domain) are consumed; on return
  // a holds h_i, the scalars for the H points, in the key's order.
  void compute(std::span<F> a, std::span<F> b, std::span<F> c, util::ThreadPool& pool) const {
    std::vector<F> scratch(k_ == 1 ? 0 : n_);
    for (std::span<F> x : {a, b, c}) {
      if (k_ != 1) permute(x, scratch, /*into_ours=*/true);
      domain_.fft_natural_to_bitrev(x, poly::FftDir::kInverse, F::one(), 0, pool);
      pool.parallel_for(n_, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) x[i] *= scale_[i];
      });
      domain_.fft_bitrev_to_natural(x, poly::FftDir::kForward, F::one(), 0, pool);
    }
    pool.parallel_for(n_, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) a[i] = a[i] * b[i] - c[i];
    });
    if (k_ != 1) permute(a, scratch, /*into_ours=*/false);
  }

 private:
  // Index i of snarkjs's domain is index k i mod n of ours (w_theirs^i = w_ours^(k i)).
  void permute(std::span<F> x, std::vector<F>& scratch, bool into_ours) const {
    const size_t mask = n_ - 1;
    for (size_t i = 0; i < n_; ++i) {
      size_t j = size_t((k_ * i) & mask);
      if (into_ours)
        scratch[j] = x[i];
      else
        scratch[i] = x[j];
    }
    std::copy(scratch.begin(), scratch.end(), x.begin());
  }

  poly::EvaluationDomain<F> domain_;
  size_t n_;
  uint64_t k_ = 1;
  std::vector<F> scale_;
};

namespace detail {

// Step 1 over the container alone (the coefficient section is all synthesis reads), for a
// file whose coefficients validate_zkey_coefs has checked.
template <class E>
cs::WitnessBundle synthesize_zkey_checked(const ZkeyFile& f, std::span<const typename E::Fr> witness,
                                          util::ThreadPool& pool, const cs::CircuitId& circuit, uint64_t partition) {
  using Fr = typename E::Fr;
  if (f.curve() != E::kId)
    f.fail(std::string("is a ") + curve_snarkjs_name(f.curve()) + " key, expected " + curve_snarkjs_name(E::kId));
  if (witness.size() != f.n_vars())
    throw groth16::ProveError("witness has " + std::to_string(witness.size()) + " values, the key " + f.name() +
                              " expects nVars = " + std::to_string(f.n_vars()));
  if (!witness[0].is_one()) throw groth16::ProveError("witness value 0 (the ONE wire) is not 1");
  cs::BundleHeader h;
  h.curve = E::kId;
  h.kind = cs::BundleKind::Zkey;
  h.circuit_id = circuit;
  h.partition = partition;
  h.n_inputs = uint64_t(f.n_public()) + 1;
  h.n_aux = uint64_t(f.n_vars()) - h.n_inputs;
  h.n_rows = f.domain_size();
  h.domain_size = f.domain_size();
  auto bundle = cs::WitnessBundle::allocate(h);
  auto inputs = bundle.section_mut<Fr>(cs::Section::Inputs);
  auto aux = bundle.section_mut<Fr>(cs::Section::Aux);
  std::copy(witness.begin(), witness.begin() + ptrdiff_t(inputs.size()), inputs.begin());
  std::copy(witness.begin() + ptrdiff_t(inputs.size()), witness.end(), aux.begin());
  std::span<Fr> ab[2] = {bundle.section_mut<Fr>(cs::Section::A), bundle.section_mut<Fr>(cs::Section::B)};
  auto c = bundle.section_mut<Fr>(cs::Section::C);
  // The stored word c R^2, taken as a Montgomery representative, is the element c R; its
  // product with w is (c w) R. Accumulating that and multiplying each row by R^-1 once
  // (the element whose representative is 1) costs n products instead of one per entry.
  const auto entries = f.coefs();
  const size_t sz = f.coef_size();
  const uint32_t n_coefs = f.n_coefs();
  pool.run_tasks(2, [&](size_t m) {
    std::span<Fr> out = ab[m];
    std::fill(out.begin(), out.end(), Fr::zero());
    for (uint32_t i = 0; i < n_coefs; ++i) {
      const uint8_t* e = entries.data() + size_t(i) * sz;
      if (load_u32_le(e) != m) continue;
      ff::Limbs<Fr::N> word{};
      for (size_t b = 0; b < Fr::kBytes; ++b) word[b / 8] |= uint64_t(e[12 + b]) << (8 * (b % 8));
      out[load_u32_le(e + 4)] += Fr::from_raw_mont(word) * witness[load_u32_le(e + 8)];
    }
  });
  ff::Limbs<Fr::N> one_limb{};
  one_limb[0] = 1;
  const Fr r_inv = Fr::from_raw_mont(one_limb);
  pool.parallel_for(c.size(), [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      ab[0][i] *= r_inv;
      ab[1][i] *= r_inv;
      c[i] = ab[0][i] * ab[1][i];
    }
  });
  // Every variable is taken as used: the zkey prover runs dense MSMs, and the native
  // prover's density maps must merely be consistent.
  for (auto d : {cs::DensityMap::AuxInA, cs::DensityMap::AuxInB, cs::DensityMap::InputInB}) {
    auto words = bundle.density_mut(d);
    uint64_t bits = d == cs::DensityMap::InputInB ? h.n_inputs : h.n_aux;
    for (size_t i = 0; i < words.size(); ++i) {
      uint64_t left = bits - 64 * i;
      words[i] = left >= 64 ? ~uint64_t(0) : (uint64_t(1) << left) - 1;
    }
  }
  bundle.seal();
  return bundle;
}

}  // namespace detail

// Step 1: the bundle for `witness` (all nVars values, ONE first, as in the .wtns), of kind
// cs::BundleKind::Zkey. From a loaded key (its coefficients were checked by load_zkey) ...
template <class E>
cs::WitnessBundle synthesize_zkey(const ZkeyProvingKey<E>& pk, std::span<const typename E::Fr> witness,
                                  util::ThreadPool& pool = util::ThreadPool::global(),
                                  const cs::CircuitId& circuit = {}, uint64_t partition = 0) {
  return detail::synthesize_zkey_checked<E>(pk.file, witness, pool, circuit, partition);
}

// ... or from the container alone, which is what a synth worker needs: no point is decoded.
template <class E>
cs::WitnessBundle synthesize_zkey(const ZkeyFile& f, std::span<const typename E::Fr> witness,
                                  util::ThreadPool& pool = util::ThreadPool::global(),
                                  const cs::CircuitId& circuit = {}, uint64_t partition = 0) {
  validate_zkey_coefs(f);
  return detail::synthesize_zkey_checked<E>(f, witness, pool, circuit, partition);
}

// Step 2, with explicit blinders (tests compare provers bit for bit): the shape checks and the
// H convention are specific to snarkjs keys; the MSMs and the blinding are groth16's one body.
template <class E>
groth16::Proof<E> prove_zkey_with_randomness(const ZkeyProvingKey<E>& pk, const cs::WitnessBundle& w,
                                             const typename E::Fr& r, const typename E::Fr& s,
                                             util::ThreadPool& pool = util::ThreadPool::global(),
                                             groth16::ProveTimings* timings = nullptr) {
  using Fr = typename E::Fr;
  auto t_all = std::chrono::steady_clock::now();
  if (w.kind() != cs::BundleKind::Zkey)
    throw groth16::ProveError(std::string("witness bundle is of kind ") + cs::bundle_kind_name(w.kind()) +
                              ", the zkey prover needs a zkey bundle (from synthesize_zkey)");
  if (w.curve() != E::kId || w.n_inputs() != uint64_t(pk.n_public()) + 1 || w.n_inputs() + w.n_aux() != pk.n_vars() ||
      w.n_rows() != pk.domain_size())
    throw groth16::ProveError("witness bundle does not have the shape of the key " + pk.file.name());
  // H scalars: the n values a' b' - c' on snarkjs's odd coset (SnarkjsQuotient), in the key's order.
  auto h_scalars = [&](util::ThreadPool& p) {
    std::vector<Fr> a(w.a<Fr>().begin(), w.a<Fr>().end());
    std::vector<Fr> b(w.b<Fr>().begin(), w.b<Fr>().end()), c(w.c<Fr>().begin(), w.c<Fr>().end());
    SnarkjsQuotient<Fr>(pk.file.log_domain_size()).compute(a, b, c, p);
    return a;
  };
  const groth16::KeyView<E> key{&pk.vk, pk.a, pk.b1, pk.c, pk.h, pk.b2};
  return groth16::prove_with_view<E>(key, w, h_scalars, r, s, pool, timings, t_all);
}

// Step 2 with fresh blinders from the OS entropy source (as groth16::prove does).
template <class E>
groth16::Proof<E> prove_zkey(const ZkeyProvingKey<E>& pk, const cs::WitnessBundle& w,
                             util::ThreadPool& pool = util::ThreadPool::global(),
                             groth16::ProveTimings* timings = nullptr) {
  using Fr = typename E::Fr;
  const Fr r = groth16::random_blinder<Fr>(), s = groth16::random_blinder<Fr>();
  return prove_zkey_with_randomness<E>(pk, w, r, s, pool, timings);
}

// The public signals (snarkjs public.json): witness values 1 ..= nPublic.
template <class E>
std::vector<typename E::Fr> zkey_public_signals(const cs::WitnessBundle& w) {
  auto in = w.inputs<typename E::Fr>();
  return {in.begin() + 1, in.end()};
}

}  // namespace zkmill::formats
