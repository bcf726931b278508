// SPDX-License-Identifier: MIT
// GPU Groth16 prover (cuda/groth16/prover.hpp) against the CPU prover: bit-identical proofs for
// fixed r, s on both curves, chain and merkle at several sizes and a porep partition, with keys in
// both H bases (coset Lagrange, as setup writes them, and monomial, as keys written before the
// basis field hold them), verification, the resident-key cache (reuse counter, budget refusal,
// precomputed key copies within the budget), and wrong/unsatisfied bundles as errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"
#include "cuda/groth16/prover.hpp"
#include "cuda/msm/accumulation.hpp"
#include "cuda/msm/pippenger_plan.hpp"
#include "tests/support/gpu.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;

struct BnProver {
  using E = curves::Bn254;
  static cuda::GpuResult prove(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const E::Fr& r,
                               const E::Fr& s, groth16::Proof<E>* out, cuda::GpuProveTimings* t = nullptr,
                               const cuda::GpuProveOptions& o = {}) {
    return cuda::prove_gpu(pk, w, r, s, out, t, o);
  }
};
struct BlsProver {
  using E = curves::Bls12381;
  static cuda::GpuResult prove(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const E::Fr& r,
                               const E::Fr& s, groth16::Proof<E>* out, cuda::GpuProveTimings* t = nullptr,
                               const cuda::GpuProveOptions& o = {}) {
    return cuda::prove_gpu(pk, w, r, s, out, t, o);
  }
};

// Frees the device contexts before exit (compute-sanitizer's leak check runs at exit).
class ReleaseContexts : public ::testing::Environment {
 public:
  void TearDown() override {
    if (gpu_available()) (void)cuda::release_gpu_context(0);
  }
};
[[maybe_unused]] const auto* const kEnv =
    ::testing::AddGlobalTestEnvironment(std::make_unique<ReleaseContexts>().release());

template <class T>
class GpuGroth16 : public ::testing::Test {
 protected:
  using E = typename T::E;
  using Fr = typename E::Fr;
  std::mt19937_64 rng{2024};
  groth16::ProvingKey<E> key(const std::string& circuit, uint64_t size,
                             groth16::HBasis basis = groth16::HBasis::kCosetLagrange) {
    return groth16::setup_builtin<E>(circuit, size, groth16::ToxicWaste<Fr>::random(rng), util::ThreadPool::global(),
                                     basis);
  }
  groth16::Proof<E> gpu(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const Fr& r, const Fr& s,
                        cuda::GpuProveTimings* t = nullptr) {
    groth16::Proof<E> p{};
    const cuda::GpuResult res = T::prove(pk, w, r, s, &p, t);
    EXPECT_TRUE(res.ok()) << cuda::to_string(res.code) << ": " << res.message;
    return p;
  }
};

using Provers = ::testing::Types<BnProver, BlsProver>;
TYPED_TEST_SUITE(GpuGroth16, Provers);

TYPED_TEST(GpuGroth16, SameProofAsCpuAndVerifies) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  for (const groth16::HBasis basis : {groth16::HBasis::kCosetLagrange, groth16::HBasis::kMonomial}) {
    for (const char* circuit : {"chain", "merkle"}) {
      for (uint64_t size : {uint64_t(3), uint64_t(100), uint64_t(1500), uint64_t(9000)}) {
        auto pk = this->key(circuit, size, basis);
        groth16::PreparedVerifyingKey<E> pvk(pk.vk);
        for (uint64_t part : {0, 5}) {
          auto w = groth16::synthesize_builtin<E>(pk.meta, 9, part);
          const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
          const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
          const auto gpu = this->gpu(pk, w, r, s);
          EXPECT_TRUE(gpu == cpu) << groth16::h_basis_name(basis) << " " << circuit << " size " << size << " partition "
                                  << part << " (domain 2^" << pk.meta.domain_log2 << ")";
          EXPECT_TRUE(pvk.verify(gpu, groth16::public_inputs<E>(w))) << circuit << " size " << size;
        }
      }
    }
  }
}

