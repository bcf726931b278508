// SPDX-License-Identifier: MIT
// Public entry point of the GPU Groth16 prover for snarkjs keys (.zkey, BN254 and BLS12-381):
// the same proof, bit for bit, as formats::prove_zkey_with_randomness; plain C++ so callers
// built without nvcc link it.
//
// Same device machinery as the native entries (cuda/groth16/prover.hpp): the per-device
// context, its key cache (a zkey's A, B1, C, H and B2 sections stay resident under the key's
// id), the MSM engines, and the GPU NTT. The bundle is a cs::BundleKind::Zkey bundle from
// formats::synthesize_zkey; H follows snarkjs's convention (formats::SnarkjsQuotient: a b - c
// evaluated on the odd coset of the 2n-th roots of unity) and is computed on the device with
// the NTT's coset shift set to snarkjs's zeta. GpuProveTimings' msm_l_ms is the C MSM here.
// Nothing throws across this API: every failure is a GpuResult (callers fall back to the CPU).
#pragma once

#include <string>

#include "common/cs/witness_bundle.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/formats/zkey.hpp"
#include "common/groth16/proof.hpp"
#include "cuda/groth16/prover.hpp"

namespace zkmill::cuda {

// out is written only on success. r, s are the blinders (prove_zkey_with_randomness's r, s).
// options.key_id: the key's identity in the device key cache; empty: a fingerprint of the key.
// Callers holding the .zkey file pass zkey_cache_id(path). The same entry name as the native
// keys' prove_gpu (prover.hpp), overloaded on the key type, E deduced from it.
template <class E>
GpuResult prove_gpu(const formats::ZkeyProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                    const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* timings = nullptr,
                    const GpuProveOptions& options = {}) noexcept;

// "zkey:<absolute path>:<size>:<mtime>": a key-cache id that changes when the file does (a
// rewritten key never proves against stale resident points). Empty when the file cannot be
// read (the caller then leaves the id empty and the prover fingerprints the key).
std::string zkey_cache_id(const std::string& path) noexcept;

}  // namespace zkmill::cuda
