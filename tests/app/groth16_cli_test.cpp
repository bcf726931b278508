// SPDX-License-Identifier: MIT
// `zkmill setup | prove | verify` through the real binary, on both curves, with snarkjs 0.7.6
// (npm, installed by scripts/setup.sh into tests/interop/node_modules) as the external verifier.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/process.hpp"

namespace zkmill::test {
namespace {

std::string snarkjs_cli() { return std::string(ZKMILL_SOURCE_DIR) + "/tests/interop/node_modules/snarkjs/cli.js"; }

// snarkjs is part of the test environment (setup.sh installs it); in CI its absence is a failure.
bool require_snarkjs() {
  if (fs::exists(snarkjs_cli())) return true;
  if (std::getenv("CI")) ADD_FAILURE() << "snarkjs missing at " << snarkjs_cli() << ": run ./scripts/setup.sh";
  return false;
}

class Groth16Cli : public ::testing::TestWithParam<const char*> {};

TEST_P(Groth16Cli, SetupProveVerifyAndSnarkjsAgrees) {
  const std::string curve = GetParam();
  fs::path d = scratch_dir();
  std::string key = (d / "key.pk").string(), vk = key + ".vk.json";
  std::string proof = (d / "proof.json").string(), pub = (d / "public.json").string();
  auto r = run_zkmill({"setup", "--circuit", "merkle", "--size", "600", "--curve", curve, "--out", key, "--seed", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_zkmill({"prove", "--key", key, "--seed", "99", "--partition", "3", proof, pub});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "verified"));
  auto pj = nlohmann::json::parse(slurp(proof));
  EXPECT_EQ(pj["protocol"], "groth16");
  EXPECT_EQ(pj["curve"], curve == "bn254" ? "bn128" : "bls12381");
  auto public_json = nlohmann::json::parse(slurp(pub));
  ASSERT_EQ(public_json.size(), 2u);
  EXPECT_EQ(public_json[0], "3") << "public input 1 is the partition index";

  r = run_zkmill({"verify", vk, pub, proof});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  // Wrong public input -> invalid (exit 1).
  auto bad_pub = public_json;
  bad_pub[0] = "4";
  std::ofstream(d / "bad_public.json") << bad_pub.dump();
  r = run_zkmill({"verify", vk, (d / "bad_public.json").string(), proof});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;

  // Tampered proof: pi_a replaced by pi_c (a valid point, wrong proof) -> exit 1; a point off
  // the curve -> exit 1 too (an invalid proof, not an I/O error).
  auto bad = pj;
  bad["pi_a"] = pj["pi_c"];
  std::ofstream(d / "bad_proof.json") << bad.dump();
  r = run_zkmill({"verify", vk, pub, (d / "bad_proof.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  bad = pj;
  bad["pi_a"][1] = "5";
  std::ofstream(d / "off_curve.json") << bad.dump();
  r = run_zkmill({"verify", vk, pub, (d / "off_curve.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;

  // Malformed inputs -> exit 2 with a message.
  std::ofstream(d / "garbage.json") << "{\"pi_a\": [";
  r = run_zkmill({"verify", vk, pub, (d / "garbage.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "not valid JSON")) << r.err;
  r = run_zkmill({"verify", (d / "missing.json").string(), pub, proof});
  EXPECT_EQ(r.exit_code, 2);

  // Truncated key -> clear error, non-zero exit, no proof.
  std::string bytes = slurp(key);
  std::ofstream(d / "trunc.pk", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
  r = run_zkmill({"prove", "--key", (d / "trunc.pk").string(), "--seed", "1", (d / "p2.json").string(),
                  (d / "pub2.json").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "truncated")) << r.err;
  EXPECT_FALSE(fs::exists(d / "p2.json"));

  if (!require_snarkjs()) GTEST_SKIP() << "snarkjs not installed (./scripts/setup.sh installs it)";
  r = run_program("node", {snarkjs_cli(), "groth16", "verify", vk, pub, proof});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "OK")) << r.out;
  r = run_program("node", {snarkjs_cli(), "groth16", "verify", vk, (d / "bad_public.json").string(), proof});
  EXPECT_TRUE(contains(r.out + r.err, "Invalid proof")) << r.out << r.err;
}

INSTANTIATE_TEST_SUITE_P(Curves, Groth16Cli, ::testing::Values("bn254", "bls12-381"));

// The PoRep-shaped circuit at its smallest size (~100k constraints, 5 public inputs): a proof
// from `zkmill prove` verifies under snarkjs with the vk that setup exports, and fails for a
// tampered public input (the challenged node's index) in both verifiers.
TEST(PorepCli, ProofVerifiesUnderSnarkjsAndNotForATamperedChallenge) {
  fs::path d = scratch_dir();
  std::string key = (d / "porep.pk").string(), vk = key + ".vk.json";
  std::string proof = (d / "proof.json").string(), pub = (d / "public.json").string();
  auto r =
      run_zkmill({"setup", "--circuit", "porep", "--size", "65536", "--curve", "bn254", "--out", key, "--seed", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "5 public inputs")) << r.out;
  r = run_zkmill({"prove", "--key", key, "--seed", "21", "--partition", "2", proof, pub});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto public_json = nlohmann::json::parse(slurp(pub));
  ASSERT_EQ(public_json.size(), 5u) << "partition, comm_d, comm_c, replica_id, one challenge";
  EXPECT_EQ(public_json[0], "2");
  r = run_zkmill({"verify", vk, pub, proof});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto bad_pub = public_json;
  bad_pub[4] = public_json[4] == "0" ? "1" : "0";  // another node of the (depth-1) tree
  std::ofstream(d / "bad_public.json") << bad_pub.dump();
  r = run_zkmill({"verify", vk, (d / "bad_public.json").string(), proof});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;

  if (!require_snarkjs()) GTEST_SKIP() << "snarkjs not installed (./scripts/setup.sh installs it)";
  r = run_program("node", {snarkjs_cli(), "groth16", "verify", vk, pub, proof});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "OK")) << r.out;
  r = run_program("node", {snarkjs_cli(), "groth16", "verify", vk, (d / "bad_public.json").string(), proof});
  EXPECT_TRUE(contains(r.out + r.err, "Invalid proof")) << r.out << r.err;
}

// setup writes KEY.pce (the circuit's PCE matrices) beside the key, so that no worker records
// them again, and says so; --no-pce writes none. (That its bytes equal a worker's recording is
// tests/common/groth16/pce_test.cpp's; that workers open it, farm_test's.)
TEST(SetupCli, NativeSetupWritesThePceFileBesideTheKeyUnlessAskedNot) {
  fs::path d = scratch_dir();
  const std::string key = (d / "chain.pk").string(), bare = (d / "bare.pk").string();
  auto r =
      run_zkmill({"setup", "--circuit", "chain", "--size", "300", "--curve", "bn254", "--out", key, "--seed", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(key + ".pce"));
  EXPECT_TRUE(contains(r.out, "wrote " + key + ".pce")) << r.out;
  EXPECT_EQ(slurp(key + ".pce").substr(0, 8), std::string("ZKMPCE\r\n", 8));
  r = run_zkmill(
      {"setup", "--circuit", "chain", "--size", "300", "--curve", "bn254", "--out", bare, "--seed", "4", "--no-pce"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(bare) && fs::exists(bare + ".vk.json"));
  EXPECT_FALSE(fs::exists(bare + ".pce"));
  EXPECT_FALSE(contains(r.out, ".pce")) << r.out;
  EXPECT_TRUE(contains(run_zkmill({"setup", "--help"}).out, "--no-pce"));
}

TEST(DemoCli, RunsASmallJobAndVerifies) {
  auto r = run_zkmill({"demo", "--size", "300", "--partitions", "3", "--curve", "bn254"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "-> verified")) << r.out;
  EXPECT_TRUE(contains(r.out, "batch verification of 3 proofs")) << r.out;
  r = run_zkmill({"demo", "--curve", "nope"});
  EXPECT_NE(r.exit_code, 0);
}

}  // namespace
}  // namespace zkmill::test
