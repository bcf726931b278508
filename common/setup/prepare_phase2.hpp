// SPDX-License-Identifier: MIT
// `powersoftau prepare phase2`: appends the Lagrange-basis sections 12..15 to a .ptau, the same
// file snarkjs writes (src/powersoftau_preparephase2.js): header and sections 2..7 copied, then
// for tauG1, tauG2, alphaTauG1, betaTauG1 and every p = 0..power the group IFFT of the first 2^p
// points (setup/group_ops.hpp); tauG1 also gets p = power + 1, over its 2^(power+1) - 1 points
// and the point at infinity. Sections stream: one power of one series is in memory at a time.
//
// Why a separate transform per power (the work is sum_p (2^p / 2) p, about twice the largest
// one's): the smaller powers cannot be had from the largest for less. With M = 2^p, w the
// M-th root and w' the 2M-th one (w = w'^2), L^(p)_i has degree < M, so interpolating it on
// the 2M points gives L^(p)_i(tau) = sum_j L^(p)_i(g_j) L^(p+1)_j(tau): the even g_j = w^k give
// L^(p+1)_(2i), but the odd ones, the coset w' <w>, give L^(p)_i(w' w^k) = (-2/M) / (w' w^(k-i) - 1)
// (as (w' w^k)^M = -1): a dense circulant in k - i, whose product with M points costs a group
// FFT, M multiplications and an inverse FFT, more than the direct IFFT of size M. Nor is the
// size-M transform inside the size-2M one: it transforms P_0 .. P_(M-1) alone, while every
// stage of the larger one mixes in P_j, j >= M (P_j +- P_(j+M) by frequency, or even and odd
// j by time). Radix-4 butterflies do not cut multiplications either: the product by the 4th
// root of unity, free for complex numbers, is a full-size scalar multiplication in the group,
// so 4 points over 2 stages cost 3 twiddles + 1 = 4, as in radix 2. What is left is the cost
// of each multiplication (GLV/GLS, group_ops.hpp) and the GPU (cuda/ntt/point_ntt.cuh, plugged
// in through PrepareOffload below).
#pragma once

#include <functional>
#include <span>
#include <string>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/formats/ptau.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::setup {

// A transform of one power on another device (app/cmd_powersoftau.cpp plugs in the GPU's,
// cuda/ntt/point_ntt.hpp; common/ cannot name it): out = the group IFFT of `in` (2^k points,
// affine, the point at infinity allowed), the same group elements as group_ifft. Calls
// progress(m) as it goes, m scalar multiplications done (group_ifft_cost in all). Returns an
// empty string on success, else why it failed.
template <class C>
using GroupIfftOffload = std::function<std::string(std::span<const ec::Affine<C>> in, std::span<ec::Jacobian<C>> out,
                                                   const std::function<void(uint64_t)>& progress)>;

struct PrepareOffload {
  GroupIfftOffload<curves::Bn254::G1Params> bn254_g1;
  GroupIfftOffload<curves::Bn254::G2Params> bn254_g2;
  GroupIfftOffload<curves::Bls12381::G1Params> bls12381_g1;
  GroupIfftOffload<curves::Bls12381::G2Params> bls12381_g2;
  std::string name = "GPU";  // for messages
  // Transforms of fewer points run on the CPU (microseconds there; a device round trip each).
  uint32_t min_log_n = 8;
  // A failed offload is an error (--gpu on) rather than a warning and the CPU for the rest.
  bool required = false;

  template <class C>
  const GroupIfftOffload<C>& get() const {
    if constexpr (std::is_same_v<C, curves::Bn254::G1Params>)
      return bn254_g1;
    else if constexpr (std::is_same_v<C, curves::Bn254::G2Params>)
      return bn254_g2;
    else if constexpr (std::is_same_v<C, curves::Bls12381::G1Params>)
      return bls12381_g1;
    else
      return bls12381_g2;
  }
};

struct PrepareStats {
  double seconds = 0;
  uint32_t power = 0;
  CurveId curve{};
  uint64_t offloaded = 0;  // transforms done by the offload device
  uint64_t on_cpu = 0;     // transforms done on the CPU
};

// Reads `in`, writes `out` atomically. Throws formats::FormatError for a bad input file (named)
// and std::runtime_error for a ptau this cannot prepare (or, with offload->required, whose
// offloaded transform failed); nothing is written then. `offload` (optional): the device that
// transforms powers of at least 2^min_log_n points; the rest, and everything after a failed
// offload when it is not required (with a warning), run on `pool`.
PrepareStats prepare_phase2(const std::string& in, const std::string& out, bool progress,
                            util::ThreadPool& pool = util::ThreadPool::global(),
                            const PrepareOffload* offload = nullptr);

}  // namespace zkmill::setup
