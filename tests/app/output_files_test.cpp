// SPDX-License-Identifier: MIT
// What zkmill writes and reads for a user, through the real binary: outputs appear whole or not
// at all (a write failing under RLIMIT_FSIZE leaves the old file intact and no temporary
// behind), `verify`'s exit-code table (0 valid, 1 a well-formed proof that does not verify, 2
// every usage or input error), errors naming the file and the JSON field, --seed refused out of
// range, and FIFOs refused as input files instead of read forever.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures.hpp"
#include "tests/support/process.hpp"

namespace zkmill::test {
namespace {

Result run_zkmill_bounded(const std::vector<std::string>& args) {
  std::vector<std::string> a{"30", zkmill_binary()};
  a.insert(a.end(), args.begin(), args.end());
  return run_program("timeout", a);
}

// Names in `dir` that look like an unfinished output (our temporaries, or anything partial).
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (contains(e.path().filename().string(), "zkmill-tmp") || contains(e.path().filename().string(), ".tmp"))
      out.push_back(e.path().string());
  return out;
}

class OutputFiles : public ::testing::Test {
 protected:
  fs::path d_ = scratch_dir();
  std::string zkey_ = interop_fixture("bn128", "multiplier", "zkey");
  std::string wtns_ = interop_fixture("bn128", "multiplier", "wtns");
  std::string vk_ = interop_fixture("bn128", "multiplier", "vk.json");
  std::string proof_ = (d_ / "proof.json").string(), pub_ = (d_ / "public.json").string();

  void prove_good() {
    auto r = run_zkmill({"groth16", "prove", zkey_, wtns_, proof_, pub_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

TEST_F(OutputFiles, Groth16ProveUnderFileSizeLimitKeepsTheOldProof) {
  std::ofstream(proof_) << "old proof\n";
  std::ofstream(pub_) << "old public\n";
  auto r = run_zkmill_fsize0({"groth16", "prove", zkey_, wtns_, proof_, pub_});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, proof_)) << r.err;            // names the file
  EXPECT_TRUE(contains(r.err, "File too large")) << r.err;  // and the cause (EFBIG)
  EXPECT_EQ(slurp(proof_), "old proof\n");
  EXPECT_EQ(slurp(pub_), "old public\n");
  EXPECT_EQ(temporaries(d_), std::vector<std::string>{});
  // Without the limit the same command replaces both.
  prove_good();
  EXPECT_EQ(nlohmann::json::parse(slurp(proof_))["protocol"], "groth16");
}

// zkey new under a file-size limit: exit 2, the key named, no key or temporary left. The key is
// written through a 4 MiB buffer, so for this 80 KB key every limit fails at the last flush; a
// failing write inside the sections themselves (from the thread that writes the per-signal
// chunks) is covered in-process by tests/common/setup/zkey_new_test.cpp.
TEST_F(OutputFiles, ZkeyNewUnderFileSizeLimitWritesNothing) {
  const std::string r1cs = interop_fixture("bn128", "hashchain", "r1cs");
  const std::string ptau = interop_fixture_dir("bn128") + "pot8_prepared.ptau";
  const std::string key = (d_ / "k.zkey").string();
  for (unsigned kib : {0u, 40u, 70u}) {
    auto r = run_zkmill_fsize(kib, {"zkey", "new", "--quiet", r1cs, ptau, key});
    EXPECT_EQ(r.exit_code, 2) << "limit " << kib << " KiB: " << r.err;
    EXPECT_TRUE(contains(r.err, key)) << r.err;
    EXPECT_TRUE(contains(r.err, "File too large")) << r.err;
    EXPECT_FALSE(fs::exists(key)) << kib;
    EXPECT_EQ(temporaries(d_), std::vector<std::string>{}) << kib;
  }
  // Without the limit the same command writes the key (a .zkey's magic first).
  auto r = run_zkmill({"zkey", "new", "--quiet", r1cs, ptau, key});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(key).substr(0, 4), "zkey");
}

TEST_F(OutputFiles, PublicJsonUnwritableLeavesNoProofJsonAndExits2) {
  const std::string pub = (d_ / "no-such-dir" / "public.json").string();
  auto r = run_zkmill({"groth16", "prove", zkey_, wtns_, proof_, pub});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "public.json")) << r.err;
  EXPECT_FALSE(fs::exists(proof_)) << "proof.json left behind without its public.json";
  EXPECT_EQ(temporaries(d_), std::vector<std::string>{});
}

