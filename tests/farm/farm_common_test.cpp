// SPDX-License-Identifier: MIT
// Unit tests of the farm's shared code that need no Redis: SHA-256 against the FIPS 180-4
// examples and farm config errors that name file and key (control messages:
// control_message_test.cpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "farm/farm_config.hpp"
#include "farm/sha256.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
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
  expect("coordinator:\n  dead_silence_ms: -1\n", "coordinator.dead_silence_ms");
  expect("worker:\n  max_held_bundles: [1]\n", "worker.max_held_bundles");
  expect("worker:\n  drain_hold_s: 86401\n", "worker.drain_hold_s");
  expect("zmq:\n  key_file: [a, b]\n", "zmq.key_file");
  expect("zmq:\n  allowed_key_file: x\n", "zmq.allowed_key_file");
  expect("zmq:\n  curve: maybe\n", "zmq.curve");
  expect("redis: 5\n", "redis");
  expect("farm:\n  x: 1\n", "farm");
  EXPECT_EQ(config_error("redis:\n  port: 6380\ncoordinator:\n  endpoint: ipc:///tmp/c.sock\n"), "");
  EXPECT_EQ(config_error("coordinator:\n  max_witness_mb: 8\n"), "");
  EXPECT_EQ(parse_farm_config("coordinator:\n  dead_silence_ms: 2500\n", "t").coordinator.dead_silence_ms, 2500u);
  EXPECT_EQ(parse_farm_config("", "t").coordinator.dead_silence_ms, 10000u);
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
}  // namespace zkmill::test
