// `zkmill groth16 prove|verify`: drop-in replacements for snarkjs's commands of the same name,
// same argument order, over snarkjs .zkey/.wtns files and snarkjs-schema JSON.
//   prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>
//   verify <verification_key.json> <public.json> <proof.json>   (exit 0 valid, 1 invalid, 2 error)
//   check <circuit.r1cs> <witness.wtns>  (snarkjs wtns check: exit 0 satisfied, 1 not, 2 error)
// prove verifies its proof before writing anything and exits 2 on any error.
// zkmill-cli-links: zk_formats
#include <cstdio>
#include <memory>

#include "common/cli/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/formats/circom_files.hpp"
#include "common/groth16/snarkjs_verify.hpp"
#include "common/formats/zkey_prover.hpp"

namespace zkmill::cli {
namespace {

struct Groth16Options {
  CLI::App* prove = nullptr;
  CLI::App* verify = nullptr;
  CLI::App* check = nullptr;
  std::string zkey, wtns, proof, pub, vk, r1cs;
};

int run_zkey_prove(const Groth16Options& o) {
  namespace sj = groth16::snarkjs;
  try {
    auto t0 = std::chrono::steady_clock::now();
    auto zfile = formats::ZkeyFile::open(o.zkey);
    auto wtns = formats::WtnsFile::open(o.wtns);
    if (wtns.curve() != zfile.curve())
      throw formats::FormatError(o.wtns + ": witness is for " + curve_snarkjs_name(wtns.curve()) + ", the key " + o.zkey +
                                 " for " + curve_snarkjs_name(zfile.curve()));
    if (wtns.size() != zfile.n_vars())
      throw formats::FormatError(o.wtns + ": witness has " + std::to_string(wtns.size()) + " values, the key " + o.zkey +
                                 " expects nVars = " + std::to_string(zfile.n_vars()) + " (a witness of another circuit?)");
    return curves::with_curve(zfile.curve(), [&]<class E>(E) {
      using Fr = typename E::Fr;
      auto& pool = util::ThreadPool::global();
      auto pk = formats::load_zkey<E>(zfile, pool);
      auto witness = wtns.values<Fr>();
      double load_ms = groth16::detail::ms_since(t0);
      auto t1 = std::chrono::steady_clock::now();
      auto bundle = formats::synthesize_zkey<E>(pk, witness, pool);
      double synth_ms = groth16::detail::ms_since(t1);
      formats::ZkeyProveTimings t;
      auto proof = formats::prove_zkey<E>(pk, bundle, pool, &t);
      auto pub = formats::zkey_public_signals<E>(bundle);
      // snarkjs's c = a o b means an unsatisfying witness still yields a "proof"; only the
      // verifier notices, so nothing is written unless it accepts.
      if (!groth16::PreparedVerifyingKey<E>(pk.vk).verify(proof, pub))
        throw std::runtime_error("the proof does not verify: the witness " + o.wtns +
                                 " does not satisfy the circuit of " + o.zkey + "; nothing written");
      sj::write_json_file(o.proof, sj::proof_to_json<E>(proof));
      sj::write_json_file(o.pub, sj::public_to_json<Fr>(pub));
      std::fprintf(stderr,
                   "proved %s (%s, %u vars, domain 2^%u): load %.1f ms, synth %.1f ms, H %.1f ms, MSM A %.1f, B1 %.1f, "
                   "B2 %.1f, C %.1f, H %.1f ms; total %.1f ms; verified\n",
                   o.zkey.c_str(), curve_snarkjs_name(E::kId), zfile.n_vars(), zfile.log_domain_size(), load_ms,
                   synth_ms, t.h_ms, t.msm_a_ms, t.msm_b1_ms, t.msm_b2_ms, t.msm_c_ms, t.msm_h_ms,
                   groth16::detail::ms_since(t0));
      return 0;
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

int run_check(const Groth16Options& o) {
  try {
    auto r1cs = formats::R1csFile::open(o.r1cs);
    auto wtns = formats::WtnsFile::open(o.wtns);
    if (wtns.curve() != r1cs.header().curve)
      throw formats::FormatError(o.wtns + ": witness is for " + curve_snarkjs_name(wtns.curve()) + ", the circuit " +
                                 o.r1cs + " for " + curve_snarkjs_name(r1cs.header().curve));
    if (wtns.size() != r1cs.header().n_wires)
      throw formats::FormatError(o.wtns + ": witness has " + std::to_string(wtns.size()) + " values, the circuit " +
                                 o.r1cs + " has " + std::to_string(r1cs.header().n_wires) + " wires");
    int64_t bad = curves::with_curve(r1cs.header().curve, [&]<class E>(E) {
      return r1cs.constraints<typename E::Fr>().first_unsatisfied(wtns.values<typename E::Fr>());
    });
    if (bad >= 0) {
      std::printf("INVALID: constraint %lld is not satisfied\n", static_cast<long long>(bad));
      return 1;
    }
    std::printf("OK: the witness satisfies all %u constraints\n", r1cs.header().n_constraints);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkmill: error: %s\n", e.what());
    return 2;
  }
}

RunFn setup_groth16(CLI::App& sub) {
  auto o = std::make_shared<Groth16Options>();
  sub.require_subcommand(1);
  o->prove = sub.add_subcommand("prove", "Prove with a snarkjs .zkey and a .wtns witness (snarkjs groth16 prove)");
  o->prove->add_option("zkey", o->zkey, "circuit.zkey (snarkjs Groth16 key)")->required();
  o->prove->add_option("witness", o->wtns, "witness.wtns")->required();
  o->prove->add_option("proof", o->proof, "proof.json to write")->required();
  o->prove->add_option("public", o->pub, "public.json to write")->required();
  o->verify = sub.add_subcommand("verify", "Verify a Groth16 proof (snarkjs groth16 verify; exit 0 valid, 1 invalid, 2 error)");
  o->verify->add_option("verification_key", o->vk, "verification_key.json")->required();
  o->verify->add_option("public", o->pub, "public.json")->required();
  o->verify->add_option("proof", o->proof, "proof.json")->required();
  o->check = sub.add_subcommand("check", "Check a witness against its circuit (snarkjs wtns check; exit 0 ok, 1 not, 2 error)");
  o->check->add_option("r1cs", o->r1cs, "circuit.r1cs")->required();
  o->check->add_option("witness", o->wtns, "witness.wtns")->required();
  return [o](const Context&) {
    if (o->prove->parsed()) return run_zkey_prove(*o);
    if (o->check->parsed()) return run_check(*o);
    return groth16::snarkjs::verify_snarkjs_files(o->vk, o->pub, o->proof);
  };
}

const RegisterCommand kGroth16{"groth16", "snarkjs-compatible Groth16: prove (.zkey + .wtns), verify, check (.r1cs + .wtns)", setup_groth16};

}  // namespace
}  // namespace zkmill::cli
