// SPDX-License-Identifier: MIT
// BundleReceiver's parallel path: slots placed out of order from several threads, and every
// check of parse() still made (and named the same way) with the per-byte work fused into place().
#include "common/cs/bundle_receiver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "common/circuits/chain.hpp"
#include "common/cs/proving_cs.hpp"
#include "tests/common/cs/bundle_bytes.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;

namespace {

using F = ff::Bn254Fr;

std::vector<uint8_t> make_image(uint64_t size = 500) {
  circuits::ChainCircuit<F> circuit(size, 42, 3);
  ProvingCS<F> prover;
  circuit.synthesize(prover);
  return std::move(prover).into_bundle(CircuitId{}, 3).serialize();
}

std::span<const uint8_t> header_of(const std::vector<uint8_t>& image) {
  return std::span(image).first(WitnessBundle::kHeaderSize);
}

// Sets element k (run index) to all-ones, which is >= p, and fixes the trailing checksum so
// only the element check can object.
void break_element(std::vector<uint8_t>& image, const BundleLayout& l, uint64_t k) {
  std::fill_n(image.begin() + WitnessBundle::kHeaderSize + 32 * k, 32, uint8_t(0xff));
  put_u64(image, l.checksum_offset, checksum64(std::span(image).first(l.checksum_offset)));
}

// Cuts [header, end) into slots of `chunk` bytes (the last one short).
std::vector<BundleReceiver::Slot> slots_of(BundleReceiver& rx, uint64_t chunk) {
  std::vector<BundleReceiver::Slot> s;
  while (!rx.complete()) s.push_back(rx.reserve(std::min(chunk, rx.remaining())));
  return s;
}

// Places `slots` in a shuffled order from `threads` threads, then hashes everything in order,
// returns the checksums place() reported, indexed like `slots`.
std::vector<uint64_t> place_shuffled(BundleReceiver& rx, const std::vector<uint8_t>& image,
                                     const std::vector<BundleReceiver::Slot>& slots, size_t threads, uint64_t seed) {
  std::vector<size_t> order(slots.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  std::vector<uint64_t> sums(slots.size());
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (size_t j = t; j < order.size(); j += threads) {
        const auto& s = slots[order[j]];
        sums[order[j]] = rx.place(s, std::span(image).subspan(size_t(s.offset), size_t(s.size)));
      }
    });
  for (auto& th : pool) th.join();
  rx.hash_through(image.size());
  return sums;
}

