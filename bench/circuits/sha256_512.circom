// SPDX-License-Identifier: MIT
// Benchmark circuit for the circuit-specific setup (docs/benchmarks.md): SHA-256 of a 512-bit
// message with circomlib's Sha256 (two compression blocks with the padding), about 59k
// constraints, domain 2^16. Build: circom2 bench/circuits/sha256_512.circom --r1cs
// -l tests/interop/node_modules -o OUT (add --prime bls12381 for the other curve).
pragma circom 2.0.0;

include "circomlib/circuits/sha256/sha256.circom";

component main = Sha256(512);
