// SPDX-License-Identifier: MIT
// Test support: a small native proving key made in-process (what `zkmill setup --seed` writes:
// the key and KEY.vk.json), and a partition's honest statement and proof as `zkmill prove`
// computes them, for tests that play one side of the farm (a fake worker to the real
// coordinator, a fake coordinator to the real worker) without the zkmill binary. Link
// zk_groth16 and zk_farm.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/atomic_file.hpp"
#include "farm/sha256.hpp"

namespace zkmill::test {

// A partition's statement (public.json) and proof (proof.json) in snarkjs's schema.
struct HonestResult {
  std::vector<std::string> public_inputs;
  nlohmann::json proof;
};

// A key of a built-in circuit written in-process, with its verifying key beside it.
class NativeKey {
 public:
  // Writes PATH and PATH.vk.json: `circuit` (chain, merkle, porep) of about `size` constraints
  // on `curve`, toxic waste from `seed` (reproducible: for tests only).
  NativeKey(std::string path, const std::string& circuit, uint64_t size, CurveId curve = CurveId::Bn254,
            uint64_t seed = 7)
      : path_(std::move(path)), curve_(curve) {
    curves::with_curve(curve_, [&]<class E>(E) {
      std::mt19937_64 rng(seed);
      auto pk = groth16::setup_builtin<E>(circuit, size, groth16::ToxicWaste<typename E::Fr>::random(rng));
      util::AtomicFile vk(path_ + ".vk.json");
      vk.write(groth16::snarkjs::json_file_text(groth16::snarkjs::vk_to_json<E>(pk.vk)));
      vk.rename_into_place();
      pk.write(path_);
      n_public_ = pk.meta.n_inputs - 1;
    });
    circuit_id_ = farm::Sha256::circuit_id_of_file(path_);
  }

  const std::string& path() const { return path_; }
  // The farm's name for it: the SHA-256 of the key file (what workers advertise in hello).
  const std::string& circuit_id() const { return circuit_id_; }
  CurveId curve() const { return curve_; }
  uint64_t n_public() const { return n_public_; }

  // Partition `part` of a job with `seed`, synthesized and proved as `zkmill prove` does.
  HonestResult prove(uint64_t seed, uint64_t part) const {
    HonestResult r;
    curves::with_curve(curve_, [&]<class E>(E) {
      auto pk = groth16::ProvingKey<E>::open(path_);
      auto w = groth16::synthesize_builtin<E>(pk.meta, seed, part);
      auto proof = groth16::prove<E>(pk, w, util::ThreadPool::global(), nullptr);
      const auto inputs = groth16::public_inputs<E>(w);
      for (const auto& x : groth16::snarkjs::public_to_json<typename E::Fr>(inputs)) r.public_inputs.push_back(x);
      r.proof = groth16::snarkjs::proof_to_json<E>(proof);
    });
    return r;
  }
  // Whether `proof` verifies against `public_inputs` with this key's verifying key.
  bool verifies(const nlohmann::json& proof, const std::vector<std::string>& public_inputs) const {
    return curves::with_curve(curve_, [&]<class E>(E) {
      auto pk = groth16::ProvingKey<E>::open(path_);
      const auto inputs = groth16::snarkjs::public_from_json<typename E::Fr>(nlohmann::json(public_inputs));
      return groth16::PreparedVerifyingKey<E>(pk.vk).verify(groth16::snarkjs::proof_from_json<E>(proof), inputs);
    });
  }

 private:
  std::string path_, circuit_id_;
  CurveId curve_;
  uint64_t n_public_ = 0;
};

}  // namespace zkmill::test
