// SPDX-License-Identifier: MIT
// prepare phase2 (prepare_phase2.hpp): per series and power, decode, group IFFT, normalise,
// encode LEM, append.
#include "common/setup/prepare_phase2.hpp"

#include <chrono>

#include "common/curves/dispatch.hpp"
#include "common/formats/bin_writer.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/setup/group_ops.hpp"
#include "common/setup/ptau_points.hpp"
#include "spdlog/spdlog.h"

namespace zkmill::setup {

namespace {

// Both devices' results are the same group elements, hence (normalised) the same bytes.
template <class E>
void prepare(const formats::PtauFile& f, formats::BinWriter& w, util::Progress& prog, util::ThreadPool& pool,
             const PrepareOffload* offload, PrepareStats& st) {
  using Fr = typename E::Fr;
  const uint32_t power = f.power();
  if (power + 1 > Fr::kTwoAdicity)
    throw std::runtime_error(
        f.name() + ": power " + std::to_string(power) +
        " needs the extended (shifted) Lagrange transform of 2^(s+1) points, which zkmill does not "
        "implement yet; use snarkjs for this file");
  // The same stages recur for every power and series.
  TwiddleCache<typename E::G1Params> twiddles1;
  TwiddleCache<typename E::G2Params> twiddles2;
  bool offload_ok = offload != nullptr;
  auto series = [&]<class C>(uint32_t type, std::span<const uint8_t> sec, const char* what, bool extra) {
    w.begin(type);
    const size_t avail = sec.size() / serde::snarkjs::Lem<C>::kSize;
    const uint32_t top = extra ? power + 1 : power;
    const uint64_t weight = std::is_same_v<C, typename E::G2Params> ? 3 : 1;
    const GroupIfftOffload<C>* dev = offload ? &offload->template get<C>() : nullptr;
    for (uint32_t p = 0; p <= top; ++p) {
      prog.stage(std::string(what) + " 2^" + std::to_string(p));
      const size_t n = size_t(1) << p;
      // Each power decodes its own first 2^p points from the mapping rather than copying them
      // from the whole series decoded once: twice the decoding (cheap next to the transform),
      // half the memory (one power's points, not also the series'). tauG1's largest power has
      // one point fewer than 2^p; the point at infinity stands in for it, as in snarkjs.
      std::vector<ec::Jacobian<C>> a;
      bool done = false;
      if (offload_ok && dev && *dev && p >= offload->min_log_n) {
        auto in = decode_ptau_points<C>(f, sec, 0, std::min(n, avail), what, pool);
        in.resize(n, ec::Affine<C>::identity());
        a.resize(n);
        const std::string err = (*dev)(in, a, [&](uint64_t m) { prog.add(m * weight); });
        if (err.empty()) {
          done = true;
          ++st.offloaded;
        } else {
          const std::string msg =
              offload->name + " failed on " + what + " 2^" + std::to_string(p) + " of " + f.name() + ": " + err;
          if (offload->required) throw std::runtime_error(msg);
          spdlog::warn("{}; the CPU does this and the remaining transforms", msg);
          offload_ok = false;  // (the bar may overshoot by what the device had reported)
        }
      }
      if (!done) {
        a = decode_ptau_points<C, ec::Jacobian<C>>(f, sec, 0, std::min(n, avail), what, pool);
        a.resize(n, ec::Jacobian<C>::identity());
        if constexpr (std::is_same_v<C, typename E::G2Params>)
          group_ifft<C>(a, pool, &prog, weight, &twiddles2);
        else
          group_ifft<C>(a, pool, &prog, weight, &twiddles1);
        ++st.on_cpu;
      }
      auto aff = normalize_parallel<C>(a, pool);
      std::vector<uint8_t> bytes(n * serde::snarkjs::Lem<C>::kSize);
      pool.parallel_for(
          n,
          [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
              serde::snarkjs::Lem<C>::encode(aff[i], bytes.data() + i * serde::snarkjs::Lem<C>::kSize);
          },
          4096);
      w.write(bytes);
    }
    f.file().release(sec);
    w.end();
  };
  series.template operator()<typename E::G1Params>(12, f.tau_g1(), "tauG1", true);
  series.template operator()<typename E::G2Params>(13, f.tau_g2(), "tauG2", false);
  series.template operator()<typename E::G1Params>(14, f.alpha_tau_g1(), "alphaTauG1", false);
  series.template operator()<typename E::G1Params>(15, f.beta_tau_g1(), "betaTauG1", false);
}

}  // namespace

PrepareStats prepare_phase2(const std::string& in, const std::string& out, bool progress, util::ThreadPool& pool,
                            const PrepareOffload* offload) {
  PrepareStats st;
  const auto t0 = std::chrono::steady_clock::now();
  auto f = formats::PtauFile::open(in);
  if (f.prepared()) spdlog::warn("{}: already prepared for phase 2; its Lagrange sections are recomputed", in);
  const uint32_t power = f.power();
  uint64_t total = 0;
  for (uint32_t p = 0; p <= power + 1; ++p) total += group_ifft_cost(uint64_t(1) << p);  // tauG1
  for (uint32_t p = 0; p <= power; ++p) total += 5 * group_ifft_cost(uint64_t(1) << p);  // tauG2 (x3) + 2 series
  util::Progress prog(total, progress);
  formats::BinWriter w(out, "ptau", 1, 11);
  // Header and sections 2..7 verbatim, in snarkjs's order.
  w.section(1, f.header());
  w.section(2, f.tau_g1());
  w.section(3, f.tau_g2());
  w.section(4, f.alpha_tau_g1());
  w.section(5, f.beta_tau_g1());
  w.section(6, f.beta_g2());
  w.section(7, f.contributions());
  curves::with_curve(f.curve(), [&]<class E>(E) { prepare<E>(f, w, prog, pool, offload, st); });
  prog.finish();
  w.commit();
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.power = power;
  st.curve = f.curve();
  return st;
}

}  // namespace zkmill::setup
