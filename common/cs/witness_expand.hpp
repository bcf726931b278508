// SPDX-License-Identifier: MIT
// The prove side of witness-only bundles (BundleKind::Witness, witness_bundle.hpp): from the
// shipped inputs and bit-packed aux, and the circuit's PCE matrices (the memory-mapped KEY.pce
// file the synth side records and uses, pce_matrices.hpp), rebuild exactly the Native bundle
// that ProvingCS would have made on the synth worker: inputs, aux, a = A z, b = B z, c = C z
// (z = inputs ‖ aux) by the PCE's multi-threaded mat-vec, and the recorded density bitmaps.
// Field arithmetic is exact, so the result is byte for byte the same bundle and the proofs are
// the same proofs; only the bytes on the wire shrink (a, b, c are three n_rows-element
// vectors, and most aux values of a SHA-256 circuit are bits).
//
// The bundle names its matrices by PCE id (PceMatrices::id(), a content digest of the file):
// the synth side stamps it and this side refuses a bundle stamped for other matrices (another
// circuit version, another size) instead of computing a bogus a, b, c. Like the bundle
// checksum, it catches accidental mismatches, not forgery.
#pragma once

#include <algorithm>
#include <string>

#include "common/cs/pce_matrices.hpp"
#include "common/cs/witness_bundle.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::cs {

// Throws BundleError when `w` is not a witness bundle, was made for other matrices than `pce`,
// or does not fit them. Shared by expand_witness and the GPU prover (which computes a, b, c
// on the device from the same matrices).
inline void check_witness_for(const WitnessBundle& w, const PceMatrices& pce) {
  if (w.kind() != BundleKind::Witness)
    throw BundleError(std::string("expected a witness-only bundle, got one of kind ") + bundle_kind_name(w.kind()));
  if (w.pce_id() != pce.id())
    throw BundleError("the bundle's witness is for constraint matrices (PCE) " + short_hex(w.pce_id()) +
                      ", this worker's matrices of the circuit are " + short_hex(pce.id()) +
                      " (synth and prove workers run different circuit versions?)");
  const PceShape& s = pce.shape();
  if (w.curve() != s.curve || w.n_inputs() != s.n_inputs || w.n_aux() != s.n_aux || w.n_rows() != pce.n_rows())
    throw BundleError("witness of " + std::to_string(w.n_inputs()) + " inputs, " + std::to_string(w.n_aux()) +
                      " aux, " + std::to_string(w.n_rows()) + " rows on " + curve_name(w.curve()) +
                      " for the PCE matrices of " + s.describe());
}

// The Native bundle of a witness bundle (see the top of this file). Throws BundleError when
// check_witness_for does; F must be the scalar field of the matrices' curve (PceError
// otherwise).
template <class F>
WitnessBundle expand_witness(const WitnessBundle& w, const PceMatrices& pce,
                             util::ThreadPool& pool = util::ThreadPool::global()) {
  check_witness_for(w, pce);
  BundleHeader h = w.header();
  h.kind = BundleKind::Native;
  h.n_full = 0;
  WitnessBundle out = WitnessBundle::allocate(h);
  auto inputs = out.section_mut<F>(Section::Inputs);
  std::ranges::copy(w.inputs<F>(), inputs.begin());
  auto aux = out.section_mut<F>(Section::Aux);
  w.unpack_aux<F>(aux, &pool);
  pce.multiply<F>(inputs, aux, out.section_mut<F>(Section::A), out.section_mut<F>(Section::B),
                  out.section_mut<F>(Section::C), pool);
  for (size_t d = 0; d < 3; ++d) std::ranges::copy(pce.density(d), out.density_mut(DensityMap(d)).begin());
  out.seal();
  return out;
}

}  // namespace zkmill::cs
