// SPDX-License-Identifier: MIT
// The operators' scripts: deploy/farmctl (scale and drain over ssh) and local-farm.sh --gpus.
// farmctl is checked twice: its --dry-run prints exactly the commands each host gets, and the
// same scripts run against stand-in hosts (a fake ssh that runs the command locally, with fake
// sudo, hostname and a systemctl that keeps unit state in a file), so the scaling logic itself
// is exercised: instances started, extra ones stopped highest first, env files written.
#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

std::string farmctl() { return std::string(ZKMILL_SOURCE_DIR) + "/deploy/farmctl"; }

void write_exec(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  fs::permissions(p, fs::perms::owner_all);
}

class FarmctlTest : public ::testing::Test {
 protected:
  FarmctlTest() : dir_(scratch_dir()) {
    fs::create_directories(dir_ / "bin");
    write_exec(dir_ / "bin" / "fake-ssh",
               "#!/bin/bash\n# fake-ssh HOST CMD...: runs CMD here as host HOST\n"
               "[[ $1 == down.example ]] && { echo 'ssh: connect to host down.example: refused' >&2; exit 255; }\n"
               "export FAKE_HOST=$1 ZKMILL_ETC=$FAKE_STATE/$1/etc; mkdir -p \"$ZKMILL_ETC\"; touch "
               "\"$ZKMILL_ETC/worker.yaml\"\n"
               "shift; exec \"$@\"\n");
    write_exec(dir_ / "bin" / "sudo", "#!/bin/bash\nexec \"$@\"\n");
    write_exec(dir_ / "bin" / "hostname", "#!/bin/bash\necho \"$FAKE_HOST\"\n");
    write_exec(
        dir_ / "bin" / "systemctl",
        "#!/bin/bash\nst=$FAKE_STATE/$FAKE_HOST; mkdir -p \"$st\"; touch \"$st/units\"\n"
        "echo \"systemctl $*\" >> \"$st/calls\"\n"
        "case $1 in\n"
        "  start) shift; for u; do grep -qx \"$u\" \"$st/units\" || echo \"$u\" >> \"$st/units\"; done ;;\n"
        "  stop) shift; for u; do grep -vx \"$u\" \"$st/units\" > \"$st/u\" || true; mv \"$st/u\" \"$st/units\"; "
        "done ;;\n"
        "  list-units) pat=${@: -1}; while read -r u; do [[ $u == $pat ]] && echo \"$u.service loaded active "
        "running zkmill\"; done < \"$st/units\" ;;\n"
        "esac\n");
    std::ofstream(dir_ / "hosts") << "# the farm\nhost-a\n\nops@host-b   # second\n";
  }
  // farmctl with the stand-in hosts.
  Result run(std::vector<std::string> args) {
    const std::string env = "PATH=" + (dir_ / "bin").string() + ":/usr/bin:/bin";
    std::vector<std::string> a{env, "FAKE_STATE=" + (dir_ / "state").string(), farmctl(), "--ssh",
                               (dir_ / "bin" / "fake-ssh").string()};
    a.insert(a.end(), args.begin(), args.end());
    return run_program("env", a);
  }
  std::string units(const std::string& host) { return slurp(dir_ / "state" / host / "units"); }
  fs::path dir_;
};