std::string finish_error(BundleReceiver& rx) {
  try {
    rx.finish();
  } catch (const BundleError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(BundleReceiverParallel, OutOfOrderPlacementRoundTripsForAnyChunking) {
  const std::vector<uint8_t> image = make_image();
  // Chunk sizes that are, and are not, multiples of the 32-byte element; one below an element.
  for (uint64_t chunk :
       {uint64_t(7), uint64_t(32), uint64_t(1000), uint64_t(4096), uint64_t(BundleReceiver::kPieceBytes + 3)}) {
    BundleReceiver rx{header_of(image)};
    auto slots = slots_of(rx, chunk);
    auto sums = place_shuffled(rx, image, slots, 4, chunk);
    for (size_t i = 0; i < slots.size(); ++i)
      ASSERT_EQ(sums[i], checksum64(std::span(image).subspan(size_t(slots[i].offset), size_t(slots[i].size))))
          << "chunk " << chunk;
    WitnessBundle got = rx.finish();
    EXPECT_TRUE(std::ranges::equal(got.bytes(), image)) << "chunk " << chunk;
  }
}

TEST(BundleReceiverParallel, NonCanonicalElementInAnyChunkIsNamed) {
  const std::vector<uint8_t> clean = make_image();
  WitnessBundle ref = WitnessBundle::parse(clean);
  const BundleLayout& l = ref.layout();
  const uint64_t n = ref.n_elements(), chunk = 1000;  // 1000 is not a multiple of 32: elements straddle slots
  // The first aux element, one cut by the first slot boundary after the header, one in the
  // middle, and the very last element, which lies in the last chunk.
  const uint64_t cut = chunk / 32;  // bytes [96 + 32 cut, +32) hold offset 96 + 1000, where slot 1 starts
  for (uint64_t k : {ref.n_inputs(), cut, n / 2, n - 1}) {
    std::vector<uint8_t> image = clean;
    break_element(image, l, k);
    ASSERT_NE(32 * cut / chunk, (32 * cut + 31) / chunk) << "element " << cut << " must straddle a boundary";
    for (size_t threads : {size_t(1), size_t(3)}) {
      BundleReceiver rx{header_of(image)};
      place_shuffled(rx, image, slots_of(rx, chunk), threads, k);
      EXPECT_EQ(finish_error(rx), "witness bundle: field element not canonical at " + ref.element_name(k))
          << "element " << k;
    }
  }
  EXPECT_EQ(ref.element_name(n - 1), "c[" + std::to_string(ref.n_rows() - 1) + "]");
  // Two bad elements found by different threads in any order: the lower one is named, as parse() does.
  std::vector<uint8_t> two = clean;
  break_element(two, l, n - 1);
  break_element(two, l, n / 3);
  BundleReceiver rx{header_of(two)};
  place_shuffled(rx, two, slots_of(rx, chunk), 4, 99);
  std::string expect = "witness bundle: field element not canonical at " + ref.element_name(n / 3);
  EXPECT_EQ(finish_error(rx), expect);
  try {
    WitnessBundle::parse(two);
    ADD_FAILURE() << "parse accepted a non-canonical element";
  } catch (const BundleError& e) {
    EXPECT_EQ(std::string(e.what()), expect);
  }
}

TEST(BundleReceiverParallel, CorruptionIsReportedAsCorruptionPerChunkAndOverall) {
  const std::vector<uint8_t> clean = make_image();
  const uint64_t chunk = 4096;
  // Flip a top byte: the element becomes non-canonical too, but corruption must win.
  std::vector<uint8_t> image = clean;
  const size_t at = clean.size() - 200;
  image[at] ^= 0x80;
  BundleReceiver rx{header_of(image)};
  auto slots = slots_of(rx, chunk);
  auto sums = place_shuffled(rx, image, slots, 3, 5);
  size_t mismatched = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    bool holds = slots[i].offset <= at && at < slots[i].offset + slots[i].size;
    bool differs = sums[i] != checksum64(std::span(clean).subspan(size_t(slots[i].offset), size_t(slots[i].size)));
    EXPECT_EQ(differs, holds) << "slot at " << slots[i].offset;
    mismatched += differs;
  }
  EXPECT_EQ(mismatched, 1u) << "exactly the corrupted chunk's checksum differs";
  EXPECT_NE(finish_error(rx).find("witness bundle: checksum mismatch"), std::string::npos) << finish_error(rx);
}

TEST(BundleReceiverParallel, MissingBytesAreTruncation) {
  const std::vector<uint8_t> image = make_image();
  // Every slot reserved, the last one never placed (a worker that never ran).
  BundleReceiver rx{header_of(image)};
  auto slots = slots_of(rx, 1000);
  for (size_t i = 0; i + 1 < slots.size(); ++i)
    rx.place(slots[i], std::span(image).subspan(size_t(slots[i].offset), size_t(slots[i].size)));
  EXPECT_TRUE(rx.complete()) << "all reserved";
  EXPECT_EQ(finish_error(rx), "witness bundle: truncated: need " + std::to_string(image.size()) + " bytes, have " +
                                  std::to_string(image.size() - slots.back().size));
  // Fewer bytes reserved than the header describes.
  BundleReceiver short_rx{header_of(image)};
  short_rx.place(short_rx.reserve(100), std::span(image).subspan(96, 100));
  EXPECT_NE(finish_error(short_rx).find("truncated"), std::string::npos);
  // Overrun is refused at reserve(), before any byte is copied.
  BundleReceiver over{header_of(image)};
  EXPECT_THROW(over.reserve(image.size()), BundleError);
  // A slot handed the wrong number of bytes is refused.
  BundleReceiver wrong{header_of(image)};
  auto s = wrong.reserve(64);
  EXPECT_THROW(wrong.place(s, std::span(image).subspan(96, 63)), BundleError);
}

}  // namespace zkmill::test