// One toxic waste in both H bases: the GPU's proofs equal each other and the CPU's for fixed r, s
// (both commit to h(tau) Z(tau) / delta), and each key keeps its own resident cache entry (the
// fingerprint covers the metadata, so the same shape in the other basis is not a cache hit).
TYPED_TEST(GpuGroth16, BothHBasesGiveTheSameProof) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  const auto tw = groth16::ToxicWaste<Fr>::random(this->rng);
  auto lag = groth16::setup_builtin<E>("merkle", 2500, tw, util::ThreadPool::global(), groth16::HBasis::kCosetLagrange);
  auto mono = groth16::setup_builtin<E>("merkle", 2500, tw, util::ThreadPool::global(), groth16::HBasis::kMonomial);
  auto w = groth16::synthesize_builtin<E>(lag.meta, 4, 1);
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  cuda::GpuProveTimings t_lag, t_mono;
  const auto on_lag = this->gpu(lag, w, r, s, &t_lag);
  const auto on_mono = this->gpu(mono, w, r, s, &t_mono);
  EXPECT_FALSE(t_mono.key_cache_hit) << "the monomial key was taken for the coset-Lagrange one";
  EXPECT_TRUE(on_lag == on_mono);
  EXPECT_TRUE(on_lag == groth16::prove_with_randomness<E>(lag, w, r, s));
  EXPECT_TRUE(groth16::PreparedVerifyingKey<E>(lag.vk).verify(on_lag, groth16::public_inputs<E>(w)));
}

// The PoRep shape (issue 14): SHA-256 and Poseidon gadgets make almost every aux value a bit, so
// the bit-aware MSMs (zero / one / windowed split) carry most of A, B_G1, B_G2 and L. The smallest
// porep instance (one challenge, ~10^5 constraints, domain 2^17) through both provers for fixed
// r, s: the same proof bit for bit, and it verifies.
TYPED_TEST(GpuGroth16, PorepPartitionSameProofAsCpu) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("porep", 1 << 16);
  groth16::PreparedVerifyingKey<E> pvk(pk.vk);
  for (uint64_t part : {0, 3}) {
    auto w = groth16::synthesize_builtin<E>(pk.meta, 11, part);
    const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
    const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
    const auto gpu = this->gpu(pk, w, r, s);
    EXPECT_TRUE(gpu == cpu) << "porep partition " << part << " (domain 2^" << pk.meta.domain_log2 << ")";
    EXPECT_TRUE(pvk.verify(gpu, groth16::public_inputs<E>(w))) << "porep partition " << part;
    // The key as precomputed copies, one window (the bit-aware split's 1-scalar sums read copy 0).
    cuda::GpuProveOptions o;
    o.precompute = 64;
    groth16::Proof<E> pre{};
    const auto res = TypeParam::prove(pk, w, r, s, &pre, nullptr, o);
    ASSERT_TRUE(res.ok()) << res.message;
    EXPECT_TRUE(pre == cpu) << "porep partition " << part << ", precomputed key";
  }
}

