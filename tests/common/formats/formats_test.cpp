// SPDX-License-Identifier: MIT
// Reader and prover tests for common/formats over the committed snarkjs/circom fixtures
// (tests/interop/fixtures, made by tests/interop/make_fixtures.sh): headers agree across
// files, the witness satisfies the r1cs, in-process proofs verify, and every truncation,
// corruption or mismatch is a FormatError naming the problem (run under ASan too).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/curves/dispatch.hpp"
#include "common/formats/circom_files.hpp"
#include "common/formats/zkey_prover.hpp"
#include "common/groth16/snarkjs_verify.hpp"
#include "tests/support/fixtures.hpp"

namespace zkmill::test {
using namespace zkmill::formats;
namespace {

namespace fs = std::filesystem;

const char* const kCircuits[] = {"multiplier", "hashchain", "poseidon"};
const char* const kCurves[] = {"bn128", "bls12381"};

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs fn and returns the FormatError message ("" when nothing was thrown).
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

class Fixture : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {
 protected:
  std::string curve() const { return std::get<0>(GetParam()); }
  std::string circuit() const { return std::get<1>(GetParam()); }
  std::string path(const char* ext) const { return interop_fixture(curve(), circuit(), ext); }
};

TEST_P(Fixture, HeadersAgreeAndWitnessSatisfiesR1cs) {
  auto z = ZkeyFile::open(path("zkey"));
  auto w = WtnsFile::open(path("wtns"));
  auto r = R1csFile::open(path("r1cs"));
  EXPECT_EQ(z.curve(), *parse_curve(curve()));
  EXPECT_EQ(w.curve(), z.curve());
  EXPECT_EQ(r.header().curve, z.curve());
  EXPECT_EQ(w.size(), z.n_vars());
  EXPECT_EQ(r.header().n_wires, z.n_vars());
  EXPECT_EQ(r.header().n_public(), z.n_public());
  EXPECT_GE(z.domain_size(), r.header().n_constraints + z.n_public() + 1);
  EXPECT_EQ(r.wire_to_label().size(), r.header().n_wires);
  curves::with_curve(z.curve(), [&]<class E>(E) {
    using Fr = typename E::Fr;
    auto values = w.values<Fr>();
    auto cs = r.constraints<Fr>();
    EXPECT_EQ(cs.first_unsatisfied(values), -1);
    values.back() += Fr::one();
    if (cs.header.n_constraints > 0) {
      EXPECT_GE(cs.first_unsatisfied(values), 0);
    }
  });
}

// for_each_term (zkey new's streaming walk) visits exactly constraints()' terms, in order, with
// a row end after each of the three rows of every constraint.
TEST_P(Fixture, ForEachTermWalksTheConstraintsInOrder) {
  auto r = R1csFile::open(path("r1cs"));
  curves::with_curve(r.header().curve, [&]<class E>(E) {
    using Fr = typename E::Fr;
    const auto cs = r.constraints<Fr>();
    size_t next[3] = {0, 0, 0}, rows = 0;
    bool same = true;
    r.for_each_term<Fr>(
        [&](uint32_t c, uint32_t mat, uint32_t w, const Fr& v) {
          const auto& m = cs.m[mat];
          const size_t k = next[mat]++;
          same = same && k < m.wire.size() && m.wire[k] == w && m.coeff[k] == v && k >= m.row_start[c] &&
                 k < m.row_start[c + 1];
        },
        [&](uint32_t c, uint32_t mat) {
          same = same && next[mat] == cs.m[mat].row_start[c + 1];
          ++rows;
        });
    EXPECT_TRUE(same);
    EXPECT_EQ(rows, 3 * size_t(r.header().n_constraints));
    for (int mat = 0; mat < 3; ++mat) EXPECT_EQ(next[mat], cs.m[mat].wire.size());
  });
}

// BinFile::release drops mapped pages only: the bytes read the same afterwards, and caller-owned
// bytes (parse()) are never touched (MADV_DONTNEED on heap memory would zero it).
TEST_P(Fixture, ReleaseKeepsTheBytesAndLeavesCallerMemoryAlone) {
  const auto expect = slurp(path("zkey"));
  auto z = ZkeyFile::open(path("zkey"));
  z.file().release(z.file().bytes());
  z.file().release(z.h());
  EXPECT_TRUE(std::equal(expect.begin(), expect.end(), z.file().bytes().begin(), z.file().bytes().end()));
  std::vector<uint8_t> heap = expect;
  auto p = ZkeyFile::parse(heap, "heap.zkey");
  p.file().release(p.file().bytes());
  EXPECT_EQ(heap, expect);
}

TEST_P(Fixture, ProvesAndVerifiesInProcess) {
  auto z = ZkeyFile::open(path("zkey"));
  auto w = WtnsFile::open(path("wtns"));
  curves::with_curve(z.curve(), [&]<class E>(E) {
    using Fr = typename E::Fr;
    auto pk = load_zkey<E>(z);
    auto bundle = synthesize_zkey<E>(pk, w.values<Fr>());
    bundle.validate();
    auto proof = prove_zkey<E>(pk, bundle);
    auto pub = zkey_public_signals<E>(bundle);
    groth16::PreparedVerifyingKey<E> pvk(pk.vk);
    EXPECT_TRUE(pvk.verify(proof, pub));
    // Against snarkjs's own exported key too (same IC, alpha, beta, gamma, delta).
    auto vk_json = groth16::snarkjs::read_json_file(path("vk.json"));
    groth16::PreparedVerifyingKey<E> theirs(groth16::snarkjs::vk_from_json<E>(vk_json));
    EXPECT_TRUE(theirs.verify(proof, pub));
    // Exported vk equals snarkjs's, field for field, vk_alphabeta_12 included.
    auto ours = groth16::snarkjs::vk_to_json<E>(pk.vk);
    for (const auto& [k, v] : vk_json.items()) EXPECT_EQ(ours[k], v) << k;
    // A wrong witness value still gives a "proof" (snarkjs's c = a o b) that must not verify.
    auto bad = w.values<Fr>();
    bad.back() += Fr::one();
    auto bad_bundle = synthesize_zkey<E>(pk, bad);
    auto bad_pub = zkey_public_signals<E>(bad_bundle);
    EXPECT_FALSE(pvk.verify(prove_zkey<E>(pk, bad_bundle), bad_pub));
  });
}

INSTANTIATE_TEST_SUITE_P(All, Fixture, ::testing::Combine(::testing::ValuesIn(kCurves), ::testing::ValuesIn(kCircuits)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                         });

TEST(Roots, SnarkjsRootsRelateToOurs) {
  // BN254: ffjavascript's nqr and zkmill's generator are both 5, so the roots coincide.
  for (size_t log_n = 1; log_n < 12; ++log_n) {
    using Fr = ff::Bn254Fr;
    EXPECT_EQ(snarkjs_root_of_unity<Fr>(log_n), Fr::root_of_unity(log_n));
    EXPECT_EQ(SnarkjsQuotient<Fr>(log_n).root_exponent(), 1u);
  }
  using Fr = ff::Bls12381Fr;
  for (size_t log_n = 1; log_n < 12; ++log_n) {
    Fr w = snarkjs_root_of_unity<Fr>(log_n);
    EXPECT_EQ(snarkjs_root_of_unity<Fr>(log_n + 1).square(), w);
    uint64_t k = SnarkjsQuotient<Fr>(log_n).root_exponent();
    EXPECT_EQ(k % 2, 1u);
    EXPECT_EQ(Fr::root_of_unity(log_n).pow(k), w);
  }
}

// h_i = (A B - C)(zeta w^i) over snarkjs's roots, checked against direct evaluation.
TEST(Roots, QuotientMatchesDirectEvaluation) {
  auto check = [&]<class Fr>(Fr) {
    const size_t log_n = 3, n = 8;
    std::mt19937_64 rng(7);
    std::vector<Fr> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) a[i] = Fr::random(rng), b[i] = Fr::random(rng), c[i] = Fr::random(rng);
    const Fr w = snarkjs_root_of_unity<Fr>(log_n), zeta = snarkjs_root_of_unity<Fr>(log_n + 1);
    // Lagrange interpolation of values over w^i, evaluated at x.
    auto interp = [&](const std::vector<Fr>& v, const Fr& x) {
      Fr acc = Fr::zero();
      for (size_t i = 0; i < n; ++i) {
        Fr num = Fr::one(), den = Fr::one(), xi = w.pow(i);
        for (size_t j = 0; j < n; ++j)
          if (j != i) num *= x - w.pow(j), den *= xi - w.pow(j);
        acc += v[i] * num * den.inverse();
      }
      return acc;
    };
    std::vector<Fr> expect(n);
    for (size_t i = 0; i < n; ++i) {
      Fr x = zeta * w.pow(i);
      expect[i] = interp(a, x) * interp(b, x) - interp(c, x);
    }
    SnarkjsQuotient<Fr>(log_n).compute(a, b, c, util::ThreadPool::global());
    EXPECT_EQ(a, expect);
  };
  check(ff::Bn254Fr{});
  check(ff::Bls12381Fr{});
}

// ---- Malformed files: always a FormatError with a useful message, never a crash.

TEST(Malformed, EveryTruncationIsRejected) {
  for (const char* curve : kCurves) {
    for (const char* ext : {"wtns", "r1cs", "zkey"}) {
      auto bytes = slurp(interop_fixture(curve, "multiplier", ext));
      ASSERT_FALSE(bytes.empty());
      // Every prefix for the small files, a spread of prefixes for the key.
      size_t step = bytes.size() > 4096 ? bytes.size() / 997 : 1;
      for (size_t len = 0; len < bytes.size(); len += step) {
        std::span<const uint8_t> s(bytes.data(), len);
        std::string msg = error_of([&] {
          if (std::string(ext) == "wtns")
            WtnsFile::parse(s, "t.wtns");
          else if (std::string(ext) == "r1cs")
            R1csFile::parse(s, "t.r1cs");
          else
            ZkeyFile::parse(s, "t.zkey");
        });
        ASSERT_FALSE(msg.empty()) << ext << " truncated to " << len << " bytes was accepted";
        ASSERT_EQ(msg.rfind("t.", 0), 0u) << msg;
      }
    }
  }
}

TEST(Malformed, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(1);
  for (const char* curve : kCurves) {
    auto zk = slurp(interop_fixture(curve, "multiplier", "zkey"));
    auto wt = slurp(interop_fixture(curve, "multiplier", "wtns"));
    auto rc = slurp(interop_fixture(curve, "multiplier", "r1cs"));
    for (int iter = 0; iter < 300; ++iter) {
      for (auto* buf : {&zk, &wt, &rc}) {
        auto copy = *buf;
        for (int f = 0; f < 3; ++f) copy[rng() % copy.size()] ^= uint8_t(1u << (rng() % 8));
        std::span<const uint8_t> s(copy);
        try {
          if (buf == &zk) {
            auto z = ZkeyFile::parse(s, "c.zkey");
            curves::with_curve(z.curve(), [&]<class E>(E) { load_zkey<E>(z); });
          } else if (buf == &wt) {
            auto w = WtnsFile::parse(s, "c.wtns");
            curves::with_curve(w.curve(), [&]<class E>(E) { w.values<typename E::Fr>(); });
          } else {
            auto r = R1csFile::parse(s, "c.r1cs");
            curves::with_curve(r.header().curve, [&]<class E>(E) { r.constraints<typename E::Fr>(); });
            r.wire_to_label();
          }
        } catch (const FormatError&) {
        }
      }
    }
  }
}

std::vector<uint8_t> patched(std::vector<uint8_t> b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
  return b;
}

TEST(Malformed, NamedErrors) {
  auto zk = slurp(interop_fixture("bn128", "multiplier", "zkey"));
  auto wt = slurp(interop_fixture("bn128", "multiplier", "wtns"));
  auto rc = slurp(interop_fixture("bn128", "multiplier", "r1cs"));
  auto zparse = [](const std::vector<uint8_t>& b) { return error_of([&] { ZkeyFile::parse(b, "k.zkey"); }); };
  EXPECT_NE(zparse(patched(zk, 0, 0x12345678)).find("not a .zkey file"), std::string::npos);
  EXPECT_NE(zparse(patched(zk, 4, 7)).find("unsupported .zkey version 7"), std::string::npos);
  // Section 1 is first in snarkjs's files: type (4) + size (8), then the protocol id.
  ASSERT_EQ(zk[12], 1);
  EXPECT_NE(zparse(patched(zk, 24, 2)).find("PLONK"), std::string::npos);
  EXPECT_NE(zparse(patched(zk, 24, 10)).find("FFLONK"), std::string::npos);
  // The Groth16 header follows: type, size, n8q, q. A different q is an unsupported curve.
  auto other_q = zk;
  other_q[28 + 12 + 4] ^= 1;
  EXPECT_NE(zparse(other_q).find("is not supported"), std::string::npos);
  EXPECT_NE(error_of([&] { WtnsFile::parse(patched(wt, 0, 0), "w.wtns"); }).find("not a .wtns file"),
            std::string::npos);
  // .r1cs with a custom-gates section appended (type 4, empty).
  auto gates = rc;
  gates.insert(gates.end(), {4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  gates = patched(gates, 8, gates[8] + 1u);
  EXPECT_NE(error_of([&] { R1csFile::parse(gates, "g.r1cs"); }).find("custom gates"), std::string::npos);
  // A witness asked for in the other curve's field.
  auto w = WtnsFile::parse(wt, "w.wtns");
  EXPECT_NE(error_of([&] { w.values<ff::Bls12381Fr>(); }).find("witness is for bn254"), std::string::npos);
  // Key of one curve loaded as the other.
  auto z = ZkeyFile::parse(zk, "k.zkey");
  EXPECT_NE(error_of([&] { load_zkey<curves::Bls12381>(z); }).find("bn128 key"), std::string::npos);
  // A witness of the wrong size for the key.
  auto pk = load_zkey<curves::Bn254>(z);
  auto vals = w.values<ff::Bn254Fr>();
  vals.pop_back();
  EXPECT_THROW(synthesize_zkey<curves::Bn254>(pk, vals), groth16::ProveError);
}

// A point that is off the curve is caught at load, with section and index.
TEST(Malformed, OffCurvePointNamed) {
  auto zk = slurp(interop_fixture("bn128", "poseidon", "zkey"));
  auto z0 = ZkeyFile::parse(zk, "k.zkey");
  size_t at = size_t(z0.h().data() - zk.data()) + 5 * z0.g1_size();  // H point 5, x coordinate
  zk[at] ^= 1;
  auto z = ZkeyFile::parse(zk, "k.zkey");
  auto msg = error_of([&] { load_zkey<curves::Bn254>(z); });
  EXPECT_NE(msg.find("H point 5"), std::string::npos) << msg;
}

}  // namespace
}  // namespace zkmill::test
