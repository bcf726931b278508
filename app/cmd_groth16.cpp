// SPDX-License-Identifier: MIT
// `zkmill groth16 prove|verify`: drop-in replacements for snarkjs's commands of the same name,
// same argument order, over snarkjs .zkey/.wtns files and snarkjs-schema JSON.
//   prove [--gpu auto|on|off] [--device N] <circuit.zkey> <witness.wtns> <proof.json> <public.json>
//     on the GPU (cuda::prove_gpu, cuda/groth16/zkey_prover.hpp) when the build has CUDA, the device exists and
//     the domain is at least 2^17 (auto, the default; a GPU failure then falls back to the CPU
//     with a warning), always (on:
//     exit 2 when there is no GPU) or never (off: formats::prove_zkey on the CPU pool).
//   verify <verification_key.json> <public.json> <proof.json>   (exit 0 valid, 1 a well-formed
//     proof that does not verify, 2 any usage or input error: snarkjs_verify.hpp)
//   check <circuit.r1cs> <witness.wtns>  (snarkjs wtns check: exit 0 satisfied, 1 not, 2 error)
//   setup <circuit.r1cs> <pot.ptau> <circuit_0000.zkey>  (snarkjs groth16 setup = zkey new, same bytes)
// prove verifies its proof before writing anything and exits 2 on any error.
// zkmill-cli-links: zk_formats zk_setup
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "app/cmd_zkey.hpp"
#include "app/command.hpp"
#include "common/curves/dispatch.hpp"
#include "common/formats/circom_files.hpp"
#include "common/formats/zkey_prover.hpp"
#include "common/groth16/snarkjs_verify.hpp"

#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/groth16/zkey_prover.hpp"
#include "cuda/runtime/device_query.hpp"
#endif

