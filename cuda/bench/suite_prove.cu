// SPDX-License-Identifier: MIT
// The proof parts of the GPU benchmark suite (suite_common.cuh): full GPU proofs through
// prove_gpu<E> on synthetic keys (cold and warm key cache, B_G2 on the GPU and on the CPU, and the
// CPU prover's proof on the same inputs at check_cpu_log), in each H basis of --h-basis (the
// same points labelled either way: a synthetic key's proofs do not verify, the GPU == CPU check
// holds per basis); also the synthetic witness and the phase note that the PoRep rows
// (suite_porep.cu) share.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/groth16/prover.hpp"
#include "cuda/bench/suite_common.cuh"
#include "cuda/groth16/prove.cuh"

namespace zkmill::cuda::bench {

// A witness bundle of the synthetic shape: 2 inputs, n - 2 aux, n rows, c = a o b.
template <class E>
cs::WitnessBundle synthetic_bundle(uint32_t log_n, std::mt19937_64& rng) {
  using Fr = typename E::Fr;
  const uint64_t n = uint64_t(1) << log_n;
  cs::BundleHeader h;
  h.curve = E::kId;
  h.n_inputs = 2;
  h.n_aux = n - 2;
  h.n_rows = n;
  auto w = cs::WitnessBundle::allocate(h);
  auto in = w.template section_mut<Fr>(cs::Section::Inputs);
  in[0] = Fr::one();
  in[1] = Fr::random(rng);
  fill_progression<Fr>(w.template section_mut<Fr>(cs::Section::Aux), Fr::random(rng), Fr::random(rng));
  auto a = w.template section_mut<Fr>(cs::Section::A);
  auto b = w.template section_mut<Fr>(cs::Section::B);
  auto c = w.template section_mut<Fr>(cs::Section::C);
  fill_progression<Fr>(a, Fr::random(rng), Fr::random(rng));
  fill_progression<Fr>(b, Fr::random(rng), Fr::random(rng));
  util::ThreadPool::global().parallel_for(
      n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) c[i] = a[i] * b[i];
      },
      size_t(1) << 14);
  for (auto d : {cs::DensityMap::AuxInA, cs::DensityMap::AuxInB, cs::DensityMap::InputInB}) {
    auto bits = w.density_mut(d);
    std::fill(bits.begin(), bits.end(), uint64_t(0));
  }
  w.seal();
  return w;
}

namespace {

template <class P>
std::vector<P> tiled(const std::vector<P>& pool, size_t n, size_t offset) {
  std::vector<P> v(n);
  const size_t m = pool.size();
  util::ThreadPool::global().parallel_for(
      n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) v[i] = pool[(i * 5 + offset) % m];
      },
      size_t(1) << 14);
  return v;
}

template <class E>
groth16::ProvingKey<E> synthetic_key(uint32_t log_n, std::mt19937_64& rng, groth16::HBasis basis) {
  using Fr = typename E::Fr;
  const uint64_t n = uint64_t(1) << log_n;
  const auto g1 = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << kQLog, E::G1::generator().to_affine());
  const auto g2 = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << 12, E::G2::generator().to_affine());
  groth16::KeyMeta meta;
  meta.circuit = "synthetic";
  meta.size = n;
  meta.n_inputs = 2;
  meta.n_aux = n - 2;
  meta.n_constraints = n;
  meta.domain_log2 = log_n;
  meta.h_basis = basis;
  groth16::VerifyingKey<E> vk;
  vk.alpha_g1 = g1[1];
  vk.beta_g1 = g1[2];
  vk.delta_g1 = g1[3];
  vk.beta_g2 = g2[1];
  vk.gamma_g2 = g2[2];
  vk.delta_g2 = g2[3];
  vk.ic = {g1[4], g1[5]};
  return groth16::ProvingKey<E>(std::move(meta), std::move(vk), tiled(g1, n, 11), tiled(g1, n, 1234), tiled(g2, n, 7),
                                tiled(g1, n - 2, 4321), tiled(g1, n, 999));
}

template <class E>
GpuResult prove_dispatch(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                         const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* t,
                         const GpuProveOptions& po) {
  return prove_gpu(pk, w, r, s, out, t, po);
}

}  // namespace