// Precomputed key copies (GpuProveOptions::precompute): t = 3 and t = 64 (W copies, one window)
// give the CPU's proof for fixed r, s, and it verifies; the entry holds t copies of every section.
// Under a budget that holds only four copies the key gets four; under one that holds two or
// fewer it gets none (plain points: fewer than four copies cut down by the budget are slower than
// none), and the proof is right either way.
TYPED_TEST(GpuGroth16, PrecomputedKeyCopiesGiveTheSameProof) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("merkle", 1200);
  groth16::PreparedVerifyingKey<E> pvk(pk.vk);
  auto w = groth16::synthesize_builtin<E>(pk.meta, 6, 2);
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
  const uint64_t nvars = pk.meta.n_inputs + pk.meta.n_aux, n = uint64_t(1) << pk.meta.domain_log2;
  const uint64_t plain =
      (2 * nvars + pk.meta.n_aux + n) * 2 * sizeof(typename E::Fq) + nvars * 4 * sizeof(typename E::Fq);
  cuda::KeyCacheStats st{};
  ASSERT_TRUE(cuda::key_cache_stats(0, &st).ok());
  auto prove_with = [&](int t, uint64_t budget, const char* what) -> uint64_t {
    EXPECT_TRUE(cuda::set_key_cache_budget(0, 0).ok());  // empty cache: resident bytes are this key's
    EXPECT_TRUE(cuda::set_key_cache_budget(0, budget).ok());
    cuda::GpuProveOptions o;
    o.key_id = "precompute-test";
    o.precompute = t;
    groth16::Proof<E> p{};
    const auto res = TypeParam::prove(pk, w, r, s, &p, nullptr, o);
    EXPECT_TRUE(res.ok()) << what << ": " << res.message;
    EXPECT_TRUE(p == cpu) << what;
    EXPECT_TRUE(pvk.verify(p, groth16::public_inputs<E>(w))) << what;
    cuda::KeyCacheStats after{};
    EXPECT_TRUE(cuda::key_cache_stats(0, &after).ok());
    return after.resident_bytes;
  };
  // The prover picks the copies' width for the key's largest section (H: the domain).
  const int bits = int(Fr::kBits);
  const size_t largest = std::max<size_t>({nvars, pk.l.size(), pk.h.size()});
  const int w_all = cuda::pippenger::scalar_windows_for(bits, cuda::pippenger::precompute_window(largest, bits, 64));
  const int c3 = cuda::pippenger::precompute_window(largest, bits, 3);
  EXPECT_EQ(prove_with(3, st.budget_bytes, "t = 3"), uint64_t(cuda::pippenger::precompute_copies(bits, c3, 3)) * plain);
  EXPECT_EQ(prove_with(64, st.budget_bytes, "t = 64"), uint64_t(w_all) * plain);
  const int c64 = cuda::pippenger::precompute_window(largest, bits, 64);
  const int four = cuda::pippenger::precompute_copies(bits, c64, 4);  // the fewest giving 4's windows
  EXPECT_EQ(prove_with(64, uint64_t(four) * plain + plain / 2, "t = 64, room for 4"), uint64_t(four) * plain);
  EXPECT_EQ(prove_with(64, 2 * plain + plain / 2, "t = 64, room for 2"), plain);
  EXPECT_EQ(prove_with(64, plain + plain / 2, "t = 64, room for 1"), plain);
  ASSERT_TRUE(cuda::set_key_cache_budget(0, st.budget_bytes).ok());
}

TYPED_TEST(GpuGroth16, ZeroBlindersMatchToo) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("chain", 200);
  auto w = groth16::synthesize_builtin<E>(pk.meta, 1, 0);
  EXPECT_TRUE(this->gpu(pk, w, Fr::zero(), Fr::zero()) ==
              groth16::prove_with_randomness<E>(pk, w, Fr::zero(), Fr::zero()));
}

TYPED_TEST(GpuGroth16, KeyStaysResidentAcrossProofs) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("merkle", 700);
  cuda::KeyCacheStats before{}, after1{}, after2{};
  ASSERT_TRUE(cuda::key_cache_stats(0, &before).ok());
  cuda::GpuProveTimings t1, t2;
  auto w1 = groth16::synthesize_builtin<E>(pk.meta, 4, 0);
  auto w2 = groth16::synthesize_builtin<E>(pk.meta, 4, 1);
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const auto p1 = this->gpu(pk, w1, r, s, &t1);
  ASSERT_TRUE(cuda::key_cache_stats(0, &after1).ok());
  const auto p2 = this->gpu(pk, w2, r, s, &t2);
  ASSERT_TRUE(cuda::key_cache_stats(0, &after2).ok());
  EXPECT_FALSE(t1.key_cache_hit);
  EXPECT_TRUE(t2.key_cache_hit);
  EXPECT_EQ(after1.uploads, before.uploads + 1);
  EXPECT_EQ(after2.uploads, after1.uploads) << "second proof re-uploaded the key";
  EXPECT_EQ(after2.hits, after1.hits + 1);
  EXPECT_GT(after2.resident_bytes, 0u);
  EXPECT_TRUE(p1 == groth16::prove_with_randomness<E>(pk, w1, r, s));
  EXPECT_TRUE(p2 == groth16::prove_with_randomness<E>(pk, w2, r, s));
  // A different key (other toxic waste, same shape) must not alias the resident one.
  auto pk_other = this->key("merkle", 700);
  const auto p3 = this->gpu(pk_other, w1, r, s);
  EXPECT_TRUE(p3 == groth16::prove_with_randomness<E>(pk_other, w1, r, s));
}

