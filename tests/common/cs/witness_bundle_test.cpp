// SPDX-License-Identifier: MIT
// Witness bundle: round trip, streaming reception, and a clear error for every kind of bad
// input (truncation, magic, version, corruption, non-canonical elements, wrong curve).
#include "common/cs/witness_bundle.hpp"

#include <gtest/gtest.h>

#include <random>

#include "common/circuits/chain.hpp"
#include "common/cs/bundle_receiver.hpp"
#include "common/cs/proving_cs.hpp"
#include "tests/common/cs/bundle_bytes.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;

namespace {

template <class F>
WitnessBundle make_bundle(uint64_t size = 300, uint64_t partition = 5) {
  circuits::ChainCircuit<F> circuit(size, 42, partition);
  ProvingCS<F> prover;
  circuit.synthesize(prover);
  CircuitId id;
  for (size_t i = 0; i < id.size(); ++i) id[i] = uint8_t(i * 7 + 1);
  return std::move(prover).into_bundle(id, partition);
}

}  // namespace

template <class F>
class WitnessBundles : public ::testing::Test {};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(WitnessBundles, Fields);

TYPED_TEST(WitnessBundles, RoundTrip) {
  using F = TypeParam;
  WitnessBundle b = make_bundle<F>();
  const BundleHeader& h = b.header();
  EXPECT_EQ(h.curve, curve_of_scalar_field<F>());
  EXPECT_EQ(h.partition, 5u);
  EXPECT_EQ(h.n_inputs, 3u);
  EXPECT_EQ(h.n_rows, 300u + 3u);
  EXPECT_EQ(h.domain_size, 512u);
  EXPECT_EQ(b.bytes().size(), WitnessBundle::total_size(h));
  EXPECT_EQ(b.bytes().size(), 96 + 32 * (3 + b.n_aux() + 3 * 303) + 8 * (2 * ((b.n_aux() + 63) / 64) + 1) + 8);

  std::vector<uint8_t> wire = b.serialize();
  WitnessBundle back = WitnessBundle::parse(wire);
  EXPECT_TRUE(std::ranges::equal(back.bytes(), b.bytes()));
  EXPECT_EQ(back.header().circuit_id, h.circuit_id);
  EXPECT_TRUE(std::ranges::equal(back.a<F>(), b.a<F>()));
  EXPECT_EQ(back.inputs<F>()[0], F::one());
  for (size_t i = 0; i < back.n_rows(); ++i) EXPECT_EQ(back.a<F>()[i] * back.b<F>()[i], back.c<F>()[i]);
  WitnessBundle copy = back.clone();
  EXPECT_TRUE(std::ranges::equal(copy.bytes(), b.bytes()));
}

TYPED_TEST(WitnessBundles, StreamsInAnyChunks) {
  using F = TypeParam;
  WitnessBundle b = make_bundle<F>();
  std::vector<uint8_t> wire = b.serialize();
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 5; ++trial) {
    BundleReceiver rx{std::span(wire).first(WitnessBundle::header_size())};
    EXPECT_EQ(rx.total_size(), wire.size()) << "known from the header alone";
    size_t pos = WitnessBundle::header_size();
    while (pos < wire.size()) {
      size_t take = std::min<size_t>(wire.size() - pos, 1 + rng() % 5000);
      rx.write(std::span(wire).subspan(pos, take));
      pos += take;
    }
    WitnessBundle got = rx.finish();
    EXPECT_TRUE(std::ranges::equal(got.bytes(), wire));
  }
  BundleReceiver short_rx{std::span(wire).first(200)};
  try {
    short_rx.finish();
    FAIL();
  } catch (const BundleError& e) {
    EXPECT_EQ(std::string(e.what()),
              "witness bundle: truncated: need " + std::to_string(wire.size()) + " bytes, have 200");
  }
  EXPECT_THROW(BundleReceiver(wire, wire.size() - 1), BundleError) << "size limit checked before allocating";
  BundleReceiver over(wire);
  EXPECT_THROW(over.write(std::span(wire).first(1)), BundleError);
  // Corruption in flight is caught by the running hash.
  std::vector<uint8_t> bad = wire;
  bad[wire.size() / 2] ^= 0x10;
  BundleReceiver rx(bad);
  EXPECT_THROW(rx.finish(), BundleError);
}

