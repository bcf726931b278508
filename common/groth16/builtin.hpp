// SPDX-License-Identifier: MIT
// The built-in circuits end to end: shape -> proving key (setup), and (seed, partition) ->
// witness bundle (synthesis), for whichever curve E. The CLI, demo, tests and benchmarks
// share these so they all prove the same statements the same way.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/cs/pce_matrices.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_cs.hpp"
#include "common/groth16/setup.hpp"
#include "zkmill/build_info.hpp"

namespace zkmill::groth16 {

// Precompiled constraint evaluation for the built-in circuits (common/cs/pce_matrices.hpp).
// The shape a key's PCE file must have: the key's circuit, size, curve and counts.
template <class E>
cs::PceShape pce_shape(const KeyMeta& meta) {
  return {E::kId, meta.circuit, meta.size, meta.n_inputs, meta.n_aux, meta.n_constraints - meta.n_inputs};
}

// A recording's matrices as the PCE file image of the key `meta` describes.
template <class E>
std::vector<uint8_t> encode_pce_image(const cs::R1CS<typename E::Fr>& r1cs, const KeyMeta& meta) {
  return cs::PceMatrices::encode<typename E::Fr>(r1cs, pce_shape<E>(meta));
}

// A development setup of a built-in circuit. With `pce_image`, the circuit's PCE matrices (the
// KEY.pce file's bytes, record_pce_image's) are encoded from the same recording, so that
// `zkmill setup` can write them beside the key and no synth worker records them again. The
// recording runs a circuit's parts (PoRep's challenges) on `pool` too.
template <class E>
ProvingKey<E> setup_builtin(const std::string& circuit, uint64_t size, ToxicWaste<typename E::Fr> tw,
                            util::ThreadPool& pool = util::ThreadPool::global(),
                            HBasis h_basis = HBasis::kCosetLagrange, std::vector<uint8_t>* pce_image = nullptr) {
  using Fr = typename E::Fr;
  auto c = circuits::make_circuit<Fr>(circuit, size, /*seed=*/0, /*partition=*/0);
  cs::RecordingCS<Fr> rec(&pool);
  c->synthesize(rec);
  auto r1cs = rec.finish();
  KeyMeta meta;
  meta.circuit = circuit;
  meta.size = size;
  meta.created_by = std::string("zkmill ") + build::kVersion + " (" + build::kGitCommit + ") dev setup";
  meta.h_basis = h_basis;
  ProvingKey<E> pk = generate_parameters<E>(r1cs, std::move(meta), tw, pool);
  if (pce_image) *pce_image = encode_pce_image<E>(r1cs, pk.meta);
  return pk;
}

// Runs the circuit for (seed, partition) and returns the sealed bundle. A `stop` request ends
// it at its next cancellation point (util::Cancelled; a farm task whose job ended), here and in
// the PCE syntheses below.
template <class E>
cs::WitnessBundle synthesize_builtin(const KeyMeta& meta, uint64_t seed, uint64_t partition,
                                     const cs::CircuitId& circuit_id = {}, std::stop_token stop = {}) {
  using Fr = typename E::Fr;
  auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, seed, partition);
  // Synthesize straight into a bundle of the key's shape: no final copy (half the peak
  // memory at PoRep scale), and a circuit that disagrees with its key is refused.
  cs::ProvingCS<Fr> pcs(
      typename cs::ProvingCS<Fr>::Shape{meta.n_inputs, meta.n_aux, meta.n_constraints - meta.n_inputs});
  pcs.set_stop_token(std::move(stop));
  c->synthesize(pcs);
  return std::move(pcs).into_bundle(circuit_id, partition);
}

// Records the circuit once (no values; its parts, PoRep's challenges, at once on `pool`) and
// encodes its matrices as a PCE file image, the same bytes whatever the pool.
template <class E>
std::vector<uint8_t> record_pce_image(const KeyMeta& meta, util::ThreadPool& pool = util::ThreadPool::global()) {
  using Fr = typename E::Fr;
  auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, /*seed=*/0, /*partition=*/0);
  cs::RecordingCS<Fr> rec(&pool);
  c->synthesize(rec);
  return encode_pce_image<E>(rec.finish(), meta);
}

