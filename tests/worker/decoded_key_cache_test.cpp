// SPDX-License-Identifier: MIT
// DecodedKeyCache (worker/decoded_key_cache.hpp): a hit does not decode again; the least
// recently used entries go first once the budget is passed; room is made before a decode (two
// keys that each fill the budget are never held at once); the last one used stays even alone
// above the budget; a failed decode caches nothing; an evicted entry lives on while a task
// holds it. And ZkeyCircuits on the committed snarkjs fixtures: a worker serving two circuits
// decodes each key and constraint set once while they fit, and at every switch when they do not.
#include "worker/decoded_key_cache.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/groth16/snarkjs_verify.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/process.hpp"
#include "worker/key_directory.hpp"
#include "worker/zkey_circuits.hpp"

namespace zkmill::test {
namespace {

using farm::DecodedKeyCache;

// A "decoded key" of `n` bytes; its load counts into `decodes`.
struct Blob {
  uint64_t n;
};

std::shared_ptr<const Blob> get(DecodedKeyCache& c, const std::string& name, uint64_t n, int& decodes) {
  return c.get<Blob>(
      name, n, [&] { return ++decodes, Blob{n}; }, [](const Blob& b) { return b.n; });
}

TEST(DecodedKeyCache, HitsDoNotDecodeAndTheLeastRecentlyUsedGoFirst) {
  DecodedKeyCache c(100);
  int decodes = 0;
  const auto a = get(c, "a", 40, decodes);
  get(c, "b", 40, decodes);
  EXPECT_EQ(get(c, "a", 40, decodes), a) << "a hit hands out the same decoded key";
  EXPECT_EQ(decodes, 2);
  EXPECT_EQ(c.bytes(), 80u);
  get(c, "c", 40, decodes);  // over 100: b, the least recently used (a was used after it), goes
  EXPECT_EQ(c.entries(), 2u);
  EXPECT_EQ(decodes, 3);
  get(c, "a", 40, decodes);
  EXPECT_EQ(decodes, 3) << "a was evicted instead of b";
  get(c, "b", 40, decodes);
  EXPECT_EQ(decodes, 4);
  EXPECT_EQ(c.loads(), 4u);
}

TEST(DecodedKeyCache, RoomIsMadeBeforeADecodeAndTheLastOneStaysAlone) {
  DecodedKeyCache c(100);
  int decodes = 0;
  std::weak_ptr<const Blob> a = get(c, "a", 90, decodes);
  // While "b" decodes, "a" is already gone (freed: nothing else holds it): both would not fit.
  bool a_alive_during_load = true;
  c.get<Blob>(
      "b", 90, [&] { return a_alive_during_load = !a.expired(), Blob{90}; }, [](const Blob& b) { return b.n; });
  EXPECT_FALSE(a_alive_during_load);
  // Larger than the budget: kept, alone.
  get(c, "huge", 500, decodes);
  EXPECT_EQ(c.entries(), 1u);
  EXPECT_EQ(c.bytes(), 500u);
  get(c, "huge", 500, decodes);
  EXPECT_EQ(decodes, 2);  // a and huge; b was loaded through the other lambda

  DecodedKeyCache none(0);  // budget 0: only the last one used
  get(none, "a", 1, decodes);
  get(none, "a", 1, decodes);
  get(none, "b", 1, decodes);
  EXPECT_EQ(none.entries(), 1u);
  EXPECT_EQ(none.loads(), 2u);
}

TEST(DecodedKeyCache, AFailedDecodeCachesNothingAndEvictedKeysLiveWhileHeld) {
  DecodedKeyCache c(100);
  EXPECT_THROW(
      c.get<Blob>(
          "bad", 10, []() -> Blob { throw std::runtime_error("truncated file"); }, [](const Blob& b) { return b.n; }),
      std::runtime_error);
  EXPECT_EQ(c.entries(), 0u);
  int decodes = 0;
  const auto held = get(c, "a", 80, decodes);
  get(c, "b", 80, decodes);  // evicts a
  EXPECT_EQ(c.entries(), 1u);
  EXPECT_EQ(held->n, 80u) << "the task's key outlives its eviction";
  EXPECT_EQ(held.use_count(), 1);
}

// Two snarkjs circuits of one curve (with their .r1cs beside them) in a worker's key directory.
class ZkeyCircuitsCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    for (const char* name : {"multiplier", "poseidon"})
      for (const char* ext : {"zkey", "r1cs"})
        std::filesystem::copy_file(interop_fixture("bn128", name, ext), dir_ / (std::string(name) + "." + ext));
  }
  std::string read(const std::string& name) {
    std::ifstream in(interop_fixture("bn128", name, "wtns"), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  // Synthesizes and proves one partition of `name` (prove() checks the proof against the key's
  // verifying key and throws when it does not verify).
  void prove(farm::ZkeyCircuits& z, const farm::KeyDirectory& keys, const std::string& name) {
    const farm::KeyDirectory::Key* key = nullptr;
    for (const auto& id : keys.circuit_ids())
      if (keys.find(id)->path.find(name) != std::string::npos) key = keys.find(id);
    ASSERT_NE(key, nullptr) << name;
    const auto bundle = z.synthesize(*key, read(name), 0);
    const auto proved = z.prove(*key, "circuit", bundle, false, nullptr, 0);
    // Against snarkjs's own verifying key (not the cached key's): a cache that handed one
    // circuit's key to the other would fail here.
    const auto vk = groth16::snarkjs::read_json_file(interop_fixture("bn128", name, "vk.json"));
    std::string why;
    EXPECT_EQ(groth16::snarkjs::verify_snarkjs(vk, name, proved.pub, "public", proved.proof, "proof", &why),
              groth16::snarkjs::VerifyOutcome::Valid)
        << name << ": " << why;
  }
  std::filesystem::path dir_;
};

TEST_F(ZkeyCircuitsCache, TwoCircuitsAreDecodedOnceWhileTheyFitAndAtEverySwitchWhenNot) {
  const farm::KeyDirectory keys(dir_.string());
  ASSERT_EQ(keys.size(), 2u);
  farm::ZkeyCircuits roomy(uint64_t(64) << 20);
  for (int round = 0; round < 3; ++round)
    for (const char* name : {"multiplier", "poseidon"}) prove(roomy, keys, name);
  EXPECT_EQ(roomy.cache().loads(), 4u) << "two proving keys and two constraint sets, each decoded once";
  EXPECT_EQ(roomy.cache().entries(), 4u);

  farm::ZkeyCircuits tight(0);  // room for the last one used only: every step decodes
  for (int round = 0; round < 2; ++round)
    for (const char* name : {"multiplier", "poseidon"}) prove(tight, keys, name);
  EXPECT_EQ(tight.cache().loads(), 8u);
  EXPECT_EQ(tight.cache().entries(), 1u);
}

}  // namespace
}  // namespace zkmill::test
