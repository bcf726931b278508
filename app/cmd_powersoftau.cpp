// SPDX-License-Identifier: MIT
// `zkmill powersoftau prepare phase2 <in.ptau> <out.ptau>`: snarkjs's command of the same name
// (the Lagrange-basis sections a circuit-specific setup reads), native and multi-threaded, same
// bytes as snarkjs (common/setup/prepare_phase2.hpp). Exit 0 on success, 2 on any error (the
// message names the file and the problem; nothing is written).
// --gpu auto|on|off as for `groth16 prove`: the group IFFTs of 2^8 points and more on the GPU
// (cuda/ntt/point_ntt.hpp) when the build has CUDA, the device exists and (auto) the file's
// power is at least kAutoGpuMinPower; auto falls back to the CPU with a warning if the GPU fails,
// on exits 2 instead.
// zkmill-cli-links: zk_setup
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "app/command.hpp"
#include "common/formats/ptau.hpp"
#include "common/setup/prepare_phase2.hpp"

#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/ntt/point_ntt.hpp"
#include "cuda/runtime/device_query.hpp"
#endif

namespace zkmill::cli {
namespace {

struct PtauOptions {
  std::string in, out;
  bool quiet = false;
  std::string gpu = "auto";  // auto | on | off
  int device = 0;
};

// --gpu auto prepares files below power kAutoGpuMinPower on the CPU: power 10 takes the CPU
// about 2.5 CPU s in all (docs/benchmarks.md), the GPU's CUDA start-up alone ~0.3 s.
constexpr uint32_t kAutoGpuMinPower = 10;

// The GPU offload for `power`, or nothing with *why_not saying why (no CUDA in this build, no
// such device, --gpu off, or a small file under --gpu auto).
std::unique_ptr<setup::PrepareOffload> gpu_offload(const PtauOptions& o, uint32_t power, std::string* why_not) {
  if (o.gpu == "off") {
    *why_not = "--gpu off";
    return nullptr;
  }
  if (o.gpu == "auto" && power < kAutoGpuMinPower) {
    *why_not = "power " + std::to_string(power) + " is below " + std::to_string(kAutoGpuMinPower) +
               ", where the CPU is as fast (--gpu on forces the GPU)";
    return nullptr;
  }
#if defined(ZKMILL_HAVE_CUDA)
  if (!cuda::find_gpu(o.device, why_not)) return nullptr;
  auto off = std::make_unique<setup::PrepareOffload>();
  off->name = "GPU " + std::to_string(o.device);
  off->required = o.gpu == "on";
  const int device = o.device;
  auto bind = [device]<class C>(setup::GroupIfftOffload<C>& slot) {
    slot = [device](std::span<const ec::Affine<C>> in, std::span<ec::Jacobian<C>> out,
                    const std::function<void(uint64_t)>& progress) -> std::string {
      const auto r =
          cuda::group_ifft_gpu<C>(in.data(), out.data(), in.size(), device, util::ThreadPool::global(), progress);
      return r.ok() ? std::string() : std::string(cuda::to_string(r.code)) + ": " + r.message;
    };
  };
  bind(off->bn254_g1);
  bind(off->bn254_g2);
  bind(off->bls12381_g1);
  bind(off->bls12381_g2);
  return off;
#else
  *why_not = "this zkmill was built without the CUDA backend (nvcc not found or ZKMILL_CUDA=OFF)";
  return nullptr;
#endif
}

int run_prepare(const PtauOptions& o) {
  try {
    std::string why_not;
    const uint32_t power = formats::PtauFile::open(o.in).power();
    auto offload = gpu_offload(o, power, &why_not);
    if (o.gpu == "on" && !offload) throw std::runtime_error("--gpu on: no GPU to prepare on: " + why_not);
    if (!offload) spdlog::debug("preparing on the CPU: {}", why_not);
    auto st = setup::prepare_phase2(o.in, o.out, !o.quiet, util::ThreadPool::global(), offload.get());
    const std::string where = st.offloaded ? offload->name + ": " + std::to_string(st.offloaded) +
                                                 " transforms, CPU: " + std::to_string(st.on_cpu)
                                           : std::string("CPU");
    std::fprintf(stderr, "prepare phase2: wrote %s (%s, power %u) in %.2f s (%s)\n", o.out.c_str(),
                 curve_snarkjs_name(st.curve), st.power, st.seconds, where.c_str());
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
  p2->add_option("--gpu", o->gpu,
                 "auto: the GPU when there is one and the power is at least " + std::to_string(kAutoGpuMinPower) +
                     " (the CPU if it fails); on: the GPU or exit 2; off: the CPU only")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  p2->add_option("--device", o->device, "CUDA device index for --gpu auto|on")->capture_default_str();
  p2->footer(
      "Exit status: 0 written; 2 error (bad or truncated input, unsupported curve or power, --gpu on without a "
      "usable GPU; nothing written).");
  return [o](const Context&) { return run_prepare(*o); };
}

const RegisterCommand kPowersOfTau{"powersoftau", "Powers of tau (snarkjs .ptau): prepare phase2", setup_powersoftau,
                                   2};

}  // namespace
}  // namespace zkmill::cli