// The PCE matrices for a key, from `path` (conventionally the key's path + ".pce"). A file that
// is missing, or refused by PceMatrices::open (truncated, corrupted, another version, another
// circuit), is never used: the matrices are recorded again and written atomically in its
// place; when that write fails they are kept in memory. *why (when given) receives the
// reason a file was rebuilt, or "" when it was used as it was. `before_record` (when given) is
// called with the reason before the recording starts: at PoRep scale it takes minutes (130M
// constraints: ~2 min on one core, 41 s with the challenges on 16 cores of `pool`), and a worker
// says so before, not only after.
// `fallback` (when not empty) is a second place for the file, for a key directory that cannot
// take one (a worker under systemd sees worker.key_dir read-only): opened when `path` is
// refused, and written when `path` cannot be, so the matrices are recorded once per host, not
// at every start. *used (when given) receives the file the matrices came from ("" in memory).
// Matrices recorded here are used as this process encoded them (mapped from the file just
// written, or held in memory), not checked again; a file found in place is always checked in full.
template <class E>
cs::PceMatrices load_or_build_pce(const std::string& path, const KeyMeta& meta, std::string* why = nullptr,
                                  const std::function<void(const std::string&)>& before_record = {},
                                  const std::string& fallback = {}, std::string* used = nullptr,
                                  util::ThreadPool& pool = util::ThreadPool::global()) {
  const cs::PceShape shape = pce_shape<E>(meta);
  std::string reason;
  try {
    auto m = cs::PceMatrices::open(path, shape);
    if (why) why->clear();
    if (used) *used = path;
    return m;
  } catch (const cs::PceError& e) {
    reason = e.what();
  }
  if (!fallback.empty()) {
    try {
      auto m = cs::PceMatrices::open(fallback, shape);
      if (why) *why = reason + "; " + fallback + " used";
      if (used) *used = fallback;
      return m;
    } catch (const cs::PceError&) {  // recorded below, as for `path`
    }
  }
  if (before_record) before_record(reason);
  std::vector<uint8_t> image = record_pce_image<E>(meta, pool);
  std::string write_error;
  for (const std::string* target : {&path, &fallback}) {
    if (target->empty()) continue;
    const bool in_fallback = target == &fallback;
    try {
      if (in_fallback) {
        std::error_code ec;  // the cache directory may not exist yet; write_file says if it still is missing
        std::filesystem::create_directories(std::filesystem::path(fallback).parent_path(), ec);
      }
      // Mapped from the file as written, not read back and checksummed again (8.7 GiB at the
      // 130M PoRep size): PceMatrices::write_and_open says why that is sound.
      cs::PceMatrices m = cs::PceMatrices::write_and_open(*target, image, shape);
      if (why) *why = reason + "; rebuilt" + (in_fallback ? " in " + fallback : std::string());
      if (used) *used = *target;
      return m;
    } catch (const cs::PceError& e) {
      write_error += (write_error.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  if (why) *why = reason + "; rebuilt in memory (" + write_error + ")";
  if (used) used->clear();
  return cs::PceMatrices::from_encoded(std::move(image), shape, path + " (in memory)");
}

// synthesize_builtin's result by PCE: the witness alone (cs::WitnessCS, no constraint
// bookkeeping) straight into the bundle, then a, b, c by the multi-threaded mat-vec and the
// recorded density maps. Equal to synthesize_builtin's bundle bit for bit.
struct PceSynthTimings {
  double witness_ms = 0;  // the circuit on the witness-only CS
  double matvec_ms = 0;   // a, b, c by the mat-vec
  double pack_ms = 0;     // synthesize_builtin_witness: the bit packing of the witness
};

// The bundle shape of a key's partitions (curve and counts; kind Native, no id yet).
template <class E>
cs::BundleHeader builtin_bundle_header(const KeyMeta& meta) {
  cs::BundleHeader h;
  h.curve = E::kId;
  h.n_inputs = meta.n_inputs;
  h.n_aux = meta.n_aux;
  h.n_rows = meta.n_constraints;
  return h;
}

// Matrices recorded for another shape than the key's are an error (PceError), never used.
template <class E>
void require_pce_for(const cs::PceMatrices& pce, const KeyMeta& meta) {
  if (!(pce.shape() == pce_shape<E>(meta)))
    throw cs::PceError("PCE matrices for " + pce.shape().describe() + " used with a key for " +
                       pce_shape<E>(meta).describe());
}

template <class E>
cs::WitnessBundle synthesize_builtin_pce(const cs::PceMatrices& pce, const KeyMeta& meta, uint64_t seed,
                                         uint64_t partition, const cs::CircuitId& circuit_id = {},
                                         util::ThreadPool& pool = util::ThreadPool::global(),
                                         PceSynthTimings* timings = nullptr, std::stop_token stop = {}) {
  using clock = std::chrono::steady_clock;
  using Fr = typename E::Fr;
  require_pce_for<E>(pce, meta);
  const auto t0 = clock::now();
  auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, seed, partition);
  cs::WitnessBundle bundle = cs::WitnessBundle::allocate(builtin_bundle_header<E>(meta));
  auto inputs = bundle.section_mut<Fr>(cs::Section::Inputs);
  auto aux = bundle.section_mut<Fr>(cs::Section::Aux);
  cs::WitnessCS<Fr> wcs(inputs, aux, meta.n_constraints - meta.n_inputs, &pool);
  wcs.set_stop_token(stop);
  c->synthesize(wcs);
  wcs.finish();
  util::throw_if_cancelled(stop, "synthesis");
  const auto t1 = clock::now();
  pce.multiply<Fr>(inputs, aux, bundle.section_mut<Fr>(cs::Section::A), bundle.section_mut<Fr>(cs::Section::B),
                   bundle.section_mut<Fr>(cs::Section::C), pool);
  for (size_t d = 0; d < 3; ++d) {
    auto src = pce.density(d);
    auto dst = bundle.density_mut(cs::DensityMap(d));
    std::copy(src.begin(), src.end(), dst.begin());
  }
  bundle.set_circuit_id(circuit_id);
  bundle.set_partition(partition);
  bundle.seal();
  if (timings) {
    timings->witness_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    timings->matvec_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count();
  }
  return bundle;
}

// What a synth worker ships by default (worker.bundle_kind: witness): the witness-only bundle of
// one partition, made by the witness pass alone. No a, b, c are computed and no full bundle is
// allocated: the prove worker recomputes a, b, c from the same matrices (named in the bundle by
// their id), so the synth side's mat-vec and its three n-element vectors would be thrown away
// (at 2^24 porep that was 0.6 of 2.1 s, and 1.5 GiB of fresh pages, per partition). Equal byte
// for byte to pack_witness of synthesize_builtin_pce's bundle (tests/common/groth16/pce_test).
template <class E>
cs::WitnessBundle synthesize_builtin_witness(const cs::PceMatrices& pce, const KeyMeta& meta, uint64_t seed,
                                             uint64_t partition, const cs::CircuitId& circuit_id = {},
                                             PceSynthTimings* timings = nullptr,
                                             util::ThreadPool& pool = util::ThreadPool::global(),
                                             std::stop_token stop = {}) {
  using clock = std::chrono::steady_clock;
  using Fr = typename E::Fr;
  require_pce_for<E>(pce, meta);
  const auto t0 = clock::now();
  auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, seed, partition);
  // Uninitialised storage (the witness pass writes every element): no page is zeroed twice.
  const auto storage = cs::WitnessBundle::allocate_buffer((meta.n_inputs + meta.n_aux) * sizeof(Fr));
  const std::span<Fr> inputs(std::launder(reinterpret_cast<Fr*>(storage.get())), meta.n_inputs);
  const std::span<Fr> aux(inputs.data() + meta.n_inputs, meta.n_aux);
  cs::WitnessCS<Fr> wcs(inputs, aux, meta.n_constraints - meta.n_inputs, &pool);  // parts on every core
  wcs.set_stop_token(std::move(stop));
  c->synthesize(wcs);
  wcs.finish();
  const auto t1 = clock::now();
  cs::BundleHeader h = builtin_bundle_header<E>(meta);
  h.circuit_id = circuit_id;
  h.partition = partition;
  auto bundle = cs::WitnessBundle::pack_witness<Fr>(h, pce.id(), inputs, aux, &pool);
  if (timings) {
    timings->witness_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    timings->matvec_ms = 0;
    timings->pack_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count();
  }
  return bundle;
}

// The name of the first unsatisfied constraint of a built-in circuit instance, or "".
template <class E>
std::string first_unsatisfied_builtin(const KeyMeta& meta, uint64_t seed, uint64_t partition) {
  using Fr = typename E::Fr;
  auto c = circuits::make_circuit<Fr>(meta.circuit, meta.size, seed, partition);
  cs::CheckingCS<Fr> check;
  c->synthesize(check);
  return check.is_satisfied() ? std::string() : *check.which_is_unsatisfied();
}

// Public inputs of a bundle as the verifier takes them (without the constant ONE).
template <class E>
std::vector<typename E::Fr> public_inputs(const cs::WitnessBundle& w) {
  auto in = w.inputs<typename E::Fr>();
  return {in.begin() + 1, in.end()};
}

}  // namespace zkmill::groth16
