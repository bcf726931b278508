// SPDX-License-Identifier: MIT
// The G2 MSM engine behind a compilation firewall (CUDA-only). A G2 Pippenger engine is the
// generic pippenger::Engine over Fq2 XYZZ buckets, whose kernels take cicc minutes per curve to
// compile (every Fq2 multiplication is three fully unrolled Montgomery products). They are
// therefore instantiated once, in msm_g2_<curve>.cu, and everything else (the prover, the
// benchmark suite) reaches them through this class, whose members are defined there.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "cuda/ec/g2.hpp"
#include "cuda/msm/pippenger_plan.hpp"

namespace zkmill::cuda::pippenger {

struct MsmScratch;
struct MsmPhaseTimes;
template <class G>
class Engine;

template <class HostCurve>
class G2Engine {
 public:
  using G = curve::G2Device<HostCurve>;
  using Affine = typename G::Affine;
  using Fr = typename G::Fr;
  using HostJacobian = typename G::HostJacobian;

  // As Engine's: `shared` scratch (nullptr: its own), on `stream`.
  explicit G2Engine(cudaStream_t stream, MsmScratch* shared = nullptr);
  ~G2Engine();
  G2Engine(const G2Engine&) = delete;
  G2Engine& operator=(const G2Engine&) = delete;

  HostJacobian run(const Affine* d_points, const Fr* d_scalars, size_t n, int c_override = 0,
                   MsmPhaseTimes* times = nullptr);
  void prepare(const Fr* d_scalars, size_t n, int c_override = 0, bool timed = false);
  HostJacobian sum(const Affine* d_points, MsmPhaseTimes* times = nullptr);
  const MsmPlan& plan() const;

 private:
  std::unique_ptr<Engine<G>> impl_;
};

extern template class G2Engine<curves::Bn254>;
extern template class G2Engine<curves::Bls12381>;

}  // namespace zkmill::cuda::pippenger
