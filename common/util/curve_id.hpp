// SPDX-License-Identifier: MIT
// The curves zkmill proves over, as carried at every edge (CLI, files, wire, Redis).
// Inside, code is typed per curve; this id is dispatched on once, at the edge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkmill {

enum class CurveId : uint8_t { Bn254 = 1, Bls12_381 = 2 };

// zkmill's own names: "bn254", "bls12-381".
inline const char* curve_name(CurveId c) { return c == CurveId::Bn254 ? "bn254" : "bls12-381"; }
// snarkjs's names, used in its JSON: "bn128", "bls12381".
inline const char* curve_snarkjs_name(CurveId c) { return c == CurveId::Bn254 ? "bn128" : "bls12381"; }

// Accepts both spellings (and alt_bn128 / bls12_381).
inline std::optional<CurveId> parse_curve(std::string_view s) {
  if (s == "bn254" || s == "bn128" || s == "alt_bn128") return CurveId::Bn254;
  if (s == "bls12-381" || s == "bls12381" || s == "bls12_381") return CurveId::Bls12_381;
  return std::nullopt;
}

}  // namespace zkmill
