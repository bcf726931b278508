// SPDX-License-Identifier: MIT
// Cross-check against @noble/curves vectors: multiples, sums, encodings and invalid inputs.
// Files: tests/vectors/*_points.json from gen_curve_vectors.mjs; encodings compared byte for byte.
#include <gtest/gtest.h>

#include "common/serde/evm.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/serde/snarkjs_json.hpp"
#include "common/serde/zcash.hpp"
#include "tests/common/serde/test_hex.hpp"

namespace zkmill::test {

using namespace zkmill;
using serde::DecodeErrc;
using serde::Validation;

namespace {

// The byte formats a vector file names, per group.
template <class G>
std::vector<std::string> formats() {
  if constexpr (serde::kIsBls12381<G>)
    return {"zcash_compressed", "zcash_uncompressed", "snarkjs_lem"};
  else
    return {"evm", "snarkjs_lem"};
}

template <class G>
ec::Affine<G> decode_as(const std::string& fmt, std::span<const uint8_t> b, Validation v) {
  if (fmt == "snarkjs_lem") return serde::snarkjs::Lem<G>::decode(b, v);
  if constexpr (serde::kIsBls12381<G>) {
    if (fmt == "zcash_compressed") return serde::zcash::Compressed<G>::decode(b, v);
    if (fmt == "zcash_uncompressed") return serde::zcash::Uncompressed<G>::decode(b, v);
  } else {
    if (fmt == "evm") return serde::evm::Uncompressed<G>::decode(b, v);
  }
  throw std::invalid_argument("unknown format " + fmt);
}

template <class G>
std::string encode_as(const std::string& fmt, const ec::Affine<G>& p) {
  if (fmt == "snarkjs_lem") return to_hex(serde::encode<serde::snarkjs::Lem>(p));
  if constexpr (serde::kIsBls12381<G>) {
    if (fmt == "zcash_compressed") return to_hex(serde::encode<serde::zcash::Compressed>(p));
    if (fmt == "zcash_uncompressed") return to_hex(serde::encode<serde::zcash::Uncompressed>(p));
  } else {
    if (fmt == "evm") return to_hex(serde::encode<serde::evm::Uncompressed>(p));
  }
  throw std::invalid_argument("unknown format " + fmt);
}

template <class G>
void check_group(const nlohmann::json& v) {
  using J = ec::Jacobian<G>;
  using Fr = typename G::Scalar;
  SCOPED_TRACE(G::kName);

  // k G for each k, all encodings equal noble's, and decode back.
  std::vector<ec::Affine<G>> multiples;
  for (const auto& e : v.at("multiples")) {
    SCOPED_TRACE("k = " + e.at("k").get<std::string>());
    auto expected = point_from_entry<G>(e);
    auto ours = (J::generator() * Fr::from_dec(e.at("k").get<std::string>())).to_affine();
    EXPECT_EQ(ours, expected);
    multiples.push_back(ours);
    for (const std::string& fmt : formats<G>()) {
      const std::string want = e.at(fmt).get<std::string>();
      EXPECT_EQ(encode_as(fmt, ours), want) << fmt;
      EXPECT_EQ(decode_as<G>(fmt, from_hex(want), Validation::Full), ours) << fmt;
    }
    EXPECT_EQ(serde::snarkjs::point_from_json<G>(serde::snarkjs::point_to_json(ours)), ours);
  }
  ASSERT_GE(multiples.size(), 9u);

  // Sums P_a + P_b (generic, doubling, P + (-P), with the identity).
  for (const auto& s : v.at("sums")) {
    const size_t a = s.at("a").get<size_t>(), b = s.at("b").get<size_t>();
    SCOPED_TRACE("sum " + std::to_string(a) + " + " + std::to_string(b));
    auto expected = point_from_entry<G>(s);
    EXPECT_EQ((J::from_affine(multiples.at(a)) + J::from_affine(multiples.at(b))).to_affine(), expected);
    EXPECT_EQ(J::from_affine(multiples.at(a)).add_mixed(multiples.at(b)).to_affine(), expected);
  }

  // On-curve non-members: each encoding decodes only when the subgroup check is skipped.
  for (const auto& e : v.at("non_subgroup")) {
    auto p = point_from_entry<G>(e);
    ASSERT_TRUE(p.is_on_curve());
    EXPECT_FALSE(ec::is_in_subgroup(p));
    EXPECT_FALSE(J::from_affine(p).is_in_subgroup_naive());
    for (const std::string& fmt : formats<G>()) {
      const auto bytes = from_hex(e.at(fmt).get<std::string>());
      EXPECT_EQ(encode_as(fmt, p), e.at(fmt).get<std::string>()) << fmt;
      EXPECT_EQ(decode_as<G>(fmt, bytes, Validation::SkipSubgroupCheck), p) << fmt;
      auto msg = expect_decode_error(DecodeErrc::NotInSubgroup, [&] { decode_as<G>(fmt, bytes, Validation::Full); });
      EXPECT_NE(msg.find(std::string(G::kName) + ": point not in the prime-order subgroup"), std::string::npos) << msg;
    }
  }

  // Invalid encodings fail for the stated reason, under either validation level for all
  // reasons but the subgroup one.
  size_t n_invalid = 0;
  for (const auto& e : v.at("invalid")) {
    const auto fmt = e.at("format").get<std::string>(), reason = e.at("reason").get<std::string>(),
               note = e.at("note").get<std::string>();
    SCOPED_TRACE(fmt + ": " + note);
    const auto bytes = from_hex(e.at("hex").get<std::string>());
    try {
      decode_as<G>(fmt, bytes, Validation::Full);
      ADD_FAILURE() << "accepted an invalid encoding, expected " << reason;
    } catch (const serde::DecodeError& err) {
      EXPECT_EQ(serde::to_string(err.code()), reason) << err.what();
      EXPECT_EQ(std::string(err.what()).rfind(G::kName, 0), 0u) << "message names the group: " << err.what();
    }
    if (reason != "not_in_subgroup") {
      EXPECT_THROW(decode_as<G>(fmt, bytes, Validation::SkipSubgroupCheck), serde::DecodeError);
    } else {
      EXPECT_TRUE(decode_as<G>(fmt, bytes, Validation::SkipSubgroupCheck).is_on_curve());
    }
    ++n_invalid;
  }
  EXPECT_GE(n_invalid, 10u);
}

template <class Fr>
void check_scalars(const nlohmann::json& v) {
  for (const auto& e : v.at("values")) {
    SCOPED_TRACE(e.at("dec").get<std::string>());
    const Fr c = Fr::from_dec(e.at("dec").get<std::string>());
    std::array<uint8_t, Fr::kBytes> buf{};
    serde::snarkjs::encode_wtns_scalar(c, buf.data());
    EXPECT_EQ(to_hex(buf), e.at("wtns").get<std::string>());
    serde::snarkjs::encode_zkey_coef(c, buf.data());
    EXPECT_EQ(to_hex(buf), e.at("zkey_coef").get<std::string>());
    serde::snarkjs::encode_lem_scalar(c, buf.data());
    EXPECT_EQ(to_hex(buf), e.at("lem").get<std::string>());
    EXPECT_EQ(serde::snarkjs::decode_wtns_scalar<Fr>(from_hex(e.at("wtns").get<std::string>())), c);
    EXPECT_EQ(serde::snarkjs::decode_zkey_coef<Fr>(from_hex(e.at("zkey_coef").get<std::string>())), c);
    EXPECT_EQ(serde::snarkjs::decode_lem_scalar<Fr>(from_hex(e.at("lem").get<std::string>())), c);
    EXPECT_EQ(serde::snarkjs::scalar_from_json<Fr>(e.at("dec")), c);
    EXPECT_EQ(serde::snarkjs::scalar_to_json(c), e.at("dec"));  // json == json
  }
  for (const auto& e : v.at("invalid")) {
    const auto fmt = e.at("format").get<std::string>(), reason = e.at("reason").get<std::string>();
    SCOPED_TRACE(fmt + ": " + e.at("note").get<std::string>());
    const auto bytes = from_hex(e.at("hex").get<std::string>());
    try {
      if (fmt == "wtns")
        serde::snarkjs::decode_wtns_scalar<Fr>(bytes);
      else if (fmt == "zkey_coef")
        serde::snarkjs::decode_zkey_coef<Fr>(bytes);
      else
        FAIL() << "unknown format " << fmt;
      ADD_FAILURE() << "accepted, expected " << reason;
    } catch (const serde::DecodeError& err) {
      EXPECT_EQ(serde::to_string(err.code()), reason) << err.what();
    }
  }
}

template <class Curve>
void check_curve(const std::string& stem, const char* name) {
  const auto main = load_vectors(stem + "_points.json");
  const auto g2 = load_vectors(stem + "_g2_points.json");
  ASSERT_EQ(main.at("curve").get<std::string>(), name);
  ASSERT_EQ(g2.at("curve").get<std::string>(), name);
  // The files are for this curve: same moduli.
  EXPECT_EQ(main.at("p").get<std::string>(), ff::to_decimal(Curve::Fq::modulus()));
  EXPECT_EQ(main.at("r").get<std::string>(), ff::to_decimal(Curve::Fr::modulus()));
  check_group<typename Curve::G1Params>(main.at("g1"));
  check_group<typename Curve::G2Params>(g2.at("g2"));
  check_scalars<typename Curve::Fr>(main.at("fr"));
}

}  // namespace

TEST(NobleVectors, Bn254) { check_curve<curves::Bn254>("bn254", "bn254"); }
TEST(NobleVectors, Bls12381) { check_curve<curves::Bls12381>("bls12_381", "bls12-381"); }

}  // namespace zkmill::test
