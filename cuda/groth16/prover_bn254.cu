// SPDX-License-Identifier: MIT
// GPU Groth16 prover for BN254: native and snarkjs keys (cuda/groth16/prover_instantiate.cuh).
#include "cuda/groth16/prover_instantiate.cuh"

ZKMILL_INSTANTIATE_GPU_PROVER(zkmill::curves::Bn254)
