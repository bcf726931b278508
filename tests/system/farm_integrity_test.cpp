// SPDX-License-Identifier: MIT
// The farm against hostile peers, with a private redis-server, the real coordinator and honest
// worker processes, and fake workers (tests/support/fake_worker.hpp: a ZeroMQ DEALER speaking
// the control protocol by hand):
//   - a prove worker that answers with another job's proof (same circuit, other seed) gets
//     nothing recorded and is quarantined; an honest worker then proves the partition's own
//     statement (public.json equals what `zkmill prove` computes alone, and it verifies);
//   - peers that fail or answer attempts with guessed, enumerated or stolen tokens change
//     nothing, and cannot flood or forge the coordinator's log;
//   - a second coordinator on the same Redis is refused, naming the holder, and the first one
//     finishes with no partition retried; a deposed coordinator stops.
#include <cstdio>

#include "farm/random_token.hpp"
#include "tests/support/fake_worker.hpp"
#include "tests/system/farm_processes.hpp"

namespace zkmill::test {
namespace {

class FarmIntegrityTest : public FarmProcessesTest {
 protected:
  json worker_record(const std::string& id) {
    for (const auto& w : workers())
      if (w["worker"] == id) return w;
    return nullptr;
  }
  // `zkmill prove` on its own (no farm): the honest statement of a partition.
  json honest_public(uint64_t seed, uint64_t part) {
    const auto base = dir_ / ("honest-" + std::to_string(seed) + "-" + std::to_string(part));
    auto r = run_zkmill({"prove", "--key", key_, "--seed", std::to_string(seed), "--partition", std::to_string(part),
                         base.string() + ".proof.json", base.string() + ".public.json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(slurp(base.string() + ".public.json"));
  }
};

TEST_F(FarmIntegrityTest, ReplayedProofOfAnotherJobIsRefusedAndItsSenderQuarantined) {
  start_redis();
  start_coordinator("");
  start_worker("synth-1", "synth", "");
  const pid_t honest = start_worker("prove-1", "prove", "");
  wait_registered(2);
  // Job A, proved honestly: the proof the fake worker will replay.
  const auto a = submit(1, "", 11);
  expect_done_and_verified(a, 1);
  const auto out_a = dir_ / ("out-" + a);
  const json proof_a = json::parse(slurp(out_a / "partition-0.proof.json"));
  const json public_a = json::parse(slurp(out_a / "partition-0.public.json"));
  const std::string circuit = status(a)["circuit"];
  ASSERT_EQ(stop(honest), 0) << log("prove-1");

  FakeWorker evil(endpoint(), "evil-prove");
  evil.hello("evil-prove", farm::WorkerRole::Prove, {circuit});
  ASSERT_TRUE(evil.wait_for(farm::MessageType::Welcome, 10s)) << log("coordinator");
  const auto b = submit(1, "", 12);
  auto assigned = evil.wait_for(farm::MessageType::Prove, 30s);
  ASSERT_TRUE(assigned) << all_logs();
  const farm::Prove p = *assigned->as<farm::Prove>();
  ASSERT_EQ(p.at.job, b);
  // The coordinator names the statement, and it is B's own, not A's.
  EXPECT_EQ(json(p.public_inputs), honest_public(12, 0));
  ASSERT_NE(json(p.public_inputs), public_a) << "seeds 11 and 12 must give different statements for this test";

  farm::ProveDone replay;
  replay.at = p.at;
  replay.proof = proof_a;
  for (const auto& x : public_a) replay.public_inputs.push_back(x.get<std::string>());
  evil.send(replay);
  ASSERT_TRUE(evil.wait_for(
      [&](const farm::ControlMessage& m) { return m.as<farm::Ack>() && m.as<farm::Ack>()->token == p.at.token; }, 10s))
      << log("coordinator");
  auto sb = status(b);
  EXPECT_EQ(sb["verified"].get<uint64_t>(), 0u) << sb.dump();
  EXPECT_EQ(sb["partition_states"][0]["recorded"].get<uint64_t>(), 0u) << sb.dump();
  const std::string coord = log("coordinator");
  EXPECT_TRUE(contains(coord, "PROOF REJECTED: job " + b + " partition 0 from worker evil-prove")) << coord;
  EXPECT_TRUE(contains(coord, "a proof of another statement")) << coord;
  EXPECT_TRUE(contains(coord, "worker evil-prove QUARANTINED")) << coord;
  // `status --workers` shows it quarantined, and why.
  json rec;
  for (int i = 0; i < 100 && (rec.is_null() || !rec.contains("quarantined")); ++i) {
    rec = worker_record("evil-prove");
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(rec.is_null());
  ASSERT_TRUE(rec.contains("quarantined")) << rec.dump();
  EXPECT_TRUE(contains(rec["quarantined"]["reason"].get<std::string>(), "prove_done for " + b + " partition 0"))
      << rec.dump();
  auto text = run_zkmill({"status", "--config", client(), "--workers"});
  EXPECT_TRUE(contains(text.out, "QUARANTINED")) << text.out;
  EXPECT_TRUE(contains(text.out, "zkmill worker clear evil-prove")) << text.out;
  // The partition is redone, but the quarantined worker gets none of it.
  EXPECT_FALSE(evil.wait_for(farm::MessageType::Prove, 3s)) << "a quarantined worker got work";

  start_worker("prove-2", "prove", "");
  expect_done_and_verified(b, 1);
  // The recorded statement is the honest one (computed without the farm), not the replayer's.
  EXPECT_EQ(json::parse(slurp(dir_ / ("out-" + b) / "partition-0.public.json")), honest_public(12, 0));
  const auto part = status(b)["partition_states"][0];
  EXPECT_EQ(part["worker"], "prove-2") << part.dump();
  EXPECT_EQ(part["attempts"].get<uint64_t>(), 1u) << "the replayed proof was one failed attempt: " << part.dump();
  EXPECT_EQ(part["recorded"].get<uint64_t>(), 1u) << part.dump();

  // The operator lifts the quarantine; a second clear is an error.
  auto clear = run_zkmill({"worker", "clear", "evil-prove", "--config", client()});
  EXPECT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_TRUE(contains(clear.out, "cleared from quarantine")) << clear.out;
  auto again = run_zkmill({"worker", "clear", "evil-prove", "--config", client()});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_TRUE(contains(again.err, "is neither quarantined nor paused")) << again.err;
  json after;
  for (int i = 0; i < 100; ++i) {
    after = worker_record("evil-prove");
    if (!after.is_null() && !after.contains("quarantined")) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_FALSE(after.contains("quarantined")) << after.dump();
}

TEST_F(FarmIntegrityTest, ForgedFailuresAndResultsFromOtherPeersAreIgnored) {
  const std::string big = make_key("big", 12000);
  start_redis();
  start_coordinator("");
  start_worker("synth-1", "synth", "");
  // Each proof held 3 s longer (the slow-prove test hook): an attempt is in flight long enough
  // to be stolen and forged against however fast the machine (unslowed, a quiet dev-2c proved
  // the six partitions in 1.5 s and the test found no attempt to steal).
  start_worker("prove-1", "prove", "", {"--inject-fault", "slow-prove"});
  wait_registered(2);
  FakeWorker evil(endpoint(), "evil");
  evil.hello("evil", farm::WorkerRole::Both, {});  // serves no circuit: gets no work
  ASSERT_TRUE(evil.wait_for(farm::MessageType::Welcome, 10s)) << log("coordinator");
  const uint64_t n = 4;
  const auto job = submit(n, big);

  // An attacker that learned a real token (say, from a bundle key) while it is live: any
  // partition's attempt in flight (a synth or a prove attempt, about a second each here), read
  // with one round trip so a loaded machine does not miss every window.
  const std::string scan =
      "for i = 0, tonumber(ARGV[2]) - 1 do local k = 'zk:part:' .. ARGV[1] .. ':' .. i "
      "local s = redis.call('HGET', k, 'state') "
      "if s == 'synthesizing' or s == 'proving' then return i .. ' ' .. redis.call('HGET', k, 'token') end "
      "end return ''";
  std::string stolen;
  uint64_t stolen_part = 0;
  auto steal = [&] {
    stolen.clear();
    for (int i = 0; i < 1000 && stolen.empty(); ++i) {
      // Heartbeats keep `evil` registered meanwhile (a loaded machine can take longer than the
      // coordinator's liveness): its forged results must be refused as not its own, not merely
      // answered with `reconnect`.
      if (i % 5 == 0) evil.heartbeat();
      const std::string found = redis_cli({"EVAL", scan, "0", job, std::to_string(n)});
      if (const auto sp = found.find(' '); sp != std::string::npos) {
        stolen_part = std::stoull(found.substr(0, sp));
        stolen = found.substr(sp + 1);
      } else {
        std::this_thread::sleep_for(5ms);
      }
    }
  };
  // A forged failure naming the stolen attempt must be refused as not from its holder. The
  // attempt may end between the scan and the coordinator's handling of the message (then the
  // coordinator says "stale token", or nothing once the partition is recorded), so steal again,
  // from the next attempt in flight, until that refusal shows or no attempt is left.
  const auto refusal_of = [&](uint64_t part) {
    return "refused task_failed for " + job + " partition " + std::to_string(part) +
           " from 'evil': not from the worker the lease names";
  };
  bool refused_live = false;
  for (int round = 0; round < 20 && !refused_live; ++round) {
    steal();
    if (stolen.empty()) break;
    evil.send(farm::TaskFailed{farm::AttemptRef{job, stolen_part, stolen}, "evil says no", true});
    for (int k = 0; k < 100 && !refused_live; ++k) {
      refused_live = contains(log("coordinator"), refusal_of(stolen_part));
      if (!refused_live) std::this_thread::sleep_for(20ms);
    }
  }
  ASSERT_TRUE(farm::is_attempt_token(stolen)) << "'" << stolen << "'\n" << all_logs();
  std::vector<std::string> tokens{stolen, farm::random_token()};
  for (int i = 0; i < 64; ++i) {  // what a counter would have handed out
    char t[33];
    std::snprintf(t, sizeof t, "%032x", i);
    tokens.push_back(t);
  }
  // The stolen attempt's partition first, while its token is live.
  std::vector<uint64_t> parts{stolen_part};
  for (uint64_t part = 0; part < n; ++part)
    if (part != stolen_part) parts.push_back(part);
  for (uint64_t part : parts) {
    for (const auto& t : tokens) {
      const farm::AttemptRef at{job, part, t};
      evil.send(farm::TaskFailed{at, "evil says no", true});
      farm::ProveDone forged;
      forged.at = at;
      forged.proof = {{"pi_a", {"1", "2", "1"}}, {"pi_b", json::array()}, {"pi_c", {"1", "2", "1"}}};
      evil.send(forged);
      evil.send(farm::SynthDone{at, job + "/" + std::to_string(part) + "/" + t, {"1"}, std::nullopt, std::nullopt});
    }
    // The old protocol's integer tokens are not even messages any more.
    evil.send_raw({"ZKM2", "task_failed",
                   json{{"job", job}, {"part", part}, {"token", 7}, {"error", "x"}, {"permanent", true}}.dump()});
  }
  // Log forgery and flooding: a routing id and an error text with newlines and escape codes,
  // and a burst of malformed messages.
  FakeWorker forger(endpoint(), "evil\nINJECTED: job done\x1b[2J");
  for (int i = 0; i < 200; ++i) forger.send_raw({"ZKM2", "task_failed", "{not json"});
  // The coordinator handles one peer's messages in order: its answer (reconnect, to a peer it
  // does not know) to a heartbeat sent after the burst means the burst has been handled, so the
  // next message falls in a later one-second window however loaded the machine is.
  forger.heartbeat();
  ASSERT_TRUE(forger.wait_for(farm::MessageType::Reconnect, 30s)) << log("coordinator");
  std::this_thread::sleep_for(1200ms);
  forger.send_raw({"ZKM2", "task_failed", "{not json"});  // the next window reports what was suppressed

  expect_done_and_verified(job, n, big);
  for (const auto& p : status(job)["partition_states"]) {
    EXPECT_EQ(p["attempts"].get<uint64_t>(), 0u) << "an attempt was ended by a forged message: " << p.dump();
    EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << p.dump();
    EXPECT_TRUE(p["worker"] == "prove-1" && p["synth_worker"] == "synth-1") << p.dump();
  }
  const std::string coord = log("coordinator");
  EXPECT_TRUE(refused_live && contains(coord, refusal_of(stolen_part))) << coord;
  EXPECT_TRUE(contains(coord, "not from the worker the lease names")) << coord;
  EXPECT_FALSE(contains(coord, "PROOF REJECTED")) << "a forged result reached verification: " << coord;
  EXPECT_FALSE(contains(coord, "QUARANTINED")) << coord;
  // Nothing the peers sent starts a line of its own or reaches the terminal raw.
  EXPECT_FALSE(contains(coord, "\nINJECTED")) << coord;
  EXPECT_FALSE(contains(coord, "\x1b")) << coord;
  EXPECT_TRUE(contains(coord, "evil\\nINJECTED: job done\\x1b[2J")) << coord;
  // 201 malformed messages, at most a few lines per second, and the rest counted.
  const size_t malformed = count_of(coord, "dropped a malformed message from 'evil\\nINJECTED");
  EXPECT_GE(malformed, 2u) << coord;
  EXPECT_LE(malformed, 15u) << coord;
  EXPECT_TRUE(contains(coord, "similar warning(s) about peer")) << coord;
  EXPECT_LE(count_of(coord, "from 'evil'"), 60u) << "forged results are rate-limited too";
}

// A prove worker that calls a witness "permanently" bad after a synth worker checked it is
// blamed itself: the attempt counts against it and the partition is retried elsewhere; the
// job does not fail.
TEST_F(FarmIntegrityTest, PermanentFailureOfACheckedWitnessIsTheProveWorkersFault) {
  start_redis();
  start_coordinator("");
  start_worker("synth-1", "synth", "");
  wait_registered(1);
  // The circuit id as the coordinator names it: from a first job, proved by an honest worker.
  const pid_t honest = start_worker("prove-1", "prove", "");
  wait_registered(2);
  const auto a = submit(1, "", 21);
  expect_done_and_verified(a, 1);
  const std::string circuit = status(a)["circuit"];
  ASSERT_EQ(stop(honest), 0) << log("prove-1");

  std::optional<farm::Prove> p;
  {
    FakeWorker liar(endpoint(), "liar-prove");
    liar.hello("liar-prove", farm::WorkerRole::Prove, {circuit});
    ASSERT_TRUE(liar.wait_for(farm::MessageType::Welcome, 10s)) << log("coordinator");
    const auto b = submit(1, "", 22);
    auto assigned = liar.wait_for(farm::MessageType::Prove, 30s);
    ASSERT_TRUE(assigned) << all_logs();
    p = *assigned->as<farm::Prove>();
    ASSERT_EQ(p->at.job, b);
    liar.send(farm::TaskFailed{p->at, "witness does not satisfy the circuit", true});
    ASSERT_TRUE(liar.wait_for(
        [&](const farm::ControlMessage& m) { return m.as<farm::Ack>() && m.as<farm::Ack>()->token == p->at.token; },
        10s))
        << log("coordinator");
  }  // the liar disconnects and stops heartbeating: it is declared dead
  const std::string b = p->at.job;
  const std::string coord = log("coordinator");
  EXPECT_TRUE(contains(coord,
                       "prove worker liar-prove reported a permanent failure of a witness a synth worker "
                       "checked; counted as a failed attempt of that worker, not the job's"))
      << coord;
  EXPECT_FALSE(contains(coord, "job " + b + " failed")) << coord;
  EXPECT_NE(status(b)["state"], "failed") << status(b).dump();

  start_worker("prove-2", "prove", "");
  expect_done_and_verified(b, 1);
  const auto part = status(b)["partition_states"][0];
  EXPECT_EQ(part["worker"], "prove-2") << part.dump();
  EXPECT_GE(part["attempts"].get<uint64_t>(), 1u) << "the permanent failure was one failed attempt: " << part.dump();
  EXPECT_EQ(part["recorded"].get<uint64_t>(), 1u) << part.dump();
}

TEST_F(FarmIntegrityTest, SecondCoordinatorIsRefusedAndTheFirstFinishesWithoutRetries) {
  const std::string big = make_key("big", 12000);
  start_redis();
  const pid_t first = start_coordinator("");
  start_worker("synth-1", "synth", "");
  start_worker("prove-1", "prove", "");
  wait_registered(2);
  const uint64_t n = 6;
  const auto job = submit(n, big);
  wait_verified(job, 1);

  // Another coordinator, another endpoint, the same Redis: refused, naming the holder.
  const std::string second_cfg = write_config(
      "coordinator-2", redis_yaml() + "coordinator:\n  endpoint: tcp://127.0.0.1:" + std::to_string(free_port()) +
                           "\n  heartbeat_ms: 200\n  liveness: 10\n");
  auto second = run_program("timeout", {"20", zkmill_binary(), "coordinator", "--config", second_cfg});
  EXPECT_EQ(second.exit_code, 3) << second.err;
  EXPECT_TRUE(contains(second.err, "another coordinator is active on this Redis")) << second.err;
  EXPECT_TRUE(contains(second.err, "coordinator pid " + std::to_string(first) + " on ")) << second.err;
  EXPECT_TRUE(contains(second.err, "serving " + endpoint())) << second.err;

  expect_done_and_verified(job, n, big);
  for (const auto& p : status(job)["partition_states"]) {
    EXPECT_EQ(p["attempts"].get<uint64_t>(), 0u) << "a partition was retried: " << p.dump();
    EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << p.dump();
  }
  EXPECT_FALSE(contains(log("coordinator"), "requeued")) << log("coordinator");

  // A coordinator that stops releases the lease: the next one starts at once.
  EXPECT_EQ(stop(first), 0) << log("coordinator");
  const pid_t next = spawn("coordinator-2", {zkmill_binary(), "coordinator", "--config", second_cfg});
  for (int i = 0; i < 250 && !contains(log("coordinator-2"), "serving on"); ++i) std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(contains(log("coordinator-2"), "serving on")) << log("coordinator-2");
  // One killed with -9 on this machine is taken over at once (its process is gone).
  ASSERT_EQ(kill(next, SIGKILL), 0);
  EXPECT_EQ(wait_exit(next, 10s), 128 + SIGKILL);
  const pid_t third = spawn("coordinator-3", {zkmill_binary(), "coordinator", "--config", second_cfg});
  for (int i = 0; i < 250 && !contains(log("coordinator-3"), "serving on"); ++i) std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(contains(log("coordinator-3"), "serving on")) << log("coordinator-3");

  // Deposed: once another holder's token is in the lease, its writes are refused and it stops.
  redis_cli({"SET", "zk:lease:coordinator",
             "ffffffffffffffffffffffffffffffff {\"host\":\"elsewhere\",\"pid\":4242,\"endpoint\":\"tcp://10.9.9.9:1\"}",
             "PX", "60000"});
  EXPECT_EQ(wait_exit(third, 20s), 3) << log("coordinator-3");
  EXPECT_TRUE(contains(log("coordinator-3"),
                       "another coordinator took over the coordinator lease: coordinator pid "
                       "4242 on elsewhere serving tcp://10.9.9.9:1"))
      << log("coordinator-3");
}

}  // namespace
}  // namespace zkmill::test
