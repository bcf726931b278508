// Unit tests of the farm's shared code that need no Redis: SHA-256 against the FIPS 180-4
// examples, control-message schema enforcement, and farm config errors that name file and key.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "farm/control_message.hpp"
#include "farm/farm_config.hpp"
#include "farm/sha256.hpp"

namespace zkmill::farm {
namespace {

std::string sha_hex(const std::string& s) {
  Sha256 h;
  h.update(s);
  return Sha256::hex(h.finish());
}

// The examples of FIPS 180-4 (NIST "SHA256.pdf" / "SHA2_Additional.pdf").
TEST(Sha256, NistVectors) {
  EXPECT_EQ(sha_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalUpdatesAcrossBlockBoundariesMatchOneShot) {
  const std::string msg(1000, 'x');
  for (size_t cut : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 127u, 999u}) {
    Sha256 h;
    h.update(msg.substr(0, cut));
    h.update(msg.substr(cut));
    EXPECT_EQ(Sha256::hex(h.finish()), sha_hex(msg)) << cut;
  }
}

TEST(Sha256, FileHashEqualsMemoryHash) {
  auto p = std::filesystem::temp_directory_path() / ("zkmill-sha-" + std::to_string(::getpid()));
  std::string data(200000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = char(i * 131 % 251);
  std::ofstream(p, std::ios::binary) << data;
  EXPECT_EQ(Sha256::hex(Sha256::file(p.string())), sha_hex(data));
  std::filesystem::remove(p);
  EXPECT_THROW(Sha256::file(p.string()), std::runtime_error);
}

// A FIFO named as a key would block the reader forever: it is refused by name, at once.
TEST(Sha256, FileRefusesAFifo) {
  auto p = std::filesystem::temp_directory_path() / ("zkmill-sha-fifo-" + std::to_string(::getpid()));
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  try {
    Sha256::file(p.string());
    ADD_FAILURE() << "a FIFO was hashed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove(p);
}

std::vector<zmq::message_t> frames_of(const std::vector<std::string>& parts) {
  std::vector<zmq::message_t> f;
  for (const auto& s : parts) f.emplace_back(s.data(), s.size());
  return f;
}

std::optional<ControlMessage> decode(const std::vector<std::string>& parts, std::string* why, size_t max = 4096) {
  auto f = frames_of(parts);
  return ControlMessage::decode(f, max, why);
}

TEST(ControlMessage, RoundTripsAValidMessage) {
  ControlMessage m("ack", {{"token", 42u}});
  auto frames = m.encode();
  std::string why;
  auto d = ControlMessage::decode(frames, 4096, &why);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(d->type, "ack");
  EXPECT_EQ(d->body["token"].get<uint64_t>(), 42u);
}

// A zkey job's `synth` carries the .wtns as a fourth, binary frame: accepted only where the
// receiver allows payloads, only for `synth`, within the limit and matching input_bytes.
TEST(ControlMessage, SynthCarriesABinaryPayloadFrameWithinItsLimit) {
  std::string wtns("wtns\0\x01\xff binary", 16);
  const nlohmann::json body = {{"job", "j1"},
                               {"part", 0u},
                               {"token", 3u},
                               {"circuit", "c"},
                               {"curve", "bn254"},
                               {"seed", 0u},
                               {"input_bytes", uint64_t(wtns.size())}};
  ControlMessage m("synth", body, wtns);
  auto frames = m.encode();
  ASSERT_EQ(frames.size(), 4u);
  std::string why;
  auto d = ControlMessage::decode(frames, 4096, &why, 1 << 20);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(d->payload, wtns);
  frames = m.encode();
  EXPECT_FALSE(ControlMessage::decode(frames, 4096, &why)) << "a coordinator (no payloads) refuses it";
  EXPECT_NE(why.find("expected 3 frames"), std::string::npos) << why;
  frames = m.encode();
  EXPECT_FALSE(ControlMessage::decode(frames, 4096, &why, 8));
  EXPECT_NE(why.find("payload of 16 bytes exceeds the limit of 8"), std::string::npos) << why;
  nlohmann::json wrong = body;
  wrong["input_bytes"] = 15u;
  frames = ControlMessage("synth", wrong, wtns).encode();
  EXPECT_FALSE(ControlMessage::decode(frames, 4096, &why, 1 << 20));
  EXPECT_NE(why.find("does not match input_bytes"), std::string::npos) << why;
  frames = ControlMessage("ack", {{"token", 1u}, {"input_bytes", 16u}}, wtns).encode();
  EXPECT_FALSE(ControlMessage::decode(frames, 4096, &why, 1 << 20));
  EXPECT_NE(why.find("carries no payload"), std::string::npos) << why;
}

TEST(ControlMessage, RejectsTruncatedFrames) {
  std::string why;
  EXPECT_FALSE(decode({"ZKM1", "ack"}, &why));
  EXPECT_NE(why.find("expected 3 frames"), std::string::npos) << why;
  EXPECT_FALSE(decode({}, &why));
  // A body cut short is not JSON.
  EXPECT_FALSE(decode({"ZKM1", "ack", R"({"token": 4)"}, &why));
  EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
  EXPECT_FALSE(decode({"ZKM0", "ack", R"({"token": 4})"}, &why));
  EXPECT_NE(why.find("tag"), std::string::npos) << why;
}

TEST(ControlMessage, RejectsUnknownType) {
  std::string why;
  EXPECT_FALSE(decode({"ZKM1", "launch_missiles", "{}"}, &why));
  EXPECT_NE(why.find("unknown message type"), std::string::npos) << why;
  EXPECT_FALSE(decode({"ZKM1", std::string(40, 'a'), "{}"}, &why));
  EXPECT_FALSE(decode({"ZKM1", "ack", "[1, 2]"}, &why));
  EXPECT_NE(why.find("not a JSON object"), std::string::npos) << why;
}

TEST(ControlMessage, RejectsOversizeBody) {
  std::string why;
  std::string big = R"({"bundle_key": ")" + std::string(5000, 'k') + R"("})";
  EXPECT_FALSE(decode({"ZKM1", "release", big}, &why, 4096));
  EXPECT_NE(why.find("exceeds the limit"), std::string::npos) << why;
  // Within the frame limit, a string field is still capped (4096 characters).
  EXPECT_FALSE(decode({"ZKM1", "release", big}, &why, 1 << 20));
  EXPECT_TRUE(decode({"ZKM1", "release", R"({"bundle_key": "j1/0/7"})"}, &why)) << why;
}

TEST(ControlMessage, RejectsMissingOrMistypedFields) {
  std::string why;
  EXPECT_FALSE(decode({"ZKM1", "ack", R"({"token": "42"})"}, &why));
  EXPECT_NE(why.find("field 'token'"), std::string::npos) << why;
  EXPECT_FALSE(decode({"ZKM1", "ack", R"({"token": -1})"}, &why));
  EXPECT_FALSE(decode({"ZKM1", "ack", R"({"token": 1.5})"}, &why));
  EXPECT_FALSE(decode({"ZKM1", "ack", "{}"}, &why));
  EXPECT_FALSE(decode({"ZKM1", "worker_heartbeat", R"({"tokens": [], "current": 0, "draining": "no"})"}, &why));
  EXPECT_NE(why.find("field 'draining'"), std::string::npos) << why;
  EXPECT_FALSE(decode({"ZKM1", "prove_done", R"({"job":"j1","part":0,"token":3,"proof":[],"public":[]})"}, &why));
  EXPECT_NE(why.find("field 'proof'"), std::string::npos) << why;
  // Extra fields (optional telemetry such as synth_ms) are allowed.
  EXPECT_TRUE(decode({"ZKM1", "synth_done", R"({"job":"j1","part":0,"token":3,"bundle_key":"k","synth_ms":1.5})"}, &why))
      << why;
}

std::string config_error(const std::string& yaml) {
  try {
    parse_farm_config(yaml, "/etc/zkmill/farm.yaml");
  } catch (const util::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FarmConfig, ErrorsNameTheFileAndTheKey) {
  auto expect = [](const std::string& yaml, const std::string& key) {
    std::string e = config_error(yaml);
    EXPECT_EQ(e.rfind("/etc/zkmill/farm.yaml: ", 0), 0u) << e;
    EXPECT_NE(e.find(key), std::string::npos) << "'" << key << "' not in: " << e;
  };
  expect("redis:\n  prot: 6379\n", "redis.prot");
  expect("redis:\n  port: many\n", "redis.port");
  expect("redis:\n  port: 99999999\n", "redis.port");
  expect("coordinator:\n  heartbeat_ms: -5\n", "coordinator.heartbeat_ms");
  expect("coordinator:\n  endpoint: localhost\n", "coordinator.endpoint");
  expect("coordinator:\n  heartbeat_ms: 1000\n  lease_ms: 1500\n", "coordinator.lease_ms");
  expect("coordinator:\n  max_witness_mb: 65\n", "coordinator.max_witness_mb");  // above the 64 MiB message rule
  expect("coordinator:\n  max_witness_mb: 0\n", "coordinator.max_witness_mb");
  expect("worker:\n  max_held_bundles: [1]\n", "worker.max_held_bundles");
  expect("worker:\n  drain_hold_s: 86401\n", "worker.drain_hold_s");
  expect("zmq:\n  key_file: [a, b]\n", "zmq.key_file");
  expect("zmq:\n  allowed_key_file: x\n", "zmq.allowed_key_file");
  expect("zmq:\n  curve: maybe\n", "zmq.curve");
  expect("redis: 5\n", "redis");
  expect("farm:\n  x: 1\n", "farm");
  EXPECT_EQ(config_error("redis:\n  port: 6380\ncoordinator:\n  endpoint: ipc:///tmp/c.sock\n"), "");
  EXPECT_EQ(config_error("coordinator:\n  max_witness_mb: 8\n"), "");
  // CURVE is a setting like any other now; its key files are read when a component starts.
  EXPECT_EQ(config_error("zmq:\n  curve: true\n  key_file: /k/c.key\n  allowed_keys_file: /k/allowed\n"), "");
}

TEST(FarmConfig, UnreadableFileIsNamed) {
  try {
    load_farm_config("/nonexistent/zkmill-farm.yaml");
    FAIL() << "no error";
  } catch (const util::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/zkmill-farm.yaml"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace zkmill::farm
