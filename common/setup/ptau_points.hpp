// SPDX-License-Identifier: MIT
// Reading a run of points out of a .ptau section (LEM layout, serde/snarkjs_binary), shared by
// prepare phase2 (which transforms whole sections) and zkey new (which reads a circuit's
// slice of the Lagrange sections).
#pragma once

#include <atomic>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/formats/ptau.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::setup {

// Points first .. first+count-1 of section `sec` of `f`, decoded in parallel: canonical and on
// the curve. Subgroup membership is the ceremony's business (snarkjs checks none here either).
// `Out` is ec::Affine<C> or ec::Jacobian<C>. A bad point fails the file (PtauFile::fail),
// naming `what` and the point's index.
template <class C, class Out = ec::Affine<C>>
std::vector<Out> decode_ptau_points(const formats::PtauFile& f, std::span<const uint8_t> sec, size_t first,
                                    size_t count, const char* what, util::ThreadPool& pool) {
  using Codec = serde::snarkjs::Lem<C>;
  std::vector<Out> out(count);
  std::atomic<bool> bad{false};
  std::atomic<size_t> bad_at{0};
  pool.parallel_for(
      count,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          try {
            const auto p = Codec::decode(sec.subspan((first + i) * Codec::kSize, Codec::kSize),
                                         serde::Validation::SkipSubgroupCheck);
            if constexpr (std::is_same_v<Out, ec::Affine<C>>)
              out[i] = p;
            else
              out[i] = Out::from_affine(p);
          } catch (const serde::DecodeError&) {
            if (!bad.exchange(true)) bad_at = first + i;
            return;
          }
        }
      },
      1024);
  if (bad)
    f.fail(std::string(what) + " point " + std::to_string(bad_at.load()) + " is not a valid " + C::kName +
           " point (corrupt file)");
  return out;
}

}  // namespace zkmill::setup
