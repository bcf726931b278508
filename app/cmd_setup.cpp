// SPDX-License-Identifier: MIT
// `zkmill setup`: a development trusted setup for a built-in circuit; writes the proving key
// (sectioned binary, see docs/formats.md), KEYFILE.vk.json in snarkjs's schema and, unless
// --no-pce, KEYFILE.pce (the circuit's PCE matrices, from the recording the setup made anyway:
// synth and prove workers then open them instead of recording the circuit again).
// zkmill-cli-links: zk_groth16
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include "app/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/util/atomic_file.hpp"
#include "spdlog/spdlog.h"

namespace zkmill::cli {
namespace {

struct SetupOptions {
  std::string circuit, curve = "bls12-381", out;
  uint64_t size = 0;
  std::optional<uint64_t> seed;
  bool pce = true;
};

struct OsRng {
  std::random_device d;
  uint64_t operator()() { return (uint64_t(d()) << 32) | d(); }
};

int run_setup(const SetupOptions& o) {
  auto curve = parse_curve(o.curve);
  if (!curve) throw std::invalid_argument("unknown curve '" + o.curve + "' (use bn254 or bls12-381)");
  if (o.size == 0) throw std::invalid_argument("--size must be at least 1");
  return curves::with_curve(*curve, [&]<class E>(E) {
    using Fr = typename E::Fr;
    auto t0 = std::chrono::steady_clock::now();
    groth16::ToxicWaste<Fr> tw;
    if (o.seed) {
      spdlog::warn("setup with --seed: the toxic waste is reproducible, so this key is for testing only");
      std::mt19937_64 rng(*o.seed);
      tw = groth16::ToxicWaste<Fr>::random(rng);
    } else {
      OsRng rng;
      tw = groth16::ToxicWaste<Fr>::random(rng);
    }
    std::fprintf(stderr, "setup: %s, size %llu, curve %s ...\n", o.circuit.c_str(), (unsigned long long)o.size,
                 E::kName);
    std::vector<uint8_t> pce;
    auto pk = groth16::setup_builtin<E>(o.circuit, o.size, tw, util::ThreadPool::global(),
                                        groth16::HBasis::kCosetLagrange, o.pce ? &pce : nullptr);
    // The key and its vk.json appear together: the vk.json is staged on disk first, the key
    // written (atomically) next, and only then the vk.json renamed into place; a failure
    // before that leaves both old files as they were.
    util::AtomicFile vk(o.out + ".vk.json");
    vk.write(groth16::snarkjs::json_file_text(groth16::snarkjs::vk_to_json<E>(pk.vk)));
    vk.flush_to_disk();
    pk.write(o.out);
    try {
      vk.rename_into_place();
    } catch (...) {
      std::filesystem::remove(o.out);  // a key without its vk.json would not match the old one
      throw;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("wrote %s (%llu constraints incl. inputs, %llu public inputs, domain 2^%u) and %s.vk.json in %.2f s\n",
                o.out.c_str(), (unsigned long long)pk.meta.n_constraints, (unsigned long long)(pk.meta.n_inputs - 1),
                pk.meta.domain_log2, o.out.c_str(), s);
    if (o.pce) {
      // A cache, not part of the key: a worker checks it against the key's shape and records
      // the matrices itself when it is missing or refused, so a failed write is a warning.
      try {
        cs::PceMatrices::write_file(o.out + ".pce", pce);
        std::printf(
            "wrote %s.pce (%.1f MiB: the circuit's PCE matrices; keep it beside the key on synth and prove "
            "hosts)\n",
            o.out.c_str(), double(pce.size()) / double(1 << 20));
      } catch (const cs::PceError& e) {
        spdlog::warn(
            "setup: the key is written, its PCE file is not ({}); workers will record the matrices on "
            "first use",
            e.what());
      }
    }
    return 0;
  });
}

RunFn setup_setup(CLI::App& sub) {
  auto o = std::make_shared<SetupOptions>();
  sub.add_option("--circuit", o->circuit, "Built-in circuit: chain, merkle or porep (docs/circuits.md)")
      ->required()
      ->check(
          CLI::IsMember(std::vector<std::string>(circuits::circuit_names().begin(), circuits::circuit_names().end())));
  sub.add_option("--size", o->size, "About this many constraints")->required()->transform(decimal_u64("--size"));
  sub.add_option("--curve", o->curve, "bn254 or bls12-381")->capture_default_str();
  sub.add_option("--out", o->out, "Proving-key file to write (the verifying key goes to OUT.vk.json)")->required();
  sub.add_option("--seed", o->seed, "Derive the toxic waste from this seed (reproducible; testing only)")
      ->transform(decimal_u64("--seed"));
  sub.add_flag("--pce,!--no-pce", o->pce,
               "Also write OUT.pce, the circuit's PCE matrices, so that workers need not record them on first "
               "use (default: on)");
  return [o](const Context&) { return run_setup(*o); };
}

const RegisterCommand kSetup{"setup", "Development trusted setup for a built-in circuit (proving key + vk.json)",
                             setup_setup};

}  // namespace
}  // namespace zkmill::cli
