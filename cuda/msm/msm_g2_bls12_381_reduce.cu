// SPDX-License-Identifier: MIT
// The window reduction of the GPU G2 MSM over BLS12-381 (step 5, cuda/msm/pippenger_reduce.cuh): the
// one instantiation of Engine::reduce_windows and its kernels for this curve's G2, apart from the
// rest of the engine (msm_g2_bls12_381.cu) so that the two halves compile in parallel.
#include "cuda/msm/pippenger_reduce.cuh"

namespace zkmill::cuda::pippenger {
template void Engine<curve::G2Device<curves::Bls12381>>::reduce_windows(uint32_t);
}  // namespace zkmill::cuda::pippenger
