// SPDX-License-Identifier: MIT
// Dispatch on a runtime CurveId to code templated on the curve, once, at the edge
// (CLI, wire, files): with_curve(id, [&]<class E>(E) { ... }).
#pragma once

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"

namespace zkmill::curves {

template <class Fn>
decltype(auto) with_curve(CurveId id, Fn&& fn) {
  if (id == CurveId::Bn254) return fn(Bn254{});
  return fn(Bls12381{});
}

}  // namespace zkmill::curves
