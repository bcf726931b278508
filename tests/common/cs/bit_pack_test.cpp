// SPDX-License-Identifier: MIT
// Upload chunks bit-packed on the staging threads (common/cs/bit_pack.hpp): map, bits and whole
// elements equal a one-element-at-a-time reference and a witness-only bundle's packed aux (the
// device unpacks both with the same kernel), for sizes around the 64-element word and the tasks'
// grain, shares of bits from none to all, with one and several threads.
#include "common/cs/bit_pack.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/cs/witness_bundle.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill::cs;

template <class F>
class BitPack : public ::testing::Test {};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(BitPack, Fields);

template <class F>
std::vector<F> mixed(size_t n, double bit_share, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution bit(bit_share), one(0.5);
  std::vector<F> v(n);
  for (auto& x : v) {
    if (bit(rng)) {
      x = one(rng) ? F::one() : F::zero();
    } else {
      ff::Limbs<F::N> l{};
      for (auto& w : l) w = rng();
      l[F::N - 1] >>= 4;  // below p for both moduli
      x = F::from_canonical_unchecked(l);
    }
  }
  return v;
}

struct Packed {
  std::vector<uint64_t> map, bits;
  std::vector<uint8_t> full;  // the whole elements' bytes
};

template <class F>
Packed reference(const std::vector<F>& v) {
  Packed p;
  p.map.assign((v.size() + 63) / 64, 0);
  uint64_t nb = 0;
  for (size_t j = 0; j < v.size(); ++j) {
    if (v[j] == F::zero() || v[j] == F::one()) {
      if (nb % 64 == 0) p.bits.push_back(0);
      if (v[j] == F::one()) p.bits.back() |= uint64_t(1) << (nb % 64);
      ++nb;
    } else {
      p.map[j / 64] |= uint64_t(1) << (j % 64);
      const auto* b = reinterpret_cast<const uint8_t*>(&v[j]);
      p.full.insert(p.full.end(), b, b + sizeof(F));
    }
  }
  return p;
}

template <class F>
Packed packed_by(const std::vector<F>& v, util::ThreadPool& pool, BitPackedChunk* out) {
  std::vector<uint8_t> buf(bit_packed_max_bytes(v.size(), sizeof(F)) + 64, 0xa5);
  std::vector<uint64_t> scratch;
  const BitPackedChunk c = pack_bits<F>(v, buf.data(), pool, scratch);
  *out = c;
  EXPECT_LE(c.bytes, bit_packed_max_bytes(v.size(), sizeof(F)));
  EXPECT_EQ(c.full_offset % 256, 0u);
  EXPECT_GE(c.full_offset, 8 * (c.map_words + c.bits_words));
  Packed p;
  const auto* w = reinterpret_cast<const uint64_t*>(buf.data());
  p.map.assign(w, w + c.map_words);
  p.bits.assign(w + c.map_words, w + c.map_words + c.bits_words);
  p.full.assign(buf.data() + c.full_offset, buf.data() + c.bytes);
  return p;
}

TYPED_TEST(BitPack, MatchesReference) {
  using F = TypeParam;
  util::ThreadPool one(1), four(4);
  uint64_t seed = 1;
  for (size_t n :
       {size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(64 * 1024 + 1), size_t(200003)}) {
    for (double share : {0.0, 0.5, 0.99, 1.0}) {
      const auto v = mixed<F>(n, share, seed++);
      const Packed want = reference(v);
      for (util::ThreadPool* pool : {&one, &four}) {
        BitPackedChunk c;
        const Packed got = packed_by(v, *pool, &c);
        EXPECT_EQ(c.n, n);
        EXPECT_EQ(c.n_full * sizeof(F), want.full.size()) << n << " elements, bit share " << share;
        EXPECT_EQ(got.map, want.map) << n << " elements, bit share " << share;
        EXPECT_EQ(got.bits, want.bits) << n << " elements, bit share " << share;
        EXPECT_TRUE(got.full == want.full) << n << " elements, bit share " << share;
      }
    }
  }
}

// A mixed chunk packs as pack_witness packs a bundle's aux (the layout the device unpacks).
TYPED_TEST(BitPack, SameAsWitnessBundle) {
  using F = TypeParam;
  util::ThreadPool pool(3);
  const auto aux = mixed<F>(70001, 0.97, 42);
  BundleHeader h;
  h.n_inputs = 1;
  h.n_aux = aux.size();
  h.n_rows = 1;
  const std::vector<F> inputs{F::one()};
  const WitnessBundle w = WitnessBundle::pack_witness<F>(h, CircuitId{}, inputs, aux);
  BitPackedChunk c;
  const Packed got = packed_by(aux, pool, &c);
  const auto map = w.packed(PackedMap::Full), bits = w.packed(PackedMap::Bits);
  ASSERT_FALSE(map.empty());
  EXPECT_TRUE(std::equal(got.map.begin(), got.map.end(), map.begin(), map.end()));
  EXPECT_TRUE(std::equal(got.bits.begin(), got.bits.end(), bits.begin(), bits.end()));
  const auto full = w.aux<F>();
  ASSERT_EQ(c.n_full, full.size());
  EXPECT_EQ(std::memcmp(got.full.data(), full.data(), full.size_bytes()), 0);
}

TYPED_TEST(BitPack, WholeFractionOfASample) {
  using F = TypeParam;
  EXPECT_EQ(whole_fraction<F>(std::vector<F>(5000, F::one())), 0.0);
  EXPECT_EQ(whole_fraction<F>(std::vector<F>{}), 0.0);
  const auto dense = mixed<F>(5000, 0.0, 7);
  EXPECT_EQ(whole_fraction<F>(dense), 1.0);
  const double f = whole_fraction<F>(mixed<F>(100000, 0.9, 8));
  EXPECT_GT(f, 0.05);
  EXPECT_LT(f, 0.15);
}

}  // namespace
}  // namespace zkmill::test
