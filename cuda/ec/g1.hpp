// SPDX-License-Identifier: MIT
// The G1 groups of BN254 and BLS12-381 as seen by the GPU: points over the 32-bit-limb Fq
// (cuda/ff/mont32.hpp). The traits themselves are the generic DeviceGroup.
#pragma once

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/ec/device_group.hpp"

namespace zkmill::cuda::curve {

template <class HostCurve>
using G1Device = DeviceGroup<HostCurve, field::Fp32<typename HostCurve::Fq::Params>, typename HostCurve::G1Params>;

using Bls12381G1 = G1Device<curves::Bls12381>;
using Bn254G1 = G1Device<curves::Bn254>;

}  // namespace zkmill::cuda::curve
