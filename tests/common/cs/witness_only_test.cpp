// SPDX-License-Identifier: MIT
// Witness-only bundles (BundleKind::Witness): packing round-trips every aux value, the packed
// image is validated like any bundle (checksum, maps, counts), streams through the receiver,
// and expanding it with the circuit's PCE matrices gives byte for byte the bundle that
// ProvingCS makes, for every built-in circuit on both curves; other matrices are refused.
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "common/circuits/chain.hpp"
#include "common/circuits/circuit.hpp"
#include "common/cs/bundle_receiver.hpp"
#include "common/cs/proving_cs.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_cs.hpp"
#include "common/cs/witness_expand.hpp"
#include "tests/common/cs/bundle_bytes.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::cs;

namespace {

template <class F>
class WitnessOnly : public ::testing::Test {
 protected:
  util::ThreadPool pool{2};
};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(WitnessOnly, Fields);

template <class F>
F random_element(std::mt19937_64& rng) {
  ff::Limbs<F::N> l{};
  for (auto& w : l) w = rng();
  l[F::N - 1] >>= 4;  // below p for both moduli
  return F::from_canonical_unchecked(l);
}

// Aux values of which about `bit_share` are 0 or 1 and the rest random.
template <class F>
std::vector<F> mixed_aux(size_t n, double bit_share, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution bit(bit_share), one(0.5);
  std::vector<F> v(n);
  for (auto& x : v) x = bit(rng) ? (one(rng) ? F::one() : F::zero()) : random_element<F>(rng);
  return v;
}

BundleHeader shape(uint64_t n_inputs, uint64_t n_aux, uint64_t n_rows) {
  BundleHeader h;
  h.n_inputs = n_inputs;
  h.n_aux = n_aux;
  h.n_rows = n_rows;
  h.partition = 9;
  for (size_t i = 0; i < h.circuit_id.size(); ++i) h.circuit_id[i] = uint8_t(3 * i + 1);
  return h;
}

PceId some_pce_id(uint8_t salt) {
  PceId id;
  for (size_t i = 0; i < id.size(); ++i) id[i] = uint8_t(i ^ salt);
  return id;
}

TYPED_TEST(WitnessOnly, PackAndUnpackRoundTripEveryAuxValueAtEveryShape) {
  using F = TypeParam;
  util::ThreadPool one_thread(1), four(4);
  // 70000 and 300001 aux span 2 and 5 of pack_witness's blocks (2^16 values), whose bits start
  // mid-word: the packing is the same bytes on 1, 2 and 4 threads.
  for (size_t n_aux : {0, 1, 63, 64, 65, 1000, 70000, 300001}) {
    for (double share : {0.0, 0.5, 0.97, 1.0}) {
      auto aux = mixed_aux<F>(n_aux, share, n_aux * 31 + uint64_t(share * 100));
      std::vector<F> inputs{F::one(), F::from_u64(5), F::zero()};
      auto w =
          WitnessBundle::pack_witness<F>(shape(3, n_aux, 3 + n_aux / 2 + 1), some_pce_id(1), inputs, aux, &this->pool);
      for (util::ThreadPool* p : {&one_thread, &four})
        EXPECT_TRUE(std::ranges::equal(
            WitnessBundle::pack_witness<F>(shape(3, n_aux, 3 + n_aux / 2 + 1), some_pce_id(1), inputs, aux, p).bytes(),
            w.bytes()))
            << n_aux << " aux on " << p->size() << " threads";
      EXPECT_EQ(w.kind(), BundleKind::Witness);
      EXPECT_EQ(w.header().version, 3u);
      uint64_t full = 0;
      for (const F& v : aux) full += !(v == F::zero() || v == F::one());
      EXPECT_EQ(w.header().n_full, full);
      EXPECT_EQ(w.pce_id(), some_pce_id(1));
      std::vector<F> back(n_aux, F::from_u64(77));
      w.template unpack_aux<F>(back);
      EXPECT_TRUE(back == aux) << n_aux << " aux, bit share " << share;
      // Size: inputs and full values whole, the full map (unless all or none are whole), one
      // bit per value stored as a bit, pce id, header, trailer.
      const uint64_t map_words = full > 0 && full < n_aux ? (n_aux + 63) / 64 : 0;
      EXPECT_EQ(w.bytes().size(), 96 + 32 * (3 + full) + 32 + 8 * (map_words + (n_aux - full + 63) / 64) + 8);
      // The wire image parses (full validation) and streams to the same bundle.
      auto wire = w.serialize();
      auto parsed = WitnessBundle::parse(wire);
      EXPECT_TRUE(std::ranges::equal(parsed.bytes(), wire));
      BundleReceiver rx{std::span(wire).first(WitnessBundle::header_size())};
      for (size_t off = WitnessBundle::header_size(); off < wire.size(); off += 777)
        rx.write(std::span(wire).subspan(off, std::min<size_t>(777, wire.size() - off)));
      EXPECT_TRUE(std::ranges::equal(rx.finish().bytes(), wire));
    }
  }
}

TYPED_TEST(WitnessOnly, CorruptedPackedWitnessFailsItsChecksumAndBadMapsAreNamed) {
  using F = TypeParam;
  auto aux = mixed_aux<F>(500, 0.9, 5);
  std::vector<F> inputs{F::one(), F::from_u64(2)};
  auto w = WitnessBundle::pack_witness<F>(shape(2, 500, 300), some_pce_id(2), inputs, aux);
  const BundleLayout l = w.layout();
  const auto wire = w.serialize();
  // One flipped bit anywhere after the header: a bit of the bit map, the pce id, a full value.
  for (uint64_t off : {l.packed_offset[1] + 3, l.pce_offset + 1, l.section_offset[size_t(Section::Aux)] + 5}) {
    auto v = wire;
    v[off] ^= 0x10;
    EXPECT_NE(error_of(v).find("checksum mismatch"), std::string::npos) << off << ": " << error_of(v);
  }
  // Well-sealed but inconsistent maps: each is refused with what is wrong.
  ASSERT_GT(l.packed_words[0], 0u) << "a mixed witness has a full map";
  auto v = wire;
  v[l.packed_offset[0]] ^= 0x01;  // aux 0 moves between "bit" and "whole": the count no longer fits
  reseal(v, l);
  EXPECT_NE(error_of(v).find("full map marks"), std::string::npos) << error_of(v);
  v = wire;
  v[l.packed_offset[0] + 8 * (l.packed_words[0] - 1) + 7] |= 0x80;  // bit 63 of the last word: past aux 499
  reseal(v, l);
  EXPECT_NE(error_of(v).find("past the 500 aux variables"), std::string::npos) << error_of(v);
  const uint64_t n_bits = 500 - w.header().n_full;
  ASSERT_NE(n_bits % 64, 0u);
  v = wire;
  v[l.packed_offset[1] + 8 * (l.packed_words[1] - 1) + 7] |= 0x80;
  reseal(v, l);
  EXPECT_NE(error_of(v).find("aux values stored as bits"), std::string::npos) << error_of(v);
  // A kind-2 header in a version-2 image is refused.
  v = wire;
  v[4] = 2;
  reseal(v, l);
  EXPECT_NE(error_of(v).find("needs format version 3"), std::string::npos) << error_of(v);
}

// The heart of it: synth side packs (inputs, aux) of a ProvingCS run, prove side expands with
// the circuit's PCE matrices, and the result is the ProvingCS bundle itself, byte for byte.
TYPED_TEST(WitnessOnly, ExpandedBundleIsByteIdenticalToTheProvingCsBundle) {
  using F = TypeParam;
  auto pce_of = [](std::string_view name, uint64_t size) {
    RecordingCS<F> rec;
    circuits::make_circuit<F>(name, size, 0, 0)->synthesize(rec);
    const R1CS<F> r = rec.finish();
    return PceMatrices::from_r1cs(
        r, {curve_of_scalar_field<F>(), std::string(name), size, r.n_inputs, r.n_aux, r.n_constraints});
  };
  for (const auto& name : circuits::circuit_names()) {
    for (uint64_t size : {50, 700}) {
      const PceMatrices pce = pce_of(name, size);
      EXPECT_EQ(pce_of(name, size).id(), pce.id()) << "recording is deterministic, so workers agree on the id";
      for (uint64_t part : {0, 3}) {
        ProvingCS<F> pcs;
        circuits::make_circuit<F>(name, size, 17, part)->synthesize(pcs);
        const WitnessBundle full = std::move(pcs).into_bundle(some_pce_id(9), part);
        auto packed = WitnessBundle::pack_witness<F>(full.header(), pce.id(), full.inputs<F>(), full.aux<F>());
        const WitnessBundle back = expand_witness<F>(WitnessBundle::parse(packed.serialize()), pce, this->pool);
        EXPECT_TRUE(std::ranges::equal(back.bytes(), full.bytes())) << name << " size " << size << " part " << part;
        EXPECT_LT(packed.bytes().size(), full.bytes().size());
      }
      // Matrices of another size (twice: sizes round to whole rounds or tree levels): another
      // id, and the bundle is refused by name.
      std::optional<PceMatrices> other;
      for (uint64_t k = 2; !other || other->n_rows() == pce.n_rows(); k *= 2) other = pce_of(name, k * size);
      EXPECT_NE(other->id(), pce.id());
      ProvingCS<F> pcs;
      circuits::make_circuit<F>(name, size, 17, 0)->synthesize(pcs);
      const WitnessBundle full = std::move(pcs).into_bundle(some_pce_id(9), 0);
      auto packed = WitnessBundle::pack_witness<F>(full.header(), pce.id(), full.inputs<F>(), full.aux<F>());
      try {
        expand_witness<F>(packed, *other, this->pool);
        ADD_FAILURE() << "expanded with the wrong matrices";
      } catch (const BundleError& e) {
        EXPECT_NE(std::string(e.what()).find("constraint matrices (PCE)"), std::string::npos) << e.what();
      }
      // Stamped with the right id but expanded against matrices of another shape (a forged
      // or colliding id): refused by its counts, not multiplied out of bounds.
      auto mislabelled = WitnessBundle::pack_witness<F>(full.header(), other->id(), full.inputs<F>(), full.aux<F>());
      EXPECT_THROW(expand_witness<F>(mislabelled, *other, this->pool), BundleError) << name;
    }
  }
}

// WitnessCS::run_parts on a pool: the circuit's last parts, all at once, each on the aux slice
// the recorded shape's remainder gives it, each variable at the index the sequential order
// gives it (same witness as without a pool); a part that allocates more or fewer variables or
// constraints than its share, an input, or a remainder that does not split evenly is refused
// with a logic_error naming it, rethrown on the calling thread.
TYPED_TEST(WitnessOnly, PartsOnAPoolFillTheSequentialSlotsAndUnlikePartsAreRefused) {
  using F = TypeParam;
  using CS = ConstraintSystem<F>;
  constexpr uint64_t kParts = 7, kPer = 5;
  // Before the parts: one input and 2 aux; each part: kPer aux (value 100 i + j, plus the first
  // variable's index times 1000, so a wrong index shows) and 3 constraints.
  auto circuit = [&](CS& cs, auto&& part_aux, auto&& part_k) {
    (void)cs.alloc_input("x", [] { return F::from_u64(9); });
    for (int j = 0; j < 2; ++j) (void)cs.alloc("pre", [&] { return F::from_u64(50 + j); });
    cs.run_parts(kParts, [&](CS& pcs, uint64_t i) {
      Variable first{};
      for (uint64_t j = 0; j < part_aux(i); ++j) {
        const Variable v = pcs.alloc("a", [&] { return F::from_u64(100 * i + j + 1000 * first.index()); });
        if (j == 0) first = v;
      }
      for (uint64_t k = 0; k < part_k(i); ++k) pcs.enforce("k", {}, {}, {});
    });
  };
  auto run = [&](util::ThreadPool* pool, uint64_t n_aux, uint64_t n_k, auto&& part_aux, auto&& part_k) {
    std::vector<F> in(2), aux(n_aux);
    WitnessCS<F> cs(in, aux, n_k, pool);
    circuit(cs, part_aux, part_k);
    cs.finish();
    return aux;
  };
  const uint64_t n_aux = 2 + kParts * kPer, n_k = 3 * kParts;
  const auto per = [](uint64_t) { return kPer; };
  const auto three = [](uint64_t) { return uint64_t(3); };
  const std::vector<F> sequential = run(nullptr, n_aux, n_k, per, three);
  util::ThreadPool four(4);
  EXPECT_TRUE(run(&four, n_aux, n_k, per, three) == sequential);
  EXPECT_EQ(sequential[2 + kPer * 3 + 1], F::from_u64(100 * 3 + 1 + 1000 * (2 + kPer * 3)));

  auto refused = [&](auto&& attempt, const std::string& says) {
    try {
      attempt();
      ADD_FAILURE() << "accepted; expected a refusal saying '" << says << "'";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  // A part with one variable or constraint too many or too few (the last part; then the first),
  // the shape's totals unchanged (another part makes up for it).
  for (const uint64_t odd : {kParts - 1, uint64_t(0)}) {
    const uint64_t other = odd == 0 ? 1 : 0;
    for (const int64_t delta : {1, -1}) {
      auto shifted = [&](uint64_t base) {
        return [=](uint64_t i) { return i == odd ? base + delta : i == other ? base - delta : base; };
      };
      // (Both parts fail; the first part's failure is the one rethrown.)
      refused([&] { (void)run(&four, n_aux, n_k, shifted(kPer), three); },
              (odd < other) == (delta > 0) ? "aux variables of a part" : "the recorded shape");
      refused([&] { (void)run(&four, n_aux, n_k, per, shifted(3)); }, "the recorded shape");
    }
  }
  // A remainder that does not split into kParts (a circuit allocating after its parts).
  refused([&] { (void)run(&four, n_aux + 1, n_k, per, three); }, "do not split into 7 like parts");
  // A circuit cannot get past the recorded shape's constraints (so run_parts' remainder is never
  // negative): the first constraint too many is refused where it is enforced.
  std::vector<F> in(2), aux(n_aux);
  WitnessCS<F> cs(in, aux, /*n_constraints=*/1, &four);
  cs.enforce("k", {}, {}, {});
  refused([&] { cs.enforce("k", {}, {}, {}); }, "more than the recorded shape's 1 constraints");
  // A part that allocates an input.
  std::vector<F> in2(2), aux2(0);
  WitnessCS<F> cs2(in2, aux2, 0, &four);
  refused(
      [&] {
        cs2.run_parts(3, [&](CS& pcs, uint64_t i) {
          if (i == 2) (void)pcs.alloc_input("late", [] { return F::one(); });
        });
      },
      "a part allocates an input");
}

TEST(WitnessOnlyKinds, NativeAndZkeyBundlesRefuseWitnessAccessors) {
  circuits::ChainCircuit<ff::Bn254Fr> c(20, 1, 0);
  ProvingCS<ff::Bn254Fr> pcs;
  c.synthesize(pcs);
  auto full = std::move(pcs).into_bundle({}, 0);
  EXPECT_THROW(full.pce_id(), BundleError);
  std::vector<ff::Bn254Fr> out(full.n_aux());
  EXPECT_THROW(full.unpack_aux<ff::Bn254Fr>(out), BundleError);
  EXPECT_STREQ(bundle_kind_name(BundleKind::Witness), "witness");
}

}  // namespace
}  // namespace zkmill::test
