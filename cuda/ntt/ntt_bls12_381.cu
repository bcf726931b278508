// Instantiates the GPU NTT over the BLS12-381 scalar field behind its C++ entry point.
#include "cuda/ntt/ntt.cuh"

namespace zkmill::cuda {

NttResult ntt_bls12_381(ff::Bls12381Fr* data, size_t n, NttDirection dir) noexcept {
  return ntt::ntt_from_host(data, n, dir);
}

}  // namespace zkmill::cuda
