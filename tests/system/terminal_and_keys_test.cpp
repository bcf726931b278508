// SPDX-License-Identifier: MIT
// What an operator sees in a terminal, through a real pseudo-terminal (util-linux `script`):
// `zkmill wait` and `submit --wait` draw a progress bar (done/total, rate, ETA) on a TTY and
// plain lines otherwise; `zkmill status --watch` redraws the screen. And keys copied into a
// running worker's key directory are served after SIGHUP, visible in `status --workers`.
#include <regex>

#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

// Runs `command` (a shell command line) on a pseudo-terminal; its output as the terminal got it.
Result on_pty(const std::string& command) { return run_program("script", {"-qec", command, "/dev/null"}); }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = hay.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
  return n;
}

class TerminalTest : public ::testing::Test {
 protected:
  TerminalTest() : farm_(scratch_dir()) {}
  void SetUp() override {
    if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "util-linux `script` is not installed";
    auto r = farm_.start(1, 1);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  std::string zkmill() const { return quoted(zkmill_binary()) + " "; }
  LocalFarm farm_;
};

TEST_F(TerminalTest, WaitDrawsAProgressBarOnATerminalAndPlainLinesOtherwise) {
  const std::string job = farm_.submit(60);
  auto r = on_pty(zkmill() + "wait --config " + quoted(farm_.client()) + " " + job);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Redrawn in place (carriage return, erase line), with the bar, counts, rate and ETA, and
  // the final state on its own line.
  EXPECT_GE(count(r.out, "\r\x1b[K" + job + " "), 1u) << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(job + " done +\\[#{30}\\] 60/60 partitions 100%  [0-9.]+/s  ETA 0:00")))
      << r.out;
  if (count(r.out, "\r\x1b[K") > 1) {  // caught while running: a bar part-way
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\\[#*-+\\] [0-9]+/60 partitions"))) << r.out;
  }

  // Not a terminal: plain lines, no escape sequences.
  const std::string job2 = farm_.submit(20);
  auto plain = run_zkmill({"wait", "--config", farm_.client(), job2});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(contains(plain.err, job2 + " done: {\"done\":20}")) << plain.err;
  EXPECT_FALSE(contains(plain.err, "\x1b")) << plain.err;

  // submit --wait: the id on stdout, then the same bar.
  auto s = on_pty(zkmill() + "submit --config " + quoted(farm_.client()) + " --key " + quoted(farm_.key()) +
                  " --partitions 8 --seed 3 --wait");
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;
  EXPECT_TRUE(std::regex_search(s.out, std::regex("done +\\[#{30}\\] 8/8 partitions 100%"))) << s.out;
}

TEST_F(TerminalTest, StatusWatchRedrawsUntilInterrupted) {
  ASSERT_EQ(farm_.wait(farm_.submit(2)), 0);
  // SIGINT after ~3 s: Ctrl-C is how a watch ends.
  auto r = on_pty("timeout -s INT 3 " + zkmill() + "status --watch --interval 0.2 --config " + quoted(farm_.client()));
  EXPECT_GE(count(r.out, "\x1b[H\x1b[2Jzkmill status, every 0.2 s"), 2u) << r.out;
  EXPECT_GE(count(r.out, "jobs:       cancelled 0, done 1, failed 0"), 2u) << r.out;

  auto plain = run_program("timeout", {"-s", "INT", "3", zkmill_binary(), "status", "--watch", "--interval", "0.2",
                                       "--config", farm_.client(), "--workers"});
  EXPECT_GE(count(plain.out, "--- 0.2 s, "), 2u) << plain.out;
  EXPECT_GE(count(plain.out, "worker prove-1 "), 2u) << plain.out;
  EXPECT_FALSE(contains(plain.out, "\x1b")) << plain.out;
}

TEST(KeyRescanTest, KeysAddedToAWorkersDirectoryAreServedAfterSighup) {
  LocalFarm farm(scratch_dir());
  auto r = farm.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path keys = fs::path(farm.key()).parent_path();
  auto circuits_of = [&](const std::string& worker) {
    auto w = json::parse(run_zkmill({"status", "--config", farm.client(), "--workers", "--json"}).out);
    for (const auto& x : w)
      if (x["worker"] == worker) return x["circuits"];
    return json();
  };
  ASSERT_TRUE(LocalFarm::eventually([&] { return circuits_of("prove-1").size() == 1; }));

  // A second circuit's key, written beside the first (atomically: a rename, as operators should).
  const std::string tmp = (keys.parent_path() / "chain300.key").string();  // outside, then renamed in
  auto s =
      run_zkmill({"setup", "--circuit", "chain", "--size", "300", "--curve", "bn254", "--seed", "9", "--out", tmp});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  fs::rename(tmp, keys / "chain300.key");
  for (const char* w : {"synth-1", "prove-1"})
    kill(std::stoi(slurp(farm.farm_dir() / (std::string(w) + ".pid"))), SIGHUP);
  ASSERT_TRUE(LocalFarm::eventually([&] {
    return circuits_of("prove-1").size() == 2 && circuits_of("synth-1").size() == 2;
  })) << farm.log("prove-1");
  EXPECT_TRUE(contains(farm.log("prove-1"), "key directory changed: now serving 2 circuit(s) (was 1)"))
      << farm.log("prove-1");
  for (const char* w : {"synth-1", "prove-1"})  // the same processes: no restart
    EXPECT_FALSE(process_exited(std::stoi(slurp(farm.farm_dir() / (std::string(w) + ".pid"))))) << w;
  auto text = run_zkmill({"status", "--config", farm.client(), "--workers"});
  EXPECT_TRUE(std::regex_search(text.out, std::regex("worker prove-1 .*circuits \\[[0-9a-f]{12},[0-9a-f]{12}\\]")))
      << text.out;

  // A job of the new circuit is proved by the same worker processes.
  auto sub = run_zkmill({"submit", "--config", farm.client(), "--key", (keys / "chain300.key").string(), "--partitions",
                         "2", "--seed", "5", "--wait", "--timeout", "120"});
  EXPECT_EQ(sub.exit_code, 0) << sub.err << farm.log("coordinator");
}

}  // namespace
}  // namespace zkmill::test
