// SPDX-License-Identifier: MIT
// PCE through the built-in circuits' glue (groth16/builtin.hpp), as a synth worker uses it:
// the bundle is byte-identical to plain synthesis (inputs, aux, a, b, c, density maps, header,
// checksums), so the proof for fixed r, s is too; load_or_build_pce records a missing file,
// uses an intact one as it is, and replaces a bad one (never using it).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "common/cs/witness_expand.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::groth16;

namespace {

std::string temp_pce(const std::string& leaf) {
  auto dir = std::filesystem::temp_directory_path() / ("zkmill-pce-g16-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / leaf).string();
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

template <class E>
class PceBuiltin : public ::testing::Test {
 protected:
  using Fr = typename E::Fr;
  std::mt19937_64 rng{31};
  util::ThreadPool pool{2};
};
using Curves = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(PceBuiltin, Curves);

TYPED_TEST(PceBuiltin, BundleAndProofEqualPlainSynthesis) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  for (std::string_view name : circuits::circuit_names()) {
    std::vector<uint8_t> from_setup;
    auto pk = setup_builtin<E>(std::string(name), 2000, ToxicWaste<Fr>::random(this->rng), this->pool,
                               HBasis::kCosetLagrange, &from_setup);
    const std::string path = temp_pce(std::string(name) + "-" + E::kName + ".pce");
    std::filesystem::remove(path);
    std::string why;
    std::vector<std::string> told;  // what the worker would log before recording
    const auto tell = [&](const std::string& reason) { told.push_back(reason); };
    const cs::PceMatrices pce = load_or_build_pce<E>(path, pk.meta, &why, tell);
    EXPECT_NE(why.find("cannot open"), std::string::npos) << why;  // it was missing, so it was recorded
    ASSERT_EQ(told.size(), 1u);
    EXPECT_NE(told[0].find("cannot open"), std::string::npos) << told[0];
    // `zkmill setup` writes the same bytes from its own recording (KEY.pce beside a new key).
    EXPECT_TRUE(read_all(path) == from_setup) << name;
    const cs::CircuitId id{{7, 7, 7}};
    for (uint64_t part : {0, 4}) {
      const cs::WitnessBundle plain = synthesize_builtin<E>(pk.meta, 5, part, id);
      const cs::WitnessBundle fast = synthesize_builtin_pce<E>(pce, pk.meta, 5, part, id, this->pool);
      ASSERT_TRUE(std::ranges::equal(plain.bytes(), fast.bytes())) << name << " partition " << part;
      // The witness-only bundle a synth worker ships: the witness pass alone gives the packing
      // of the full bundle's witness, byte for byte, and expands back to the full bundle.
      const cs::WitnessBundle packed = synthesize_builtin_witness<E>(pce, pk.meta, 5, part, id);
      const cs::WitnessBundle repacked =
          cs::WitnessBundle::pack_witness<Fr>(plain.header(), pce.id(), plain.inputs<Fr>(), plain.aux<Fr>());
      ASSERT_EQ(packed.kind(), cs::BundleKind::Witness);
      ASSERT_TRUE(std::ranges::equal(packed.bytes(), repacked.bytes())) << name << " partition " << part;
      ASSERT_TRUE(std::ranges::equal(cs::expand_witness<Fr>(packed, pce, this->pool).bytes(), plain.bytes()))
          << name << " partition " << part;
      const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
      const Proof<E> p1 = prove_with_randomness<E>(pk, plain, r, s, this->pool);
      const Proof<E> p2 = prove_with_randomness<E>(pk, fast, r, s, this->pool);
      EXPECT_TRUE(p1 == p2);
      EXPECT_TRUE(PreparedVerifyingKey<E>(pk.vk).verify(p2, public_inputs<E>(fast)));
    }
    // The second time the file is used as it is, and nothing is recorded.
    (void)load_or_build_pce<E>(path, pk.meta, &why, tell);
    EXPECT_EQ(why, "");
    EXPECT_EQ(told.size(), 1u);
  }
}

// Matrices load_or_build_pce has just recorded are used as encoded: mapped from the file just
// written (or held in memory), not read back and checked again (at the 130M PoRep size that
// re-read and checksummed 8.7 GiB), and bit for bit what a later load of the file gives, which
// accepts that file in full. Files found in place are still checked in full (a later load here;
// BadFileIsRebuiltNeverUsed for the refusals).
TYPED_TEST(PceBuiltin, MatricesJustWrittenAreUsedAsWrittenNotCheckedAgain) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  auto pk = setup_builtin<E>("porep", 3000, ToxicWaste<Fr>::random(this->rng), this->pool);
  const cs::PceShape shape = pce_shape<E>(pk.meta);
  const std::vector<uint8_t> recorded = record_pce_image<E>(pk.meta, this->pool);
  auto same = [](const cs::PceMatrices& x, const cs::PceMatrices& y) {
    if (!std::ranges::equal(x.image(), y.image()) || x.id() != y.id() || !(x.shape() == y.shape())) return false;
    for (size_t m = 0; m < 3; ++m) {
      const auto a = x.csr(m), b = y.csr(m);
      if (!std::ranges::equal(a.row_ptr, b.row_ptr) || !std::ranges::equal(a.cols, b.cols) ||
          !std::ranges::equal(a.codes, b.codes) || !std::ranges::equal(x.density(m), y.density(m)))
        return false;
    }
    return std::ranges::equal(x.coefficients<Fr>(), y.coefficients<Fr>());
  };

  const std::string blocker = temp_pce(std::string("fresh-not-a-dir-") + E::kName);
  std::ofstream(blocker) << "a file where the key directory would be";
  const std::string cache = temp_pce(std::string("fresh-cache-") + E::kName);
  std::filesystem::remove_all(cache);
  struct Case {
    const char* what;
    std::string path, fallback, want_used;
  };
  const std::string key_pce = temp_pce(std::string("fresh-") + E::kName + ".pce");
  std::filesystem::remove(key_pce);
  const Case cases[] = {
      {"beside the key", key_pce, "", key_pce},
      {"in the fallback", blocker + "/porep.key.pce", cache + "/pce/0123.pce", cache + "/pce/0123.pce"},
      {"in memory", blocker + "/porep.key.pce", blocker + "/cache/pce/0123.pce", ""},
  };
  for (const Case& c : cases) {
    std::string why, used = "unset";
    const uint64_t checks = cs::PceMatrices::full_checks();
    const cs::PceMatrices fresh = load_or_build_pce<E>(c.path, pk.meta, &why, {}, c.fallback, &used, this->pool);
    // The opens of the missing files fail before any check, and the recording is not checked.
    EXPECT_EQ(cs::PceMatrices::full_checks(), checks) << c.what << ": the image just recorded was checked again";
    EXPECT_NE(why.find("rebuilt"), std::string::npos) << c.what << ": " << why;
    ASSERT_EQ(used, c.want_used) << c.what;
    EXPECT_TRUE(std::ranges::equal(fresh.image(), recorded)) << c.what;
    if (used.empty()) continue;
    EXPECT_EQ(read_all(used), recorded) << c.what;
    const cs::PceMatrices later = cs::PceMatrices::open(used, shape);  // a file found in place: in full
    EXPECT_EQ(cs::PceMatrices::full_checks(), checks + 1) << c.what;
    EXPECT_TRUE(same(fresh, later)) << c.what;
    (void)load_or_build_pce<E>(c.path, pk.meta, &why, {}, c.fallback, &used, this->pool);
    EXPECT_EQ(why.find("rebuilt"), std::string::npos) << c.what << ": the file written was refused: " << why;
    const cs::WitnessBundle want = synthesize_builtin<E>(pk.meta, 3, 1);
    EXPECT_TRUE(
        std::ranges::equal(synthesize_builtin_pce<E>(fresh, pk.meta, 3, 1, {}, this->pool).bytes(), want.bytes()))
        << c.what;
  }
  std::filesystem::remove(key_pce);
  std::filesystem::remove(blocker);
  std::filesystem::remove_all(cache);
}

// Workers of one process (an embedded farm: `zkmill demo`, bench-farm) may record the same
// file at once: each gets intact matrices, the file in place is intact, no temporary is left.
TYPED_TEST(PceBuiltin, WritersOfOneProcessRecordingAtOnceLeaveAnIntactFile) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  auto pk = setup_builtin<E>("porep", 3000, ToxicWaste<Fr>::random(this->rng), this->pool);
  const std::string path = temp_pce(std::string("race-") + E::kName + ".pce");
  const auto dir = std::filesystem::path(path).parent_path();
  for (int round = 0; round < 3; ++round) {
    std::filesystem::remove(path);
    std::vector<cs::CircuitId> ids(6);
    std::vector<std::thread> writers;
    for (auto& id : ids) writers.emplace_back([&] { id = load_or_build_pce<E>(path, pk.meta).id(); });
    for (auto& w : writers) w.join();
    std::string why = "unset";
    const cs::PceMatrices on_disk = load_or_build_pce<E>(path, pk.meta, &why);
    EXPECT_EQ(why, "") << "round " << round << ": the file in place was refused";
    for (const auto& id : ids) EXPECT_EQ(id, on_disk.id());
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      EXPECT_EQ(entry.path().filename().string().find("zkmill-tmp"), std::string::npos) << entry.path();
  }
  std::filesystem::remove(path);
}

