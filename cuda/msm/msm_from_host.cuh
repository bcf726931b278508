// SPDX-License-Identifier: MIT
// The host entry of the GPU MSM, shared by the G1 and G2 translation units: argument checks,
// upload of the CPU's arrays as they are, one Engine run, and every failure turned into a
// GpuResult. CUDA-only (included by msm_g1.cu and msm_g2_<curve>.cu, which also
// instantiate the engine it runs).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "cuda/msm/msm.hpp"
#include "cuda/msm/pippenger.cuh"

namespace zkmill::cuda::pippenger {

template <class G>
MsmResult msm_from_host(const typename G::HostAffine* points, const typename G::HostFr* scalars, size_t n,
                        typename G::HostJacobian* out, const MsmOptions& options) noexcept {
  if (out == nullptr) return {GpuErrc::kInvalidArgument, "GPU MSM: output pointer is null"};
  if (n != 0 && (points == nullptr || scalars == nullptr))
    return {GpuErrc::kInvalidArgument, "GPU MSM: points or scalars pointer is null"};
  return run_guarded([&] {
    if (n == 0) {
      *out = G::HostJacobian::identity();
      return;
    }
    // Precomputed copies: t of them for the width chosen for them (or forced).
    constexpr int bits = G::Fr::kBits;
    const PointCopies copies = copies_for(n, bits, precompute_factor(options.precompute), options.window_bits);
    (void)make_plan(n, bits, options.window_bits, copies);  // reject bad sizes before allocating
    int devices = 0;
    ZK_CUDA_OK(cudaGetDeviceCount(&devices));
    Stream stream;
    DeviceBuffer<typename G::Affine> d_points(n * size_t(copies.copies), "MSM points");
    DeviceBuffer<typename G::Fr> d_scalars(n, "MSM scalars");
    {
      // The CPU array is copied byte for byte (DeviceGroup static_asserts the layout) and
      // compacted on the device: no per-point work on the host.
      DeviceBuffer<typename G::HostImage> image(n, "MSM points (CPU layout)");
      ZK_CUDA_OK(cudaMemcpyAsync(image.get(), points, n * sizeof(typename G::HostAffine), cudaMemcpyHostToDevice,
                                 stream.get()));
      Engine<G>::points_from_image(image.get(), d_points.get(), uint32_t(n), stream.get());
      ZK_CUDA_OK(cudaMemcpyAsync(d_scalars.get(), scalars, n * sizeof(typename G::HostFr), cudaMemcpyHostToDevice,
                                 stream.get()));
      Engine<G>::precompute(d_points.get(), uint32_t(n), copies.copies, precompute_shift(bits, copies.c, copies.copies),
                            stream.get());
      stream.sync();  // `image` is freed at the end of this scope
    }
    Engine<G> engine(stream.get());
    engine.set_accumulation(options.accumulation);
    engine.set_affine_round(options.affine_round);
    engine.set_affine_budget(options.affine_budget_bytes);
    const auto result = engine.run(d_points.get(), d_scalars.get(), n, options.window_bits, nullptr, copies);
    *out = result;
  });
}

}  // namespace zkmill::cuda::pippenger
