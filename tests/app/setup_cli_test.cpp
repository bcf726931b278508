// SPDX-License-Identifier: MIT
// The setup commands through the real binary, without snarkjs: help text and exit tables,
// usage errors (exit 2, nothing written), and a zkmill-only ceremony on the committed power-8
// ptau: prepare, new, contribute, beacon, verify (0), a tampered key (1), a deterministic beacon.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/fixtures.hpp"
#include "tests/support/process.hpp"

namespace {

using zkmill::test::contains;
using zkmill::test::interop_fixture;
using zkmill::test::Result;
using zkmill::test::run_zkmill;
using zkmill::test::scratch_dir;
using zkmill::test::slurp;
namespace fs = std::filesystem;

TEST(SetupCli, HelpDescribesTheCommandsAndExitStatus) {
  Result r = run_zkmill({"--help"});
  EXPECT_TRUE(contains(r.out, "powersoftau")) << r.out;
  r = run_zkmill({"zkey", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* s : {"new", "contribute", "beacon", "verify", "export"}) EXPECT_TRUE(contains(r.out, s)) << s;
  r = run_zkmill({"zkey", "verify", "--help"});
  EXPECT_TRUE(contains(r.out, "Exit status")) << r.out;
  r = run_zkmill({"powersoftau", "prepare", "phase2", "--help"});
  EXPECT_TRUE(contains(r.out, "Exit status")) << r.out;
  r = run_zkmill({"groth16", "setup", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "circuit.r1cs")) << r.out;
}

TEST(SetupCli, UsageErrorsAreExit2) {
  const fs::path d = scratch_dir();
  const std::string out = (d / "o.zkey").string();
  EXPECT_EQ(run_zkmill({"zkey", "new", "only-one-arg"}).exit_code, 2);
  EXPECT_EQ(run_zkmill({"powersoftau", "prepare", "phase2"}).exit_code, 2);
  // contribute without entropy: refused, not prompted (a farm script must not hang).
  Result r = run_zkmill({"zkey", "contribute", interop_fixture("bn128", "multiplier", "zkey"), out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(out));
  r = run_zkmill({"zkey", "beacon", interop_fixture("bn128", "multiplier", "zkey"), out, "0102", "64"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "between 10 and 63")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// --gpu on either prepares the same bytes as --gpu off (a CUDA build on a GPU machine: powers
// 2^8 and up go to the GPU) or exits 2 naming why, writing nothing (no CUDA or no device, CI).
TEST(SetupCli, PrepareGpuOnMatchesTheCpuOrRefusesCleanly) {
  const fs::path d = scratch_dir();
  auto p = [&](const char* n) { return (d / n).string(); };
  const std::string in = interop_fixture("bn128", "pot8", "ptau");
  Result r = run_zkmill({"powersoftau", "prepare", "phase2", "--quiet", "--gpu", "off", in, p("cpu.ptau")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_zkmill({"powersoftau", "prepare", "phase2", "--quiet", "--gpu", "on", in, p("gpu.ptau")});
  if (r.exit_code == 0) {
    EXPECT_TRUE(contains(r.err, "GPU 0: ")) << r.err;
    EXPECT_EQ(slurp(p("gpu.ptau")), slurp(p("cpu.ptau")));
  } else {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "--gpu on: no GPU")) << r.err;
    EXPECT_FALSE(fs::exists(p("gpu.ptau")));
  }
  r = run_zkmill({"powersoftau", "prepare", "phase2", "--gpu", "maybe", in, p("x.ptau")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(p("x.ptau")));
}

class SetupChain : public ::testing::TestWithParam<const char*> {};

TEST_P(SetupChain, ZkmillOnlyCeremonyVerifiesAndTamperingIsCaught) {
  const std::string curve = GetParam();
  const fs::path d = scratch_dir();
  auto p = [&](const char* n) { return (d / n).string(); };
  const std::string r1cs = interop_fixture(curve, "hashchain", "r1cs");
  Result r = run_zkmill(
      {"powersoftau", "prepare", "phase2", "--quiet", interop_fixture(curve, "pot8", "ptau"), p("pot.ptau")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_zkmill({"zkey", "new", r1cs, p("pot.ptau"), p("k0.zkey")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "Circuit hash")) << r.err;
  r = run_zkmill({"zkey", "contribute", p("k0.zkey"), p("k1.zkey"), "--name", "one", "-e", "entropy one"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_zkmill({"zkey", "contribute", p("k1.zkey"), p("k2.zkey"), "-e", "entropy two"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string beacon = "00112233445566778899aabbccddeeff";
  r = run_zkmill({"zkey", "beacon", p("k2.zkey"), p("k3.zkey"), beacon, "10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_zkmill({"zkey", "beacon", p("k2.zkey"), p("k3b.zkey"), beacon, "10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(p("k3.zkey")), slurp(p("k3b.zkey"))) << "a beacon is deterministic";
  EXPECT_NE(slurp(p("k1.zkey")), slurp(p("k0.zkey")));
  for (const char* k : {"k0.zkey", "k1.zkey", "k2.zkey", "k3.zkey"}) {
    r = run_zkmill({"zkey", "verify", r1cs, p("pot.ptau"), p(k)});
    EXPECT_EQ(r.exit_code, 0) << k << ": " << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "ZKey Ok!")) << r.out;
  }
  // The contribution's transcript is bound: replacing contribution 2's transcript byte fails.
  std::string b = slurp(p("k3.zkey"));
  b[b.size() - 100] ^= 1;  // inside the last contribution's record
  std::ofstream(p("bad.zkey"), std::ios::binary) << b;
  r = run_zkmill({"zkey", "verify", r1cs, p("pot.ptau"), p("bad.zkey")});
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  // The key of another ceremony (the committed fixture) is not this ceremony's: exit 1.
  r = run_zkmill({"zkey", "verify", r1cs, p("pot.ptau"), interop_fixture(curve, "hashchain", "zkey")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "INVALID")) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Curves, SetupChain, ::testing::Values("bn128", "bls12381"));

}  // namespace