// Writers replacing the file while readers of the same process map it and read every page
// (an embedded farm's workers; bench-farm with 8 workers died of SIGBUS on the H200 host). With
// a temporary named by the pid alone and opened with O_TRUNC, one writer's open could truncate
// the inode another had just renamed into place and a reader had mapped: the reader's next
// page past the new end raised SIGBUS (a standalone reproduction of that pattern did within
// 10 s, three runs of three). With a unique temporary per writer the file in place is always
// whole: every open succeeds.
TYPED_TEST(PceBuiltin, FileReplacedWhileReadersOfTheSameProcessMapIt) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  auto pk = setup_builtin<E>("porep", 3000, ToxicWaste<Fr>::random(this->rng), this->pool);
  const std::string path = temp_pce(std::string("replaced-") + E::kName + ".pce");
  const std::vector<uint8_t> image = record_pce_image<E>(pk.meta);
  const cs::PceShape shape = pce_shape<E>(pk.meta);
  cs::PceMatrices::write_file(path, image);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> written{0}, write_failed{0}, opened{0}, refused{0};
  std::string first_refusal, first_write_failure;
  std::mutex mu;
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&] {
      while (!stop.load()) {
        try {
          cs::PceMatrices::write_file(path, image);
          ++written;
        } catch (const cs::PceError& e) {  // (a shared temporary: renamed away by another writer)
          std::lock_guard lock(mu);
          if (!write_failed++) first_write_failure = e.what();
        }
      }
    });
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&] {
      while (!stop.load()) {
        try {
          const auto m = cs::PceMatrices::open(path, shape);  // checksums every page of the mapping
          ++opened;
        } catch (const cs::PceError& e) {
          std::lock_guard lock(mu);
          if (!refused++) first_refusal = e.what();
        }
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  stop.store(true);
  for (auto& t : threads) t.join();
  EXPECT_GT(written.load(), 10u);
  EXPECT_EQ(write_failed.load(), 0u) << first_write_failure;
  EXPECT_GT(opened.load(), 10u);
  EXPECT_EQ(refused.load(), 0u) << first_refusal;
  std::filesystem::remove(path);
}

TYPED_TEST(PceBuiltin, BadFileIsRebuiltNeverUsed) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  auto pk = setup_builtin<E>("chain", 900, ToxicWaste<Fr>::random(this->rng), this->pool);
  auto other = setup_builtin<E>("chain", 1200, ToxicWaste<Fr>::random(this->rng), this->pool);
  const std::string path = temp_pce(std::string("bad-") + E::kName + ".pce");
  std::filesystem::remove(path);
  (void)load_or_build_pce<E>(path, pk.meta);
  const std::vector<uint8_t> good = read_all(path);
  ASSERT_GT(good.size(), cs::PceHeader::kSize);
  const cs::WitnessBundle want = synthesize_builtin<E>(pk.meta, 3, 1);

  struct Case {
    const char* what;
    std::function<void()> damage;
  };
  auto write = [&](const std::vector<uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  };
  const Case cases[] = {
      {"truncated",
       [&] {
         write({good.begin(), good.begin() + ptrdiff_t(good.size() / 3)});
       }},
      {"corrupted",
       [&] {
         auto b = good;
         b[b.size() - 100] ^= 0x40;
         write(b);
       }},
      {"PCE version",
       [&] {
         auto b = good;
         b[8] = 9;
         write(b);
       }},
      {"recorded for", [&] { (void)load_or_build_pce<E>(path, other.meta); }},  // another circuit's file in place
  };
  for (const Case& c : cases) {
    c.damage();
    std::string why;
    const cs::PceMatrices m = load_or_build_pce<E>(path, pk.meta, &why);
    EXPECT_NE(why.find(c.what), std::string::npos) << c.what << ": " << why;
    EXPECT_NE(why.find("rebuilt"), std::string::npos) << why;
    EXPECT_EQ(read_all(path), good) << c.what << ": the file was not replaced by a good one";
    EXPECT_TRUE(std::ranges::equal(synthesize_builtin_pce<E>(m, pk.meta, 3, 1, {}, this->pool).bytes(), want.bytes()))
        << c.what;
  }
  // Matrices of another shape are refused by the synthesis itself.
  const cs::PceMatrices wrong = load_or_build_pce<E>(temp_pce(std::string("other-") + E::kName + ".pce"), other.meta);
  EXPECT_THROW((void)synthesize_builtin_pce<E>(wrong, pk.meta, 3, 1), cs::PceError);
}

