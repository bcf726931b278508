// SPDX-License-Identifier: MIT
// How much of a device one proving key may take (cuda/groth16/key_room.hpp): host arithmetic,
// checked at the shapes it exists for (a 130M-constraint PoRep partition on an H200 and on an
// 80 GB card) and at the edges.
#include "cuda/groth16/key_room.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using zkmill::cuda::g16::KeyRoom;
using zkmill::cuda::g16::proof_scratch_bytes;

constexpr uint64_t kGiB = uint64_t(1) << 30;
constexpr uint64_t kMiB = uint64_t(1) << 20;

// The 130M PoRep partition (docs/benchmarks/gpu-porep.md): 23 inputs + 130,274,605 aux, domain 2^27.
constexpr uint64_t kVars = 23 + 130274605, kAux = 130274605, kDomain = uint64_t(1) << 27;
constexpr uint64_t kH200 = 143155 * kMiB;  // cudaMemGetInfo's total on the H200

// Device bytes of the key with B_G2 (affine points of 2 and 4 coordinates) and no copies.
constexpr uint64_t key_bytes(uint64_t fq_bytes) {
  return (2 * kVars + kAux + kDomain) * 2 * fq_bytes + kVars * 4 * fq_bytes;
}

TEST(KeyRoom, ScratchOfThePorepPartitionIsItsBuffersAndTheHSort) {
  const uint64_t scratch = proof_scratch_bytes(kVars, kDomain, kDomain, 32, 255);
  // z (3.9 GiB), a, b, c, h (16 GiB), the H MSM's sort: 13 windows of 20 bits over 2^27 points,
  // 16 bytes a digit (26 GiB, the failing allocations of 2026-12-04 were 6656 MiB each), 1 GiB.
  const uint64_t sort = 16 * 13 * kDomain;
  EXPECT_EQ(sort / 4, 6656 * kMiB);
  EXPECT_EQ(scratch, kVars * 32 + 4 * kDomain * 32 + sort + kGiB);
  EXPECT_GT(scratch, 46 * kGiB);
  EXPECT_LT(scratch, 48 * kGiB);
  // No MSM: only the fixed part. The largest MSM is over the longer of the variables and H.
  EXPECT_EQ(proof_scratch_bytes(0, 0, 0, 32, 255), kGiB);
  EXPECT_GT(proof_scratch_bytes(2 * kDomain, kDomain, kDomain, 32, 255),
            proof_scratch_bytes(kDomain, kDomain, kDomain, 32, 255) + 2 * kDomain * 16);
}

TEST(KeyRoom, PorepKeyOverHalfAnH200IsAdmittedAlone) {
  const uint64_t key = key_bytes(48), matrices = 8 * kGiB + 600 * kMiB;  // BLS12-381: 70.2 GiB, 8.6 GiB
  EXPECT_GT(key, 70 * kGiB);
  const KeyRoom room{kH200 / 2, kH200, proof_scratch_bytes(kVars, kDomain, kDomain, 32, 255)};
  EXPECT_GT(key, room.budget);  // refused before 2026-12-04
  EXPECT_TRUE(room.admits(key));
  EXPECT_TRUE(room.admits(key + matrices));
  EXPECT_EQ(room.limit(), room.alone());
  EXPECT_EQ(room.alone(), kH200 - room.proof_scratch);
  // BN254's key is within the budget anyway.
  EXPECT_LT(key_bytes(32), room.budget);
}

TEST(KeyRoom, TooLargeForTheDeviceIsRefusedNamingEveryFigure) {
  const uint64_t card = 80 * kGiB;
  const KeyRoom room{card / 2, card, proof_scratch_bytes(kVars, kDomain, kDomain, 32, 255)};
  const uint64_t key = key_bytes(48);
  EXPECT_FALSE(room.admits(key));
  const std::string why = room.refusal("proving key", key, 3);
  EXPECT_NE(why.find("proving key need " + std::to_string(key >> 20) + " MiB"), std::string::npos) << why;
  EXPECT_NE(why.find("device 3"), std::string::npos) << why;
  EXPECT_NE(why.find("budget of " + std::to_string(card / 2 >> 20) + " MiB"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(room.alone() >> 20) + " MiB one key may take alone"), std::string::npos) << why;
  EXPECT_NE(why.find("scratch of " + std::to_string(room.proof_scratch >> 20) + " MiB"), std::string::npos) << why;
}

TEST(KeyRoom, TheBudgetAloneStillAdmitsAndTheEdgesHold) {
  // A budget above the device less the scratch (set by a caller) is the limit.
  const KeyRoom big{100 * kGiB, 64 * kGiB, 8 * kGiB};
  EXPECT_EQ(big.limit(), 100 * kGiB);
  EXPECT_TRUE(big.admits(100 * kGiB));
  EXPECT_FALSE(big.admits(100 * kGiB + 1));
  // A scratch over the device: nothing alone, the budget decides.
  const KeyRoom tiny{kMiB, 4 * kGiB, 5 * kGiB};
  EXPECT_EQ(tiny.alone(), 0u);
  EXPECT_TRUE(tiny.admits(kMiB));
  EXPECT_FALSE(tiny.admits(kMiB + 1));
  const KeyRoom exact{0, 10 * kGiB, 4 * kGiB};
  EXPECT_TRUE(exact.admits(6 * kGiB));
  EXPECT_FALSE(exact.admits(6 * kGiB + 1));
}

}  // namespace