TEST_F(OutputFiles, NativeProveSetupKeygenAndExportUnderFileSizeLimit) {
  const std::string key = (d_ / "chain.key").string();
  auto r =
      run_zkmill({"setup", "--circuit", "chain", "--size", "200", "--curve", "bn254", "--seed", "3", "--out", key});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string key_bytes = slurp(key), vk_bytes = slurp(key + ".vk.json");

  // setup over an existing key: the old key and vk.json stay.
  r = run_zkmill_fsize0({"setup", "--circuit", "chain", "--size", "300", "--curve", "bn254", "--out", key});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "File too large")) << r.err;
  EXPECT_EQ(slurp(key), key_bytes);
  EXPECT_EQ(slurp(key + ".vk.json"), vk_bytes);

  // prove: the old proof files stay.
  std::ofstream(proof_) << "old proof\n";
  std::ofstream(pub_) << "old public\n";
  r = run_zkmill_fsize0({"prove", "--key", key, "--seed", "1", proof_, pub_});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, proof_) && contains(r.err, "File too large")) << r.err;
  EXPECT_EQ(slurp(proof_), "old proof\n");
  EXPECT_EQ(slurp(pub_), "old public\n");

  // zkey export verificationkey: the old vk stays.
  const std::string vk = (d_ / "vk.json").string();
  std::ofstream(vk) << "old vk\n";
  r = run_zkmill_fsize0({"zkey", "export", "verificationkey", zkey_, vk});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(slurp(vk), "old vk\n");

  // keygen: neither half of the pair appears.
  r = run_zkmill_fsize0({"keygen", "--out", (d_ / "node").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(d_ / "node.key"));
  EXPECT_FALSE(fs::exists(d_ / "node.pub"));
  EXPECT_EQ(temporaries(d_), std::vector<std::string>{});

  // And without the limit, prove replaces the old files with a proof that verifies.
  r = run_zkmill({"prove", "--key", key, "--seed", "1", proof_, pub_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(run_zkmill({"verify", key + ".vk.json", pub_, proof_}).exit_code, 0);
}

// The documented exit-code table of `verify` and `groth16 verify` (docs/interop.md).
TEST_F(OutputFiles, VerifyExitCodeTable) {
  prove_good();
  const auto proof = nlohmann::json::parse(slurp(proof_));
  const auto pub = nlohmann::json::parse(slurp(pub_));
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(d_ / name) << text;
    return (d_ / name).string();
  };
  auto tampered = proof;
  tampered["pi_a"] = proof["pi_c"];  // valid points, wrong proof
  auto off_curve = proof;
  off_curve["pi_a"][1] = "5";
  auto wrong_pub = pub;
  wrong_pub[0] = wrong_pub[0].get<std::string>() == "1" ? "2" : "1";
  auto non_decimal = proof;
  non_decimal["pi_a"][1] = "12ab";
  auto missing_field = proof;
  missing_field.erase("pi_c");
  auto too_many = pub;
  too_many.push_back("1");
  auto other_curve = proof;
  other_curve["curve"] = "bls12381";
  const std::string bls_vk = interop_fixture("bls12381", "multiplier", "vk.json");
  const std::string fifo = (d_ / "fifo.json").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);

  struct Case {
    const char* what;
    std::vector<std::string> args;  // after the command
    int want;
    const char* err_has;
  };
  const std::vector<Case> cases = {
      {"good proof", {vk_, pub_, proof_}, 0, ""},
      {"tampered proof", {vk_, pub_, write("tampered.json", tampered.dump())}, 1, ""},
      {"proof point off the curve", {vk_, pub_, write("off.json", off_curve.dump())}, 1, "pi_a"},
      {"wrong public input", {vk_, write("wrong_pub.json", wrong_pub.dump()), proof_}, 1, ""},
      {"malformed JSON", {vk_, pub_, write("broken.json", "{\"pi_a\": [")}, 2, "broken.json: not valid JSON"},
      {"non-decimal field element",
       {vk_, pub_, write("nd.json", non_decimal.dump())},
       2,
       "nd.json: pi_a[1]: not a decimal field element"},
      {"missing field", {vk_, pub_, write("mf.json", missing_field.dump())}, 2, "mf.json: missing field \"pi_c\""},
      {"public count", {vk_, write("many.json", too_many.dump()), proof_}, 2, "many.json: has "},
      {"missing file", {vk_, pub_, (d_ / "nope.json").string()}, 2, "nope.json: cannot open"},
      {"proof of another curve", {vk_, pub_, write("oc.json", other_curve.dump())}, 2, "oc.json: curve"},
      {"key of another curve", {bls_vk, pub_, proof_}, 2, "curve"},
      {"FIFO as input", {vk_, fifo, proof_}, 2, "FIFO"},
      {"too few arguments", {vk_, pub_}, 2, "proof is required"},
      {"too many arguments", {vk_, pub_, proof_, proof_}, 2, ""},
      {"unknown option", {"--frob", vk_, pub_, proof_}, 2, ""},
  };
  for (const char* cmd : {"verify", "groth16 verify"}) {
    for (const auto& c : cases) {
      std::vector<std::string> args;
      if (std::string(cmd) == "verify") {
        args = {"verify"};
      } else {
        args = {"groth16", "verify"};
      }
      args.insert(args.end(), c.args.begin(), c.args.end());
      auto r = run_zkmill_bounded(args);
      EXPECT_EQ(r.exit_code, c.want) << cmd << ": " << c.what << "\n" << r.out << r.err;
      EXPECT_TRUE(contains(r.err, c.err_has)) << cmd << ": " << c.what << ": " << r.err;
    }
  }
  // A config error of verify is a usage error too.
  auto r = run_zkmill_bounded({"--config", (d_ / "no-config.yaml").string(), "verify", vk_, pub_, proof_});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(OutputFiles, FifoAndDeviceInputsAreRefusedNotReadForever) {
  const std::string fifo = (d_ / "in.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  prove_good();
  struct Case {
    std::vector<std::string> args;
    const char* err_has;
  };
  const std::vector<Case> cases = {
      {{"groth16", "prove", fifo, wtns_, (d_ / "p.json").string(), (d_ / "q.json").string()}, "FIFO"},
      {{"groth16", "prove", zkey_, fifo, (d_ / "p.json").string(), (d_ / "q.json").string()}, "FIFO"},
      {{"groth16", "check", fifo, wtns_}, "FIFO"},
      {{"groth16", "verify", "/dev/zero", pub_, proof_}, "character device"},
      {{"zkey", "export", "verificationkey", fifo, (d_ / "vk.json").string()}, "FIFO"},
      {{"prove", "--key", fifo, "--seed", "1", (d_ / "p.json").string(), (d_ / "q.json").string()}, "FIFO"},
      {{"--config", fifo, "info"}, "FIFO"},
  };
  for (const auto& c : cases) {
    auto r = run_zkmill_bounded(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args[0] << " " << c.args[1];
    EXPECT_NE(r.exit_code, 124) << "timed out: read the FIFO instead of refusing it: " << c.args[0];
    EXPECT_TRUE(contains(r.err, c.err_has) && contains(r.err, "regular file")) << r.err;
  }
  EXPECT_FALSE(fs::exists(d_ / "p.json"));
}

TEST_F(OutputFiles, SeedOutOfRangeIsRefusedNotWrapped) {
  const std::string key = (d_ / "chain.key").string();
  auto r =
      run_zkmill({"setup", "--circuit", "chain", "--size", "200", "--curve", "bn254", "--seed", "3", "--out", key});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* bad : {"-1", "18446744073709551616", "99999999999999999999999", "0x10", "1e3", "+5"}) {
    r = run_zkmill({"prove", "--key", key, "--seed", bad, proof_, pub_});
    EXPECT_EQ(r.exit_code, 1) << "--seed '" << bad << "' " << r.err;
    EXPECT_TRUE(contains(r.err, "--seed must be a decimal integer from 0 to 18446744073709551615")) << r.err;
    EXPECT_FALSE(fs::exists(proof_));
    r = run_zkmill({"submit", "--key", key, "--partitions", "1", "--seed", bad});
    EXPECT_EQ(r.exit_code, 1) << "submit --seed '" << bad << "' " << r.err;
    EXPECT_TRUE(contains(r.err, "--seed must be")) << r.err;
    r = run_zkmill({"setup", "--circuit", "chain", "--size", "200", "--seed", bad, "--out", key + "2"});
    EXPECT_EQ(r.exit_code, 1) << "setup --seed '" << bad << "' " << r.err;
  }
  // The largest seed is a seed like any other.
  r = run_zkmill({"prove", "--key", key, "--seed", "18446744073709551615", proof_, pub_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(run_zkmill({"verify", key + ".vk.json", pub_, proof_}).exit_code, 0);
}

}  // namespace
}  // namespace zkmill::test
