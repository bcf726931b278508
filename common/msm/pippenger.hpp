// SPDX-License-Identifier: MIT
// Public API of the CPU multi-scalar multiplication sum_i s_i P_i (Pippenger's bucket method).
// (Pippenger, "On the evaluation of powers and related problems", FOCS 1976) with signed
// c-bit digits, XYZZ or batch-affine buckets and window/point-chunk parallelism over a
// util::ThreadPool. The algorithm lives in pippenger_impl.hpp; pippenger.cpp instantiates it for
// G1 and G2 of BN254 and BLS12-381, so including this header compiles none of it.
//
// Usage: msm<curves::Bn254G1Params>(bases, scalars). C is named explicitly because template
// deduction does not see through the std::vector -> std::span conversion.
//
// Semantics: the result is the group element sum_i s_i P_i; identity bases and zero scalars
// contribute nothing, scalars 1 and -1 go straight into one accumulator (no bucket work).
// For a given input the result is the same group element for every pool size; the
// Jacobian representative may differ between pool sizes (the point chunks differ), never
// between runs with the same pool size.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ec/short_weierstrass.hpp"
#include "common/msm/signed_digits.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::msm {

// Tuning knobs; the defaults are what msm() uses. Mainly for benchmarks and tests.
struct MsmConfig {
  unsigned window_bits = 0;                         // c in [1, 16]; 0 = chosen by plan_windows
  Accumulation accumulation = Accumulation::kAuto;  // bucket representation
  size_t batch_size = 0;                            // batch-affine additions per inversion; 0 = auto
  bool small_scalar_fast_path = true;               // scalars 0, 1, -1 bypass the buckets
};

namespace detail {
// The bucket-method MSM (pippenger_impl.hpp), explicitly instantiated for the four groups.
template <class C>
ec::Jacobian<C> pippenger(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                          util::ThreadPool& pool, const MsmConfig& cfg);

[[noreturn]] inline void size_mismatch(const char* what, size_t a, size_t b) {
  throw std::invalid_argument(std::string("msm: ") + what + " (" + std::to_string(a) + " vs " + std::to_string(b) +
                              ")");
}
}  // namespace detail

// sum_i scalars[i] * bases[i]; throws std::invalid_argument when the sizes differ.
template <class C>
ec::Jacobian<C> msm(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                    util::ThreadPool& pool = util::ThreadPool::global()) {
  return detail::pippenger<C>(bases, scalars, pool, MsmConfig{});
}

template <class C>
ec::Jacobian<C> msm(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                    const MsmConfig& cfg, util::ThreadPool& pool = util::ThreadPool::global()) {
  return detail::pippenger<C>(bases, scalars, pool, cfg);
}

// Density-aware MSM for Groth16 (the DensityTracker idea of bellman): scalars_all has one entry
// per variable, density one bit per variable, and bases one entry per SET bit, in order. Computes
// sum over set bits i of scalars_all[i] * bases[rank(i)], where rank(i) counts the set bits before i.
template <class C>
ec::Jacobian<C> msm_dense_subset(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars_all,
                                 const std::vector<bool>& density, util::ThreadPool& pool = util::ThreadPool::global(),
                                 const MsmConfig& cfg = {}) {
  if (density.size() != scalars_all.size())
    detail::size_mismatch("density bits != scalars", density.size(), scalars_all.size());
  std::vector<typename C::Scalar> picked;
  picked.reserve(bases.size());
  for (size_t i = 0; i < density.size(); ++i)
    if (density[i]) {
      if (picked.size() == bases.size())
        detail::size_mismatch("set density bits exceed bases", picked.size() + 1, bases.size());
      picked.push_back(scalars_all[i]);
    }
  if (picked.size() != bases.size()) detail::size_mismatch("set density bits != bases", picked.size(), bases.size());
  return detail::pippenger<C>(bases, std::span<const typename C::Scalar>(picked), pool, cfg);
}

// Reference: sum_i s_i P_i by one double-and-add per term. For tests only (slow).
template <class C>
ec::Jacobian<C> msm_naive(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars) {
  if (bases.size() != scalars.size()) detail::size_mismatch("bases != scalars", bases.size(), scalars.size());
  ec::Jacobian<C> acc = ec::Jacobian<C>::identity();
  for (size_t i = 0; i < bases.size(); ++i) acc += ec::Jacobian<C>::from_affine(bases[i]) * scalars[i];
  return acc;
}

}  // namespace zkmill::msm
