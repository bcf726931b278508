// SPDX-License-Identifier: MIT
// `powersoftau prepare phase2`: appends the Lagrange-basis sections 12..15 to a .ptau, the same
// file snarkjs writes (src/powersoftau_preparephase2.js): header and sections 2..7 copied, then
// for tauG1, tauG2, alphaTauG1, betaTauG1 and every p = 0..power the group IFFT of the first 2^p
// points (setup/group_ops.hpp); tauG1 also gets p = power + 1, over its 2^(power+1) - 1 points
// and the point at infinity. Sections stream: one power of one series is in memory at a time.
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