// B_G2 on the device (the default) and on the CPU pool (g2_on_cpu) give the CPU prover's proof;
// the resident entry of the GPU-G2 mode holds the B_G2 points too (more bytes than G1 alone).
TYPED_TEST(GpuGroth16, G2OnGpuAndOnCpuGiveTheSameProof) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("merkle", 1200);
  groth16::PreparedVerifyingKey<E> pvk(pk.vk);
  auto w = groth16::synthesize_builtin<E>(pk.meta, 6, 2);
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
  cuda::KeyCacheStats s0{}, s1{}, s2{};
  ASSERT_TRUE(cuda::key_cache_stats(0, &s0).ok());
  cuda::GpuProveOptions o;
  o.key_id = "g2-modes-test";
  cuda::GpuProveTimings t_gpu, t_cpu;
  groth16::Proof<E> on_gpu{}, on_cpu{};
  auto res = TypeParam::prove(pk, w, r, s, &on_gpu, &t_gpu, o);
  ASSERT_TRUE(res.ok()) << res.message;
  ASSERT_TRUE(cuda::key_cache_stats(0, &s1).ok());
  o.g2_on_cpu = true;
  res = TypeParam::prove(pk, w, r, s, &on_cpu, &t_cpu, o);
  ASSERT_TRUE(res.ok()) << res.message;
  ASSERT_TRUE(cuda::key_cache_stats(0, &s2).ok());
  EXPECT_TRUE(t_gpu.g2_on_gpu);
  EXPECT_FALSE(t_cpu.g2_on_gpu);
  EXPECT_TRUE(on_gpu == cpu);
  EXPECT_TRUE(on_cpu == cpu);
  EXPECT_TRUE(pvk.verify(on_gpu, groth16::public_inputs<E>(w)));
  // Resident bytes: G1 sections (A, B_G1: n_vars; L: n_aux; H: domain) plus B_G2 in GPU mode.
  const uint64_t nvars = pk.meta.n_inputs + pk.meta.n_aux, n = uint64_t(1) << pk.meta.domain_log2;
  const uint64_t g1_bytes = (2 * nvars + pk.meta.n_aux + n) * 2 * sizeof(typename E::Fq);
  const uint64_t g2_bytes = nvars * 4 * sizeof(typename E::Fq);
  EXPECT_EQ(s1.resident_bytes - s0.resident_bytes, g1_bytes + g2_bytes);
  EXPECT_EQ(s2.resident_bytes - s1.resident_bytes, g1_bytes) << "the CPU-G2 entry holds no B_G2";
}

// A bundle in page-locked memory (pin_host_memory; PinnedPool::upload then copies it without the
// staging slots) gives the same proof as the CPU's and as from pageable memory; pinning refuses an
// empty range. (Which upload path ran is not observable here; the bench's phase times show it.)
TYPED_TEST(GpuGroth16, PageLockedBundleGivesTheSameProof) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("chain", 3000);
  auto w = groth16::synthesize_builtin<E>(pk.meta, 9, 3);
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
  groth16::Proof<E> pageable{}, locked{};
  ASSERT_TRUE(TypeParam::prove(pk, w, r, s, &pageable).ok());
  const auto bytes = w.bytes();
  ASSERT_TRUE(cuda::pin_host_memory(bytes.data(), bytes.size()).ok());
  const auto res = TypeParam::prove(pk, w, r, s, &locked);
  ASSERT_TRUE(cuda::unpin_host_memory(bytes.data()).ok());
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_TRUE(locked == cpu);
  EXPECT_TRUE(pageable == cpu);
  EXPECT_EQ(cuda::pin_host_memory(nullptr, 64).code, cuda::GpuErrc::kInvalidArgument);
  EXPECT_EQ(cuda::pin_host_memory(bytes.data(), 0).code, cuda::GpuErrc::kInvalidArgument);
}

