// SPDX-License-Identifier: MIT
// snarkjs <-> zkmill interop through the real binaries, on the committed fixtures of both
// curves: zkmill's proofs pass `snarkjs groth16 verify`, snarkjs's proofs pass
// `zkmill groth16 verify`, the exported verification key equals snarkjs's, and bad input
// gives exit 1 (an invalid proof) or exit 2 with a message naming the problem.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures.hpp"
#include "tests/support/gpu.hpp"
#include "tests/support/process.hpp"

namespace zkmill::test {
namespace {

const std::string kRoot = ZKMILL_SOURCE_DIR;
std::string snarkjs_cli() { return kRoot + "/tests/interop/node_modules/snarkjs/cli.js"; }
bool have_snarkjs() {
  if (fs::exists(snarkjs_cli())) return true;
  if (std::getenv("CI")) ADD_FAILURE() << "snarkjs missing at " << snarkjs_cli() << ": run ./scripts/setup.sh";
  return false;
}
Result snarkjs(const std::vector<std::string>& args) {
  std::vector<std::string> a{snarkjs_cli()};
  a.insert(a.end(), args.begin(), args.end());
  return run_program("node", a);
}
void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

class Interop : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {
 protected:
  std::string curve() const { return std::get<0>(GetParam()); }
  std::string circuit() const { return std::get<1>(GetParam()); }
  std::string f(const char* ext) const { return interop_fixture(curve(), circuit(), ext); }
};

TEST_P(Interop, ZkmillProvesSnarkjsVerifies) {
  fs::path d = scratch_dir();
  std::string proof = (d / "proof.json").string(), pub = (d / "public.json").string();
  auto r = run_zkmill({"groth16", "prove", f("zkey"), f("wtns"), proof, pub});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "verified")) << r.err;
  r = run_zkmill({"groth16", "verify", f("vk.json"), pub, proof});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  // Tampered public signal and tampered proof: invalid (exit 1), for zkmill and snarkjs.
  auto pj = nlohmann::json::parse(slurp(pub));
  ASSERT_FALSE(pj.empty());
  pj[0] = pj[0] == "1" ? "2" : "1";
  write(d / "bad_public.json", pj.dump());
  r = run_zkmill({"groth16", "verify", f("vk.json"), (d / "bad_public.json").string(), proof});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto prj = nlohmann::json::parse(slurp(proof));
  prj["pi_a"] = prj["pi_c"];
  write(d / "bad_proof.json", prj.dump());
  r = run_zkmill({"groth16", "verify", f("vk.json"), pub, (d / "bad_proof.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;

  if (!have_snarkjs()) GTEST_SKIP() << "snarkjs not installed";
  r = snarkjs({"groth16", "verify", f("vk.json"), pub, proof});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "OK")) << r.out << r.err;
  r = snarkjs({"groth16", "verify", f("vk.json"), (d / "bad_public.json").string(), proof});
  EXPECT_TRUE(contains(r.out + r.err, "Invalid proof")) << r.out << r.err;
}

TEST_P(Interop, SnarkjsProvesZkmillVerifies) {
  if (!have_snarkjs()) GTEST_SKIP() << "snarkjs not installed";
  fs::path d = scratch_dir();
  std::string proof = (d / "proof.json").string(), pub = (d / "public.json").string();
  auto r = snarkjs({"groth16", "prove", f("zkey"), f("wtns"), proof, pub});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_zkmill({"groth16", "verify", f("vk.json"), pub, proof});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The public signals agree with zkmill's own.
  std::string proof2 = (d / "proof2.json").string(), pub2 = (d / "public2.json").string();
  r = run_zkmill({"groth16", "prove", f("zkey"), f("wtns"), proof2, pub2});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(pub)), nlohmann::json::parse(slurp(pub2)));
}

TEST_P(Interop, ExportedVerificationKeyEqualsSnarkjs) {
  fs::path d = scratch_dir();
  std::string vk = (d / "vk.json").string();
  auto r = run_zkmill({"zkey", "export", "verificationkey", f("zkey"), vk});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ours = nlohmann::json::parse(slurp(vk));
  auto theirs = nlohmann::json::parse(slurp(f("vk.json")));
  ASSERT_TRUE(theirs.contains("vk_alphabeta_12"));
  EXPECT_EQ(ours, theirs) << ours.dump(1) << "\n---\n" << theirs.dump(1);
}

