// SPDX-License-Identifier: MIT
// A witness-only bundle's aux, unpacked on the device (CUDA-only). The bundle keeps every aux
// value that is 0 or 1 as one bit and only the others whole (common/cs/witness_bundle.hpp,
// kind Witness): a PoRep partition's aux is ~99% bits, so the packed form is ~1/100 of the
// 32-byte values. The prover uploads the packed form and expands it here into z, instead of
// expanding on the host (n_aux * 32 bytes written, under the proving slot) and uploading
// the expansion (0.5 GiB at 2^24, 4 GiB at 2^27).
//
// Aux j is whole iff bit j of the full map is set; it is then full[rank(j)], where
// rank(j) = the number of set map bits below j; otherwise it is bit j - rank(j) of `bits`.
// rank is popcount(map words before j's) + popcount(j's word below j): the per-word counts
// are an exclusive prefix sum (cub), the rest one popcount per element. Without a map the aux
// are all whole (a plain copy) or all bits (rank = 0). The structure was checked on receipt
// (WitnessBundle::validate: popcount of the map = n_full, zero padding bits), so every index
// stays inside its array.
//
// Instantiated once, in witness_unpack.cu, for both curves' scalar fields.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/cs/pce_spmv.cuh"

namespace zkmill::cuda::pce {

// A witness-only bundle's packed aux in device memory.
template <class F>
struct DevicePackedAux {
  const F* full = nullptr;         // n_full whole values, in aux order
  const uint64_t* map = nullptr;   // map_words words (none when all aux are whole or all bits)
  const uint64_t* bits = nullptr;  // the values of the other aux, one bit each, in aux order
  uint64_t n_aux = 0, n_full = 0, map_words = 0;
};

// Device scratch unpack_aux needs for a map of `map_words` words (0 without a map).
template <class HostFr>
size_t unpack_aux_scratch_bytes(uint64_t map_words);

// Queues out[j] = aux j for j < n_aux on `stream`; `scratch` holds at least
// unpack_aux_scratch_bytes(packed.map_words) bytes (a cudaMalloc'd pointer: aligned).
template <class HostFr>
void unpack_aux(const DevicePackedAux<DeviceFr<HostFr>>& packed, DeviceFr<HostFr>* out, void* scratch,
                cudaStream_t stream);

extern template size_t unpack_aux_scratch_bytes<curves::Bn254::Fr>(uint64_t);
extern template size_t unpack_aux_scratch_bytes<curves::Bls12381::Fr>(uint64_t);
extern template void unpack_aux<curves::Bn254::Fr>(const DevicePackedAux<DeviceFr<curves::Bn254::Fr>>&,
                                                   DeviceFr<curves::Bn254::Fr>*, void*, cudaStream_t);
extern template void unpack_aux<curves::Bls12381::Fr>(const DevicePackedAux<DeviceFr<curves::Bls12381::Fr>>&,
                                                      DeviceFr<curves::Bls12381::Fr>*, void*, cudaStream_t);

}  // namespace zkmill::cuda::pce