// An MSM whose digit sort finds the card full runs again after the earlier MSMs' round buffers
// are released (prove.cuh: with_room; at 130M constraints the H MSM's sort needs them): the
// proof is the CPU's, and the timings say a step ran twice. The failure is injected at the first
// sort (A, B_G1 and B_G2's) and at the second (L's, or L and H's joined).
TYPED_TEST(GpuGroth16, MsmShortOfMemoryRunsAgainAfterMakingRoom) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  namespace pip = cuda::pippenger;
  auto pk = this->key("merkle", 1200);
  auto w = groth16::synthesize_builtin<E>(pk.meta, 6, 2);
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
  for (const int at : {0, 1}) {
    pip::inject_alloc_failure(pip::AllocSite::kSort, at);
    groth16::Proof<E> p{};
    cuda::GpuProveTimings t;
    const auto res = TypeParam::prove(pk, w, r, s, &p, &t, cuda::GpuProveOptions{});
    const bool fired = !pip::alloc_failure_pending(pip::AllocSite::kSort);
    pip::inject_alloc_failure(pip::AllocSite::kSort, -1);
    ASSERT_TRUE(res.ok()) << "failure at sort " << at << ": " << res.message;
    EXPECT_TRUE(fired) << "the injected failure at sort " << at << " never fired";
    EXPECT_TRUE(p == cpu) << "failure at sort " << at;
    EXPECT_EQ(t.msm_room_retries, 1) << "failure at sort " << at;
  }
  groth16::Proof<E> p{};
  cuda::GpuProveTimings t;
  ASSERT_TRUE(TypeParam::prove(pk, w, r, s, &p, &t, cuda::GpuProveOptions{}).ok());
  EXPECT_TRUE(p == cpu);
  EXPECT_EQ(t.msm_room_retries, 0);
}

// Over the key-cache budget, a key that the device holds beside a proof's scratch is proved
// alone (cuda/groth16/key_room.hpp: a 130M BLS12-381 PoRep key is over half an H200): the cache
// drops every other key for it and gives it no copies, and the proof is the CPU's. Refusals (a key
// over the device) are checked in key_room_test.cpp: no test key is that large.
TYPED_TEST(GpuGroth16, KeyOverBudgetIsProvedAlone) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto other = this->key("chain", 100);
  auto pk = this->key("chain", 300);
  auto w_other = groth16::synthesize_builtin<E>(other.meta, 1, 0);
  auto w = groth16::synthesize_builtin<E>(pk.meta, 2, 0);
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
  const uint64_t nvars = pk.meta.n_inputs + pk.meta.n_aux, n = uint64_t(1) << pk.meta.domain_log2;
  const uint64_t plain =
      (2 * nvars + pk.meta.n_aux + n) * 2 * sizeof(typename E::Fq) + nvars * 4 * sizeof(typename E::Fq);
  cuda::KeyCacheStats st{};
  ASSERT_TRUE(cuda::key_cache_stats(0, &st).ok());
  ASSERT_TRUE(cuda::set_key_cache_budget(0, 0).ok());  // empty cache
  ASSERT_TRUE(cuda::set_key_cache_budget(0, st.budget_bytes).ok());
  groth16::Proof<E> p{};
  cuda::GpuProveOptions o;
  o.key_id = "over-budget-other";
  ASSERT_TRUE(TypeParam::prove(other, w_other, r, s, &p, nullptr, o).ok());
  cuda::KeyCacheStats before{};
  ASSERT_TRUE(cuda::key_cache_stats(0, &before).ok());
  ASSERT_EQ(before.entries, 1u);
  ASSERT_LT(before.resident_bytes, plain);
  // A budget that holds the other key and not this one.
  ASSERT_TRUE(cuda::set_key_cache_budget(0, before.resident_bytes).ok());
  o.key_id = "over-budget-test";
  o.precompute = 64;  // asked for, and not given: copies stay within the budget
  const auto res = TypeParam::prove(pk, w, r, s, &p, nullptr, o);
  cuda::KeyCacheStats after{};
  EXPECT_TRUE(cuda::key_cache_stats(0, &after).ok());
  ASSERT_TRUE(cuda::set_key_cache_budget(0, st.budget_bytes).ok());
  ASSERT_TRUE(res.ok()) << res.message;
  EXPECT_TRUE(p == cpu);
  EXPECT_EQ(after.entries, 1u);
  EXPECT_EQ(after.resident_bytes, plain);
  EXPECT_GT(after.resident_bytes, after.budget_bytes);
}

