// SPDX-License-Identifier: MIT
// The Groth16 prover (CPU): witness bundle + proving key -> proof.
//   A = alpha + sum_j z_j u_j(tau) + r delta                       (G1)
//   B = beta  + sum_j z_j v_j(tau) + s delta                       (G2, and in G1 for C)
//   C = sum_{aux j} z_j L_j + sum_i h_i H_i + s A + r B_G1 - r s delta   (G1)
// with z = (inputs, aux), h the H scalars as the key's H basis wants them (proving_key.hpp's
// HBasis: the coefficients of (a(x)b(x) - c(x)) / Z(x), or the values of a b - c on a coset) and
// r, s fresh
// random blinders (or given explicitly, so CPU and GPU provers can be compared bit for bit).
#pragma once

#include <sys/random.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "common/cs/witness_bundle.hpp"
#include "common/groth16/assemble.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/msm/pippenger.hpp"
#include "common/poly/groth16_h.hpp"
#include "common/util/cancellation.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::groth16 {

// Thrown when the bundle does not satisfy its constraints; row is the R1CS row index.
// Callers holding the circuit can name it by re-synthesizing with the checking CS.
class UnsatisfiedError : public std::runtime_error {
 public:
  UnsatisfiedError(uint64_t row, const std::string& msg) : std::runtime_error(msg), row_(row) {}
  uint64_t row() const { return row_; }

 private:
  uint64_t row_;
};

class ProveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Wall-clock milliseconds of one CPU proof's phases, the same names for every key format:
// msm_l_ms is the MSM over the aux variables' C_j points (the native key's L section, a .zkey's
// C section); h_ms computes the H scalars in the key's convention.
struct ProveTimings {
  double h_ms = 0, msm_a_ms = 0, msm_b_g1_ms = 0, msm_b_g2_ms = 0, msm_l_ms = 0, msm_h_ms = 0, total_ms = 0;
};

// The phases as one human-readable fragment, for the CLI's and the bench's summary lines.
inline std::string format_prove_timings(const ProveTimings& t) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "H %.1f ms, MSM A %.1f, B1 %.1f, B2 %.1f, L %.1f, H %.1f ms", t.h_ms, t.msm_a_ms,
                t.msm_b_g1_ms, t.msm_b_g2_ms, t.msm_l_ms, t.msm_h_ms);
  return buf;
}

// What the prover body reads from a proving key, whatever its file format: the native key's
// sections map one to one onto a .zkey's (A, B1, B2 over all variables; L or C over the aux
// variables; H over the domain). The spans point into the key, which must outlive the view.
template <class E>
struct KeyView {
  const VerifyingKey<E>* vk = nullptr;
  std::span<const typename E::G1Affine> a, b_g1, l, h;
  std::span<const typename E::G2Affine> b_g2;
};

namespace detail {
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// sum_j z_j P_j over z = (inputs, aux) without concatenating the two vectors.
template <class C, class Fr>
ec::Jacobian<C> msm_z(std::span<const ec::Affine<C>> bases, std::span<const Fr> inputs, std::span<const Fr> aux,
                      util::ThreadPool& pool) {
  auto r = msm::msm<C>(bases.first(inputs.size()), inputs, pool);
  r += msm::msm<C>(bases.subspan(inputs.size()), aux, pool);
  return r;
}
}  // namespace detail

// The first row with a_i * b_i != c_i, or -1 when all hold.
template <class Fr>
int64_t first_unsatisfied_row(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] * b[i] != c[i]) return int64_t(i);
  return -1;
}

// The one CPU prover body (bellman's create_proof against a parameter source): the five MSMs
// over `key` and the bundle's (inputs, aux), with the H scalars from h_scalars(pool) (a
// std::vector<Fr> in the key's convention; its size says how many H points are used), then
// the blinded combination. Callers check the bundle against their key first. t_all: when the
// caller's part of the proof (validation) started, so total_ms covers it.
template <class E, class HScalars>
Proof<E> prove_with_view(const KeyView<E>& key, const cs::WitnessBundle& w, HScalars&& h_scalars,
                         const typename E::Fr& r, const typename E::Fr& s, util::ThreadPool& pool,
                         ProveTimings* timings, std::chrono::steady_clock::time_point t_all,
                         std::stop_token stop = {}) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using G1P = typename E::G1Params;
  using G2P = typename E::G2Params;
  using detail::ms_since;
  ProveTimings t;
  auto t0 = std::chrono::steady_clock::now();
  // Cancellation points (util::Cancelled) between the phases: a farm task whose job ended.
  const auto cancellation_point = [&] { util::throw_if_cancelled(stop, "proof"); };
  cancellation_point();
  const std::vector<Fr> h = h_scalars(pool);
  if (h.size() > key.h.size()) throw ProveError("the key has fewer H points than the quotient has scalars");
  t.h_ms = ms_since(t0);

  const auto inputs = w.inputs<Fr>();
  const auto aux = w.aux<Fr>();
  cancellation_point();
  t0 = std::chrono::steady_clock::now();
  const G1 a = detail::msm_z<G1P, Fr>(key.a, inputs, aux, pool);
  t.msm_a_ms = ms_since(t0);
  cancellation_point();
  t0 = std::chrono::steady_clock::now();
  const G1 b1 = detail::msm_z<G1P, Fr>(key.b_g1, inputs, aux, pool);
  t.msm_b_g1_ms = ms_since(t0);
  cancellation_point();
  t0 = std::chrono::steady_clock::now();
  const G2 b2 = detail::msm_z<G2P, Fr>(key.b_g2, inputs, aux, pool);
  t.msm_b_g2_ms = ms_since(t0);
  cancellation_point();
  t0 = std::chrono::steady_clock::now();
  const G1 l = msm::msm<G1P>(key.l, aux, pool);
  t.msm_l_ms = ms_since(t0);
  cancellation_point();
  t0 = std::chrono::steady_clock::now();
  const G1 hq = msm::msm<G1P>(key.h.first(h.size()), std::span<const Fr>(h), pool);
  t.msm_h_ms = ms_since(t0);

  const Proof<E> proof = assemble_proof<E>(*key.vk, {a, b1, b2, l, hq}, r, s);
  t.total_ms = ms_since(t_all);
  if (timings) *timings = t;
  return proof;
}

