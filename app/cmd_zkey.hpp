// SPDX-License-Identifier: MIT
// What cmd_zkey.cpp shares with other commands: `groth16 setup` is snarkjs's alias of
// `zkey new` and runs the same body.
#pragma once

#include <string>

namespace zkmill::cli {

// The initial key of the circuit `r1cs_path` from the prepared ptau `ptau_path`, written
// atomically to `out`; prints the circuit hash and a summary line naming `command`. Exit
// status: 0 written, 2 any error (named, nothing written).
int run_zkey_new(const std::string& r1cs_path, const std::string& ptau_path, const std::string& out, bool quiet,
                 const char* command);

}  // namespace zkmill::cli
