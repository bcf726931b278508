// SPDX-License-Identifier: MIT
// The device registry of the GPU prover (one DeviceContext per device index, created on first
// use) and the non-template entries: key-cache budget, statistics, release, zkey cache ids.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>

#include "cuda/groth16/context.cuh"
#include "cuda/groth16/zkey_prover.hpp"
#include "cuda/msm/accumulation.hpp"

namespace zkmill::cuda::g16 {
namespace {

struct Registry {
  std::mutex mu;
  std::map<int, std::shared_ptr<DeviceContext>> contexts;
};

Registry& registry() {
  static Registry r;  // contexts still held at exit are freed here (errors after CUDA's teardown ignored)
  return r;
}

void check_device(int device) {
  int count = 0;
  ZK_CUDA_OK(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count)
    throw std::invalid_argument("GPU prover: device index " + std::to_string(device) + " out of range (" +
                                std::to_string(count) + " devices)");
}

}  // namespace

size_t staging_threads() {
  static const size_t n =
      parse_staging_threads_env(std::getenv("ZKMILL_GPU_STAGING_THREADS"), std::thread::hardware_concurrency());
  return n;
}

size_t staging_slot_bytes() {
  static const size_t bytes = parse_staging_slot_mib_env(std::getenv("ZKMILL_GPU_STAGING_SLOT_MIB")) << 20;
  return bytes;
}

ContextLease acquire_context(int device) {
  check_device(device);
  Registry& reg = registry();
  std::shared_ptr<DeviceContext> ctx;
  {
    std::lock_guard<std::mutex> g(reg.mu);
    auto& slot = reg.contexts[device];
    if (!slot) {
      auto made = std::make_shared<DeviceContext>(device);
      size_t free_b = 0, total_b = 0;
      ZK_CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
      made->cache.set_budget(total_b / 2);
      slot = std::move(made);
    }
    ctx = slot;
  }
  DeviceContext* raw = ctx.get();
  ContextLease lease{std::move(ctx), raw, std::unique_lock<std::mutex>(raw->mu)};
  ZK_CUDA_OK(cudaSetDevice(device));  // the current device is per host thread
  return lease;
}

}  // namespace zkmill::cuda::g16

namespace zkmill::cuda {

GpuHPlacement parse_h_beside_env(const char* value) {
  // Unset: beside B_G2, measured faster at 2^24 (both curves, 2-4 ms) and at a 130M-constraint
  // BLS12-381 partition (-66 ms warm, 2026-12-04: docs/benchmarks/gpu-porep.md), where H's NTTs
  // beside A slowed that bit-heavy MSM from ~70 to ~400 ms.
  if (value == nullptr || *value == '\0') return GpuHPlacement::kBesideG2;
  const std::string s(value);
  if (s == "ab") return GpuHPlacement::kBesideAB;
  if (s == "g2") return GpuHPlacement::kBesideG2;
  throw std::invalid_argument("ZKMILL_GPU_H_BESIDE must be ab or g2, got '" + s + "'");
}

GpuHPlacement h_placement(GpuHPlacement requested) {
  if (requested != GpuHPlacement::kDefault) return requested;
  static const GpuHPlacement from_env = parse_h_beside_env(std::getenv("ZKMILL_GPU_H_BESIDE"));
  return from_env;
}

bool parse_lh_msm_env(const char* value) {
  if (value == nullptr || *value == '\0') return true;
  const std::string s(value);
  if (s == "joined") return true;
  if (s == "apart") return false;
  throw std::invalid_argument("ZKMILL_GPU_LH_MSM must be joined or apart, got '" + s + "'");
}

bool lh_msm_joined() {
  static const bool from_env = parse_lh_msm_env(std::getenv("ZKMILL_GPU_LH_MSM"));
  return from_env;
}

size_t parse_staging_threads_env(const char* value, size_t hardware_threads) {
  // Every hardware thread, at most 16: z's upload (512 MiB at 2^24) waited 30 / 18-22 / 15-16 ms
  // with 4 / 8 / 16 threads on the H200 host's 16 cores (cuda/bench/NOTES-h-placement.md); the
  // copies last ~15 ms a proof, so taking the cores from a synth worker that long costs little.
  if (value == nullptr || *value == '\0') return std::clamp<size_t>(hardware_threads, 1, 16);
  return size_t(pippenger::parse_bounded(value, "ZKMILL_GPU_STAGING_THREADS", 1, 64));
}

size_t parse_staging_slot_mib_env(const char* value) {
  if (value == nullptr || *value == '\0') return 32;
  return size_t(pippenger::parse_bounded(value, "ZKMILL_GPU_STAGING_SLOT_MIB", 1, 1024));
}

GpuResult set_key_cache_budget(int device, uint64_t bytes) noexcept {
  return run_guarded([&] {
    auto lease = g16::acquire_context(device);
    lease.ctx->cache.set_budget(bytes);
  });
}

GpuResult key_cache_stats(int device, KeyCacheStats* out) noexcept {
  if (out == nullptr) return {GpuErrc::kInvalidArgument, "key_cache_stats: output pointer is null"};
  return run_guarded([&] {
    auto lease = g16::acquire_context(device);
    *out = lease.ctx->cache.stats();
  });
}

GpuResult release_gpu_context(int device) noexcept {
  return run_guarded([&] {
    g16::Registry& reg = g16::registry();
    std::shared_ptr<g16::DeviceContext> victim;
    {
      std::lock_guard<std::mutex> g(reg.mu);
      auto it = reg.contexts.find(device);
      if (it == reg.contexts.end()) return;
      victim = std::move(it->second);
      reg.contexts.erase(it);
    }
    std::lock_guard<std::mutex> wait_for_proof(victim->mu);
    ZK_CUDA_OK(cudaSetDevice(device));
    ZK_CUDA_OK(cudaDeviceSynchronize());
    victim->cache.clear();
    victim->drop_scratch();
  });  // the rest (pinned pool, streams) goes with the last owner of `victim`, after the lock
}

GpuResult pin_host_memory(const void* p, size_t bytes) noexcept {
  if (p == nullptr || bytes == 0) return {GpuErrc::kInvalidArgument, "pin_host_memory: empty range"};
  return run_guarded([&] {
    // Portable: page-locked for every device's copies, not only the current one's.
    ZK_CUDA_OK(cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable));
  });
}

GpuResult unpin_host_memory(const void* p) noexcept {
  if (p == nullptr) return {GpuErrc::kInvalidArgument, "unpin_host_memory: null pointer"};
  return run_guarded([&] { ZK_CUDA_OK(cudaHostUnregister(const_cast<void*>(p))); });
}

std::string zkey_cache_id(const std::string& path) noexcept {
  try {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path abs = fs::absolute(path, ec);
    const auto size = fs::file_size(path, ec);
    if (ec) return {};
    const auto mtime = fs::last_write_time(path, ec);
    if (ec) return {};
    return "zkey:" + abs.string() + ":" + std::to_string(size) + ":" +
           std::to_string(static_cast<long long>(mtime.time_since_epoch().count()));
  } catch (...) {  // allocation: no id, the prover fingerprints the key instead
    return {};
  }
}

}  // namespace zkmill::cuda
