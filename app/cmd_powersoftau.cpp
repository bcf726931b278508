// SPDX-License-Identifier: MIT
// `zkmill powersoftau prepare phase2 <in.ptau> <out.ptau>`: snarkjs's command of the same name
// (the Lagrange-basis sections a circuit-specific setup reads), native and multi-threaded, same
// bytes as snarkjs (common/setup/prepare_phase2.hpp). Exit 0 on success, 2 on any error (the
// message names the file and the problem; nothing is written).
// zkmill-cli-links: zk_setup
#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "common/setup/prepare_phase2.hpp"

namespace zkmill::cli {
namespace {

struct PtauOptions {
  std::string in, out;
  bool quiet = false;
};

int run_prepare(const PtauOptions& o) {
  try {
    auto st = setup::prepare_phase2(o.in, o.out, !o.quiet);
    std::fprintf(stderr, "prepare phase2: wrote %s (%s, power %u) in %.2f s\n", o.out.c_str(),
                 curve_snarkjs_name(st.curve), st.power, st.seconds);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

RunFn setup_powersoftau(CLI::App& sub) {
  auto o = std::make_shared<PtauOptions>();
  sub.require_subcommand(1);
  auto* prep = sub.add_subcommand("prepare", "Prepare a powers-of-tau file for a phase-2 (circuit) setup");
  prep->require_subcommand(1);
  auto* p2 = prep->add_subcommand(
      "phase2", "Add the Lagrange-basis sections (snarkjs powersoftau prepare phase2; same output bytes)");
  p2->add_option("powersoftau", o->in, "ptau file of the ceremony (snarkjs format)")->required();
  p2->add_option("new_powersoftau", o->out, "prepared ptau file to write")->required();
  p2->add_flag("--quiet,-q", o->quiet, "No progress bar (it is drawn only on a terminal anyway)");
  p2->footer("Exit status: 0 written; 2 error (bad or truncated input, unsupported curve or power; nothing written).");
  return [o](const Context&) { return run_prepare(*o); };
}

const RegisterCommand kPowersOfTau{"powersoftau", "Powers of tau (snarkjs .ptau): prepare phase2", setup_powersoftau,
                                   2};

}  // namespace
}  // namespace zkmill::cli