// A key directory that cannot take KEY.pce (read-only under systemd; here the key "directory"
// is a regular file, since root writes anywhere): the matrices go to the fallback (the
// worker's cache directory, created as needed) and are opened from there afterwards, never
// recorded again; a damaged fallback is rebuilt; with no writable place they stay in memory.
TYPED_TEST(PceBuiltin, AKeyDirectoryThatTakesNoFileUsesTheFallback) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  auto pk = setup_builtin<E>("chain", 900, ToxicWaste<Fr>::random(this->rng), this->pool);
  const std::string blocker = temp_pce(std::string("not-a-dir-") + E::kName);
  std::ofstream(blocker) << "a file where the key directory would be";
  const std::string path = blocker + "/chain.key.pce";
  const std::string cache = temp_pce(std::string("cache-") + E::kName);
  std::filesystem::remove_all(cache);
  const std::string fallback = cache + "/pce/0123.pce";
  std::vector<std::string> told;
  const auto tell = [&](const std::string& reason) { told.push_back(reason); };
  const cs::WitnessBundle want = synthesize_builtin<E>(pk.meta, 3, 1);
  auto same_bundle = [&](const cs::PceMatrices& m) {
    return std::ranges::equal(synthesize_builtin_pce<E>(m, pk.meta, 3, 1, {}, this->pool).bytes(), want.bytes());
  };

  std::string why, used;
  EXPECT_TRUE(same_bundle(load_or_build_pce<E>(path, pk.meta, &why, tell, fallback, &used)));
  EXPECT_EQ(told.size(), 1u);
  EXPECT_EQ(used, fallback);
  EXPECT_NE(why.find("rebuilt in " + fallback), std::string::npos) << why;
  ASSERT_TRUE(std::filesystem::is_regular_file(fallback));
  const std::vector<uint8_t> good = read_all(fallback);

  EXPECT_TRUE(same_bundle(load_or_build_pce<E>(path, pk.meta, &why, tell, fallback, &used)));
  EXPECT_EQ(told.size(), 1u) << "recorded again although the fallback was intact";
  EXPECT_EQ(used, fallback);
  EXPECT_NE(why.find(fallback + " used"), std::string::npos) << why;

  {
    auto b = good;
    b[b.size() - 100] ^= 0x40;
    std::ofstream(fallback, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  }
  EXPECT_TRUE(same_bundle(load_or_build_pce<E>(path, pk.meta, &why, tell, fallback, &used)));
  EXPECT_EQ(told.size(), 2u) << "a damaged fallback must be recorded again, never used";
  EXPECT_EQ(read_all(fallback), good);

  // Neither place writable (the fallback's directory is a file too): kept in memory.
  const std::string nowhere = blocker + "/cache/pce/0123.pce";
  EXPECT_TRUE(same_bundle(load_or_build_pce<E>(path, pk.meta, &why, tell, nowhere, &used)));
  EXPECT_EQ(used, "");
  EXPECT_NE(why.find("rebuilt in memory"), std::string::npos) << why;
  std::filesystem::remove(blocker);
  std::filesystem::remove_all(cache);
}