namespace zkmill::cli {
namespace {

struct Groth16Options {
  CLI::App* prove = nullptr;
  CLI::App* verify = nullptr;
  CLI::App* check = nullptr;
  CLI::App* setup = nullptr;
  std::string zkey, wtns, proof, pub, vk, r1cs, ptau;
  bool quiet = false;
  std::string gpu = "auto";  // auto | on | off
  int device = 0;
};

// --gpu auto proves domains below 2^kAutoGpuMinLogDomain on the CPU. A one-shot GPU proof pays
// ~0.3 s of CUDA and device-context start-up before any work (docs/benchmarks.md, "GPU: snarkjs
// .zkey proofs": at 2^16 the GPU command took 0.51 s, 16 CPU threads 0.26 s); the CPU proof
// doubles per doubling of the domain, the GPU's start-up does not, so they break even about 2^17.
// (Farm workers keep their GPU context and use it at every size.)
constexpr uint32_t kAutoGpuMinLogDomain = 17;

// Whether `zkmill groth16 prove` uses the GPU for a key of domain 2^log_domain: empty `why_not`
// and true when it does; false with the reason when it does not (no CUDA in this build, no such
// device, --gpu off, or a small domain under --gpu auto).
bool gpu_usable(const Groth16Options& o, uint32_t log_domain, std::string* why_not) {
  if (o.gpu == "off") {
    *why_not = "--gpu off";
    return false;
  }
  if (o.gpu == "auto" && log_domain < kAutoGpuMinLogDomain) {
    *why_not = "domain 2^" + std::to_string(log_domain) + " is below 2^" + std::to_string(kAutoGpuMinLogDomain) +
               ", where the CPU is faster (--gpu on forces the GPU)";
    return false;
  }
#if defined(ZKMILL_HAVE_CUDA)
  if (cuda::find_gpu(o.device, why_not)) return true;
#else
  *why_not = "this zkmill was built without the CUDA backend (nvcc not found or ZKMILL_CUDA=OFF)";
#endif
  return false;
}

// One zkey proof on the GPU when `use_gpu`, else (or after a GPU failure in auto mode) on the
// CPU. `backend` names what proved it, `phases` its phase timings, for the summary line.
template <class E>
groth16::Proof<E> prove_zkey_on(const Groth16Options& o, bool use_gpu, const formats::ZkeyProvingKey<E>& pk,
                                const cs::WitnessBundle& bundle, std::string* backend, std::string* phases) {
#if defined(ZKMILL_HAVE_CUDA)
  if (use_gpu) {
    char buf[256];
    using Fr = typename E::Fr;
    cuda::GpuProveOptions go;
    go.device = o.device;
    go.key_id = cuda::zkey_cache_id(o.zkey);
    cuda::GpuProveTimings t;
    groth16::Proof<E> proof;
    const cuda::GpuResult r =
        cuda::prove_gpu(pk, bundle, groth16::random_blinder<Fr>(), groth16::random_blinder<Fr>(), &proof, &t, go);
    if (r.ok()) {
      *backend = "GPU " + std::to_string(o.device);
      // The GPU call's total also holds the device context's creation (streams, pinned staging,
      // MSM/NTT scratch): a one-shot process pays it on every proof, a farm worker once.
      std::snprintf(buf, sizeof buf,
                    "GPU prover %.1f ms (key upload %.1f ms, upload %.1f ms, H %.1f ms, MSM A %.1f, B1 %.1f, B2 %.1f, "
                    "L %.1f, H %.1f ms)",
                    t.total_ms, t.key_upload_ms, t.upload_ms, t.h_ms, t.msm_a_ms, t.msm_b_g1_ms, t.msm_b_g2_ms,
                    t.msm_l_ms, t.msm_h_ms);
      *phases = buf;
      return proof;
    }
    const std::string why = "GPU " + std::to_string(o.device) + ": " + cuda::to_string(r.code) + ": " + r.message;
    if (o.gpu == "on") throw std::runtime_error("--gpu on: the GPU prover failed: " + why);
    std::fprintf(stderr, "zkmill: warning: %s; proving on the CPU instead\n", why.c_str());
  }
#else
  (void)o, (void)use_gpu;
#endif
  groth16::ProveTimings t;
  auto proof = formats::prove_zkey<E>(pk, bundle, util::ThreadPool::global(), &t);
  *backend = "CPU (" + std::to_string(util::ThreadPool::global().size()) + " threads)";
  *phases = groth16::format_prove_timings(t);
  return proof;
}

int run_zkey_prove(const Groth16Options& o) {
  namespace sj = groth16::snarkjs;
  try {
    auto t0 = std::chrono::steady_clock::now();
    auto zfile = formats::ZkeyFile::open(o.zkey);
    std::string why_not;
    auto t_probe = std::chrono::steady_clock::now();
    const bool use_gpu = gpu_usable(o, zfile.log_domain_size(), &why_not);
    const double probe_ms = groth16::detail::ms_since(t_probe);  // CUDA's initialisation, when it is probed
    if (o.gpu == "on" && !use_gpu) throw std::runtime_error("--gpu on: no GPU to prove on: " + why_not);
    if (o.gpu == "auto" && !use_gpu) spdlog::debug("proving on the CPU: {}", why_not);
    auto wtns = formats::WtnsFile::open(o.wtns);
    if (wtns.curve() != zfile.curve())
      throw formats::FormatError(o.wtns + ": witness is for " + curve_snarkjs_name(wtns.curve()) + ", the key " +
                                 o.zkey + " for " + curve_snarkjs_name(zfile.curve()));
    if (wtns.size() != zfile.n_vars())
      throw formats::FormatError(o.wtns + ": witness has " + std::to_string(wtns.size()) + " values, the key " +
                                 o.zkey + " expects nVars = " + std::to_string(zfile.n_vars()) +
                                 " (a witness of another circuit?)");
    return curves::with_curve(zfile.curve(), [&]<class E>(E) {
      using Fr = typename E::Fr;
      auto& pool = util::ThreadPool::global();
      auto pk = formats::load_zkey<E>(zfile, pool);
      auto witness = wtns.values<Fr>();
      double load_ms = groth16::detail::ms_since(t0) - probe_ms;
      auto t1 = std::chrono::steady_clock::now();
      auto bundle = formats::synthesize_zkey<E>(pk, witness, pool);
      double synth_ms = groth16::detail::ms_since(t1);
      std::string backend, phases;
      auto proof = prove_zkey_on<E>(o, use_gpu, pk, bundle, &backend, &phases);
      auto pub = formats::zkey_public_signals<E>(bundle);
      // snarkjs's c = a o b means an unsatisfying witness still yields a "proof"; only the
      // verifier notices, so nothing is written unless it accepts.
      if (!groth16::PreparedVerifyingKey<E>(pk.vk).verify(proof, pub))
        throw std::runtime_error("the proof does not verify: the witness " + o.wtns +
                                 " does not satisfy the circuit of " + o.zkey + "; nothing written");
      sj::write_proof_files(o.proof, sj::proof_to_json<E>(proof), o.pub, sj::public_to_json<Fr>(pub));
      std::fprintf(stderr,
                   "proved %s (%s, %u vars, domain 2^%u) on %s: device probe %.1f ms, load %.1f ms, synth %.1f ms, %s; "
                   "total %.1f ms; verified\n",
                   o.zkey.c_str(), curve_snarkjs_name(E::kId), zfile.n_vars(), zfile.log_domain_size(), backend.c_str(),
                   probe_ms, load_ms, synth_ms, phases.c_str(), groth16::detail::ms_since(t0));
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

// `groth16 setup`: snarkjs's alias of `zkey new`, the same body (cmd_zkey.hpp).
int run_setup(const Groth16Options& o) { return run_zkey_new(o.r1cs, o.ptau, o.zkey, o.quiet, "groth16 setup"); }

RunFn setup_groth16(CLI::App& sub) {
  auto o = std::make_shared<Groth16Options>();
  sub.require_subcommand(1);
  o->prove = sub.add_subcommand("prove", "Prove with a snarkjs .zkey and a .wtns witness (snarkjs groth16 prove)");
  o->prove->add_option("zkey", o->zkey, "circuit.zkey (snarkjs Groth16 key)")->required();
  o->prove->add_option("witness", o->wtns, "witness.wtns")->required();
  o->prove->add_option("proof", o->proof, "proof.json to write")->required();
  o->prove->add_option("public", o->pub, "public.json to write")->required();
  o->prove
      ->add_option("--gpu", o->gpu,
                   "Prove on the GPU: auto (when built with CUDA, the device exists and the domain is 2^17 or "
                   "more; a GPU failure falls back to the CPU), on (exit 2 without a GPU), off (CPU only)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  o->prove->add_option("--device", o->device, "CUDA device index for --gpu auto|on")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  o->verify =
      sub.add_subcommand("verify", "Verify a Groth16 proof (snarkjs groth16 verify; exit 0 valid, 1 invalid, 2 error)");
  o->verify->add_option("verification_key", o->vk, "verification_key.json")->required();
  o->verify->add_option("public", o->pub, "public.json")->required();
  o->verify->add_option("proof", o->proof, "proof.json")->required();
  o->verify->footer(groth16::snarkjs::kVerifyExitTable);
  o->check = sub.add_subcommand("check",
                                "Check a witness against its circuit (snarkjs wtns check; exit 0 ok, 1 not, 2 error)");
  o->check->add_option("r1cs", o->r1cs, "circuit.r1cs")->required();
  o->check->add_option("witness", o->wtns, "witness.wtns")->required();
  o->setup = sub.add_subcommand(
      "setup", "Initial key of a circuit (snarkjs groth16 setup; same as `zkmill zkey new`; exit 0 done, 2 error)");
  o->setup->add_option("circuit", o->r1cs, "circuit.r1cs")->required();
  o->setup->add_option("powersoftau", o->ptau, "prepared ptau (powersoftau prepare phase2)")->required();
  o->setup->add_option("zkey", o->zkey, "circuit_0000.zkey to write")->required();
  o->setup->add_flag("--quiet,-q", o->quiet, "No progress bar (drawn only on a terminal anyway)");
  return [o](const Context&) {
    if (o->prove->parsed()) return run_zkey_prove(*o);
    if (o->setup->parsed()) return run_setup(*o);
    if (o->check->parsed()) return run_check(*o);
    return groth16::snarkjs::verify_snarkjs_files(o->vk, o->pub, o->proof);
  };
}

// Every groth16 subcommand exits 2 on a usage or input error (1 means "invalid" for verify and
// check).
const RegisterCommand kGroth16{
    "groth16",
    "snarkjs-compatible Groth16: setup (.r1cs + .ptau), prove (.zkey + .wtns), verify, check (.r1cs + .wtns)",
    setup_groth16, 2};

}  // namespace
}  // namespace zkmill::cli
