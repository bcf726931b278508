// SPDX-License-Identifier: MIT
// The prove side of witness-only bundles (BundleKind::Witness, witness_bundle.hpp): from the
// shipped inputs and bit-packed aux, and the circuit's constraint matrices (an R1CS recorded
// once per circuit, recording_cs.hpp), rebuild exactly the Native bundle that ProvingCS would
// have made on the synth worker: inputs, aux, a = A z, b = B z, c = C z (z = inputs ‖ aux) and
// the density bitmaps. Field arithmetic is exact, so the result is byte for byte the same
// bundle and the proofs are the same proofs; only the bytes on the wire shrink (a, b, c are
// three n_rows-element vectors, and most aux values of a SHA-256 circuit are bits).
//
// pce_id identifies the matrices: the synth side stamps it into the bundle and the prove side
// refuses a bundle stamped for other matrices (another circuit version, another size) instead
// of computing a bogus a, b, c. It is a content digest of the R1CS (four checksum64 lanes over
// its counts, CSR arrays and density bitmaps): it catches accidental mismatches, not forgery,
// like the bundle checksum.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <span>
#include <string>

#include "common/cs/checksum.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_bundle.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::cs {

using PceId = CircuitId;

// "1f2e…" (the first 8 bytes in hex), for messages.
inline std::string short_hex(const PceId& id) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < 8; ++i) {
    s.push_back(digits[id[i] >> 4]);
    s.push_back(digits[id[i] & 15]);
  }
  return s + "…";
}

template <class F>
PceId pce_id_of(const R1CS<F>& r) {
  PceId id{};
  for (uint64_t lane = 0; lane < 4; ++lane) {
    Checksum64 h(lane + 1);
    auto absorb = [&](const void* p, size_t n) { h.update({static_cast<const uint8_t*>(p), n}); };
    const uint64_t counts[3] = {r.n_inputs, r.n_aux, r.n_constraints};
    absorb(counts, sizeof counts);
    for (const CsrMatrix<F>* m : {&r.A, &r.B, &r.C}) {
      const uint64_t sizes[2] = {m->row_ptr.size(), m->col.size()};
      absorb(sizes, sizeof sizes);
      absorb(m->row_ptr.data(), m->row_ptr.size() * sizeof(uint64_t));
      absorb(m->col.data(), m->col.size() * sizeof(uint32_t));
      absorb(m->val.data(), m->val.size() * sizeof(F));
    }
    for (const Bitmap* b : {&r.aux_in_a, &r.aux_in_b, &r.input_in_b})
      absorb(b->words().data(), b->words().size_bytes());
    const uint64_t d = h.digest();
    std::memcpy(id.data() + 8 * lane, &d, 8);
  }
  return id;
}

// out[r] = <row r of m, z> for z = (inputs ‖ aux), rows split across the pool.
template <class F>
void spmv(const CsrMatrix<F>& m, std::span<const F> inputs, std::span<const F> aux, std::span<F> out,
          util::ThreadPool& pool) {
  const uint64_t n_in = inputs.size();
  pool.parallel_for(
      out.size(),
      [&](size_t begin, size_t end) {
        for (size_t r = begin; r < end; ++r) {
          F acc = F::zero();
          const uint64_t stop = m.row_ptr[r + 1];
          for (uint64_t k = m.row_ptr[r]; k < stop; ++k) {
            const uint32_t col = m.col[k];
            const F& z = col < n_in ? inputs[col] : aux[col - n_in];
            acc += m.val[k].is_one() ? z : m.val[k] * z;
          }
          out[r] = acc;
        }
      },
      4096);
}

// The Native bundle of a witness bundle (see the top of this file). Throws BundleError when
// the bundle is not a witness bundle, was made for other matrices, or does not fit them.
template <class F>
WitnessBundle expand_witness(const WitnessBundle& w, const R1CS<F>& r1cs, const PceId& pce_id,
                             util::ThreadPool& pool = util::ThreadPool::global()) {
  if (w.kind() != BundleKind::Witness)
    throw BundleError(std::string("expand_witness: a bundle of kind ") + bundle_kind_name(w.kind()));
  if (w.pce_id() != pce_id)
    throw BundleError("the bundle's witness is for constraint matrices (PCE) " + short_hex(w.pce_id()) +
                      ", this worker's matrices of the circuit are " + short_hex(pce_id) +
                      " (synth and prove workers run different circuit versions?)");
  if (w.n_inputs() != r1cs.n_inputs || w.n_aux() != r1cs.n_aux || w.n_rows() != r1cs.n_rows())
    throw BundleError("witness of " + std::to_string(w.n_inputs()) + " inputs, " + std::to_string(w.n_aux()) +
                      " aux, " + std::to_string(w.n_rows()) + " rows for matrices of " + std::to_string(r1cs.n_inputs) +
                      ", " + std::to_string(r1cs.n_aux) + ", " + std::to_string(r1cs.n_rows()));
  BundleHeader h = w.header();
  h.kind = BundleKind::Native;
  h.n_full = 0;
  WitnessBundle out = WitnessBundle::allocate(h);
  auto inputs = out.section_mut<F>(Section::Inputs);
  std::ranges::copy(w.inputs<F>(), inputs.begin());
  auto aux = out.section_mut<F>(Section::Aux);
  w.unpack_aux<F>(aux, &pool);
  spmv(r1cs.A, std::span<const F>(inputs), std::span<const F>(aux), out.section_mut<F>(Section::A), pool);
  spmv(r1cs.B, std::span<const F>(inputs), std::span<const F>(aux), out.section_mut<F>(Section::B), pool);
  spmv(r1cs.C, std::span<const F>(inputs), std::span<const F>(aux), out.section_mut<F>(Section::C), pool);
  const Bitmap* maps[3] = {&r1cs.aux_in_a, &r1cs.aux_in_b, &r1cs.input_in_b};
  for (size_t i = 0; i < 3; ++i) std::ranges::copy(maps[i]->words(), out.density_mut(DensityMap(i)).begin());
  out.seal();
  return out;
}

}  // namespace zkmill::cs
