// Instantiates the GPU NTT over the BN254 scalar field behind its C++ entry point.
#include "cuda/ntt/ntt.cuh"

namespace zkmill::cuda {

NttResult ntt_bn254(ff::Bn254Fr* data, size_t n, NttDirection dir) noexcept {
  return ntt::ntt_from_host(data, n, dir);
}

}  // namespace zkmill::cuda