std::string phase_note(const GpuProveTimings& t) {
  char note[360];
  if (t.g2_on_gpu)
    std::snprintf(
        note, sizeof note,
        "%s key_up %.0f | up %.1f (waited %.1f, abc %.1f) H %.1f (Hwait %.1f) A %.1f B1 %.1f B2(GPU) %.1f L %.1f "
        "%s %.1f | comb %.1f",
        t.key_cache_hit ? "warm" : "cold", t.key_upload_ms, t.upload_ms, t.upload_wait_ms, t.abc_wait_ms, t.h_ms,
        t.h_wait_ms, t.msm_a_ms, t.msm_b_g1_ms, t.msm_b_g2_ms, t.msm_l_ms, t.lh_joined ? "L+Hmsm" : "Hmsm", t.msm_h_ms,
        t.combine_ms);
  else
    std::snprintf(note, sizeof note,
                  "%s key_up %.0f | up %.1f H %.1f (Hwait %.1f) A %.1f B1 %.1f L %.1f Hmsm %.1f | G2cpu %.0f (wait "
                  "%.0f) comb %.1f",
                  t.key_cache_hit ? "warm" : "cold", t.key_upload_ms, t.upload_ms, t.h_ms, t.h_wait_ms, t.msm_a_ms,
                  t.msm_b_g1_ms, t.msm_l_ms, t.msm_h_ms, t.g2_cpu_ms, t.g2_wait_ms, t.combine_ms);
  if (t.msm_room_retries > 0)
    return std::string(note) + " | MSM steps re-run for room " + std::to_string(t.msm_room_retries);
  return note;
}

namespace {

// Page-locks a host range for as long as it lives (GpuBenchOptions::pinned_bundle); empty: nothing.
class HostRegistration {
 public:
  explicit HostRegistration(std::span<const uint8_t> bytes) {
    if (bytes.empty()) return;
    const auto r0 = std::chrono::steady_clock::now();
    const GpuResult res = pin_host_memory(bytes.data(), bytes.size());
    if (!res.ok()) throw std::runtime_error("pinning the bundle: " + res.message);
    p_ = bytes.data();
    std::printf("bundle page-locked: %zu MiB in %.0f ms (not timed below)\n", bytes.size() >> 20, g16::ms_since(r0));
  }
  ~HostRegistration() {
    if (p_ != nullptr) (void)unpin_host_memory(p_);
  }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

 private:
  const uint8_t* p_ = nullptr;
};

// The placements of GpuBenchOptions::h_beside with their row suffixes; {kDefault, ""} when empty.
std::vector<std::pair<GpuHPlacement, std::string>> h_placements(const std::string& list) {
  std::vector<std::pair<GpuHPlacement, std::string>> out;
  for (size_t at = 0; at < list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string name = list.substr(at, comma - at);
    out.emplace_back(parse_h_beside_env(name.c_str()), "_h" + name);  // throws on anything but ab / g2
    at = comma + 1;
  }
  if (out.empty()) out.emplace_back(GpuHPlacement::kDefault, "");
  return out;
}

}  // namespace

