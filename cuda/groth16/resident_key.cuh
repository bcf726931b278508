// SPDX-License-Identifier: MIT
// A proving key on its way to the device's key cache (CUDA-only; the prover's body, prove.cuh,
// uses it): the host view both key formats give (HostKey), its cache identity when the caller
// names none (key_fingerprint), the precomputed copies it gets within the cache budget
// (key_copies) and the upload of its sections, copies included (upload_key).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "common/groth16/proving_key.hpp"
#include "cuda/groth16/context.cuh"
#include "cuda/msm/accumulation.hpp"
#include "cuda/msm/pippenger_plan.hpp"

namespace zkmill::cuda::g16 {

// FNV-1a over bytes.
struct Fnv64 {
  uint64_t h = 1469598103934665603ull;
  void add(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  template <class T>
  void add_obj(const T& v) {
    add(reinterpret_cast<const uint8_t*>(&v), sizeof v);
  }
  void add_str(const std::string& s) { add(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
};

// A proving key's sections on the host, as both key formats hold them: A, B1, B2 over all
// variables, L (native) or C (snarkjs) over the aux variables, H over the domain.
template <class E>
struct HostKey {
  std::span<const typename E::G1Affine> a, b1, l, h;
  std::span<const typename E::G2Affine> b2;
  const groth16::VerifyingKey<E>* vk = nullptr;
  std::string shape;  // the format's metadata, as text: part of the fingerprint
};

// Cache identity of a key when the caller gives none: curve, metadata, section sizes, the
// verifying key and 4096 sampled points of every section, B_G2 included (coordinates only:
// padding bytes of in-memory points are unspecified).
template <class E>
std::string key_fingerprint(const HostKey<E>& k) {
  Fnv64 f;
  f.add_str(E::kName);
  f.add_str(k.shape);
  auto point = [&](const auto& p) {
    f.add_obj(p.x);
    f.add_obj(p.y);
    f.add_obj(p.infinity);
  };
  auto sample = [&](const auto& sec) {
    f.add_obj(uint64_t(sec.size()));
    const size_t samples = sec.size() < 4096 ? sec.size() : 4096;
    for (size_t i = 0; i < samples; ++i) point(sec[sec.size() * i / samples]);
  };
  point(k.vk->alpha_g1);
  point(k.vk->beta_g1);
  point(k.vk->delta_g1);
  const std::span<const typename E::G1Affine> sections[] = {k.a, k.b1, k.l, k.h};
  for (const auto& sec : sections) sample(sec);
  sample(k.b2);
  char buf[40];
  std::snprintf(buf, sizeof buf, "fp:%016llx", static_cast<unsigned long long>(f.h));
  return buf;
}

// One section (G1 or G2), CPU layout, into resident compact affine points: pinned chunks are copied to
// a device staging image and converted there (ordered on the copy stream, so one staging
// buffer serves every chunk); then, with pc.copies > 1, the precomputed copies after them.
// Several host sections (`parts`) become one point set, one after the other (L and H: [L; H]),
// whose copies then hold the whole set.
template <class G>
void upload_section(DeviceContext& ctx, std::initializer_list<std::span<const typename G::HostAffine>> parts,
                    DeviceBuffer<typename G::Affine>& dst, DeviceBuffer<typename G::HostImage>& staging,
                    const char* what, int copies, int c) {
  using Img = typename G::HostImage;
  size_t n = 0;
  for (const auto& src : parts) n += src.size();
  dst.reserve(n * size_t(copies), what);
  if (n == 0) return;
  const cudaStream_t cp = ctx.copy.get();
  size_t at = 0;
  for (const auto& src : parts) {
    ctx.pinned.stream_chunks(
        reinterpret_cast<const Img*>(src.data()), src.size(), cp, [&](const Img* chunk, size_t off, size_t len) {
          ZK_CUDA_OK(cudaMemcpyAsync(staging.get(), chunk, len * sizeof(Img), cudaMemcpyHostToDevice, cp));
          pippenger::Engine<G>::points_from_image(staging.get(), dst.get() + at + off, uint32_t(len), cp);
        });
    at += src.size();
  }
  pippenger::Engine<G>::precompute(dst.get(), uint32_t(n), copies, pippenger::precompute_shift(G::Fr::kBits, c, copies),
                                   cp);
}

// The key's G1 sections and, with_b2, its B_G2 section, each as `copies` precomputed copies for
// window width c (copies = 1: plain).
template <class E>
std::unique_ptr<KeyEntry<curve::G1Device<E>>> upload_key(DeviceContext& ctx, const HostKey<E>& pk,
                                                         const std::string& id, uint64_t bytes, bool with_b2,
                                                         int copies, int c) {
  using G = curve::G1Device<E>;
  auto e = std::make_unique<KeyEntry<G>>();
  e->id = id;
  e->bytes = bytes;
  e->n_vars = pk.a.size();
  e->n_aux = pk.l.size();
  e->n_h = pk.h.size();
  e->copies = copies;
  e->c = c;
  DeviceBuffer<typename G::HostImage> staging(ctx.pinned.slot_bytes() / sizeof(typename G::HostImage), "key staging");
  upload_section<G>(ctx, {pk.a}, e->a, staging, "resident key A", copies, c);
  upload_section<G>(ctx, {pk.b1}, e->b1, staging, "resident key B_G1", copies, c);
  upload_section<G>(ctx, {pk.l, pk.h}, e->lh, staging, "resident key L and H", copies, c);
  if (with_b2) {
    using G2 = G2Of<G>;
    DeviceBuffer<typename G2::HostImage> staging2(ctx.pinned.slot_bytes() / sizeof(typename G2::HostImage),
                                                  "key staging (G2)");
    upload_section<G2>(ctx, {pk.b2}, e->b2, staging2, "resident key B_G2", copies, c);
    ctx.copy.sync();  // before staging2 is freed
    e->has_b2 = true;
  }
  ctx.copy.sync();
  return e;
}

// Fewer copies than this, when the budget cuts a larger request down, are not worth their memory:
// warm 2^24 proofs on the H200 (docs/benchmarks.md, "precomputed copies of fixed bases", lead's
// call) with 2 / 3 / 4 / 7 copies against none: BN254 +3.4% / -1.5% / -5.8% / -11.4%, BLS12-381
// +6.2% / +2.4% / -2.6% / -10.8% (at c = 20, W' = 7 or 5 windows keep most of the reduction and
// lengthen each slice's runs).
constexpr int kMinBudgetCutCopies = 4;

// The precomputed copies of a key whose plain sections take `plain_bytes`, t asked for: (copies,
// width). The width is chosen for its largest section (n points); t times its largest point set
// (`set`: [L; H] is one) must stay below 2^31. t copies when they fit the key-cache budget; else
// as many as fit (a line on stderr says so), none (1) when that is fewer than
// kMinBudgetCutCopies. An explicit small t (2, 3) is made as asked (tests, measurements).
inline std::pair<int, int> key_copies(int t, uint64_t n, uint64_t set, uint64_t plain_bytes, int bits, uint64_t budget,
                                      int device) {
  if (t <= 1 || n == 0) return {1, 0};
  const pippenger::PointCopies asked = pippenger::copies_for(n, bits, t);
  const int c = asked.c, want = asked.copies;
  const uint64_t fit = plain_bytes == 0 ? uint64_t(want) : budget / plain_bytes;
  int copies = int(std::min<uint64_t>(uint64_t(want), fit));
  set = std::max(set, n);
  if (uint64_t(copies) * set >= (uint64_t(1) << 31)) copies = int(((uint64_t(1) << 31) - 1) / set);
  copies = pippenger::precompute_copies(bits, c, copies);  // the fewest for the same windows
  if (copies < want && copies < kMinBudgetCutCopies) copies = 1;
  if (copies < want)
    std::fprintf(stderr,
                 "zkmill gpu prover: %d precomputed key copies (%llu MiB) do not fit device %d's key-cache budget "
                 "(%llu MiB) or the MSM's 2^31 points: %s\n",
                 want, (unsigned long long)((plain_bytes * uint64_t(want)) >> 20), device,
                 (unsigned long long)(budget >> 20),
                 copies >= 2 ? ("using " + std::to_string(copies)).c_str() : "precompute off");
  if (copies < 2) return {1, 0};
  return {copies, c};
}

}  // namespace zkmill::cuda::g16
