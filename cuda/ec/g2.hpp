// SPDX-License-Identifier: MIT
// The G2 groups of BN254 and BLS12-381 as seen by the GPU: points of the sextic twist
// y^2 = x^3 + b' over Fq2 (cuda/ff/fp2.hpp). The XYZZ formulas of cuda/ec/xyzz.hpp hold
// unchanged (they use a = 0 only, and b' never enters them), and (0, 0) is still off the curve
// (b' != 0), so it still encodes infinity in affine form.
#pragma once

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/ec/device_group.hpp"
#include "cuda/ff/fp2.hpp"

namespace zkmill::cuda::curve {

template <class HostCurve>
using G2Device =
    DeviceGroup<HostCurve, field::Fp2<field::Fp32<typename HostCurve::Fq::Params>>, typename HostCurve::G2Params>;

using Bls12381G2 = G2Device<curves::Bls12381>;
using Bn254G2 = G2Device<curves::Bn254>;

}  // namespace zkmill::cuda::curve
