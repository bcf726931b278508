// SPDX-License-Identifier: MIT
// Tests of snarkjs JSON points and scalars: shapes, round trips, the z rules and rejections.
// Every malformed/non-canonical/off-curve/off-subgroup input must fail with its reason.
#include "common/serde/snarkjs_json.hpp"

#include <gtest/gtest.h>

#include <random>

#include "tests/common/ec/test_points.hpp"
#include "tests/common/serde/test_hex.hpp"

namespace zkmill::test {

using namespace zkmill;
using curves::Bls12381G1Params;
using curves::Bls12381G2Params;
using curves::Bn254G1Params;
using curves::Bn254G2Params;
using nlohmann::json;
using serde::DecodeErrc;
using serde::Validation;
namespace sj = serde::snarkjs;

TEST(SnarkjsJson, ExactShapes) {
  EXPECT_EQ(sj::point_to_json(Bn254G1Params::generator()), json::parse(R"(["1","2","1"])"));
  EXPECT_EQ(sj::point_to_json(ec::Affine<Bn254G1Params>::identity()), json::parse(R"(["0","1","0"])"));
  EXPECT_EQ(sj::point_to_json(ec::Affine<Bn254G2Params>::identity()),
            json::parse(R"([["0","0"],["1","0"],["0","0"]])"));
  // vk_gamma_2 of every snarkjs BN254 verification key is the G2 generator, written c0 first.
  const json gamma2 = json::parse(R"([
    ["10857046999023057135944570762232829481370756359578518086990519993285655852781",
     "11559732032986387107991004021392285783925812861821192530917403151452391805634"],
    ["8495653923123431417604973247489272438418190587263600148770280649306958101930",
     "4082367875863433681332203403145435568316851327593401208105741076214120093531"],
    ["1","0"]])");
  EXPECT_EQ(sj::point_to_json(Bn254G2Params::generator()), gamma2);
  EXPECT_EQ(sj::point_from_json<Bn254G2Params>(gamma2), Bn254G2Params::generator());
}

template <class P>
class SnarkjsJsonGroups : public SeededGroupTest<P, 31> {};
TYPED_TEST_SUITE(SnarkjsJsonGroups, AllGroups);

TYPED_TEST(SnarkjsJsonGroups, RoundTripIncludingInfinity) {
  using A = ec::Affine<TypeParam>;
  std::vector<A> pts{A::identity(), TypeParam::generator()};
  for (int i = 0; i < 5; ++i) pts.push_back(random_subgroup_point<TypeParam>(this->rng));
  for (const auto& p : pts) {
    json j = sj::point_to_json(p);
    EXPECT_EQ(sj::point_from_json<TypeParam>(j), p);
    EXPECT_EQ(sj::point_from_json<TypeParam>(json::parse(j.dump())), p);  // via text
    if (!p.infinity) {
      json two = json::array({j[0], j[1]});  // [x, y] without z is affine too
      EXPECT_EQ(sj::point_from_json<TypeParam>(two), p);
    }
  }
}

