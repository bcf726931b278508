// SPDX-License-Identifier: MIT
// make_test_ptau CURVE POWER OUT.ptau: a prepared powers-of-tau file from a random tau, alpha
// and beta that this program knows and forgets, for benchmarking the circuit-specific setup at
// sizes where a real ceremony file would take snarkjs hours to make (`zkey new` of a
// ~500k-constraint circuit needs power 19; snarkjs's own contribution at power 16 took it 19
// minutes on the dev box, and preparing power 19 would take zkmill about 45 CPU minutes). NOT for
// production keys: the toxic waste existed in this process, and there is no contribution record.
//
// Every point is a fixed-base multiple of the generator by a known scalar, so nothing is
// transformed: tauG1 tau^i G1 (i < 2^(p+1) - 1), tauG2, alphaTauG1, betaTauG1 (i < 2^p), betaG2;
// and the Lagrange sections, for every power q (and p + 1 for tauG1, see drop_top), the points
// L_i(tau) X with
//   L_i(tau) = w^i (tau^N - 1) / (N (tau - w^i)),  N = 2^q, w snarkjs's N-th root of unity,
// the same group elements as the inverse FFT (1/N) sum_j w^(-ij) tau^j X that
// `powersoftau prepare phase2` computes (so zkmill's prepare of this file without sections
// 12..15 gives back these bytes: a check of either, see docs/benchmarks.md).
#include <cstdio>
#include <random>
#include <string>

#include "common/curves/dispatch.hpp"
#include "common/ec/fixed_base.hpp"
#include "common/formats/bin_writer.hpp"
#include "common/formats/snarkjs_roots.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/util/curve_id.hpp"
#include "common/util/thread_pool.hpp"

namespace {

using namespace zkmill;

template <class Fr>
Fr random_scalar(std::mt19937_64& rng) {
  for (;;) {
    ff::Limbs<Fr::N> l{};
    for (auto& w : l) w = rng();
    l[Fr::N - 1] >>= 64 - (Fr::kBits - 64 * (Fr::N - 1));
    if (auto v = Fr::from_canonical(l)) return *v;
  }
}

template <class C>
void write_points(formats::BinWriter& w, const ec::FixedBaseTable<C>& table,
                  const std::vector<typename C::Scalar>& scalars, util::ThreadPool& pool) {
  using Codec = serde::snarkjs::Lem<C>;
  const auto pts = table.batch_mul(scalars, pool);
  std::vector<uint8_t> bytes(pts.size() * Codec::kSize);
  for (size_t i = 0; i < pts.size(); ++i) Codec::encode(pts[i], bytes.data() + i * Codec::kSize);
  w.write(bytes);
}

template <class E>
void make(uint32_t power, const std::string& out) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1Params;
  using G2 = typename E::G2Params;
  auto& pool = util::ThreadPool::global();
  std::random_device rd;
  std::mt19937_64 rng((uint64_t(rd()) << 32) ^ rd());
  const Fr tau = random_scalar<Fr>(rng), alpha = random_scalar<Fr>(rng), beta = random_scalar<Fr>(rng);
  const ec::FixedBaseTable<G1> t1(ec::Jacobian<G1>::from_affine(G1::generator()));
  const ec::FixedBaseTable<G2> t2(ec::Jacobian<G2>::from_affine(G2::generator()));
  auto powers = [&](size_t count, const Fr& times) {
    std::vector<Fr> s(count);
    Fr x = times;
    for (size_t i = 0; i < count; ++i) s[i] = x, x *= tau;
    return s;
  };
  // L_i(tau) times `times` for the 2^q-point domain. For tauG1 at q = power + 1 the file has
  // only N - 1 = 2^q - 1 powers and snarkjs transforms them with the point at infinity in place
  // of tau^(N-1) G1, so its section holds (1/N) sum_(j < N-1) w^(-ij) tau^j
  // = L_i(tau) - w^i tau^(N-1) / N (w^(-i(N-1)) = w^i): `drop_top` subtracts that term.
  auto lagrange = [&](uint32_t q, const Fr& times, bool drop_top = false) {
    const size_t n = size_t(1) << q;
    const Fr w = formats::snarkjs_root_of_unity<Fr>(q);
    std::vector<Fr> den(n), wi(n);
    Fr x = Fr::one();
    for (size_t i = 0; i < n; ++i) wi[i] = x, den[i] = tau - x, x *= w;
    ff::batch_inverse(den.data(), n);
    const Fr c = (tau.pow(uint64_t(n)) - Fr::one()) * Fr::from_u64(n).inverse() * times;
    const Fr top = tau.pow(uint64_t(n - 1)) * Fr::from_u64(n).inverse() * times;
    for (size_t i = 0; i < n; ++i) den[i] = wi[i] * den[i] * c - (drop_top ? wi[i] * top : Fr::zero());
    return den;
  };
  const size_t n = size_t(1) << power;
  formats::BinWriter w(out, "ptau", 1, 11);
  w.begin(1);
  w.u32(uint32_t(E::Fq::kBytes));
  for (size_t i = 0; i < E::Fq::kBytes; ++i) {
    const uint8_t b = uint8_t(E::Fq::modulus()[i / 8] >> (8 * (i % 8)));
    w.write(&b, 1);
  }
  w.u32(power);
  w.u32(power);
  w.end();
  w.begin(2), write_points<G1>(w, t1, powers(2 * n - 1, Fr::one()), pool), w.end();
  w.begin(3), write_points<G2>(w, t2, powers(n, Fr::one()), pool), w.end();
  w.begin(4), write_points<G1>(w, t1, powers(n, alpha), pool), w.end();
  w.begin(5), write_points<G1>(w, t1, powers(n, beta), pool), w.end();
  w.begin(6), write_points<G2>(w, t2, std::vector<Fr>{beta}, pool), w.end();
  w.begin(7), w.u32(0), w.end();  // no contributions recorded
  w.begin(12);
  for (uint32_t q = 0; q <= power + 1; ++q) write_points<G1>(w, t1, lagrange(q, Fr::one(), q == power + 1), pool);
  w.end();
  w.begin(13);
  for (uint32_t q = 0; q <= power; ++q) write_points<G2>(w, t2, lagrange(q, Fr::one()), pool);
  w.end();
  w.begin(14);
  for (uint32_t q = 0; q <= power; ++q) write_points<G1>(w, t1, lagrange(q, alpha), pool);
  w.end();
  w.begin(15);
  for (uint32_t q = 0; q <= power; ++q) write_points<G1>(w, t1, lagrange(q, beta), pool);
  w.end();
  w.commit();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: make_test_ptau bn128|bls12381 POWER OUT.ptau  (benchmark inputs only)\n");
    return 2;
  }
  try {
    const std::string c = argv[1];
    const unsigned long power = std::stoul(argv[2]);
    if (power < 1 || power > 24) throw std::invalid_argument("POWER must be 1 to 24");
    const CurveId id = c == "bn128" ? CurveId::Bn254 : c == "bls12381" ? CurveId::Bls12_381 : CurveId{};
    if (id != CurveId::Bn254 && id != CurveId::Bls12_381)
      throw std::invalid_argument("curve must be bn128 or bls12381");
    curves::with_curve(id, [&]<class E>(E) { make<E>(uint32_t(power), argv[3]); });
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_test_ptau: error: %s\n", e.what());
    return 2;
  }
}
