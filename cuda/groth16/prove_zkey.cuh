// SPDX-License-Identifier: MIT
// The GPU prover's entry body for snarkjs keys (CUDA-only), templated on the curve E;
// prover_<curve>.cu instantiate it. The key's sections map one to one onto the native prover's
// (A, B1, B2, C in the place of L, H), so prove.cuh's prove_key does the work; what is specific
// here is the shape checks and the H convention: QuotientPlan::snarkjs with snarkjs's coset
// (formats::SnarkjsCoset: zeta, and the exponent k relating snarkjs's root to ours).
#pragma once

#include <string>

#include "common/formats/snarkjs_roots.hpp"
#include "cuda/groth16/prove.cuh"
#include "cuda/groth16/zkey_prover.hpp"

namespace zkmill::cuda::g16 {

template <class E>
GpuResult prove_zkey_impl(const formats::ZkeyProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                          const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* timings,
                          const GpuProveOptions& o) noexcept {
  using Fr = typename E::Fr;
  const uint32_t log_n = pk.file.log_domain_size();
  HostKey<E> key;
  QuotientPlan<Fr> plan;
  GpuResult made = run_guarded([&] {
    const uint64_t n_vars = pk.n_vars(), n_inputs = uint64_t(pk.n_public()) + 1;
    if (pk.a.size() != n_vars || pk.b1.size() != n_vars || pk.b2.size() != n_vars || pk.c.size() != n_vars - n_inputs ||
        pk.h.size() != pk.domain_size() || pk.domain_size() != uint64_t(1) << log_n)
      throw std::invalid_argument("GPU prover: the sections of the key " + pk.file.name() +
                                  " do not have the sizes its header states");
    const std::string shape = o.key_id.empty() ? "zkey " + std::to_string(n_vars) + " " + std::to_string(n_inputs) +
                                                     " " + std::to_string(log_n)
                                               : std::string();
    key = {pk.a, pk.b1, pk.c, pk.h, pk.b2, &pk.vk, shape};
    const auto coset = formats::SnarkjsCoset<Fr>::of(log_n);
    plan.basis = groth16::HBasis::kCosetLagrange;
    plan.snarkjs = true;
    plan.k = coset.k;
    plan.shift = coset.zeta;
  });
  if (!made.ok()) return made;
  auto validate = [&] {
    if (w.kind() != cs::BundleKind::Zkey)
      throw std::invalid_argument(std::string("GPU prover: witness bundle is of kind ") +
                                  cs::bundle_kind_name(w.kind()) +
                                  ", a .zkey needs a zkey bundle (from formats::synthesize_zkey)");
    if (w.n_inputs() != uint64_t(pk.n_public()) + 1 || w.n_inputs() + w.n_aux() != pk.n_vars() ||
        w.n_rows() != pk.domain_size())
      throw std::invalid_argument("GPU prover: witness bundle (" + std::to_string(w.n_inputs()) + " inputs, " +
                                  std::to_string(w.n_aux()) + " aux, " + std::to_string(w.n_rows()) +
                                  " rows) does not have the shape of the key " + pk.file.name());
  };
  return prove_key<E>(key, validate, w, log_n, plan, r, s, out, timings, o);
}

}  // namespace zkmill::cuda::g16
