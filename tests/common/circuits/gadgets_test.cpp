// SPDX-License-Identifier: MIT
// The hash gadgets against independent references: SHA-256 against FIPS 180-4's examples
// and node's crypto (tests/vectors/hash_vectors.json), the gadget against the native hash on
// random messages of 0..1000 bytes; Poseidon against circomlibjs (same JSON) and a circom
// witness; every one-bit operation exhaustively over constant / variable / negated operands;
// Merkle paths against natively computed roots; and tampering named by the checking CS.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "common/circuits/gadgets/boolean.hpp"
#include "common/circuits/gadgets/merkle_path.hpp"
#include "common/circuits/gadgets/poseidon.hpp"
#include "common/circuits/gadgets/sha256.hpp"
#include "common/circuits/gadgets/uint32.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "common/formats/circom_files.hpp"
#include "tests/support/fixtures.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::circuits;
using json = nlohmann::json;
using cs::CheckingCS;

namespace {

json hash_vectors() {
  std::ifstream in(std::string(ZKMILL_SOURCE_DIR) + "/tests/vectors/hash_vectors.json");
  return json::parse(in);
}
std::vector<uint8_t> unhex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) out.push_back(uint8_t(std::stoi(s.substr(i, 2), nullptr, 16)));
  return out;
}
std::string hex(std::span<const uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) s += {d[x >> 4], d[x & 15]};
  return s;
}
std::span<const uint8_t> bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

}  // namespace

template <class F>
class Gadgets : public ::testing::Test {};
using Fields = ::testing::Types<ff::Bn254Fr, ff::Bls12381Fr>;
TYPED_TEST_SUITE(Gadgets, Fields);

