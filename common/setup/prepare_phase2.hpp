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
// of each multiplication (GLV/GLS, group_ops.hpp) and the GPU.
#pragma once

#include <string>

#include "common/formats/ptau.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::setup {

struct PrepareStats {
  double seconds = 0;
  uint32_t power = 0;
  CurveId curve{};
};

// Reads `in`, writes `out` atomically. Throws formats::FormatError for a bad input file (named)
// and std::runtime_error for a ptau this cannot prepare; nothing is written then.
PrepareStats prepare_phase2(const std::string& in, const std::string& out, bool progress,
                            util::ThreadPool& pool = util::ThreadPool::global());

}  // namespace zkmill::setup
