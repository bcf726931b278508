// SPDX-License-Identifier: MIT
// make_init_zkey against a sink that fails: whichever section's write() throws (those written by
// the calling thread, and the per-signal sections written by the thread that writes a chunk
// while the pool sums the next), the exception reaches the caller and no later section begins.
// A sink that keeps everything gets the same bytes on every run.
#include "common/setup/zkey_new.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/fixtures.hpp"

namespace zkmill::test {
namespace {

// Records the section order and the bytes; throws at the first write() of section `fail_type`.
class RecordingSink final : public setup::SectionSink {
 public:
  explicit RecordingSink(uint32_t fail_type = 0) : fail_type_(fail_type) {}
  void begin(uint32_t type) override {
    begun.push_back(type);
    open_ = type;
  }
  void write(std::span<const uint8_t> b) override {
    if (open_ == fail_type_) throw std::runtime_error("sink: no space left in section " + std::to_string(open_));
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  void end() override { open_ = 0; }

  std::vector<uint32_t> begun;
  std::vector<uint8_t> bytes;

 private:
  uint32_t fail_type_, open_ = 0;
};

class ZkeyNew : public ::testing::Test {
 protected:
  formats::R1csFile r1cs_ = formats::R1csFile::open(interop_fixture("bn128", "hashchain", "r1cs"));
  formats::PtauFile ptau_ = formats::PtauFile::open(interop_fixture_dir("bn128") + "pot8_prepared.ptau");
};

TEST_F(ZkeyNew, SectionsInSnarkjsOrderAndTheSameBytesEachRun) {
  RecordingSink a, b;
  setup::make_init_zkey(r1cs_, ptau_, a, nullptr);
  setup::make_init_zkey(r1cs_, ptau_, b, nullptr);
  EXPECT_EQ(a.begun, (std::vector<uint32_t>{1, 2, 4, 3, 9, 8, 5, 6, 7, 10}));
  EXPECT_FALSE(a.bytes.empty());
  EXPECT_EQ(a.bytes, b.bytes);
}

TEST_F(ZkeyNew, AFailingWriteReachesTheCallerAndNothingFollows) {
  const std::vector<uint32_t> order{1, 2, 4, 3, 9, 8, 5, 6, 7, 10};
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t type = order[i];
    RecordingSink sink(type);
    try {
      setup::make_init_zkey(r1cs_, ptau_, sink, nullptr);
      ADD_FAILURE() << "section " << type << ": the failed write was lost";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "sink: no space left in section " + std::to_string(type));
    }
    // The failing section is the last one begun.
    EXPECT_EQ(sink.begun, std::vector<uint32_t>(order.begin(), order.begin() + ptrdiff_t(i) + 1)) << type;
  }
}

}  // namespace
}  // namespace zkmill::test
