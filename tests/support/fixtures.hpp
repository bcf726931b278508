// SPDX-License-Identifier: MIT
// Paths of the committed circom/snarkjs fixtures (tests/interop/fixtures/<curve>/<name>.<ext>,
// made by tests/interop/make_fixtures.sh; curve as snarkjs names it: "bn128", "bls12381"), for
// every test target (each defines ZKMILL_SOURCE_DIR, see cmake/zkmill_module.cmake).
#pragma once

#include <string>

namespace zkmill::test {

inline std::string interop_fixture_dir(const std::string& curve) {
  return std::string(ZKMILL_SOURCE_DIR) + "/tests/interop/fixtures/" + curve + "/";
}

inline std::string interop_fixture(const std::string& curve, const std::string& name, const std::string& ext) {
  return interop_fixture_dir(curve) + name + "." + ext;
}

}  // namespace zkmill::test
