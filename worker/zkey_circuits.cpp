// SPDX-License-Identifier: MIT
// ZkeyCircuits: witness checks, synthesis and proving of snarkjs circuits on a farm worker.
#include "worker/zkey_circuits.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <span>

#include "common/cs/pce_matrices.hpp"
#include "common/curves/dispatch.hpp"
#include "common/formats/zkey_prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::farm {

namespace {

// The bytes of the .r1cs file (the estimate of what decoding it takes; the .zkey's size is the
// key directory's), 0 when it cannot be read (the load then reports why).
uint64_t file_bytes(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : uint64_t(n);
}

// Cache entries are named by the key's path and circuit id: a file replaced in place is a new
// entry (the old one ages out).
std::string entry_name(const char* what, const std::string& path, const KeyDirectory::Key& key) {
  return std::string(what) + " " + path + " (circuit " + cs::short_hex(key.digest) + ")";
}

template <class T>
uint64_t vector_bytes(const std::vector<T>& v) {
  return uint64_t(v.capacity()) * sizeof(T);
}

}  // namespace

template <class E>
std::shared_ptr<const formats::ZkeyProvingKey<E>> ZkeyCircuits::proving_key(const KeyDirectory::Key& key) {
  return cache_.get<formats::ZkeyProvingKey<E>>(
      entry_name("proving key", key.path, key), key.size,
      [&] { return formats::load_zkey<E>(formats::ZkeyFile::open(key.path)); },
      [](const formats::ZkeyProvingKey<E>& pk) {
        // The decoded points; the file itself is mapped (pages the kernel can drop).
        return vector_bytes(pk.a) + vector_bytes(pk.b1) + vector_bytes(pk.c) + vector_bytes(pk.h) + vector_bytes(pk.b2);
      });
}

template <class E>
std::shared_ptr<const formats::R1cs<typename E::Fr>> ZkeyCircuits::constraints(const KeyDirectory::Key& key) {
  using Fr = typename E::Fr;
  return cache_.get<formats::R1cs<Fr>>(
      entry_name("constraints", key.r1cs_path, key), file_bytes(key.r1cs_path),
      [&] { return formats::R1csFile::open(key.r1cs_path).template constraints<Fr>(); },
      [](const formats::R1cs<Fr>& r) {
        uint64_t n = 0;
        for (const auto& m : r.m) n += vector_bytes(m.row_start) + vector_bytes(m.wire) + vector_bytes(m.coeff);
        return n;
      });
}

cs::WitnessBundle ZkeyCircuits::synthesize(const KeyDirectory::Key& key, const std::string& wtns, uint64_t partition) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(wtns.data()), wtns.size());
  const std::string name = "witness of partition " + std::to_string(partition);
  return curves::with_curve(key.curve, [&]<class E>(E) {
    using Fr = typename E::Fr;
    auto file = formats::ZkeyFile::open(key.path);
    std::vector<Fr> w;
    try {
      auto wf = formats::WtnsFile::parse(bytes, name);
      if (wf.curve() != key.curve)
        throw PermanentTaskError(name + " is a " + curve_name(wf.curve()) + " witness, the key is for " +
                                 curve_name(key.curve));
      if (wf.size() != file.n_vars())
        throw PermanentTaskError(name + " has " + std::to_string(wf.size()) + " values, the key " +
                                 std::filesystem::path(key.path).filename().string() +
                                 " expects nVars = " + std::to_string(file.n_vars()));
      w = wf.template values<Fr>();
    } catch (const formats::FormatError& e) {
      throw PermanentTaskError(e.what());
    }
    if (!w[0].is_one()) throw PermanentTaskError(name + ": value 0 (the ONE wire) is not 1");
    if (!key.r1cs_path.empty()) {
      const auto r1cs = constraints<E>(key);
      const int64_t bad = r1cs->first_unsatisfied(std::span<const Fr>(w));
      if (bad >= 0)
        throw PermanentTaskError(name + " does not satisfy the circuit: constraint " + std::to_string(bad) + " of " +
                                 std::filesystem::path(key.r1cs_path).filename().string() +
                                 " is not satisfied (<A,w> * <B,w> != <C,w>)");
    }
    return formats::synthesize_zkey<E>(file, std::span<const Fr>(w), util::ThreadPool::global(), key.digest, partition);
  });
}

ZkeyCircuits::Proved ZkeyCircuits::prove(const KeyDirectory::Key& key, const std::string& circuit,
                                         const cs::WitnessBundle& w, bool corrupt_for_test, GpuProver* gpu,
                                         int device) {
  if (w.kind() != cs::BundleKind::Zkey)
    throw std::runtime_error(std::string("fetched bundle is of kind ") + cs::bundle_kind_name(w.kind()) +
                             ", the circuit's key is a .zkey");
  return curves::with_curve(key.curve, [&]<class E>(E) {
    using Fr = typename E::Fr;
    const auto key_ptr = proving_key<E>(key);
    const auto& pk = *key_ptr;
    std::string backend = "CPU";
    groth16::Proof<E> proof;
    bool proved = false;
    if (gpu != nullptr) {
      try {
        proof = gpu->prove(pk, w, circuit, device);
        backend = "GPU";
        proved = true;
      } catch (const std::exception& e) {  // a device problem: this partition still gets proved
        spdlog::warn("zkey proof on the GPU failed ({}); proving on the CPU instead", e.what());
      }
    }
    if (!proved) proof = formats::prove_zkey<E>(pk, w);
    const auto signals = formats::zkey_public_signals<E>(w);
    // Without the .r1cs beside the key an unsatisfied witness is only seen here: its proof
    // does not verify. (A failed attempt, not a permanent one: a faulty machine looks alike.)
    if (!groth16::PreparedVerifyingKey<E>(pk.vk).verify(proof, std::span<const Fr>(signals)))
      throw std::runtime_error(
          "the proof does not verify against the key's verifying key: the witness most likely "
          "does not satisfy the circuit (put the circuit's .r1cs beside the .zkey to name the "
          "constraint)");
    if (corrupt_for_test) proof.c = proof.a;
    return Proved{groth16::snarkjs::proof_to_json<E>(proof), groth16::snarkjs::public_to_json<Fr>(signals), backend};
  });
}

}  // namespace zkmill::farm
