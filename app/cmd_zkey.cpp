// SPDX-License-Identifier: MIT
// `zkmill zkey ...`: snarkjs's .zkey commands, native (common/setup, common/formats):
//   new CIRCUIT.r1cs POT.ptau OUT.zkey          the initial key, the same bytes as snarkjs
//                                               (also `zkmill groth16 setup`, cmd_groth16.cpp)
//   contribute IN.zkey OUT.zkey --name N [-e E] a phase-2 contribution (snarkjs transcript)
//   beacon IN.zkey OUT.zkey HASH EXP [--name N] a beacon contribution
//   verify CIRCUIT.r1cs POT.ptau KEY.zkey       checks a key against circuit, ceremony, chain
//   export verificationkey KEY.zkey VK.json     the snarkjs verification key
// Exit status: 0 done / valid; 1 `verify`: the key does not verify; 2 any error (message names
// the file and the problem; nothing is written).
// zkmill-cli-links: zk_formats zk_setup
#include "app/cmd_zkey.hpp"

#include <chrono>
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/formats/zkey.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/setup/zkey_mpc.hpp"
#include "common/setup/zkey_new.hpp"

namespace zkmill::cli {
namespace {

struct ZkeyOptions {
  std::string zkey, out, r1cs, ptau, name, entropy, beacon_hash;
  unsigned beacon_exp = 0;
  bool quiet = false;
  CLI::App *exp = nullptr, *nw = nullptr, *contrib = nullptr, *beacon = nullptr, *verify = nullptr;
};

int fail(const std::exception& e) {
  std::fprintf(stderr, "zkmill: error: %s\n", e.what());
  return 2;
}

int run_export_vk(const ZkeyOptions& o) {
  try {
    auto f = formats::ZkeyFile::open(o.zkey);
    return curves::with_curve(f.curve(), [&]<class E>(E) {
      // Only the header and IC: the bulk sections are never decoded for an export.
      auto vk = formats::load_zkey_vk<E>(f);
      groth16::snarkjs::write_json_file(o.out, groth16::snarkjs::vk_to_json<E>(vk));
      return 0;
    });
  } catch (const std::exception& e) {
    return fail(e);
  }
}

void print_circuit_hash(const setup::Hash64& h) {
  std::fprintf(stderr, "Circuit hash:\n%s\n", setup::format_hash(h).c_str());
}

int run_new(const ZkeyOptions& o) { return run_zkey_new(o.r1cs, o.ptau, o.out, o.quiet, "zkey new"); }

void print_contribution(const setup::ContributeResult& r) {
  print_circuit_hash(r.cs_hash);
  std::fprintf(stderr, "Contribution #%zu hash:\n%s\n", r.index, setup::format_hash(r.contribution_hash).c_str());
}

int run_contribute(const ZkeyOptions& o) {
  try {
    if (o.entropy.empty())
      throw std::invalid_argument("-e/--entropy is required (random text mixed with the OS randomness)");
    print_contribution(setup::zkey_contribute(o.zkey, o.out, o.name, o.entropy));
    return 0;
  } catch (const std::exception& e) {
    return fail(e);
  }
}

int run_beacon(const ZkeyOptions& o) {
  try {
    print_contribution(setup::zkey_beacon(o.zkey, o.out, o.name, o.beacon_hash, o.beacon_exp));
    return 0;
  } catch (const std::exception& e) {
    return fail(e);
  }
}

int run_verify(const ZkeyOptions& o) {
  try {
    auto rep = setup::zkey_verify(o.r1cs, o.ptau, o.zkey);
    if (!rep.ok) {
      std::printf("INVALID: %s: %s\n", o.zkey.c_str(), rep.reason.c_str());
      return 1;
    }
    for (const auto& l : rep.log) std::printf("%s\n", l.c_str());
    std::printf("ZKey Ok!\n");
    return 0;
  } catch (const std::exception& e) {
    return fail(e);
  }
}

constexpr const char* kExitTable =
    "Exit status: 0 done (verify: the key is valid); 1 verify: the key does not verify; 2 error (unreadable, truncated "
    "or mismatched input, named in the message; nothing is written).";

RunFn setup_zkey(CLI::App& sub) {
  auto o = std::make_shared<ZkeyOptions>();
  sub.require_subcommand(1);
  o->exp = sub.add_subcommand("export", "Export from a snarkjs .zkey");
  o->exp->require_subcommand(1);
  auto* vk = o->exp->add_subcommand("verificationkey", "Write the verification key (snarkjs schema)");
  vk->add_option("zkey", o->zkey, "circuit.zkey")->required();
  vk->add_option("verification_key", o->out, "verification_key.json to write")->required();

  o->nw = sub.add_subcommand("new", "Initial Groth16 key from a circuit and a prepared ptau (snarkjs zkey new)");
  o->nw->add_option("circuit", o->r1cs, "circuit.r1cs")->required();
  o->nw->add_option("powersoftau", o->ptau, "prepared ptau (powersoftau prepare phase2)")->required();
  o->nw->add_option("zkey", o->out, "circuit_0000.zkey to write")->required();
  o->nw->add_flag("--quiet,-q", o->quiet, "No progress bar (drawn only on a terminal anyway)");
  o->nw->footer(kExitTable);

  o->contrib = sub.add_subcommand("contribute", "Add a phase-2 contribution (snarkjs zkey contribute)");
  o->contrib->add_option("zkey_in", o->zkey, "key to contribute to")->required();
  o->contrib->add_option("zkey_out", o->out, "key to write")->required();
  o->contrib->add_option("--name,-n", o->name, "Contributor's name (at most 64 characters are kept)");
  o->contrib->add_option("--entropy,-e", o->entropy, "Random text mixed with the OS randomness")->required();
  o->contrib->footer(kExitTable);

  o->beacon = sub.add_subcommand("beacon", "Add a beacon contribution (snarkjs zkey beacon)");
  o->beacon->add_option("zkey_in", o->zkey, "key to contribute to")->required();
  o->beacon->add_option("zkey_out", o->out, "key to write")->required();
  o->beacon->add_option("beacon_hash", o->beacon_hash, "beacon hash, hexadecimal (1 to 255 bytes)")->required();
  o->beacon->add_option("num_iterations_exp", o->beacon_exp, "SHA-256 iterations 2^EXP, 10 <= EXP <= 63")->required();
  o->beacon->add_option("--name,-n", o->name, "Name recorded with the contribution");
  o->beacon->footer(kExitTable);

  o->verify = sub.add_subcommand("verify", "Verify a key against its circuit and ceremony (snarkjs zkey verify)");
  o->verify->add_option("circuit", o->r1cs, "circuit.r1cs")->required();
  o->verify->add_option("powersoftau", o->ptau, "the ceremony's prepared ptau")->required();
  o->verify->add_option("zkey", o->zkey, "key to verify")->required();
  o->verify->footer(kExitTable);

  return [o](const Context&) {
    if (o->nw->parsed()) return run_new(*o);
    if (o->contrib->parsed()) return run_contribute(*o);
    if (o->beacon->parsed()) return run_beacon(*o);
    if (o->verify->parsed()) return run_verify(*o);
    return run_export_vk(*o);
  };
}

const RegisterCommand kZkey{"zkey", "snarkjs .zkey tools: new, contribute, beacon, verify, export verificationkey",
                            setup_zkey, 2};

}  // namespace

// `zkey new` and its alias `groth16 setup`: the initial key of a circuit from a prepared ptau.
int run_zkey_new(const std::string& r1cs_path, const std::string& ptau_path, const std::string& out, bool quiet,
                 const char* command) {
  try {
    const auto t0 = std::chrono::steady_clock::now();
    auto r1cs = formats::R1csFile::open(r1cs_path);
    auto ptau = formats::PtauFile::open(ptau_path);
    util::Progress prog(1, !quiet);
    const auto key = setup::write_init_zkey(r1cs, ptau, out, &prog);
    prog.finish();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print_circuit_hash(key.cs_hash);
    std::fprintf(stderr, "%s: wrote %s (%s, %u constraints, %u public, domain 2^%u) in %.2f s\n", command, out.c_str(),
                 curve_snarkjs_name(key.curve), key.n_constraints, key.n_public, key.log_domain, s);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace zkmill::cli
