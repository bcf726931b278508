// SPDX-License-Identifier: MIT
// snarkjs JSON forms of points and scalars (verification_key.json, proof.json, public.json).
//
// Source: iden3/ffjavascript src/wasm_curve.js (toObject / fromObject) and snarkjs's
// stringifyBigInts, which print every field element as a canonical decimal string:
//   - G1: ["x", "y", "1"]; the point at infinity is ["0", "1", "0"] (toObject of zero);
//   - G2: [["x.c0", "x.c1"], ["y.c0", "y.c1"], ["1", "0"]]; infinity
//         [["0", "0"], ["1", "0"], ["0", "0"]];
//   - Fr (public signals, scalars): "decimal".
// fromObject in ffjavascript would read z not in {0, 1} as Jacobian (X, Y, Z), but snarkjs
// only ever writes affine points (toAffine before toObject), so a z other than 1 or 0 is
// rejected here as malformed rather than silently reinterpreted; with z = 0 only the exact
// infinity form above is accepted. A two-element [x, y] (affine, no z) is accepted too.
// Decimal strings must be digits only and < the modulus (values >= p are refused, not reduced).
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/serde/codec.hpp"

namespace zkmill::serde::snarkjs {

namespace json_detail {

inline constexpr const char* kFormat = "snarkjs JSON";

// Errors name the JSON field first, as a path into the document ("pi_a[1]", "IC[3][0]",
// "[2]" for public.json's third signal), then what is wrong, then the group and format:
//   pi_a[1]: not a decimal field element: 'abc' (bn254 G1, snarkjs JSON)
[[noreturn]] inline void json_fail(DecodeErrc code, const char* group, const std::string& detail) {
  throw DecodeError(code, detail + " (" + group + ", " + kFormat + ")");
}

template <class Fq>
Fq parse_fq(const nlohmann::json& j, const char* group, const std::string& what) {
  if (!j.is_string())
    json_fail(DecodeErrc::Malformed, group,
              what + ": not a decimal field element (a JSON " + j.type_name() + ", not a string)");
  const auto& s = j.get_ref<const std::string&>();
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    json_fail(DecodeErrc::Malformed, group, what + ": not a decimal field element: '" + s.substr(0, 80) + "'");
  auto v = Fq::parse_dec(s);  // nullopt: >= p (or wider than the field)
  if (!v) json_fail(DecodeErrc::NonCanonical, group, what + ": non-canonical field element (>= p)");
  return *v;
}

template <class Base>
Base parse_coord(const nlohmann::json& j, const char* group, const std::string& what) {
  if constexpr (QuadraticExt<Base>) {
    using Fq = typename Base::Base;
    if (!j.is_array() || j.size() != 2)
      json_fail(DecodeErrc::Malformed, group, what + ": not a pair [c0, c1] of decimal strings");
    return Base{parse_fq<Fq>(j[0], group, what + "[0]"), parse_fq<Fq>(j[1], group, what + "[1]")};
  } else {
    return parse_fq<Base>(j, group, what);
  }
}

template <class Base>
nlohmann::json coord_to_json(const Base& a) {
  if constexpr (QuadraticExt<Base>)
    return nlohmann::json::array({a.c0.to_dec(), a.c1.to_dec()});
  else
    return a.to_dec();
}

}  // namespace json_detail

template <class G>
nlohmann::json point_to_json(const ec::Affine<G>& p) {
  using Base = typename G::Base;
  using json_detail::coord_to_json;
  if (p.infinity)
    return nlohmann::json::array(
        {coord_to_json(Base::zero()), coord_to_json(Base::one()), coord_to_json(Base::zero())});
  return nlohmann::json::array({coord_to_json(p.x), coord_to_json(p.y), coord_to_json(Base::one())});
}

// `field` names the point in errors ("pi_a", "IC[2]"); coordinates are [0], [1], [2] below it.
template <class G>
ec::Affine<G> point_from_json(const nlohmann::json& j, Validation v = Validation::Full,
                              const std::string& field = "point") {
  using Base = typename G::Base;
  using json_detail::json_fail;
  using json_detail::parse_coord;
  if (!j.is_array() || (j.size() != 2 && j.size() != 3))
    json_fail(DecodeErrc::Malformed, G::kName, field + ": a point must be an array [x, y, z] (or [x, y])");
  Base x = parse_coord<Base>(j[0], G::kName, field + "[0]");
  Base y = parse_coord<Base>(j[1], G::kName, field + "[1]");
  Base z = j.size() == 3 ? parse_coord<Base>(j[2], G::kName, field + "[2]") : Base::one();
  if (z.is_zero()) {
    if (!x.is_zero() || !y.is_one())
      json_fail(DecodeErrc::Malformed, G::kName, field + ": z = 0 must be the point at infinity [0, 1, 0]");
    return ec::Affine<G>::identity();
  }
  if (!z.is_one()) json_fail(DecodeErrc::Malformed, G::kName, field + ": z must be 1 (affine) or 0 (infinity)");
  try {
    return finish_point(ec::Affine<G>::from_xy(x, y), v, json_detail::kFormat);
  } catch (const DecodeError& e) {
    throw DecodeError(e.code(), field + ": " + e.what());
  }
}

// Fr as a canonical decimal string (public signals, proof/verification-key scalars).
template <class F>
nlohmann::json scalar_to_json(const F& s) {
  return s.to_dec();
}
template <class F>
F scalar_from_json(const nlohmann::json& j, const std::string& field = "scalar") {
  return json_detail::parse_fq<F>(j, F::Params::kName, field);
}

// public.json: an array of decimal strings; errors name the element ("[3]").
template <class F>
std::vector<F> scalars_from_json(const nlohmann::json& j) {
  if (!j.is_array())
    json_detail::json_fail(DecodeErrc::Malformed, F::Params::kName,
                           std::string("expected an array of decimal strings, not a JSON ") + j.type_name());
  std::vector<F> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    // Appended piecewise: GCC 12 warns (-Wrestrict, a known false positive) on "[" + s + "]".
    std::string field(1, '[');
    field += std::to_string(i);
    field += ']';
    out.push_back(scalar_from_json<F>(j[i], field));
  }
  return out;
}

}  // namespace zkmill::serde::snarkjs
