// SPDX-License-Identifier: MIT
// Cooperative cancellation (common/util/cancellation.hpp), as a farm worker uses it for a
// partition whose job ended: a stop request ends a synthesis at the start of its next part
// (run_parts, sequential or on a pool) and a CPU proof between its phases, with
// util::Cancelled; a token that is never stopped changes nothing (same bytes, a proof that
// verifies).
#include "common/util/cancellation.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "common/cs/witness_cs.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::groth16;

namespace {

template <class Fn>
std::string cancelled_message(Fn&& fn) {
  try {
    fn();
  } catch (const util::Cancelled& e) {
    return e.what();
  }
  return "";
}

}  // namespace

template <class E>
class Cancellation : public ::testing::Test {
 protected:
  std::mt19937_64 rng{17};
  util::ThreadPool pool{2};
};
using Curves = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(Cancellation, Curves);

// A stop requested by one part: the parts after it never start, in order (no pool) or on a
// pool of two threads (at most the parts already running finish), and Cancelled reaches the
// caller.
TYPED_TEST(Cancellation, AStopEndsASynthesisAtTheNextPart) {
  using F = typename TypeParam::Fr;
  using CS = cs::ConstraintSystem<F>;
  constexpr uint64_t kParts = 64;
  for (util::ThreadPool* pool : {static_cast<util::ThreadPool*>(nullptr), &this->pool}) {
    std::vector<F> in(1), aux(kParts);
    cs::WitnessCS<F> wcs(in, aux, kParts, pool);
    std::stop_source stop;
    wcs.set_stop_token(stop.get_token());
    std::atomic<uint64_t> started{0};
    const std::string what = cancelled_message([&] {
      wcs.run_parts(kParts, [&](CS& pcs, uint64_t i) {
        ++started;
        if (i == 1) stop.request_stop();
        (void)pcs.alloc("a", [&] { return F::from_u64(i); });
        pcs.enforce("k", {}, {}, {});
      });
    });
    EXPECT_EQ(what, "synthesis cancelled") << (pool ? "pool" : "in order");
    if (pool)
      EXPECT_LT(started.load(), kParts / 2);  // two threads: the parts in flight at the stop, not the rest
    else
      EXPECT_EQ(started.load(), 2u);
  }
}

// The built-in syntheses (plain, PCE, witness-only) of a PoRep partition with a stop already
// requested stop at its first challenge; with a token never stopped each gives the bytes it
// gives without one. A CPU proof with a stop requested stops before its first phase; with a
// token never stopped it verifies.
TYPED_TEST(Cancellation, BuiltinSynthesisAndTheCpuProofStopWhenAsked) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  std::vector<uint8_t> image;
  auto pk =
      setup_builtin<E>("porep", 3000, ToxicWaste<Fr>::random(this->rng), this->pool, HBasis::kCosetLagrange, &image);
  const cs::PceMatrices pce = cs::PceMatrices::from_encoded(std::move(image), pce_shape<E>(pk.meta), "in memory");
  std::stop_source stopped, never;
  stopped.request_stop();
  const cs::CircuitId id{{1, 2, 3}};
  const uint64_t seed = 4, part = 1;

  EXPECT_EQ(cancelled_message([&] { (void)synthesize_builtin<E>(pk.meta, seed, part, id, stopped.get_token()); }),
            "synthesis cancelled");
  EXPECT_EQ(cancelled_message([&] {
              (void)synthesize_builtin_pce<E>(pce, pk.meta, seed, part, id, this->pool, nullptr, stopped.get_token());
            }),
            "synthesis cancelled");
  EXPECT_EQ(cancelled_message([&] {
              (void)synthesize_builtin_witness<E>(pce, pk.meta, seed, part, id, nullptr, this->pool,
                                                  stopped.get_token());
            }),
            "synthesis cancelled");

  const cs::WitnessBundle plain = synthesize_builtin<E>(pk.meta, seed, part, id);
  EXPECT_TRUE(
      std::ranges::equal(synthesize_builtin<E>(pk.meta, seed, part, id, never.get_token()).bytes(), plain.bytes()));
  EXPECT_TRUE(std::ranges::equal(
      synthesize_builtin_pce<E>(pce, pk.meta, seed, part, id, this->pool, nullptr, never.get_token()).bytes(),
      plain.bytes()));
  EXPECT_TRUE(std::ranges::equal(
      synthesize_builtin_witness<E>(pce, pk.meta, seed, part, id, nullptr, this->pool, never.get_token()).bytes(),
      synthesize_builtin_witness<E>(pce, pk.meta, seed, part, id, nullptr, this->pool).bytes()));

  EXPECT_EQ(cancelled_message([&] { (void)prove<E>(pk, plain, this->pool, nullptr, stopped.get_token()); }),
            "proof cancelled");
  const Proof<E> proof = prove<E>(pk, plain, this->pool, nullptr, never.get_token());
  EXPECT_TRUE(PreparedVerifyingKey<E>(pk.vk).verify(proof, public_inputs<E>(plain)));
}

}  // namespace zkmill::test
