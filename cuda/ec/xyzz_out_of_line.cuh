// SPDX-License-Identifier: MIT
// XYZZ group operations as out-of-line device functions, for kernels that run them outside the
// hot loops: the MSM's window reduction, the precomputed copies of a resident key, the point
// IFFT of prepare phase2, the bench's point generator.
//
// Why out of line: every XYZZ operation inlines to 100-300 fully unrolled field products (Fq2
// for G2: three Fq products each), and nvcc's cicc spends minutes on each kernel that inlines a
// few of them. Measured on dev-2c (PTX only, as CI builds): the G2 window reduction's BLS12-381
// unit took 211 s of cicc inlined and 30 s with its additions out of line; the precomputed-copies
// kernel took the BLS12-381 G2 MSM unit from 137 to 187 s, and to 129 s with its doubling and
// affine conversion out of line. A call is small beside the operation's 100-300 products. The
// accumulation kernels, where the time goes, keep their inlined arithmetic.
#pragma once

#include "cuda/ec/xyzz.hpp"

namespace zkmill::cuda::curve {

// acc += p (add-2008-s, every exceptional case handled).
template <class B>
__device__ __noinline__ void add_out_of_line(B& acc, const B& p) {
  acc.add(p);
}

// 2 p (dbl-2008-s-1).
template <class B>
__device__ __noinline__ B dbl_out_of_line(const B& p) {
  return p.dbl();
}

// The affine point (X / ZZ, Y / ZZZ) of a finite XYZZ point with one inversion (Fermat, rolled:
// see ZK_NO_UNROLL): t = 1 / (ZZ ZZZ), so 1 / ZZ = ZZZ t and 1 / ZZZ = ZZ t.
template <class F>
__device__ __noinline__ AffinePt<F> affine_out_of_line(const Xyzz<F>& p) {
  const F t = (p.ZZ * p.ZZZ).inverse();
  return {p.X * (p.ZZZ * t), p.Y * (p.ZZ * t)};
}

}  // namespace zkmill::cuda::curve