TEST_F(FarmctlTest, DryRunPrintsEachHostsCommands) {
  auto r = run_program(farmctl(), {"--dry-run", "--hosts", (dir_ / "hosts").string(), "scale", "--synth", "2",
                                   "--prove", "1", "--gpus", "0,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string body =
      "set -e\n"
      "cd \"${ZKMILL_ETC:-/etc/zkmill}\"\n"
      "h=$(hostname -s)\n"
      "[ -r worker.yaml ] || { echo \"farmctl: $h: $(pwd)/worker.yaml is missing (docs/operations.md, Workers under "
      "systemd)\" >&2; exit 1; }\n"
      "running() { systemctl list-units --plain --no-legend --state=active,activating \"zkmill-worker@$1-*\" | awk "
      "'{print $1}' | sed 's/^zkmill-worker@//; s/\\.service$//'; }\n"
      "up() { [ -e \"worker-$1.yaml\" ] || [ -L \"worker-$1.yaml\" ] || ln -s worker.yaml \"worker-$1.yaml\"; printf "
      "'ZKMILL_ROLE=%s\\nZKMILL_ARGS=--id %s-%s %s\\n' \"$2\" \"$h\" \"$1\" \"$3\" > \"worker-$1.env\"; systemctl "
      "start \"zkmill-worker@$1\"; }\n"
      "down() { systemctl stop \"zkmill-worker@$1\"; }\n"
      "i=1; while [ $i -le 2 ]; do up synth-$i synth ''; i=$((i + 1)); done\n"
      "for w in $(running synth | sort -t- -k2,2nr); do [ \"${w#synth-}\" -le 2 ] || down \"$w\"; done\n"
      "i=1; while [ $i -le 1 ]; do up prove-$i prove ''; i=$((i + 1)); done\n"
      "for w in $(running prove | sort -t- -k2,2nr); do [ \"${w#prove-}\" -le 1 ] || down \"$w\"; done\n"
      "for d in 0 1; do up gpu-$d prove \"--gpus $d\"; done\n"
      "for w in $(running gpu); do case \" 0 1 \" in *\" ${w#gpu-} \"*) ;; *) down \"$w\" ;; esac; done\n"
      "systemctl list-units --plain --no-legend \"zkmill-worker@*\"\n"
      "FARMCTL\n";
  EXPECT_EQ(r.out, "ssh -o BatchMode=yes host-a sudo sh -s <<'FARMCTL'\n" + body +
                       "ssh -o BatchMode=yes ops@host-b sudo sh -s <<'FARMCTL'\n" + body);

  r = run_program(farmctl(), {"--dry-run", "--host", "h1", "--host", "h2", "drain", "prove-2", "gpu-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "ssh -o BatchMode=yes h1 sudo sh -s <<'FARMCTL'\nsystemctl stop zkmill-worker@prove-2 zkmill-worker@gpu-1\n"
            "FARMCTL\nssh -o BatchMode=yes h2 sudo sh -s <<'FARMCTL'\nsystemctl stop zkmill-worker@prove-2 "
            "zkmill-worker@gpu-1\nFARMCTL\n");
  r = run_program(farmctl(), {"--dry-run", "--host", "h1", "drain"});
  EXPECT_EQ(r.out, "ssh -o BatchMode=yes h1 sudo sh -s <<'FARMCTL'\nsystemctl stop \"zkmill-worker@*\"\nFARMCTL\n");

  // Usage errors: exit 2 with the reason, nothing run.
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--dry-run", "scale"},
                                                               {"--host", "h", "scale"},
                                                               {"--host", "h", "scale", "--synth", "x"},
                                                               {"--host", "h", "scale", "--gpus", "0;reboot"},
                                                               {"--host", "h", "drain", "../etc"},
                                                               {"--host", "h;rm", "status"},
                                                               {"--host", "h", "explode"}}) {
    auto e = run_program(farmctl(), bad);
    EXPECT_EQ(e.exit_code, 2) << bad.back() << e.out;
    EXPECT_TRUE(e.out.empty()) << e.out;
  }
}

TEST_F(FarmctlTest, ScaleAndDrainActOnEveryHost) {
  auto r = run({"--hosts", (dir_ / "hosts").string(), "scale", "--synth", "2", "--prove", "1", "--gpus", "0,1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* h : {"host-a", "ops@host-b"}) {
    EXPECT_EQ(units(h),
              "zkmill-worker@synth-1\nzkmill-worker@synth-2\nzkmill-worker@prove-1\nzkmill-worker@gpu-0\n"
              "zkmill-worker@gpu-1\n")
        << h;
    EXPECT_TRUE(fs::is_symlink(dir_ / "state" / h / "etc" / "worker-gpu-1.yaml"));
  }
  EXPECT_EQ(slurp(dir_ / "state" / "host-a" / "etc" / "worker-gpu-1.env"),
            "ZKMILL_ROLE=prove\nZKMILL_ARGS=--id host-a-gpu-1 --gpus 1\n");
  EXPECT_EQ(slurp(dir_ / "state" / "host-a" / "etc" / "worker-synth-2.env"),
            "ZKMILL_ROLE=synth\nZKMILL_ARGS=--id host-a-synth-2 \n");

  // Scale down: extra synth instances (highest first) and GPU workers not listed are drained.
  r = run({"--hosts", (dir_ / "hosts").string(), "scale", "--synth", "1", "--gpus", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(units("host-a"), "zkmill-worker@synth-1\nzkmill-worker@prove-1\nzkmill-worker@gpu-0\n");
  EXPECT_TRUE(contains(slurp(dir_ / "state" / "host-a" / "calls"), "systemctl stop zkmill-worker@synth-2\n"));
  EXPECT_TRUE(contains(r.out, "== host-a\n")) << r.out;

  r = run({"--host", "host-a", "drain", "prove-1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(units("host-a"), "zkmill-worker@synth-1\nzkmill-worker@gpu-0\n");
  EXPECT_EQ(units("ops@host-b"), "zkmill-worker@synth-1\nzkmill-worker@prove-1\nzkmill-worker@gpu-0\n");

  // A host that cannot be reached: the others still run, exit 1 names it.
  r = run({"--host", "down.example", "--host", "host-a", "scale", "--prove", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "farmctl: scale failed on down.example")) << r.err;
  EXPECT_TRUE(contains(units("host-a"), "zkmill-worker@prove-2\n"));
}

TEST(LocalFarmGpusTest, WithoutGpusTheScriptRefusesClearly) {
  if (std::system("nvidia-smi -L >/dev/null 2>&1") == 0)
    GTEST_SKIP() << "this machine has a GPU; the refusal is for machines without one";
  LocalFarm farm(scratch_dir());
  auto r = farm.script({"start", "--keys", (farm.farm_dir().parent_path() / "keys").string(), "--synth", "1", "--prove",
                        "0", "--gpus", "0", "--bin", zkmill_binary()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "local-farm.sh: --gpus 0: this machine has no NVIDIA GPU (nvidia-smi finds none); use --prove N for CPU "
            "prove workers\n");
  EXPECT_FALSE(fs::exists(farm.farm_dir() / "redis.pid")) << "nothing may start";
  auto bad = farm.script({"start", "--keys", "x", "--gpus", "zero"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "--gpus must be a comma-separated list")) << bad.err;
}

}  // namespace
}  // namespace zkmill::test
