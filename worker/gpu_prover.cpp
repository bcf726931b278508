// SPDX-License-Identifier: MIT
// GpuProver: device checks at startup, proving on a named device, GpuResult -> exception.
#include "worker/gpu_prover.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "common/groth16/prover.hpp"

#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/groth16/prover.hpp"
#include "cuda/groth16/zkey_prover.hpp"
#include "cuda/runtime/device_query.hpp"
#endif

namespace zkmill::farm {

namespace {

#if defined(ZKMILL_HAVE_CUDA)
// One proof on `device` through cuda::prove_gpu, whose overloads cover both key formats and
// both curves.
template <class E, class Key>
groth16::Proof<E> prove_on(int device, const Key& pk, const cs::WitnessBundle& w, const std::string& key_id,
                           const cs::PceMatrices* pce) {
  using Fr = typename E::Fr;
  cuda::GpuProveOptions o;
  o.device = device;
  o.pce = pce;
  o.key_id = "circuit:" + key_id;  // a circuit id is a digest of the key file: a changed key is a new id
  groth16::Proof<E> proof;
  cuda::GpuProveTimings t;
  const cuda::GpuResult r =
      cuda::prove_gpu(pk, w, groth16::random_blinder<Fr>(), groth16::random_blinder<Fr>(), &proof, &t, o);
  if (!r.ok())
    throw std::runtime_error("GPU " + std::to_string(device) + ": " + cuda::to_string(r.code) + ": " + r.message);
  // Where a proof's time goes, for operators sizing a farm (the MSM and H phases are the GPU's;
  // the rest is host work and transfers the GPU may wait for).
  const std::string abc =
      pce ? fmt::format("witness unpacked {:.2f}, a b c by mat-vec {:.2f} on the device", t.unpack_ms, t.spmv_ms)
          : std::string("a b c uploaded");
  spdlog::info(
      "GPU {}: proof phases (ms): total {:.1f}; key {} ({:.1f}); upload {:.1f} (waited {:.1f}); {}; H {:.1f} beside "
      "the MSMs (idle {:.1f} for a b c; waited for after them {:.1f}); MSM A {:.1f}, B_G1 {:.1f}, B_G2 {:.1f}, L "
      "{:.1f}, H {:.1f}",
      device, t.total_ms, t.key_cache_hit ? "resident" : "uploaded", t.key_upload_ms, t.upload_ms, t.upload_wait_ms,
      abc, t.h_ms, t.abc_wait_ms, t.h_wait_ms, t.msm_a_ms, t.msm_b_g1_ms, t.msm_b_g2_ms, t.msm_l_ms, t.msm_h_ms);
  if (t.msm_room_retries > 0)
    spdlog::info(
        "GPU {}: {} MSM step(s) ran again after freeing the earlier MSMs' round buffers (device memory nearly full)",
        device, t.msm_room_retries);
  return proof;
}
#endif

}  // namespace

GpuProver::GpuProver(std::vector<int> devices) : devices_(std::move(devices)) {
  if (devices_.empty()) throw std::invalid_argument("--gpus needs at least one CUDA device index");
  if (std::set<int>(devices_.begin(), devices_.end()).size() != devices_.size())
    throw std::invalid_argument("--gpus lists a device twice");
#if defined(ZKMILL_HAVE_CUDA)
  for (int d : devices_) {
    std::string why_not;
    const auto gpu = cuda::find_gpu(d, &why_not);
    if (!gpu) throw std::invalid_argument("--gpus: " + why_not);
    described_.push_back({{"index", d}, {"name", gpu->name}, {"memory_mb", uint64_t(gpu->total_mem >> 20)}});
  }
#else
  throw std::invalid_argument(
      "--gpus: this zkmill was built without the CUDA backend (nvcc not found or ZKMILL_CUDA=OFF); rebuild with "
      "CUDA or drop --gpus to prove on the CPU");
#endif
}

// One proof of either key format on `device`.
template <class E, class Key>
groth16::Proof<E> GpuProver::prove_with(const Key& pk, const cs::WitnessBundle& w, const std::string& key_id,
                                        int device, const cs::PceMatrices* pce) {
  if (std::find(devices_.begin(), devices_.end(), device) == devices_.end())
    throw std::logic_error("GpuProver: device " + std::to_string(device) + " is not one of --gpus");
#if defined(ZKMILL_HAVE_CUDA)
  return prove_on<E>(device, pk, w, key_id, pce);
#else
  (void)pk, (void)w, (void)key_id, (void)pce;
  throw std::runtime_error("GPU proving is not compiled in");
#endif
}

groth16::Proof<curves::Bn254> GpuProver::prove(const groth16::ProvingKey<curves::Bn254>& pk, const cs::WitnessBundle& w,
                                               const std::string& key_id, int device, const cs::PceMatrices* pce) {
  return prove_with<curves::Bn254>(pk, w, key_id, device, pce);
}

groth16::Proof<curves::Bls12381> GpuProver::prove(const groth16::ProvingKey<curves::Bls12381>& pk,
                                                  const cs::WitnessBundle& w, const std::string& key_id, int device,
                                                  const cs::PceMatrices* pce) {
  return prove_with<curves::Bls12381>(pk, w, key_id, device, pce);
}

groth16::Proof<curves::Bn254> GpuProver::prove(const formats::ZkeyProvingKey<curves::Bn254>& pk,
                                               const cs::WitnessBundle& w, const std::string& key_id, int device) {
  return prove_with<curves::Bn254>(pk, w, key_id, device, nullptr);
}

groth16::Proof<curves::Bls12381> GpuProver::prove(const formats::ZkeyProvingKey<curves::Bls12381>& pk,
                                                  const cs::WitnessBundle& w, const std::string& key_id, int device) {
  return prove_with<curves::Bls12381>(pk, w, key_id, device, nullptr);
}

}  // namespace zkmill::farm
