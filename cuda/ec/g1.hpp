// The G1 groups of BN254 and BLS12-381 as seen by the GPU: which 32-bit-limb fields they use,
// how the CPU's point layouts look in device memory, and the host-side conversions between the
// device's XYZZ results and the CPU's Jacobian points. Usable from host code built without nvcc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/ec/xyzz.hpp"

namespace zkmill::cuda::curve {

// Byte-for-byte image of the CPU's ec::Affine<G1> ({Fq x, y; bool infinity}, 8-byte aligned),
// so a host array of CPU points is uploaded with one copy and read on the device in place.
// The static_asserts in G1Device check the layout against the real CPU type.
template <class F>
struct alignas(8) HostAffineImage {
  uint32_t x[F::N];
  uint32_t y[F::N];
  bool infinity;
};

template <class HostCurve>
struct G1Device {
  using Host = HostCurve;
  using Fq = field::Fp32<typename HostCurve::Fq::Params>;
  using Fr = field::Fp32<typename HostCurve::Fr::Params>;
  using Affine = AffinePt<Fq>;
  using Bucket = Xyzz<Fq>;
  using HostAffine = typename HostCurve::G1Affine;
  using HostJacobian = typename HostCurve::G1;
  using HostFr = typename HostCurve::Fr;
  using HostImage = HostAffineImage<Fq>;

  static_assert(sizeof(HostImage) == sizeof(HostAffine), "device image of the CPU affine point has drifted");
  static_assert(offsetof(HostImage, y) == offsetof(HostAffine, y), "device image of the CPU affine point has drifted");
  static_assert(offsetof(HostImage, infinity) == offsetof(HostAffine, infinity),
                "device image of the CPU affine point has drifted");
  static_assert(sizeof(Fr) == sizeof(HostFr), "device scalar must have the CPU scalar's bytes");
  static_assert(sizeof(Fq) == sizeof(typename HostCurve::Fq), "device Fq must have the CPU Fq's bytes");

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

using Bls12381G1 = G1Device<curves::Bls12381>;
using Bn254G1 = G1Device<curves::Bn254>;

}  // namespace zkmill::cuda::curve
