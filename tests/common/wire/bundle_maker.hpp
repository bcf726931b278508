// SPDX-License-Identifier: MIT
// Builds sealed witness bundles of a chosen size quickly, for the wire tests and benchmark.
//
// The transfer layer only moves bytes, so the bundles need not come from a real circuit;
// they must however pass WitnessBundle::validate() on the receiving side (canonical field
// elements, inputs[0] = 1, zero padding bits), which a synthetic fill satisfies cheaply:
// from_u64 of a counter is canonical, and the density words are left with their padding
// bits clear. Distinct seeds give distinct payloads, so a mixed-up transfer is caught.
#pragma once

#include <cstdint>
#include <memory>

#include "common/cs/witness_bundle.hpp"

namespace zkmill::test {

// n_aux private variables and n_rows rows; total size is about 32 (n_aux + 3 n_rows) bytes.
inline cs::WitnessBundle make_test_bundle(uint64_t n_aux, uint64_t n_rows, uint64_t seed = 1) {
  using F = ff::Bn254Fr;
  cs::BundleHeader h;
  h.curve = CurveId::Bn254;
  h.n_inputs = 2;
  h.n_aux = n_aux;
  h.n_rows = n_rows;
  h.partition = seed;
  for (size_t i = 0; i < h.circuit_id.size(); ++i) h.circuit_id[i] = uint8_t(seed * 31 + i);
  cs::WitnessBundle b = cs::WitnessBundle::allocate(h);
  // A handful of distinct canonical elements, repeated: from_u64 per element would make
  // a 1 GiB bundle take seconds to build.
  F pattern[61];
  for (uint64_t i = 0; i < 61; ++i) pattern[i] = F::from_u64(seed * 1000003 + i * 7919 + 1);
  uint64_t k = 0;
  for (auto s : {cs::Section::Inputs, cs::Section::Aux, cs::Section::A, cs::Section::B, cs::Section::C}) {
    auto sec = b.section_mut<F>(s);
    for (auto& x : sec) x = pattern[k++ % 61];
  }
  b.section_mut<F>(cs::Section::Inputs)[0] = F::one();
  for (auto d : {cs::DensityMap::AuxInA, cs::DensityMap::AuxInB, cs::DensityMap::InputInB}) {
    auto w = b.density_mut(d);
    for (auto& x : w) x = 0;
  }
  // Set the first variable of each map, so the maps are not all zero.
  if (n_aux) b.density_mut(cs::DensityMap::AuxInA)[0] = 1;
  b.density_mut(cs::DensityMap::InputInB)[0] = 1;
  b.seal();
  return b;
}

// A bundle of roughly `bytes` bytes (never smaller than a few hundred).
inline std::shared_ptr<const cs::WitnessBundle> make_shared_bundle_of_size(uint64_t bytes, uint64_t seed = 1) {
  uint64_t elems = bytes / 32;
  uint64_t rows = elems / 4 + 4;
  uint64_t aux = elems > 3 * rows ? elems - 3 * rows : 1;
  return std::make_shared<const cs::WitnessBundle>(make_test_bundle(aux, rows, seed));
}

}  // namespace zkmill::test