TYPED_TEST(SnarkjsJsonGroups, Rejections) {
  using Base = typename TypeParam::Base;
  auto fq = [](const char* s) -> json {
    if constexpr (serde::QuadraticExt<Base>)
      return json::array({s, "0"});
    else
      return s;
  };
  const json g = sj::point_to_json(TypeParam::generator());
  auto expect = [](DecodeErrc c, const json& j) {
    SCOPED_TRACE(j.dump().substr(0, 120));
    return expect_decode_error(c, [&] { sj::point_from_json<TypeParam>(j); });
  };
  expect(DecodeErrc::Malformed, json::object());
  expect(DecodeErrc::Malformed, json::array({g[0]}));
  expect(DecodeErrc::Malformed, json::array({g[0], g[1], g[2], g[2]}));
  expect(DecodeErrc::Malformed, json::array({g[0], g[1], fq("2")}));        // z must be 0 or 1
  expect(DecodeErrc::Malformed, json::array({fq("5"), fq("1"), fq("0")}));  // z = 0 but not [0, 1, 0]
  json num = g;
  if constexpr (serde::QuadraticExt<Base>)
    num[0][0] = 1;
  else
    num[0] = 1;
  expect(DecodeErrc::Malformed, num);  // a JSON number, not a string
  json hexs = g;
  if constexpr (serde::QuadraticExt<Base>)
    hexs[1][1] = "0x1";
  else
    hexs[1] = "0x1";
  expect(DecodeErrc::Malformed, hexs);
  json neg = g;
  if constexpr (serde::QuadraticExt<Base>)
    neg[0][1] = "-1";
  else
    neg[0] = "-1";
  expect(DecodeErrc::Malformed, neg);
  // x = p: the decimal of the base field modulus.
  const std::string p_dec = [] {
    if constexpr (serde::QuadraticExt<Base>)
      return ff::to_decimal(Base::Base::modulus());
    else
      return ff::to_decimal(Base::modulus());
  }();
  json big = g;
  if constexpr (serde::QuadraticExt<Base>)
    big[0][0] = p_dec;
  else
    big[0] = p_dec;
  auto msg = expect(DecodeErrc::NonCanonical, big);
  EXPECT_NE(msg.find("point[0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("non-canonical"), std::string::npos) << msg;
  json huge = g;
  if constexpr (serde::QuadraticExt<Base>)
    huge[1][0] = std::string(200, '9');
  else
    huge[1] = std::string(200, '9');
  expect(DecodeErrc::NonCanonical, huge);
  // Off the curve: y + 1.
  auto off = TypeParam::generator();
  off.y = off.y + Base::one();
  expect(DecodeErrc::NotOnCurve, sj::point_to_json(off));
  // Off the subgroup.
  if constexpr (!TypeParam::kCofactorOne) {
    auto q = random_curve_point<TypeParam>(this->rng);
    expect(DecodeErrc::NotInSubgroup, sj::point_to_json(q));
    EXPECT_EQ(sj::point_from_json<TypeParam>(sj::point_to_json(q), Validation::SkipSubgroupCheck), q);
  }
}

TEST(SnarkjsJson, Bls12381G1OrderThreePointRejected) {
  // (0, 2) lies on y^2 = x^3 + 4 and has order 3.
  auto msg = expect_decode_error(DecodeErrc::NotInSubgroup,
                                 [] { sj::point_from_json<Bls12381G1Params>(json::parse(R"(["0","2","1"])")); });
  // The error names the field (here the default name, "point"), then the group.
  EXPECT_EQ(msg, "point: bls12-381 G1: point not in the prime-order subgroup (snarkjs JSON)");
}

TEST(SnarkjsJson, Scalars) {
  using Fr = ff::Bn254Fr;
  std::mt19937_64 rng(32);
  for (int i = 0; i < 10; ++i) {
    Fr s = Fr::random(rng);
    EXPECT_EQ(sj::scalar_from_json<Fr>(sj::scalar_to_json(s)), s);
  }
  EXPECT_EQ(sj::scalar_to_json(Fr::zero()), json("0"));
  const json pub =
      json::parse(R"(["33", "0", "21888242871839275222246405745257275088548364400416034343698204186575808495616"])");
  auto v = sj::scalars_from_json<Fr>(pub);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], Fr::from_u64(33));
  EXPECT_EQ(v[2], -Fr::one());
  expect_decode_error(DecodeErrc::NonCanonical, [] {
    sj::scalar_from_json<Fr>(json("21888242871839275222246405745257275088548364400416034343698204186575808495617"));
  });
  expect_decode_error(DecodeErrc::Malformed, [] { sj::scalar_from_json<Fr>(json(5)); });
  expect_decode_error(DecodeErrc::Malformed, [] { sj::scalar_from_json<Fr>(json("")); });
  expect_decode_error(DecodeErrc::Malformed, [] { sj::scalar_from_json<Fr>(json(" 1")); });
  expect_decode_error(DecodeErrc::Malformed, [] { sj::scalars_from_json<Fr>(json::object()); });
}

}  // namespace zkmill::test
