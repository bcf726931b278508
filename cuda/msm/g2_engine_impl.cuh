// SPDX-License-Identifier: MIT
// Member definitions of G2Engine (cuda/msm/g2_engine.cuh); included only by msm_g2_<curve>.cu,
// the one translation unit per curve that instantiates the G2 kernels.
#pragma once

#include "cuda/msm/g2_engine.cuh"
#include "cuda/msm/pippenger.cuh"

namespace zkmill::cuda::pippenger {

template <class HostCurve>
G2Engine<HostCurve>::G2Engine(cudaStream_t stream, MsmScratch* shared)
    : impl_(std::make_unique<Engine<G>>(stream, shared)) {}

template <class HostCurve>
G2Engine<HostCurve>::~G2Engine() = default;

template <class HostCurve>
typename G2Engine<HostCurve>::HostJacobian G2Engine<HostCurve>::run(const Affine* d_points, const Fr* d_scalars,
                                                                    size_t n, int c_override, MsmPhaseTimes* times) {
  return impl_->run(d_points, d_scalars, n, c_override, times);
}

template <class HostCurve>
void G2Engine<HostCurve>::prepare(const Fr* d_scalars, size_t n, int c_override, bool timed) {
  impl_->prepare(d_scalars, n, c_override, timed);
}

template <class HostCurve>
typename G2Engine<HostCurve>::HostJacobian G2Engine<HostCurve>::sum(const Affine* d_points, MsmPhaseTimes* times) {
  return impl_->sum(d_points, times);
}

template <class HostCurve>
const MsmPlan& G2Engine<HostCurve>::plan() const {
  return impl_->plan();
}

}  // namespace zkmill::cuda::pippenger
