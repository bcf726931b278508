// SPDX-License-Identifier: MIT
// Test helpers for the serde tests: hex, DecodeError expectations, vector-file loading.
// The vector files come from tests/vectors/gen_curve_vectors.mjs (@noble/curves).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "common/serde/codec.hpp"

namespace zkmill::test {

inline std::string to_hex(std::span<const uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) s.push_back(d[x >> 4]), s.push_back(d[x & 15]);
  return s;
}

inline std::vector<uint8_t> from_hex(const std::string& s) {
  auto nib = [](char c) -> uint8_t {
    if (c >= '0' && c <= '9') return uint8_t(c - '0');
    if (c >= 'a' && c <= 'f') return uint8_t(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return uint8_t(c - 'A' + 10);
    throw std::invalid_argument("bad hex digit");
  };
  if (s.size() % 2) throw std::invalid_argument("odd hex length");
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(nib(s[2 * i]) << 4 | nib(s[2 * i + 1]));
  return out;
}

// Runs f, which must throw DecodeError with the given code; returns the message ("" if not).
inline std::string expect_decode_error(serde::DecodeErrc code, const std::function<void()>& f) {
  try {
    f();
  } catch (const serde::DecodeError& e) {
    EXPECT_EQ(serde::to_string(e.code()), std::string(serde::to_string(code))) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected DecodeError(" << serde::to_string(code) << "), got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected DecodeError(" << serde::to_string(code) << "), nothing thrown";
  return "";
}

inline nlohmann::json load_vectors(const std::string& file) {
  std::ifstream in(std::string(ZKMILL_SOURCE_DIR) + "/tests/vectors/" + file);
  if (!in) throw std::runtime_error("cannot open tests/vectors/" + file + " (run node gen_curve_vectors.mjs)");
  return nlohmann::json::parse(in);
}

// A vector entry {"infinity": bool, "x": ..., "y": ...} with decimal coordinates (Fq2 as [c0, c1]).
template <class G>
ec::Affine<G> point_from_entry(const nlohmann::json& e) {
  using Base = typename G::Base;
  if (e.at("infinity").get<bool>()) return ec::Affine<G>::identity();
  auto coord = [](const nlohmann::json& j) -> Base {
    if constexpr (serde::QuadraticExt<Base>) {
      using Fq = typename Base::Base;
      return Base{Fq::from_dec(j.at(0).get<std::string>()), Fq::from_dec(j.at(1).get<std::string>())};
    } else {
      return Base::from_dec(j.get<std::string>());
    }
  };
  return ec::Affine<G>::from_xy(coord(e.at("x")), coord(e.at("y")));
}

}  // namespace zkmill::test
