// SPDX-License-Identifier: MIT
// The constraint matrices (R1CS in CSR form) of the native circuits a worker serves, with
// their PCE id (cs::pce_id_of): what witness-only bundles need on both sides. The synth side
// stamps the id into each bundle it packs; the prove side expands a fetched witness bundle
// into the full one (a, b, c = A z, B z, C z on its CPU threads, cs::expand_witness).
//
// Each circuit's matrices are recorded once, on first use (a RecordingCS pass over the
// built-in circuit named in the key's metadata), and kept for the life of the worker: a farm
// proves many partitions of few circuits. Thread-safe; a circuit being recorded makes the
// other tasks that need it wait rather than record it twice.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_expand.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "worker/key_directory.hpp"

namespace zkmill::farm {

class CircuitMatrices {
 public:
  template <class Fr>
  struct Entry {
    cs::R1CS<Fr> r1cs;
    cs::PceId id{};
  };

  // The matrices of a native key's circuit. Throws std::runtime_error for a zkey key or a key
  // whose circuit this build does not know.
  template <class E>
  std::shared_ptr<const Entry<typename E::Fr>> get(const KeyDirectory::Key& key);

 private:
  template <class Fr>
  using Map = std::map<std::string, std::shared_ptr<const Entry<Fr>>>;  // key path -> entry

  std::mutex mu_;
  Map<curves::Bn254::Fr> bn254_;
  Map<curves::Bls12381::Fr> bls12_381_;
};

extern template std::shared_ptr<const CircuitMatrices::Entry<curves::Bn254::Fr>> CircuitMatrices::get<curves::Bn254>(
    const KeyDirectory::Key&);
extern template std::shared_ptr<const CircuitMatrices::Entry<curves::Bls12381::Fr>>
CircuitMatrices::get<curves::Bls12381>(const KeyDirectory::Key&);

}  // namespace zkmill::farm