template <class E>
Proof<E> prove_with_randomness(const ProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                               const typename E::Fr& s, util::ThreadPool& pool = util::ThreadPool::global(),
                               ProveTimings* timings = nullptr, std::stop_token stop = {}) {
  using Fr = typename E::Fr;
  auto t_all = std::chrono::steady_clock::now();
  if (w.curve() != E::kId)
    throw ProveError(std::string("witness bundle is for curve ") + curve_name(w.curve()) + ", key is for " + E::kName);
  if (w.n_inputs() != pk.meta.n_inputs || w.n_aux() != pk.meta.n_aux)
    throw ProveError("witness bundle shape (" + std::to_string(w.n_inputs()) + " inputs, " + std::to_string(w.n_aux()) +
                     " aux) does not match the proving key (" + std::to_string(pk.meta.n_inputs) + ", " +
                     std::to_string(pk.meta.n_aux) + ")");
  size_t n = size_t(1) << pk.meta.domain_log2;
  if (w.n_rows() > n || pk.h.size() != n) throw ProveError("witness bundle has more rows than the key's domain");
  if (int64_t row = first_unsatisfied_row<Fr>(w.a<Fr>(), w.b<Fr>(), w.c<Fr>()); row >= 0)
    throw UnsatisfiedError(uint64_t(row),
                           "unsatisfied witness: constraint row " + std::to_string(row) + " has a*b != c");

  // H scalars in the key's basis (HBasis), computed in place in domain-sized zero-padded
  // working copies (the bundle itself stays untouched): coset Lagrange, the n values
  // (a b - c)(g w^i); monomial, the n - 1 coefficients of h = (a b - c) / Z, one more transform.
  auto h_scalars = [&](util::ThreadPool& p) {
    auto domain = poly::EvaluationDomain<Fr>::from_log_size(pk.meta.domain_log2);
    auto padded = [n](std::span<const Fr> x) {
      std::vector<Fr> v(n, Fr::zero());
      std::copy(x.begin(), x.end(), v.begin());
      return v;
    };
    std::vector<Fr> ha = padded(w.a<Fr>());
    {
      std::vector<Fr> hb = padded(w.b<Fr>()), hc = padded(w.c<Fr>());
      if (pk.meta.h_basis == HBasis::kCosetLagrange) {
        poly::groth16_coset_values_in_place<Fr>(domain, ha, hb, hc, p);
        return ha;
      }
      poly::groth16_h_in_place<Fr>(domain, ha, hb, hc, p);
    }
    ha.resize(n - 1);
    return ha;
  };
  const KeyView<E> key{&pk.vk, pk.a, pk.b_g1, pk.l, pk.h, pk.b_g2};
  return prove_with_view<E>(key, w, h_scalars, r, s, pool, timings, t_all, std::move(stop));
}

// A uniformly random blinder (r or s) from the OS entropy source (getrandom(2), the same pool
// as /dev/urandom). Each limb straight from it: a seeded PRNG would cap the blinders' entropy
// at its seed size, and zero-knowledge rests on r and s. One system call per 64 bytes
// (std::random_device made one per 32 bits, ~50 us a blinder). Shared by the CPU prover below
// and the farm's GPU path.
template <class Fr>
Fr random_blinder() {
  struct OsRng {
    uint64_t buf[8];
    size_t next = 8;
    uint64_t operator()() {
      if (next == 8) {
        auto* p = reinterpret_cast<unsigned char*>(buf);
        for (size_t got = 0; got < sizeof buf;) {
          const ssize_t n = getrandom(p + got, sizeof buf - got, 0);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) throw std::runtime_error("getrandom failed: no OS entropy for the proof's blinders");
          got += size_t(n);
        }
        next = 0;
      }
      return buf[next++];
    }
  } os;
  return Fr::random(os);
}

// Fresh uniformly random r, s from the OS entropy source.
template <class E>
Proof<E> prove(const ProvingKey<E>& pk, const cs::WitnessBundle& w, util::ThreadPool& pool = util::ThreadPool::global(),
               ProveTimings* timings = nullptr, std::stop_token stop = {}) {
  using Fr = typename E::Fr;
  Fr r = random_blinder<Fr>(), s = random_blinder<Fr>();
  return prove_with_randomness<E>(pk, w, r, s, pool, timings, std::move(stop));
}

}  // namespace zkmill::groth16