TEST(Sha256Native, DerivedConstantsAndFipsExamples) {
  // FIPS 180-4 section 4.2.2 / 5.3.3, first and last entries.
  EXPECT_EQ(sha256::kK[0], 0x428a2f98u);
  EXPECT_EQ(sha256::kK[63], 0xc67178f2u);
  EXPECT_EQ(sha256::kIV[0], 0x6a09e667u);
  EXPECT_EQ(sha256::kIV[7], 0x5be0cd19u);
  // The examples of FIPS 180-2 appendix B (one block, two blocks) and the empty message.
  EXPECT_EQ(hex(sha256::hash(bytes("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256::hash(bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256::hash(bytes(""))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Native, MatchesNodeCrypto) {
  const json v = hash_vectors();
  ASSERT_GE(v["sha256"].size(), 20u);
  for (const json& c : v["sha256"]) {
    const std::vector<uint8_t> msg = unhex(c["message"]);
    EXPECT_EQ(hex(sha256::hash(msg)), c["digest"].get<std::string>()) << msg.size() << " bytes";
  }
}

TYPED_TEST(Gadgets, BitOperationsOverEveryOperandKind) {
  using F = TypeParam;
  using B = Bit<F>;
  // Each operand: constant, allocated variable, or the negation of one; for each value.
  auto make = [](CheckingCS<F>& cs, int kind, bool v) {
    if (kind == 0) return B::constant(v);
    if (kind == 1) return B::alloc(cs, "x", v);
    return !B::alloc(cs, "x", !v);
  };
  for (int mask = 0; mask < 8; ++mask)
    for (int ka = 0; ka < 3; ++ka)
      for (int kb = 0; kb < 3; ++kb)
        for (int kc = 0; kc < 3; ++kc) {
          const bool a = mask & 1, b = mask & 2, c = mask & 4;
          CheckingCS<F> cs;
          const B x = make(cs, ka, a), y = make(cs, kb, b), z = make(cs, kc, c);
          const uint64_t before = cs.num_constraints();
          const B r[6] = {B::xor_(cs, "xor", x, y),   B::and_(cs, "and", x, y),     B::ch(cs, "ch", x, y, z),
                          B::maj(cs, "maj", x, y, z), B::xor3(cs, "xor3", x, y, z), !x};
          const bool want[6] = {a != b, a && b, a ? b : c, (a && b) || (a && c) || (b && c), (a != b) != c, !a};
          for (int k = 0; k < 6; ++k) {
            ASSERT_EQ(r[k].value(), want[k]) << "op " << k << " kinds " << ka << kb << kc << " values " << mask;
            // The LC evaluates to the value too (the CS checks it through an equality).
            B::enforce_equal(cs, "check", r[k], B::constant(want[k]));
          }
          ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
          if (ka && kb && kc) {
            EXPECT_EQ(cs.num_constraints() - before, 1u + 1 + 1 + 2 + 2 + 6) << "costs";
          }
        }
  // A wrong maj output is caught (and named).
  CheckingCS<F> cs;
  const B a = B::alloc(cs, "a", true), b = B::alloc(cs, "b", false), c = B::alloc(cs, "c", true);
  cs.tamper_aux(4);  // maj's output variable (after a, b, c and the b*c product)
  cs::Namespace<F> ns(cs, "gadget");
  B::maj(cs, "maj", a, b, c);
  EXPECT_EQ(cs.which_is_unsatisfied().value_or(""), "gadget/maj");
}

TYPED_TEST(Gadgets, WordOperationsAndPackedAddition) {
  using F = TypeParam;
  using W = UInt32<F>;
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 20; ++iter) {
    CheckingCS<F> cs;
    const uint32_t x = uint32_t(rng()), y = uint32_t(rng()), z = uint32_t(rng()), k = uint32_t(rng());
    const W a = W::alloc(cs, "a", x), b = W::alloc(cs, "b", y), c = W::alloc(cs, "c", z);
    EXPECT_EQ(a.rotr(iter).value(), std::rotr(x, iter));
    EXPECT_EQ(a.shr(iter).value(), x >> iter);
    EXPECT_EQ(W::xor_(cs, "xor", a, b).value(), x ^ y);
    EXPECT_EQ(W::and_(cs, "and", a, b).value(), x & y);
    EXPECT_EQ((~a).value(), ~x);
    EXPECT_EQ(W::ch(cs, "ch", a, b, c).value(), (x & y) ^ (~x & z));
    EXPECT_EQ(W::maj(cs, "maj", a, b, c).value(), (x & y) ^ (x & z) ^ (y & z));
    const uint64_t before = cs.num_constraints();
    const W ops[5] = {a, b, W::constant(k), c.rotr(5), W::constant(0xffffffffu)};
    const W s = W::addmany(cs, "add", ops);
    EXPECT_EQ(s.value(), uint32_t(x + y + k + std::rotr(z, 5) + 0xffffffffu));
    // 3 variable operands plus a folded constant: at most 3 * (2^32 - 1) + 2^32 < 2^34.
    EXPECT_EQ(cs.num_constraints() - before, 34u + 1);
    // Rotations and shifts are free.
    const uint64_t n = cs.num_constraints();
    (void)a.rotr(3).shr(4);
    EXPECT_EQ(cs.num_constraints(), n);
    ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  }
}

TYPED_TEST(Gadgets, BitDecompositionIsARangeCheck) {
  using F = TypeParam;
  CheckingCS<F> cs;
  const F x = F::from_u64(0xdeadbeefcafeull);
  const Num<F> num = Num<F>::alloc(cs, "x", x);
  const auto bits = to_bits_le(cs, "decompose", num, 48);
  uint64_t back = 0;
  for (size_t i = 0; i < bits.size(); ++i) back |= uint64_t(bits[i].value()) << i;
  EXPECT_EQ(back, 0xdeadbeefcafeull);
  EXPECT_TRUE(cs.is_satisfied());
  CheckingCS<F> bad;
  const Num<F> big = Num<F>::alloc(bad, "x", F::from_u64(uint64_t(1) << 50));  // does not fit 48 bits
  to_bits_le(bad, "decompose", big, 48);
  EXPECT_EQ(bad.which_is_unsatisfied().value_or(""), "decompose/pack");
}

TYPED_TEST(Gadgets, Sha256GadgetEqualsNativeOnRandomMessages) {
  using F = TypeParam;
  std::mt19937_64 rng(1234);
  std::vector<size_t> lengths = {0, 1, 55, 56, 64, 119};
  if (std::is_same_v<F, ff::Bn254Fr>)  // the long ones once: they are the same code on both fields
    for (size_t len : {200, 447, 640, 1000}) lengths.push_back(len);
  for (int i = 0; i < 3; ++i) lengths.push_back(size_t(rng() % 1001));
  for (size_t len : lengths) {
    std::vector<uint8_t> msg(len);
    for (uint8_t& b : msg) b = uint8_t(rng());
    CheckingCS<F> cs;
    const auto bits = sha256::alloc_bytes<F>(cs, "message", msg);
    const auto digest = sha256::hash<F>(cs, bits);
    ASSERT_TRUE(cs.is_satisfied()) << len << ": " << cs.which_is_unsatisfied().value_or("");
    EXPECT_EQ(hex(sha256::bytes_of<F>(digest)), hex(sha256::hash(msg))) << len << " bytes";
  }
}

TYPED_TEST(Gadgets, Sha256CompressionCostAndTamper) {
  using F = TypeParam;
  std::mt19937_64 rng(99);
  uint8_t block[64];
  for (uint8_t& b : block) b = uint8_t(rng());
  sha256::State native = sha256::kIV;
  CheckingCS<F> cs;
  std::array<UInt32<F>, 8> state;
  for (size_t i = 0; i < 8; ++i) state[i] = UInt32<F>::alloc(cs, "state", native[i]);
  const auto bits = sha256::alloc_bytes<F>(cs, "block", block);
  const uint64_t before = cs.num_constraints();
  const auto out = sha256::compress<F>(cs, state, bits);
  // 48 x 150 (schedule) + 64 x 296 (rounds) + 8 x 34 (final adds): see sha256.hpp.
  EXPECT_EQ(cs.num_constraints() - before, 26416u);
  sha256::compress(native, block);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(out[i].value(), native[i]);
  ASSERT_TRUE(cs.is_satisfied());

  // A flipped message bit in the witness breaks its booleanity-preserving uses: aux 256 is
  // the first message bit (after the 256 state bits); 0 -> 1 stays boolean, so tamper a
  // value the schedule recomputes: the first sigma0 xor output of schedule word 16.
  CheckingCS<F> cs2(true);
  std::array<UInt32<F>, 8> st2;
  for (size_t i = 0; i < 8; ++i) st2[i] = UInt32<F>::alloc(cs2, "state", native[i]);
  const auto bits2 = sha256::alloc_bytes<F>(cs2, "block", block);
  cs2.tamper_aux(256 + 512);
  sha256::compress<F>(cs2, st2, bits2);
  EXPECT_EQ(cs2.aux_name(256 + 512), "schedule 16/sigma0/bit 0");
  EXPECT_EQ(cs2.which_is_unsatisfied().value_or(""), "schedule 16/sigma0/bit 0");
}

TEST(PoseidonBn254, EqualsCircomlibjs) {
  using F = ff::Bn254Fr;
  const json v = hash_vectors();
  size_t n = 0;
  for (const json& c : v["poseidon"]) {
    const size_t t = c["t"];
    std::vector<F> in;
    for (const json& x : c["inputs"]) in.push_back(F::from_dec(x.get<std::string>()));
    const F want = F::from_dec(c["output"].get<std::string>());
    EXPECT_EQ(Poseidon<F>::instance(t).hash(in).to_dec(), want.to_dec()) << "t = " << t;
    if (t <= 12) {  // and the gadget, at the widths the porep circuit uses
      CheckingCS<F> cs;
      std::vector<Num<F>> wires;
      for (const F& x : in) wires.push_back(Num<F>::alloc(cs, "in", x));
      const Num<F> out = Poseidon<F>::instance(t).hash(cs, wires);
      EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
      EXPECT_EQ(out.value, want);
      EXPECT_EQ(
          out.lc.evaluate([&](cs::Variable x) { return x.is_aux() ? cs.aux()[x.index()] : cs.inputs()[x.index()]; }),
          want);
    }
    ++n;
  }
  EXPECT_GE(n, 30u);
  for (size_t t : {3u, 9u, 12u}) {
    bool seen = false;
    for (const json& c : v["poseidon"]) seen = seen || c["t"] == t;
    EXPECT_TRUE(seen) << "no circomlibjs vector for width " << t;
  }
}

TEST(PoseidonBn254, EqualsCircomWitness) {
  // tests/interop/circuits/poseidon.circom: h = Poseidon(2)(x, y) with x = 1, y = 2; in a
  // circom witness wire 0 is ONE, then the outputs (h), then the inputs.
  using F = ff::Bn254Fr;
  const auto w = formats::WtnsFile::open(interop_fixture("bn128", "poseidon", "wtns")).values<F>();
  ASSERT_GE(w.size(), 4u);
  ASSERT_EQ(w[2], F::from_u64(1));
  ASSERT_EQ(w[3], F::from_u64(2));
  const F in[2] = {F::from_u64(1), F::from_u64(2)};
  EXPECT_EQ(Poseidon<F>::instance(3).hash(in), w[1]);
}

TYPED_TEST(Gadgets, PoseidonGadgetEqualsNativeAndCosts) {
  using F = TypeParam;
  std::mt19937_64 rng(5);
  for (size_t t : {3u, 9u, 12u}) {
    const auto& P = Poseidon<F>::instance(t);
    std::vector<F> in(t - 1);
    for (F& x : in) x = F::random(rng);
    CheckingCS<F> cs;
    std::vector<Num<F>> wires;
    for (const F& x : in) wires.push_back(Num<F>::alloc(cs, "in", x));
    const Num<F> out = P.hash(cs, wires);
    ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    EXPECT_EQ(out.value, P.hash(in)) << t;
    // 3 per S-box, plus about one materialization a partial round.
    const uint64_t sboxes = 3 * (8 * t + P.partial_rounds());
    EXPECT_GE(cs.num_constraints(), sboxes);
    EXPECT_LE(cs.num_constraints(), sboxes + P.partial_rounds() + t);
    CheckingCS<F> bad;
    bad.tamper_aux(t - 1);  // the first S-box's x2
    std::vector<Num<F>> w2;
    for (const F& x : in) w2.push_back(Num<F>::alloc(bad, "in", x));
    P.hash(bad, w2);
    EXPECT_EQ(bad.which_is_unsatisfied().value_or(""), "full round 0/sbox 0/x2 = x*x");
  }
  EXPECT_THROW(Poseidon<F>::instance(18), std::invalid_argument);
}

TYPED_TEST(Gadgets, MerklePathsEqualNativeRoots) {
  using F = TypeParam;
  std::mt19937_64 rng(42);
  auto node = [&] {
    Node32 n;
    for (uint8_t& b : n) b = uint8_t(rng());
    return truncate_node(n);
  };
  // Binary SHA-256, depth 3.
  const Node32 leaf = node();
  std::vector<Node32> sib = {node(), node(), node()};
  const bool dirs[3] = {true, false, true};
  Node32 root = leaf;
  for (size_t l = 0; l < 3; ++l) root = dirs[l] ? sha256_node(sib[l], root) : sha256_node(root, sib[l]);
  CheckingCS<F> cs;
  const auto leaf_bits = sha256::alloc_bytes<F>(cs, "leaf", leaf);
  std::vector<std::vector<Bit<F>>> sib_bits;
  std::vector<Bit<F>> dir_bits;
  for (size_t l = 0; l < 3; ++l) {
    sib_bits.push_back(sha256::alloc_bytes<F>(cs, "sibling", sib[l]));
    dir_bits.push_back(Bit<F>::alloc(cs, "dir", dirs[l]));
  }
  const auto got = sha256_merkle_root<F>(cs, leaf_bits, sib_bits, dir_bits);
  ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  EXPECT_EQ(hex(sha256::bytes_of<F>(got)), hex(root));
  EXPECT_EQ(pack_node<F>(got).value, node_to_field<F>(root));

  // 8-ary Poseidon, depth 2, position 5 then 2.
  const F leaf_f = F::random(rng);
  const size_t pos[2] = {5, 2};
  CheckingCS<F> pc;
  Num<F> cur = Num<F>::alloc(pc, "leaf", leaf_f);
  F native = leaf_f;
  for (size_t l = 0; l < 2; ++l) {
    std::array<F, 8> children;
    for (F& c : children) c = F::random(rng);
    children[pos[l]] = native;
    std::array<Bit<F>, 3> idx;
    for (size_t k = 0; k < 3; ++k) idx[k] = Bit<F>::alloc(pc, "idx", (pos[l] >> k) & 1);
    cur = poseidon8_level<F>(pc, cur, children, idx);
    native = poseidon_node<F>(children);
  }
  ASSERT_TRUE(pc.is_satisfied()) << pc.which_is_unsatisfied().value_or("");
  EXPECT_EQ(cur.value, native);
  // The child at the path's position must be the current node: a wrong one is named.
  CheckingCS<F> bad;
  Num<F> c0 = Num<F>::alloc(bad, "leaf", leaf_f);
  std::array<F, 8> children;
  for (F& c : children) c = F::random(rng);  // leaf_f is not at position 5
  std::array<Bit<F>, 3> idx;
  for (size_t k = 0; k < 3; ++k) idx[k] = Bit<F>::alloc(bad, "idx", (5 >> k) & 1);
  poseidon8_level<F>(bad, c0, children, idx);
  EXPECT_EQ(bad.which_is_unsatisfied().value_or(""), "child at position 5");
}

}  // namespace zkmill::test