// The bit-aware MSMs (zeros skipped, +-1 summed apart from the windows) leave the proof as it
// was: the one prover body (prove_with_view) gives the same proof for fixed r, s as one
// assembled from plain Pippenger sums (no 0/1 split) over the same key, on a witness that is
// 95% bits (the MSMs do not need it to satisfy the circuit; the H scalars are random here).
TYPED_TEST(PceBuiltin, BitAwareMsmsLeaveTheProofUnchanged) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  using G1P = typename E::G1Params;
  using G2P = typename E::G2Params;
  auto pk = setup_builtin<E>("chain", 3000, ToxicWaste<Fr>::random(this->rng), this->pool);
  const cs::WitnessBundle real = synthesize_builtin<E>(pk.meta, 8, 2);
  cs::BundleHeader h;
  h.curve = E::kId;
  h.n_inputs = real.n_inputs();
  h.n_aux = real.n_aux();
  h.n_rows = real.n_rows();
  cs::WitnessBundle w = cs::WitnessBundle::allocate(h);
  std::ranges::copy(real.inputs<Fr>(), w.section_mut<Fr>(cs::Section::Inputs).begin());
  for (Fr& x : w.section_mut<Fr>(cs::Section::Aux)) {
    const auto u = this->rng() % 40;
    x = u < 2 ? Fr::random(this->rng) : u < 21 ? Fr::zero() : Fr::one();
  }
  w.seal();
  const auto in = w.inputs<Fr>();
  const auto aux = w.aux<Fr>();
  const size_t n = size_t(1) << pk.meta.domain_log2;
  std::vector<Fr> hs(n - 1);
  for (Fr& x : hs) x = Fr::random(this->rng);

  msm::MsmConfig plain;
  plain.small_scalar_fast_path = false;
  auto z_sum = [&](auto bases, auto tag) {
    using P = decltype(tag);
    return msm::msm<P>(bases.first(in.size()), in, plain, this->pool) +
           msm::msm<P>(bases.subspan(in.size()), aux, plain, this->pool);
  };
  const MsmSums<E> sums{z_sum(pk.a, G1P{}), z_sum(pk.b_g1, G1P{}), z_sum(pk.b_g2, G2P{}),
                        msm::msm<G1P>(pk.l, aux, plain, this->pool),
                        msm::msm<G1P>(pk.h.first(n - 1), std::span<const Fr>(hs), plain, this->pool)};
  const Fr r = Fr::random(this->rng), s = Fr::random(this->rng);
  const KeyView<E> key{&pk.vk, pk.a, pk.b_g1, pk.l, pk.h, pk.b_g2};
  ProveTimings t;
  const Proof<E> got = prove_with_view<E>(
      key, w, [&](util::ThreadPool&) { return hs; }, r, s, this->pool, &t, std::chrono::steady_clock::now());
  EXPECT_TRUE(assemble_proof<E>(pk.vk, sums, r, s) == got);
  EXPECT_GT(t.total_ms, 0);
}

}  // namespace zkmill::test