template <class E>
bool bench_prove(const GpuBenchOptions& o, std::vector<Row>& rows) {
  using Fr = typename E::Fr;
  bool all_ok = true;
  const auto bases = h_bases(o.h_basis);
  const auto places = h_placements(o.h_beside);
  for (int lg : o.prove_sizes) {
    std::mt19937_64 rng(1000 + lg);
    const auto k0 = std::chrono::steady_clock::now();
    auto pk = synthetic_key<E>(uint32_t(lg), rng, bases[0]);
    auto w = synthetic_bundle<E>(uint32_t(lg), rng);
    std::printf("prove %-10s 2^%d: synthetic key + bundle in %.0f ms (host, not timed below)\n", E::kName, lg,
                g16::ms_since(k0));
    const HostRegistration pinned(o.pinned_bundle ? w.bytes() : std::span<const uint8_t>{});
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    for (const groth16::HBasis basis : bases) {
      pk.meta.h_basis = basis;  // its own key-cache entry: the fingerprint covers the metadata
      const std::string suffix = basis == groth16::HBasis::kMonomial ? "_monoH" : "";
      groth16::Proof<E> proof{}, first{};
      // Default mode (B_G2 on the GPU) cold then warm; at g2_cpu_log also the CPU-G2 mode (its
      // own cache entry: cold then warm), whose proof must be the same.
      const bool both = lg == o.g2_cpu_log;
      // Then, per precompute factor t > 1, cold and warm with the key cached as t copies.
      std::vector<int> pre;
      for (int tp : o.precompute)
        if (tp > 1) pre.push_back(tp);
      const int plain_reps = both ? 4 : 2;
      // The warm proofs with copies: o.runs per placement, interleaved; every other proof once
      // (in the first placement).
      bool failed = false;
      for (int rep = 0; rep < plain_reps + 2 * int(pre.size()) && !failed; ++rep) {
        const bool repeated = rep >= plain_reps && (rep - plain_reps) % 2 == 1;
        const int calls = repeated ? o.runs * int(places.size()) : 1;
        for (int call = 0; call < calls; ++call) {
          const auto& [beside, place_suffix] = places[size_t(call) % places.size()];
          GpuProveTimings t;
          GpuProveOptions po;
          po.g2_on_cpu = rep >= 2 && rep < plain_reps;
          po.precompute = rep >= plain_reps ? pre[size_t(rep - plain_reps) / 2] : 1;
          po.h_beside = beside;
          const std::string op = (po.g2_on_cpu ? "prove_gpu_g2cpu" : "prove_gpu") + suffix +
                                 (po.precompute > 1 ? "_pre" + std::to_string(po.precompute) : "") + place_suffix;
          const GpuResult res = prove_dispatch<E>(pk, w, r, s, &proof, &t, po);
          if (!res.ok()) {
            std::printf("prove %s 2^%d FAILED: %s: %s\n", E::kName, lg, to_string(res.code), res.message.c_str());
            rows.push_back({op, E::kName, lg, 0, 0, "WRONG: " + res.message});
            all_ok = false;
            failed = true;
            break;
          }
          if (rep == 0) first = proof;
          std::string note = phase_note(t);
          if (po.precompute > 1) {  // the copies' memory: what the key cache holds now
            KeyCacheStats ks;
            if (key_cache_stats(0, &ks).ok()) note += " | cache " + std::to_string(ks.resident_bytes >> 20) + " MiB";
          }
          if (rep >= 1 && !(proof == first)) {
            note = "WRONG (differs from the first proof) " + note;
            all_ok = false;
          }
          rows.push_back({op, E::kName, lg, float(t.total_ms), float(t.total_ms), note});
          std::printf("%s %-10s 2^%d total %.1f ms  %s\n", op.c_str(), E::kName, lg, t.total_ms, note.c_str());
          std::fflush(stdout);
        }
      }
      if (lg == o.check_cpu_log) {
        groth16::ProveTimings ct;
        const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s, util::ThreadPool::global(), &ct);
        const bool same = cpu == first;
        all_ok = all_ok && same;
        char note[200];
        std::snprintf(
            note, sizeof note, "%s GPU proof == CPU proof | CPU: H %.0f A %.0f B1 %.0f B2 %.0f L %.0f Hmsm %.0f",
            same ? "OK" : "WRONG", ct.h_ms, ct.msm_a_ms, ct.msm_b_g1_ms, ct.msm_b_g2_ms, ct.msm_l_ms, ct.msm_h_ms);
        rows.push_back({"prove_cpu" + suffix, E::kName, lg, float(ct.total_ms), float(ct.total_ms), note});
        std::printf("prove_cpu%s %-10s 2^%d total %.1f ms  %s\n", suffix.c_str(), E::kName, lg, ct.total_ms, note);
      }
    }
  }
  (void)release_gpu_context(0);
  return all_ok;
}

template cs::WitnessBundle synthetic_bundle<curves::Bn254>(uint32_t, std::mt19937_64&);
template cs::WitnessBundle synthetic_bundle<curves::Bls12381>(uint32_t, std::mt19937_64&);
template bool bench_prove<curves::Bn254>(const GpuBenchOptions&, std::vector<Row>&);
template bool bench_prove<curves::Bls12381>(const GpuBenchOptions&, std::vector<Row>&);

}  // namespace zkmill::cuda::bench