TYPED_TEST(WitnessBundles, ClearErrors) {
  using F = TypeParam;
  WitnessBundle b = make_bundle<F>();
  const std::vector<uint8_t> wire = b.serialize();
  const BundleLayout& l = b.layout();

  EXPECT_EQ(error_of(std::span(wire).first(50)), "witness bundle: truncated: need 96 bytes for the header, have 50");
  EXPECT_EQ(error_of(std::span(wire).first(wire.size() - 1)), "witness bundle: truncated: need " +
                                                                  std::to_string(wire.size()) + " bytes, have " +
                                                                  std::to_string(wire.size() - 1));
  std::vector<uint8_t> longer = wire;
  longer.push_back(0);
  EXPECT_NE(error_of(longer).find("trailing data"), std::string::npos);

  std::vector<uint8_t> v = wire;
  v[0] = 'X';
  EXPECT_EQ(error_of(v), "witness bundle: bad magic \"XKWB\" (expected \"ZKWB\")");

  v = wire;
  v[4] = 4;
  EXPECT_EQ(error_of(v), "witness bundle: unsupported version 4 (this build reads versions 1 to 3)");

  v = wire;
  v[64] ^= 1;  // n_aux
  EXPECT_NE(error_of(v).find("header checksum mismatch"), std::string::npos) << error_of(v);

  v = wire;
  v[l.section_offset[size_t(Section::B)] + 5] ^= 0x80;
  EXPECT_NE(error_of(v).find("witness bundle: checksum mismatch"), std::string::npos) << error_of(v);
  v = wire;
  v.back() ^= 1;  // the checksum itself
  EXPECT_NE(error_of(v).find("checksum mismatch"), std::string::npos);

  // A well-checksummed image whose a[17] is >= p: a sender bug, named precisely.
  v = wire;
  std::fill_n(v.begin() + l.section_offset[size_t(Section::A)] + 17 * 32, 32, uint8_t(0xff));
  reseal(v, l);
  EXPECT_EQ(error_of(v), "witness bundle: field element not canonical at a[17]");

  v = wire;
  std::fill_n(v.begin() + l.section_offset[size_t(Section::Inputs)], 32, uint8_t(0));
  reseal(v, l);
  EXPECT_EQ(error_of(v), "witness bundle: inputs[0] (the constant ONE) is not 1");

  v = wire;
  v[l.density_offset[size_t(DensityMap::InputInB)]] |= 0x80;  // bit 7, but there are 3 inputs
  reseal(v, l);
  EXPECT_NE(error_of(v).find("input_in_b has bits set past"), std::string::npos) << error_of(v);

  v = wire;
  put_u64(v, 80, 256);  // domain smaller than n_rows = 303
  reseal(v, l);
  EXPECT_NE(error_of(v).find("domain size 256 is not a power of two >= n_rows = 303"), std::string::npos)
      << error_of(v);
}

TYPED_TEST(WitnessBundles, TypedAccessChecksTheCurve) {
  using F = TypeParam;
  using Other = std::conditional_t<std::is_same_v<F, ff::Bn254Fr>, ff::Bls12381Fr, ff::Bn254Fr>;
  WitnessBundle b = make_bundle<F>();
  EXPECT_NO_THROW(b.a<F>());
  try {
    b.a<Other>();
    FAIL();
  } catch (const BundleError& e) {
    std::string want = std::string("witness bundle: holds ") + curve_name(curve_of_scalar_field<F>()) +
                       " field elements, accessed as " + Other::Params::kName;
    EXPECT_EQ(std::string(e.what()), want);
  }
  WitnessBundle empty;
  EXPECT_THROW(empty.aux<F>(), BundleError);
}

// The kind byte (header offset 10, version 2): a zkey bundle round-trips as version 2 with
// its kind; a native bundle is still written as version 1 (byte 10 zero, readable by v1
// builds); a set byte 10 in a version-1 image and an unknown kind are refused.
TYPED_TEST(WitnessBundles, KindRoundTripsAndNativeStaysVersion1) {
  using F = TypeParam;
  BundleHeader h;
  h.curve = curve_of_scalar_field<F>();
  h.kind = BundleKind::Zkey;
  h.partition = 3;
  h.n_inputs = 2;
  h.n_aux = 5;
  h.n_rows = 8;
  WitnessBundle z = WitnessBundle::allocate(h);
  for (Section s : {Section::Inputs, Section::Aux, Section::A, Section::B, Section::C})
    for (auto& x : z.section_mut<F>(s)) x = F::from_u64(7);
  z.section_mut<F>(Section::Inputs)[0] = F::one();
  z.seal();
  std::vector<uint8_t> wire = z.serialize();
  EXPECT_EQ(wire[4], 2);
  EXPECT_EQ(wire[10], uint8_t(BundleKind::Zkey));
  WitnessBundle back = WitnessBundle::parse(wire);
  EXPECT_EQ(back.kind(), BundleKind::Zkey);
  EXPECT_EQ(back.header().version, 2u);
  EXPECT_EQ(back.header().partition, 3u);
  EXPECT_TRUE(std::ranges::equal(back.bytes(), wire));
  // Through the streaming receiver too (what a prove worker uses).
  BundleReceiver rx{std::span(wire).first(WitnessBundle::header_size())};
  rx.write(std::span(wire).subspan(WitnessBundle::header_size()));
  EXPECT_EQ(rx.finish().kind(), BundleKind::Zkey);
  EXPECT_STREQ(bundle_kind_name(back.kind()), "zkey");

  std::vector<uint8_t> v = wire;
  v[10] = 7;
  reseal(v, z.layout());
  EXPECT_EQ(error_of(v), "witness bundle: unknown bundle kind 7");

  WitnessBundle n = make_bundle<F>();
  std::vector<uint8_t> nw = n.serialize();
  EXPECT_EQ(nw[4], 1) << "native bundles keep the version-1 layout";
  EXPECT_EQ(nw[10], 0);
  EXPECT_EQ(WitnessBundle::parse(nw).kind(), BundleKind::Native);
  nw[10] = 1;  // a kind in a version-1 header: that byte is reserved there
  reseal(nw, n.layout());
  EXPECT_EQ(error_of(nw), "witness bundle: reserved header byte 10 is not zero");
}

TEST(WitnessBundleHeader, RejectsAbsurdCounts) {
  BundleHeader h;
  h.curve = CurveId::Bn254;
  h.n_inputs = 1;
  h.n_rows = uint64_t(1) << 29;  // bn254 Fr has 2-adicity 28
  EXPECT_THROW(WitnessBundle::allocate(h), BundleError);
  h.n_rows = 0;
  EXPECT_THROW(WitnessBundle::allocate(h), BundleError);
  h.n_rows = 4;
  h.n_aux = uint64_t(1) << 41;
  EXPECT_THROW(WitnessBundle::allocate(h), BundleError);
  h.n_aux = 0;
  h.curve = CurveId(9);
  EXPECT_THROW(WitnessBundle::allocate(h), BundleError);
}

}  // namespace zkmill::test
