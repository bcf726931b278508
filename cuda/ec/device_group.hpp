// SPDX-License-Identifier: MIT
// One elliptic-curve group (G1 over Fq, or G2 over Fq2) as the GPU sees it: which 32-bit-limb
// coordinate field it uses, how the CPU's point layout looks in device memory, and the host-side
// conversions between the device's XYZZ results and the CPU's Jacobian points. The MSM engine
// (cuda/msm/pippenger.cuh) is written against this traits struct only, so the same kernels run
// for both groups. Usable from host code built without nvcc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ec/short_weierstrass.hpp"
#include "cuda/ec/xyzz.hpp"

namespace zkmill::cuda::curve {

// Byte-for-byte image of the CPU's ec::Affine ({Base x, y; bool infinity}, 8-byte aligned), so a
// host array of CPU points is uploaded with one copy and read on the device in place. The
// static_asserts in DeviceGroup check the layout against the real CPU type.
template <class F>
struct alignas(8) HostAffineImage {
  uint32_t x[F::kWords];
  uint32_t y[F::kWords];
  bool infinity;
};

// HostCurve: the CPU curve struct (curves::Bn254, curves::Bls12381); Fq: the device coordinate
// field (field::Fp32 for G1, field::Fp2 for G2); GroupParams: the CPU group's params struct
// (HostCurve::G1Params or ::G2Params), which fixes the CPU affine and Jacobian types.
template <class HostCurve, class FqDevice, class GroupParams>
struct DeviceGroup {
  using Host = HostCurve;
  using Fq = FqDevice;
  using Fr = field::Fp32<typename HostCurve::Fr::Params>;
  using Affine = AffinePt<Fq>;
  using Bucket = Xyzz<Fq>;
  using HostAffine = ec::Affine<GroupParams>;
  using HostJacobian = ec::Jacobian<GroupParams>;
  using HostFq = typename GroupParams::Base;
  using HostFr = typename HostCurve::Fr;
  using HostImage = HostAffineImage<Fq>;

  static_assert(sizeof(HostImage) == sizeof(HostAffine), "device image of the CPU affine point has drifted");
  static_assert(offsetof(HostImage, y) == offsetof(HostAffine, y), "device image of the CPU affine point has drifted");
  static_assert(offsetof(HostImage, infinity) == offsetof(HostAffine, infinity),
                "device image of the CPU affine point has drifted");
  static_assert(sizeof(Fr) == sizeof(HostFr), "device scalar must have the CPU scalar's bytes");
  static_assert(sizeof(Fq) == sizeof(HostFq), "device coordinate field must have the CPU field's bytes");
  static_assert(sizeof(Fq) == 4 * Fq::kWords, "device coordinate field must have no padding");

  // XYZZ (X/ZZ, Y/ZZZ) to Jacobian (X'/Z'^2, Y'/Z'^3): with Z' = ZZZ, Z'^2 = ZZZ^2 = ZZ^3, so
  // X' = X ZZ^2 and Y' = Y ZZZ^2.
  static HostJacobian to_host(const Bucket& p) {
    if (p.is_infinity()) return HostJacobian::identity();
    const auto X = p.X.to_host(), Y = p.Y.to_host(), ZZ = p.ZZ.to_host(), ZZZ = p.ZZZ.to_host();
    HostJacobian r;
    r.X = X * ZZ.square();
    r.Y = Y * ZZZ.square();
    r.Z = ZZZ;
    return r;
  }
  static Bucket from_host(const HostAffine& a) {
    if (a.infinity) return Bucket::infinity();
    return Bucket::from_affine(Fq::from_host(a.x), Fq::from_host(a.y));
  }
  static Affine to_device_affine(const HostAffine& a) {
    if (a.infinity) return Affine::infinity();
    return {Fq::from_host(a.x), Fq::from_host(a.y)};
  }
};

}  // namespace zkmill::cuda::curve