TYPED_TEST(GpuGroth16, WrongBundlesAreErrorsNotProofs) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto pk = this->key("chain", 100);
  groth16::Proof<E> p{};
  // Shape: a bundle of another size.
  auto pk_big = this->key("chain", 300);
  auto w_big = groth16::synthesize_builtin<E>(pk_big.meta, 1, 0);
  auto res = TypeParam::prove(pk, w_big, Fr::one(), Fr::one(), &p);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  // Curve: the other curve's bundle for the same circuit.
  using Other = std::conditional_t<std::is_same_v<E, curves::Bn254>, curves::Bls12381, curves::Bn254>;
  std::mt19937_64 rng(5);
  auto pk_other = groth16::setup_builtin<Other>("chain", 100, groth16::ToxicWaste<typename Other::Fr>::random(rng));
  auto w_other = groth16::synthesize_builtin<Other>(pk_other.meta, 1, 0);
  res = TypeParam::prove(pk, w_other, Fr::one(), Fr::one(), &p);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  EXPECT_NE(res.message.find("curve"), std::string::npos) << res.message;
  // Unsatisfied: row 7 broken.
  auto w = groth16::synthesize_builtin<E>(pk.meta, 3, 0);
  auto broken = cs::WitnessBundle::parse(w.serialize());
  broken.template section_mut<Fr>(cs::Section::C)[7] += Fr::one();
  broken.seal();
  res = TypeParam::prove(pk, broken, Fr::one(), Fr::one(), &p);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  EXPECT_NE(res.message.find("row 7"), std::string::npos) << res.message;
  // Null output, bad device index.
  res = TypeParam::prove(pk, w, Fr::one(), Fr::one(), nullptr);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument);
  cuda::GpuProveOptions o;
  o.device = 99;
  res = TypeParam::prove(pk, w, Fr::one(), Fr::one(), &p, nullptr, o);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  // And the context still works afterwards.
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  EXPECT_TRUE(this->gpu(pk, w, r, s) == groth16::prove_with_randomness<E>(pk, w, r, s));
}

