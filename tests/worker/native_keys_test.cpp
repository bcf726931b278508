// SPDX-License-Identifier: MIT
// NativeKeys (worker/native_keys.hpp): a key file is opened (mapped, every point checked) once
// and shared by the tasks that follow; a file replaced in place (a new circuit id) is opened
// afresh; a rescan that no longer lists a key forgets it; a key asked for as the wrong curve
// or format is refused.
#include "worker/native_keys.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "farm/key_id.hpp"
#include "farm/sha256.hpp"
#include "tests/support/native_key.hpp"
#include "tests/support/process.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
namespace fs = std::filesystem;
namespace {

class NativeKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  const KeyDirectory::Key& only_key(const KeyDirectory& d) {
    EXPECT_EQ(d.size(), 1u);
    return *d.find(d.circuit_ids().at(0));
  }
  fs::path dir_;
};

TEST_F(NativeKeysTest, AKeyIsOpenedOnceAndSharedByEveryTask) {
  NativeKey key((dir_ / "chain.key").string(), "chain", 64);
  KeyDirectory d(dir_.string());
  NativeKeys keys;
  const auto first = keys.open<curves::Bn254>(only_key(d));
  std::vector<std::shared_ptr<const groth16::ProvingKey<curves::Bn254>>> seen(4);
  std::vector<std::thread> tasks;
  for (auto& s : seen) tasks.emplace_back([&] { s = keys.open<curves::Bn254>(only_key(d)); });
  for (auto& t : tasks) t.join();
  for (const auto& s : seen) EXPECT_EQ(s.get(), first.get());
  EXPECT_EQ(first->meta.circuit, "chain");
  EXPECT_EQ(keys.size(), 1u);
}

TEST_F(NativeKeysTest, AKeyFileReplacedInPlaceIsOpenedAfresh) {
  const std::string path = (dir_ / "circuit.key").string();
  NativeKey chain(path, "chain", 64);
  KeyDirectory before(dir_.string());
  NativeKeys keys;
  const auto old_key = keys.open<curves::Bn254>(only_key(before));
  NativeKey merkle(path, "merkle", 64, CurveId::Bn254, 9);  // same path, another circuit
  KeyDirectory after(dir_.string(), &before);
  ASSERT_NE(only_key(after).digest, only_key(before).digest);
  const auto new_key = keys.open<curves::Bn254>(only_key(after));
  EXPECT_NE(new_key.get(), old_key.get());
  EXPECT_EQ(new_key->meta.circuit, "merkle");
  EXPECT_EQ(old_key->meta.circuit, "chain");  // a task still holding the old key keeps it
}

TEST_F(NativeKeysTest, ARescanThatDropsAKeyForgetsIt) {
  NativeKey key((dir_ / "chain.key").string(), "chain", 64);
  KeyDirectory d(dir_.string());
  NativeKeys keys;
  const auto held = keys.open<curves::Bn254>(only_key(d));
  keys.retain(d);
  EXPECT_EQ(keys.size(), 1u);
  fs::remove(key.path());
  KeyDirectory empty(dir_.string(), &d);
  keys.retain(empty);
  EXPECT_EQ(keys.size(), 0u);
  EXPECT_EQ(held->meta.circuit, "chain");  // still mapped for the task that holds it
}

// A restarted worker takes a key's circuit id from the KEY.id.json memo the first scan wrote
// (not from hashing the key again: an edited memo id is what it serves), and the memo is not
// taken for a key; a key rewritten since is hashed again.
TEST_F(NativeKeysTest, ARestartedWorkerReadsTheCircuitIdFromTheMemo) {
  const std::string path = (dir_ / "chain.key").string();
  NativeKey chain(path, "chain", 64);
  const KeyDirectory first(dir_.string());
  ASSERT_EQ(only_key(first).digest, Sha256::file(path));
  ASSERT_TRUE(fs::exists(key_id_memo_path(path)));
  const KeyDirectory restarted(dir_.string());
  EXPECT_EQ(only_key(restarted).digest, Sha256::file(path));

  auto memo = nlohmann::json::parse(std::ifstream(key_id_memo_path(path)));
  memo["sha256"] = std::string(64, 'b');
  std::ofstream(key_id_memo_path(path), std::ios::trunc) << memo.dump();
  const KeyDirectory again(dir_.string());
  EXPECT_EQ(again.circuit_ids(), std::vector<std::string>{std::string(64, 'b')});

  NativeKey merkle(path, "merkle", 64, CurveId::Bn254, 9);  // same path, another circuit
  const KeyDirectory rewritten(dir_.string());
  EXPECT_EQ(only_key(rewritten).digest, Sha256::file(path));
}

TEST_F(NativeKeysTest, TheWrongCurveOrFormatIsRefused) {
  NativeKey key((dir_ / "chain.key").string(), "chain", 64, CurveId::Bls12_381);
  KeyDirectory d(dir_.string());
  NativeKeys keys;
  EXPECT_THROW(keys.open<curves::Bn254>(only_key(d)), std::invalid_argument);
  EXPECT_EQ(keys.open<curves::Bls12381>(only_key(d))->meta.circuit, "chain");
  KeyDirectory::Key zkey = only_key(d);
  zkey.format = KeyDirectory::Format::Zkey;
  EXPECT_THROW(keys.open<curves::Bls12381>(zkey), std::invalid_argument);
}

}  // namespace
}  // namespace zkmill::test
