// SPDX-License-Identifier: MIT
// The PCE mat-vec on the GPU (cuda/cs/pce_gpu.hpp, pce_spmv.cuh) and witness-only bundles
// proved with a, b, c computed on the device (GpuProveOptions::pce): the kernel equals
// PceMatrices::multiply on the CPU on random matrices and random assignments (every coefficient
// code, zeros, ones and whole values); a packed witness of chain, merkle and porep proved on
// the GPU gives the CPU prover's proof of the full bundle for the same r, s, and it verifies;
// the matrices stay resident in the key cache beside the key; a bundle packed for other
// matrices, or without the matrices, is an error, never a proof, and so is an unsatisfied
// witness (the first broken row reported).
#include "cuda/cs/pce_gpu.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/cs/pce_matrices.hpp"
#include "common/cs/recording_cs.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/thread_pool.hpp"
#include "cuda/groth16/prover.hpp"
#include "tests/support/gpu.hpp"

namespace zkmill::test {
namespace {

using namespace zkmill;

template <class E>
class GpuPce : public ::testing::Test {
 protected:
  using Fr = typename E::Fr;
  std::mt19937_64 rng{77};
  std::string temp(const std::string& leaf) const {
    return ::testing::TempDir() + "zkmill-gpu-pce-" + std::to_string(::getpid()) + "-" + leaf;
  }
  groth16::Proof<E> gpu(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const Fr& r, const Fr& s,
                        const cs::PceMatrices* pce, cuda::GpuProveTimings* t = nullptr,
                        cuda::GpuHPlacement beside = cuda::GpuHPlacement::kDefault) {
    cuda::GpuProveOptions o;
    o.pce = pce;
    o.h_beside = beside;
    groth16::Proof<E> p{};
    const cuda::GpuResult res = cuda::prove_gpu(pk, w, r, s, &p, t, o);
    EXPECT_TRUE(res.ok()) << cuda::to_string(res.code) << ": " << res.message;
    return p;
  }
};
using PceCurves = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(GpuPce, PceCurves);

TYPED_TEST(GpuPce, RandomMatricesEqualTheCpuMultiply) {
  ZKMILL_REQUIRE_GPU();
  using Fr = typename TestFixture::Fr;
  auto& rng = this->rng;
  for (int trial = 0; trial < 3; ++trial) {
    cs::RecordingCS<Fr> rec;
    std::vector<cs::Variable> vars{cs::Variable::one()};
    const int n_in = 1 + int(rng() % 4), n_aux = 300 + int(rng() % 3000);
    for (int i = 0; i < n_in; ++i) vars.push_back(rec.alloc_input("in", [] { return Fr::zero(); }));
    for (int i = 0; i < n_aux; ++i) vars.push_back(rec.alloc("x", [] { return Fr::zero(); }));
    // Every code: +1, -1, table entries (small, powers of two, negatives, random).
    const Fr coeffs[] = {Fr::one(),        -Fr::one(),      Fr::from_u64(2), Fr::from_u64(uint64_t(1) << 31),
                         -Fr::from_u64(3), Fr::random(rng), Fr::random(rng)};
    auto random_lc = [&] {
      cs::LinearCombination<Fr> lc;
      for (size_t t = 0, n = rng() % 9; t < n; ++t) lc += cs::term(coeffs[rng() % 7], vars[rng() % vars.size()]);
      return lc;
    };
    const int rows = 1000 + int(rng() % 20000);
    for (int row = 0; row < rows; ++row) rec.enforce("r", random_lc(), random_lc(), random_lc());
    const cs::R1CS<Fr> r = rec.finish();
    const cs::PceShape shape{cs::curve_of_scalar_field<Fr>(), "random", 0, r.n_inputs, r.n_aux, r.n_constraints};
    const auto pce = cs::PceMatrices::from_r1cs<Fr>(r, shape);
    // A PoRep-like assignment: mostly bits, some whole values; inputs[0] is ONE.
    std::vector<Fr> in(r.n_inputs), aux(r.n_aux);
    in[0] = Fr::one();
    for (size_t i = 1; i < in.size(); ++i) in[i] = Fr::random(rng);
    for (auto& x : aux) {
      const unsigned k = unsigned(rng() % 10);
      x = k < 4 ? Fr::zero() : k < 8 ? Fr::one() : Fr::random(rng);
    }
    const size_t n = pce.n_rows();
    std::vector<Fr> a(n), b(n), c(n), ga(n), gb(n), gc(n);
    util::ThreadPool pool(2);
    pce.template multiply<Fr>(in, aux, a, b, c, pool);
    const cuda::GpuResult res =
        cuda::pce_multiply_gpu<Fr>(pce, std::span<const Fr>(in), std::span<const Fr>(aux), ga, gb, gc);
    ASSERT_TRUE(res.ok()) << cuda::to_string(res.code) << ": " << res.message;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(ga[i] == a[i]) << "a[" << i << "] of " << n << ", trial " << trial;
      ASSERT_TRUE(gb[i] == b[i]) << "b[" << i << "] of " << n << ", trial " << trial;
      ASSERT_TRUE(gc[i] == c[i]) << "c[" << i << "] of " << n << ", trial " << trial;
    }
    // Wrong shapes are refused, not read past.
    std::vector<Fr> short_aux(aux.begin(), aux.end() - 1);
    EXPECT_EQ(cuda::pce_multiply_gpu<Fr>(pce, std::span<const Fr>(in), std::span<const Fr>(short_aux), ga, gb, gc).code,
              cuda::GpuErrc::kInvalidArgument);
  }
}

TYPED_TEST(GpuPce, PackedWitnessUnpacksOnTheDeviceAsOnTheHost) {
  ZKMILL_REQUIRE_GPU();
  using Fr = typename TestFixture::Fr;
  auto& rng = this->rng;
  // Share of whole values (the rest split between 0 and 1): none (all bits, no map), a few
  // (PoRep), half, all but one, all (no map: a copy); sizes around the 64-bit words and the
  // 256-thread blocks, and one of several map words' worth of elements.
  const double whole[] = {0.0, 0.01, 0.5, -1.0, 1.0};
  const size_t sizes[] = {1, 63, 64, 65, 255, 257, 4096 + 13, 200003};
  for (const double share : whole) {
    for (const size_t n_aux : sizes) {
      std::vector<Fr> aux(n_aux);
      std::uniform_real_distribution<double> u(0, 1);
      for (size_t j = 0; j < n_aux; ++j) {
        const bool is_whole = share < 0 ? j != n_aux / 2 : u(rng) < share;
        aux[j] = is_whole ? Fr::random(rng) : (rng() & 1) ? Fr::one() : Fr::zero();
      }
      cs::BundleHeader h{};
      h.curve = cs::curve_of_scalar_field<Fr>();
      h.n_inputs = 2;
      h.n_aux = n_aux;
      h.n_rows = 2;  // at least one row per input
      const std::vector<Fr> inputs{Fr::one(), Fr::random(rng)};
      const cs::CircuitId pce_id{};
      const auto w = cs::WitnessBundle::parse(
          cs::WitnessBundle::pack_witness<Fr>(h, pce_id, std::span<const Fr>(inputs), std::span<const Fr>(aux))
              .serialize());
      std::vector<Fr> host(n_aux), device(n_aux);
      w.template unpack_aux<Fr>(host);
      const cuda::GpuResult res = cuda::unpack_aux_gpu<Fr>(w, std::span<Fr>(device));
      ASSERT_TRUE(res.ok()) << cuda::to_string(res.code) << ": " << res.message;
      for (size_t j = 0; j < n_aux; ++j) {
        ASSERT_TRUE(host[j] == aux[j]) << "host unpack, aux " << j;
        ASSERT_TRUE(device[j] == aux[j]) << "aux " << j << " of " << n_aux << ", whole share " << share;
      }
      std::vector<Fr> short_out(n_aux + 1);
      EXPECT_EQ(cuda::unpack_aux_gpu<Fr>(w, std::span<Fr>(short_out)).code, cuda::GpuErrc::kInvalidArgument);
    }
  }
}

TYPED_TEST(GpuPce, WitnessOnlyBundlesGiveTheCpuProofAndTheMatricesStayResident) {
  ZKMILL_REQUIRE_GPU();
  using E = TypeParam;
  using Fr = typename TestFixture::Fr;
  auto& rng = this->rng;
  for (const char* circuit : {"chain", "merkle", "porep"}) {
    auto pk = groth16::setup_builtin<E>(circuit, 3000, groth16::ToxicWaste<Fr>::random(rng));
    groth16::PreparedVerifyingKey<E> pvk(pk.vk);
    const std::string path = this->temp(std::string(circuit) + "-" + E::kName + ".pce");
    std::filesystem::remove(path);
    const cs::PceMatrices pce = groth16::load_or_build_pce<E>(path, pk.meta);
    cuda::KeyCacheStats before{}, after{};
    ASSERT_TRUE(cuda::key_cache_stats(0, &before).ok());
    for (uint64_t part : {0, 3}) {
      const auto full = groth16::synthesize_builtin<E>(pk.meta, 13, part);
      const auto packed =
          cs::WitnessBundle::parse(cs::WitnessBundle::pack_witness<Fr>(
                                       full.header(), pce.id(), full.template inputs<Fr>(), full.template aux<Fr>())
                                       .serialize());
      ASSERT_EQ(packed.kind(), cs::BundleKind::Witness);
      const Fr r = Fr::random(rng), s = Fr::random(rng);
      cuda::GpuProveTimings t;
      // H's kernels beside A and B_G1 for one partition, beside B_G2 for the other (GpuHPlacement).
      const auto beside = part == 0 ? cuda::GpuHPlacement::kBesideAB : cuda::GpuHPlacement::kBesideG2;
      const auto gpu = this->gpu(pk, packed, r, s, &pce, &t, beside);
      EXPECT_TRUE(gpu == groth16::prove_with_randomness<E>(pk, full, r, s)) << circuit << " partition " << part;
      EXPECT_TRUE(pvk.verify(gpu, groth16::public_inputs<E>(full))) << circuit << " partition " << part;
      if (part == 3) {
        EXPECT_TRUE(t.key_cache_hit) << circuit;
        EXPECT_EQ(t.pce_upload_ms, 0.0) << circuit << ": the matrices were uploaded again";
      }
    }
    ASSERT_TRUE(cuda::key_cache_stats(0, &after).ok());
    EXPECT_EQ(after.uploads, before.uploads + 2) << circuit << ": the key and the matrices, once each";
    EXPECT_GE(after.resident_bytes, before.resident_bytes + pce.nnz() * 8) << circuit;
    std::filesystem::remove(path);
  }
}

TYPED_TEST(GpuPce, MismatchedOrMissingMatricesAreErrorsNotProofs) {
  ZKMILL_REQUIRE_GPU();
  using E = TypeParam;
  using Fr = typename TestFixture::Fr;
  auto& rng = this->rng;
  auto pk = groth16::setup_builtin<E>("chain", 500, groth16::ToxicWaste<Fr>::random(rng));
  auto other = groth16::setup_builtin<E>("chain", 900, groth16::ToxicWaste<Fr>::random(rng));
  const std::string p1 = this->temp("mismatch-a.pce"), p2 = this->temp("mismatch-b.pce");
  std::filesystem::remove(p1);
  std::filesystem::remove(p2);
  const cs::PceMatrices pce = groth16::load_or_build_pce<E>(p1, pk.meta);
  const cs::PceMatrices other_pce = groth16::load_or_build_pce<E>(p2, other.meta);
  const auto full = groth16::synthesize_builtin<E>(pk.meta, 2, 0);
  const auto packed =
      cs::WitnessBundle::pack_witness<Fr>(full.header(), pce.id(), full.template inputs<Fr>(), full.template aux<Fr>());
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  groth16::Proof<E> out{};
  cuda::GpuProveOptions o;
  auto res = cuda::prove_gpu(pk, packed, r, s, &out, nullptr, o);  // no matrices
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  o.pce = &other_pce;  // packed for other matrices
  res = cuda::prove_gpu(pk, packed, r, s, &out, nullptr, o);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  EXPECT_NE(res.message.find("PCE"), std::string::npos) << res.message;
  // Unsatisfied: one aux value changed. a, b, c come from the matrices on the device and the
  // row check runs on the prover's H stream: the first broken row (found here on the CPU) must
  // come back as the error, and the context must prove again afterwards.
  std::vector<Fr> aux(full.template aux<Fr>().begin(), full.template aux<Fr>().end());
  aux[aux.size() / 2] += Fr::one();
  const auto broken = cs::WitnessBundle::pack_witness<Fr>(full.header(), pce.id(), full.template inputs<Fr>(), aux);
  const uint64_t rows = pce.n_rows();
  std::vector<Fr> a(rows), b(rows), c(rows);
  pce.multiply<Fr>(full.template inputs<Fr>(), aux, a, b, c, util::ThreadPool::global());
  uint64_t first_bad = 0;
  while (first_bad < rows && a[first_bad] * b[first_bad] == c[first_bad]) ++first_bad;
  ASSERT_LT(first_bad, rows) << "changing an aux value broke no row";
  o.pce = &pce;
  res = cuda::prove_gpu(pk, broken, r, s, &out, nullptr, o);
  EXPECT_EQ(res.code, cuda::GpuErrc::kInvalidArgument) << res.message;
  EXPECT_NE(res.message.find("row " + std::to_string(first_bad) + " "), std::string::npos) << res.message;
  res = cuda::prove_gpu(pk, packed, r, s, &out, nullptr, o);
  EXPECT_TRUE(res.ok()) << res.message;
  EXPECT_TRUE(out == groth16::prove_with_randomness<E>(pk, full, r, s));
  std::filesystem::remove(p1);
  std::filesystem::remove(p2);
}

}  // namespace
}  // namespace zkmill::test
