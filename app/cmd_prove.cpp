// SPDX-License-Identifier: MIT
// `zkmill prove`: synthesize one partition of a built-in circuit and prove it with a native
// proving key; the proof is verified before it is written (a proof is correct only if a
// verifier accepts it). Output in snarkjs's proof.json / public.json schema.
// zkmill-cli-links: zk_groth16
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::cli {
namespace {

struct ProveOptions {
  std::string key, proof_out, public_out;
  uint64_t seed = 0, partition = 0;
};

int run_prove(const ProveOptions& o) {
  CurveId curve = groth16::peek_key_file_curve(o.key);
  return curves::with_curve(curve, [&]<class E>(E) {
    auto pk = groth16::ProvingKey<E>::open(o.key);
    auto t0 = std::chrono::steady_clock::now();
    auto w = groth16::synthesize_builtin<E>(pk.meta, o.seed, o.partition);
    double synth_ms = groth16::detail::ms_since(t0);
    groth16::ProveTimings t;
    groth16::Proof<E> proof;
    try {
      proof = groth16::prove<E>(pk, w, util::ThreadPool::global(), &t);
    } catch (const groth16::UnsatisfiedError& e) {
      std::string name = groth16::first_unsatisfied_builtin<E>(pk.meta, o.seed, o.partition);
      throw std::runtime_error(std::string(e.what()) + (name.empty() ? "" : " (" + name + ")"));
    }
    auto inputs = groth16::public_inputs<E>(w);
    if (!groth16::PreparedVerifyingKey<E>(pk.vk).verify(proof, inputs))
      throw std::runtime_error("internal error: the proof just made does not verify; nothing written");
    groth16::snarkjs::write_proof_files(o.proof_out, groth16::snarkjs::proof_to_json<E>(proof), o.public_out,
                                        groth16::snarkjs::public_to_json<typename E::Fr>(inputs));
    std::fprintf(stderr, "proved %s partition %llu (%s): synth %.1f ms, %s; total %.1f ms; verified\n",
                 pk.meta.circuit.c_str(), (unsigned long long)o.partition, E::kName, synth_ms,
                 groth16::format_prove_timings(t).c_str(), synth_ms + t.total_ms);
    return 0;
  });
}

RunFn setup_prove(CLI::App& sub) {
  auto o = std::make_shared<ProveOptions>();
  sub.add_option("--key", o->key, "Native proving key (from zkmill setup)")->required()->check(CLI::ExistingFile);
  sub.add_option("--seed", o->seed, "Seed the partition's private inputs derive from (0 .. 2^64 - 1)")
      ->required()
      ->transform(decimal_u64("--seed"));
  sub.add_option("--partition", o->partition, "Partition index")
      ->capture_default_str()
      ->transform(decimal_u64("--partition"));
  sub.add_option("proof", o->proof_out, "proof.json to write")->required();
  sub.add_option("public", o->public_out, "public.json to write")->required();
  return [o](const Context&) { return run_prove(*o); };
}

const RegisterCommand kProve{"prove", "Prove one partition of a built-in circuit with a native key", setup_prove};

}  // namespace
}  // namespace zkmill::cli
