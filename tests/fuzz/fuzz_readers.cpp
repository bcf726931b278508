// SPDX-License-Identifier: MIT
// libFuzzer harnesses for the snarkjs/circom readers, one binary per reader: CMake compiles
// this file four times with ZKMILL_FUZZ_READER set to 1 (.zkey), 2 (.wtns), 3 (.r1cs) or 4
// (.ptau). Each harness parses the input as a file of its kind and then decodes everything a
// prover or the setup would touch (every point, witness value, constraint and label; for a
// .ptau every point of the monomial and, when present, the Lagrange sections, as `zkey new`
// and `powersoftau prepare phase2` read them). A FormatError is the
// expected outcome for bad input; any other exception, crash, leak, out-of-bounds access or
// undefined behaviour (ASan/UBSan are on) is a finding.
//
// Run: fuzz_zkey -max_total_time=30 <corpus dir>  (the build seeds corpus_<kind>/ from the
// committed fixtures, tests/interop/fixtures).
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/curves/dispatch.hpp"
#include "common/formats/circom_files.hpp"
#include "common/formats/ptau.hpp"
#include "common/formats/zkey.hpp"
#include "common/setup/ptau_points.hpp"

#ifndef ZKMILL_FUZZ_READER
#error "define ZKMILL_FUZZ_READER: 1 = zkey, 2 = wtns, 3 = r1cs, 4 = ptau"
#endif

namespace zkmill::test {
namespace {

[[maybe_unused]] void fuzz_zkey(std::span<const uint8_t> bytes) {
  // One thread: a finding must reproduce from the input alone, independent of scheduling.
  static zkmill::util::ThreadPool pool(1);
  auto z = zkmill::formats::ZkeyFile::parse(bytes, "fuzz.zkey");
  zkmill::curves::with_curve(z.curve(), [&]<class E>(E) { (void)zkmill::formats::load_zkey<E>(z, pool); });
}

[[maybe_unused]] void fuzz_wtns(std::span<const uint8_t> bytes) {
  auto w = zkmill::formats::WtnsFile::parse(bytes, "fuzz.wtns");
  zkmill::curves::with_curve(w.curve(), [&]<class E>(E) { (void)w.values<typename E::Fr>(); });
}

[[maybe_unused]] void fuzz_r1cs(std::span<const uint8_t> bytes) {
  auto r = zkmill::formats::R1csFile::parse(bytes, "fuzz.r1cs");
  zkmill::curves::with_curve(r.header().curve, [&]<class E>(E) { (void)r.constraints<typename E::Fr>(); });
  (void)r.wire_to_label();
}

[[maybe_unused]] void fuzz_ptau(std::span<const uint8_t> bytes) {
  static zkmill::util::ThreadPool pool(1);
  auto f = zkmill::formats::PtauFile::parse(bytes, "fuzz.ptau");
  zkmill::curves::with_curve(f.curve(), [&]<class E>(E) {
    using G1 = typename E::G1Params;
    using G2 = typename E::G2Params;
    auto all = [&]<class C>(std::span<const uint8_t> sec, const char* what) {
      const size_t count = sec.size() / zkmill::serde::snarkjs::Lem<C>::kSize;
      (void)zkmill::setup::decode_ptau_points<C>(f, sec, 0, count, what, pool);
    };
    all.template operator()<G1>(f.tau_g1(), "tauG1");
    all.template operator()<G2>(f.tau_g2(), "tauG2");
    all.template operator()<G1>(f.alpha_tau_g1(), "alphaTauG1");
    all.template operator()<G1>(f.beta_tau_g1(), "betaTauG1");
    all.template operator()<G2>(f.beta_g2(), "betaG2");
    if (f.prepared()) {
      all.template operator()<G1>(f.lagrange(0), "Lagrange tauG1");
      all.template operator()<G2>(f.lagrange(1), "Lagrange tauG2");
      all.template operator()<G1>(f.lagrange(2), "Lagrange alphaTauG1");
      all.template operator()<G1>(f.lagrange(3), "Lagrange betaTauG1");
    }
  });
}

}  // namespace
}  // namespace zkmill::test

// libFuzzer's entry point, global and with C linkage.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  try {
#if ZKMILL_FUZZ_READER == 1
    zkmill::test::fuzz_zkey(bytes);
#elif ZKMILL_FUZZ_READER == 2
    zkmill::test::fuzz_wtns(bytes);
#elif ZKMILL_FUZZ_READER == 3
    zkmill::test::fuzz_r1cs(bytes);
#else
    zkmill::test::fuzz_ptau(bytes);
#endif
  } catch (const zkmill::formats::FormatError&) {
    // The reader refused the input with a named error: the correct outcome.
  }
  return 0;
}