TEST_P(Interop, WitnessCheckAgainstR1cs) {
  auto r = run_zkmill({"groth16", "check", f("r1cs"), f("wtns")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

INSTANTIATE_TEST_SUITE_P(All, Interop,
                         ::testing::Combine(::testing::Values("bn128", "bls12381"),
                                            ::testing::Values("multiplier", "hashchain", "poseidon")),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                         });

// --gpu picks the backend and the summary line names it: off proves on the CPU; on proves on the
// GPU (snarkjs accepts the proof) or, without one, exits 2 saying why and writes nothing; auto
// proves wherever it can. A device index no machine has is exit 2 under --gpu on.
class GpuFlag : public Interop {
 protected:
  void SetUp() override {
    d_ = scratch_dir();
    proof_ = (d_ / "proof.json").string();
    pub_ = (d_ / "public.json").string();
  }
  Result prove(const std::vector<std::string>& flags) const {
    std::vector<std::string> args{"groth16", "prove"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {f("zkey"), f("wtns"), proof_, pub_});
    return run_zkmill(args);
  }
  fs::path d_;
  std::string proof_, pub_;
};

TEST_P(GpuFlag, OffProvesOnTheCpuAndBadChoicesAreErrors) {
  auto r = prove({"--gpu", "off"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, " on CPU (")) << r.err;
  EXPECT_EQ(run_zkmill({"groth16", "verify", f("vk.json"), pub_, proof_}).exit_code, 0);
  fs::remove(proof_);
  r = prove({"--gpu", "on", "--device", "1023"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--gpu on")) << r.err;
  EXPECT_TRUE(contains(r.err, "1023") || contains(r.err, "without the CUDA backend")) << r.err;
  EXPECT_FALSE(fs::exists(proof_));
  r = prove({"--gpu", "sometimes"});
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(proof_));
}

// Runs where there is no GPU (CI); the GPU machine runs the next test instead.
TEST_P(GpuFlag, OnWithoutAGpuIsExit2AndAutoFallsToTheCpu) {
  if (gpu_available()) GTEST_SKIP() << "a GPU is present (OnProvesOnTheGpu covers it)";
  auto r = prove({"--gpu", "on"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--gpu on: no GPU to prove on")) << r.err;
  EXPECT_FALSE(fs::exists(proof_));
  r = prove({});  // auto: the CPU, silently
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, " on CPU (")) << r.err;
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
}

TEST_P(GpuFlag, OnProvesOnTheGpuAndSnarkjsVerifies) {
  ZKMILL_REQUIRE_GPU();
  auto r = prove({"--gpu", "on", "--device", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, " on GPU 0: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "verified")) << r.err;
  EXPECT_EQ(run_zkmill({"groth16", "verify", f("vk.json"), pub_, proof_}).exit_code, 0);
  r = prove({});  // auto leaves a fixture-sized domain (below 2^17) to the CPU: start-up dominates
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, " on CPU (")) << r.err;
  if (!have_snarkjs()) GTEST_SKIP() << "snarkjs not installed";
  r = snarkjs({"groth16", "verify", f("vk.json"), pub_, proof_});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "OK")) << r.out << r.err;
  auto prj = nlohmann::json::parse(slurp(proof_));
  prj["pi_a"] = prj["pi_c"];
  write(d_ / "bad_proof.json", prj.dump());
  r = snarkjs({"groth16", "verify", f("vk.json"), pub_, (d_ / "bad_proof.json").string()});
  EXPECT_TRUE(contains(r.out + r.err, "Invalid proof")) << r.out << r.err;
}

INSTANTIATE_TEST_SUITE_P(All, GpuFlag,
                         ::testing::Combine(::testing::Values("bn128", "bls12381"),
                                            ::testing::Values("multiplier", "poseidon")),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                         });

// Exit 2 with a message naming the file and the problem; no output files.
class BadInput : public ::testing::TestWithParam<const char*> {};

TEST_P(BadInput, ErrorsAreExit2AndNamed) {
  const std::string curve = GetParam(), other = curve == "bn128" ? "bls12381" : "bn128";
  fs::path d = scratch_dir();
  const std::string zkey = interop_fixture(curve, "multiplier", "zkey"),
                    wtns = interop_fixture(curve, "multiplier", "wtns"),
                    r1cs = interop_fixture(curve, "multiplier", "r1cs");
  const std::string proof = (d / "proof.json").string(), pub = (d / "public.json").string();
  auto prove = [&](const std::string& z, const std::string& w) {
    return run_zkmill({"groth16", "prove", z, w, proof, pub});
  };
  auto expect_error = [&](const Result& r, const std::string& what, const std::string& file) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, what)) << "expected '" << what << "' in: " << r.err;
    EXPECT_TRUE(contains(r.err, file)) << "expected the file name '" << file << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(proof));
  };
  auto cut = [&](const std::string& src, const char* name, size_t keep_num, size_t keep_den) {
    std::string b = slurp(src);
    fs::path p = d / name;
    write(p, b.substr(0, b.size() * keep_num / keep_den));
    return p.string();
  };
  expect_error(prove(cut(zkey, "t.zkey", 1, 2), wtns), "truncated", "t.zkey");
  expect_error(prove(cut(zkey, "t2.zkey", 999, 1000), wtns), "truncated", "t2.zkey");
  expect_error(prove(zkey, cut(wtns, "t.wtns", 3, 4)), "truncated", "t.wtns");
  {
    std::string b = slurp(zkey);
    b[44] ^= 1;  // a byte of q in the Groth16 header: an unknown curve
    write(d / "q.zkey", b);
    expect_error(prove((d / "q.zkey").string(), wtns), "not supported", "q.zkey");
    b = slurp(zkey);
    b[24] = 2;  // protocol id: PLONK
    write(d / "plonk.zkey", b);
    expect_error(prove((d / "plonk.zkey").string(), wtns), "PLONK", "plonk.zkey");
  }
  expect_error(prove(zkey, interop_fixture(other, "multiplier", "wtns")), "witness is for " + other, "multiplier.wtns");
  expect_error(prove(zkey, interop_fixture(curve, "poseidon", "wtns")), "expects nVars", "poseidon.wtns");
  expect_error(prove(wtns, wtns), "not a .zkey file", "multiplier.wtns");
  expect_error(prove((d / "missing.zkey").string(), wtns), "missing.zkey", "missing.zkey");

  auto r = run_zkmill({"groth16", "check", cut(r1cs, "t.r1cs", 2, 3), wtns});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "t.r1cs") && contains(r.err, "truncated")) << r.err;
  r = run_zkmill({"groth16", "check", r1cs, interop_fixture(curve, "hashchain", "wtns")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_zkmill({"zkey", "export", "verificationkey", cut(zkey, "e.zkey", 1, 3), (d / "vk.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "e.zkey")) << r.err;
  r = run_zkmill({"groth16", "verify", (d / "nope.json").string(), pub, proof});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Curves, BadInput, ::testing::Values("bn128", "bls12381"));

}  // namespace
}  // namespace zkmill::test