// Where H's kernels run (GpuHPlacement): beside A and B_G1 or beside B_G2 (and beside L when B_G2
// is on the CPU), the same proof as the CPU's for fixed r, s in both H bases; an unsatisfied
// bundle is still an error under either, and the context proves again afterwards.
TYPED_TEST(GpuGroth16, BothHPlacementsGiveTheCpuProof) {
  ZKMILL_REQUIRE_GPU();
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  using P = cuda::GpuHPlacement;
  for (const groth16::HBasis basis : {groth16::HBasis::kCosetLagrange, groth16::HBasis::kMonomial}) {
    auto pk = this->key("merkle", 2500, basis);
    groth16::PreparedVerifyingKey<E> pvk(pk.vk);
    auto w = groth16::synthesize_builtin<E>(pk.meta, 4, 1);
    const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
    const auto cpu = groth16::prove_with_randomness<E>(pk, w, r, s);
    auto broken = cs::WitnessBundle::parse(w.serialize());
    broken.template section_mut<Fr>(cs::Section::C)[11] += Fr::one();
    broken.seal();
    for (const P beside : {P::kBesideAB, P::kBesideG2}) {
      for (const bool g2_on_cpu : {false, true}) {
        cuda::GpuProveOptions o;
        o.h_beside = beside;
        o.g2_on_cpu = g2_on_cpu;
        const std::string what = std::string(groth16::h_basis_name(basis)) +
                                 (beside == P::kBesideG2 ? " beside B_G2" : " beside A, B_G1") +
                                 (g2_on_cpu ? ", G2 on the CPU" : "");
        groth16::Proof<E> p{};
        cuda::GpuProveTimings t;
        auto res = TypeParam::prove(pk, w, r, s, &p, &t, o);
        ASSERT_TRUE(res.ok()) << what << ": " << res.message;
        EXPECT_TRUE(p == cpu) << what;
        EXPECT_TRUE(pvk.verify(p, groth16::public_inputs<E>(w))) << what;
        // L and H run as one MSM except where L's MSM must hide H (beside "B_G2" on the CPU).
        EXPECT_EQ(t.lh_joined, cuda::lh_msm_joined() && !(beside == P::kBesideG2 && g2_on_cpu)) << what;
        res = TypeParam::prove(pk, broken, r, s, &p, nullptr, o);
        EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << what << ": " << res.message;
        EXPECT_NE(res.message.find("row 11"), std::string::npos) << what << ": " << res.message;
      }
    }
  }
}

// The environment knobs' parsers (prover.hpp); no device needed.
TEST(GpuProverKnobs, ParseTheEnvironment) {
  using P = cuda::GpuHPlacement;
  EXPECT_EQ(cuda::parse_h_beside_env(nullptr), P::kBesideG2);
  EXPECT_EQ(cuda::parse_h_beside_env(""), P::kBesideG2);
  EXPECT_EQ(cuda::parse_h_beside_env("ab"), P::kBesideAB);
  EXPECT_EQ(cuda::parse_h_beside_env("g2"), P::kBesideG2);
  EXPECT_THROW((void)cuda::parse_h_beside_env("G2"), std::invalid_argument);
  EXPECT_THROW((void)cuda::parse_h_beside_env("l"), std::invalid_argument);
  EXPECT_EQ(cuda::h_placement(P::kBesideG2), P::kBesideG2);
  EXPECT_EQ(cuda::h_placement(P::kBesideAB), P::kBesideAB);
  EXPECT_TRUE(cuda::parse_lh_msm_env(nullptr));
  EXPECT_TRUE(cuda::parse_lh_msm_env(""));
  EXPECT_TRUE(cuda::parse_lh_msm_env("joined"));
  EXPECT_FALSE(cuda::parse_lh_msm_env("apart"));
  for (const char* bad : {"Joined", "1", "0", "apart "})
    EXPECT_THROW((void)cuda::parse_lh_msm_env(bad), std::invalid_argument) << bad;
  EXPECT_EQ(cuda::parse_staging_threads_env(nullptr, 32), 16u);
  EXPECT_EQ(cuda::parse_staging_threads_env("", 6), 6u);
  EXPECT_EQ(cuda::parse_staging_threads_env(nullptr, 1), 1u);
  EXPECT_EQ(cuda::parse_staging_threads_env("16", 4), 16u);
  for (const char* bad : {"0", "65", "-4", " 4", "4x"})
    EXPECT_THROW((void)cuda::parse_staging_threads_env(bad, 8), std::invalid_argument) << bad;
  EXPECT_EQ(cuda::parse_staging_slot_mib_env(nullptr), 32u);
  EXPECT_EQ(cuda::parse_staging_slot_mib_env("64"), 64u);
  for (const char* bad : {"0", "1025", "8M"})
    EXPECT_THROW((void)cuda::parse_staging_slot_mib_env(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace zkmill::test
