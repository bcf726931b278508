// SPDX-License-Identifier: MIT
// zkey new (zkey_new.hpp): per-signal sums of Lagrange points across the pool, then the
// sections and the circuit hash in snarkjs's order.
#include "common/setup/zkey_new.hpp"

#include <cstdio>

#include "common/curves/dispatch.hpp"
#include "common/formats/bin_writer.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/setup/group_ops.hpp"
#include "common/setup/ptau_points.hpp"
#include "common/setup/snarkjs_points.hpp"

namespace zkmill::setup {

namespace {

// snarkjs misc.js log2: floor(log2(v)), 0 for v = 0.
uint32_t floor_log2(uint64_t v) {
  uint32_t r = 0;
  while (v >>= 1) ++r;
  return r;
}

void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
template <size_t N>
void put_limbs(std::vector<uint8_t>& b, const ff::Limbs<N>& v) {
  for (size_t i = 0; i < 8 * N; ++i) b.push_back(uint8_t(v[i / 8] >> (8 * (i % 8))));
}

template <class C>
void append_lem(std::vector<uint8_t>& out, std::span<const ec::Affine<C>> pts) {
  using Codec = serde::snarkjs::Lem<C>;
  const size_t at = out.size();
  out.resize(at + pts.size() * Codec::kSize);
  for (size_t i = 0; i < pts.size(); ++i) Codec::encode(pts[i], out.data() + at + i * Codec::kSize);
}

template <class C>
void hash_section(Blake2b& h, std::span<const ec::Affine<C>> pts) {
  h.update_u32_be(uint32_t(pts.size()));
  std::vector<uint8_t> buf(pts.size() * kUSize<C>);
  for (size_t i = 0; i < pts.size(); ++i) encode_u<C>(pts[i], buf.data() + i * kUSize<C>);
  h.update(buf);
}

// The terms of one matrix grouped by signal: for signal s, [start[s], start[s+1]) of (row, coef).
template <class Fr>
struct BySignal {
  std::vector<uint64_t> start;
  std::vector<uint32_t> row;
  std::vector<Fr> coef;
};

template <class Fr>
BySignal<Fr> transpose(const formats::SparseMatrix<Fr>& m, uint32_t n_rows, uint32_t n_vars) {
  BySignal<Fr> t;
  t.start.assign(size_t(n_vars) + 1, 0);
  for (uint32_t w : m.wire) ++t.start[w + 1];
  for (size_t s = 0; s < n_vars; ++s) t.start[s + 1] += t.start[s];
  t.row.resize(m.wire.size());
  t.coef.resize(m.wire.size());
  std::vector<uint64_t> at(t.start.begin(), t.start.end() - 1);
  for (uint32_t c = 0; c < n_rows; ++c)
    for (uint64_t k = m.row_start[c]; k < m.row_start[c + 1]; ++k) {
      const uint64_t pos = at[m.wire[k]]++;
      t.row[pos] = c;
      t.coef[pos] = m.coeff[k];
    }
  return t;
}

template <class E>
InitZkey build(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, util::Progress* prog,
               util::ThreadPool& pool) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1Params;
  using G2 = typename E::G2Params;
  using J1 = ec::Jacobian<G1>;
  using J2 = ec::Jacobian<G2>;
  const auto& hd = r1cs.header();
  InitZkey k;
  k.curve = E::kId;
  k.n_vars = hd.n_wires;
  k.n_public = hd.n_public();
  k.n_constraints = hd.n_constraints;
  const uint32_t m = hd.n_constraints, np = k.n_public;
  if (k.n_vars < np + 1) throw formats::FormatError(r1cs.name() + ": header has fewer wires than public signals + 1");
  k.log_domain = floor_log2(uint64_t(m) + np) + 1;
  if (k.log_domain > ptau.power())
    throw std::runtime_error(ptau.name() + ": powers of tau too small for " + r1cs.name() + ": the circuit needs 2^" +
                             std::to_string(k.log_domain) + " (" + std::to_string(m) + " constraints + " +
                             std::to_string(np) + " public signals + 1), the ceremony has power " +
                             std::to_string(ptau.power()) + " (2^" + std::to_string(ptau.power()) + ")");
  if (!ptau.prepared())
    throw std::runtime_error(ptau.name() +
                             ": not prepared for phase 2 (no Lagrange sections); run `zkmill powersoftau prepare "
                             "phase2` on it first");
  if (k.log_domain >= Fr::kTwoAdicity)
    throw std::runtime_error(r1cs.name() + ": domain 2^" + std::to_string(k.log_domain) + " too large for " + E::kName);
  const uint32_t n = uint32_t(1) << k.log_domain;
  k.domain_size = n;
  const auto cs = r1cs.constraints<Fr>();
  const size_t rows = size_t(m) + np + 1;
  const size_t off = formats::PtauFile::lagrange_offset(k.log_domain);
  auto L1 = decode_ptau_points<G1>(ptau, ptau.lagrange(0), off, rows, "Lagrange tauG1", pool);
  auto L2 = decode_ptau_points<G2>(ptau, ptau.lagrange(1), off, rows, "Lagrange tauG2", pool);
  auto LA = decode_ptau_points<G1>(ptau, ptau.lagrange(2), off, rows, "Lagrange alphaTauG1", pool);
  auto LB = decode_ptau_points<G1>(ptau, ptau.lagrange(3), off, rows, "Lagrange betaTauG1", pool);

  const auto tA = transpose(cs.m[0], m, k.n_vars), tB = transpose(cs.m[1], m, k.n_vars),
             tC = transpose(cs.m[2], m, k.n_vars);
  if (prog) prog->reset(2 * cs.m[0].wire.size() + 5 * cs.m[1].wire.size() + cs.m[2].wire.size());
  std::vector<J1> A(k.n_vars), B1(k.n_vars), K(k.n_vars);
  std::vector<J2> B2(k.n_vars);
  if (prog) prog->stage("A, B, C, IC");
  pool.parallel_for(
      k.n_vars,
      [&](size_t b, size_t e) {
        uint64_t work = 0;
        for (size_t s = b; s < e; ++s) {
          J1 a = J1::identity(), b1 = J1::identity(), kk = J1::identity();
          J2 b2 = J2::identity();
          for (uint64_t t = tA.start[s]; t < tA.start[s + 1]; ++t) {
            a += mul_fr<G1>(J1::from_affine(L1[tA.row[t]]), tA.coef[t]);
            kk += mul_fr<G1>(J1::from_affine(LB[tA.row[t]]), tA.coef[t]);
          }
          for (uint64_t t = tB.start[s]; t < tB.start[s + 1]; ++t) {
            b1 += mul_fr<G1>(J1::from_affine(L1[tB.row[t]]), tB.coef[t]);
            b2 += mul_fr<G2>(J2::from_affine(L2[tB.row[t]]), tB.coef[t]);
            kk += mul_fr<G1>(J1::from_affine(LA[tB.row[t]]), tB.coef[t]);
          }
          for (uint64_t t = tC.start[s]; t < tC.start[s + 1]; ++t)
            kk += mul_fr<G1>(J1::from_affine(L1[tC.row[t]]), tC.coef[t]);
          if (s <= np) {
            a = a.add_mixed(L1[m + s]);
            kk = kk.add_mixed(LB[m + s]);
          }
          A[s] = a, B1[s] = b1, B2[s] = b2, K[s] = kk;
          work += 2 * (tA.start[s + 1] - tA.start[s]) + 5 * (tB.start[s + 1] - tB.start[s]) +
                  (tC.start[s + 1] - tC.start[s]);
        }
        if (prog) prog->add(work);
      },
      16);
  if (prog) prog->stage("normalise, hash");
  const auto aA = normalize_parallel<G1>(A, pool), aB1 = normalize_parallel<G1>(B1, pool),
             aK = normalize_parallel<G1>(K, pool);
  const auto aB2 = normalize_parallel<G2>(B2, pool);
  const std::span<const ec::Affine<G1>> ic(aK.data(), size_t(np) + 1), cc(aK.data() + np + 1, k.n_vars - np - 1);

  // Section 2: the Groth16 header.
  using Lem1 = serde::snarkjs::Lem<G1>;
  using Lem2 = serde::snarkjs::Lem<G2>;
  const auto alpha1 = ptau.alpha_tau_g1().subspan(0, Lem1::kSize);
  const auto beta1 = ptau.beta_tau_g1().subspan(0, Lem1::kSize);
  const auto beta2 = ptau.beta_g2().subspan(0, Lem2::kSize);
  auto& h2 = k.header;
  put_u32(h2, uint32_t(E::Fq::kBytes));
  put_limbs(h2, E::Fq::modulus());
  put_u32(h2, uint32_t(Fr::kBytes));
  put_limbs(h2, Fr::modulus());
  put_u32(h2, k.n_vars);
  put_u32(h2, np);
  put_u32(h2, n);
  h2.insert(h2.end(), alpha1.begin(), alpha1.end());
  h2.insert(h2.end(), beta1.begin(), beta1.end());
  h2.insert(h2.end(), beta2.begin(), beta2.end());
  const ec::Affine<G1> g1 = G1::generator();
  const ec::Affine<G2> g2 = G2::generator();
  append_lem<G2>(h2, std::span(&g2, 1));
  append_lem<G1>(h2, std::span(&g1, 1));
  append_lem<G2>(h2, std::span(&g2, 1));

  // Section 4: coefficients.
  const uint64_t n_coefs = cs.m[0].wire.size() + cs.m[1].wire.size() + np + 1;
  auto& co = k.coefs;
  co.reserve(4 + n_coefs * (12 + Fr::kBytes));
  put_u32(co, uint32_t(n_coefs));
  auto coef = [&](uint32_t mat, uint32_t row, uint32_t sig, const Fr& v) {
    put_u32(co, mat);
    put_u32(co, row);
    put_u32(co, sig);
    uint8_t b[Fr::kBytes];
    serde::snarkjs::encode_zkey_coef(v, b);
    co.insert(co.end(), b, b + Fr::kBytes);
  };
  for (uint32_t c = 0; c < m; ++c)
    for (uint32_t mat = 0; mat < 2; ++mat)
      for (uint64_t t = cs.m[mat].row_start[c]; t < cs.m[mat].row_start[c + 1]; ++t)
        coef(mat, c, cs.m[mat].wire[t], cs.m[mat].coeff[t]);
  for (uint32_t s = 0; s <= np; ++s) coef(0, m + s, s, Fr::one());

  append_lem<G1>(k.ic, ic);
  append_lem<G1>(k.c, cc);
  append_lem<G1>(k.a, aA);
  append_lem<G1>(k.b1, aB1);
  append_lem<G2>(k.b2, aB2);
  // Section 9: H_i = the odd points of the 2n-point Lagrange tauG1 (power log n + 1).
  {
    const auto lag = ptau.lagrange(0);
    const size_t base = formats::PtauFile::lagrange_offset(k.log_domain + 1);
    k.h.resize(size_t(n) * Lem1::kSize);
    for (size_t i = 0; i < n; ++i)
      std::copy_n(lag.data() + (base + 2 * i + 1) * Lem1::kSize, Lem1::kSize, k.h.data() + i * Lem1::kSize);
  }

  // The circuit hash.
  Blake2b hs;
  auto dec1 = [&](std::span<const uint8_t> b, const char* what) {
    try {
      return Lem1::decode(b, serde::Validation::SkipSubgroupCheck);
    } catch (const serde::DecodeError& e) {
      ptau.fail(std::string(what) + ": " + e.what());
    }
  };
  hash_u<G1>(hs, dec1(alpha1, "alpha"));
  hash_u<G1>(hs, dec1(beta1, "beta G1"));
  try {
    hash_u<G2>(hs, Lem2::decode(beta2, serde::Validation::SkipSubgroupCheck));
  } catch (const serde::DecodeError& e) {
    ptau.fail(std::string("beta G2: ") + e.what());
  }
  hash_u<G2>(hs, g2);
  hash_u<G1>(hs, g1);
  hash_u<G2>(hs, g2);
  hash_section<G1>(hs, ic);
  {
    // snarkjs hashes tau^(i+n) - tau^i from section 2 in chunks of min(n - 1, 2^14) points for
    // i = 0, 2^14, ... < n - 1, each chunk full length: past n - 1 points when 2^14 does not
    // divide n - 1, and, when the circuit fills the ceremony (n = 2^power), one read beyond
    // tauG1's last point into the bytes that follow it in the file (section 3's header and the
    // start of tauG2: snarkjs src/zkey_new.js, hashHPoints/hashHPointsChunk). That "point" is
    // raw words, usually >= q, on which ffjavascript's wasm g1m_subAffine is not group
    // arithmetic mod q; ffjs_sub_affine (snarkjs_points.hpp) repeats its every step. Reproduced
    // as is: the hash is what snarkjs zkey verify compares.
    const uint64_t chunk = uint64_t(1) << 14, per = std::min<uint64_t>(n - 1, chunk);
    uint64_t total = 0;
    for (uint64_t i = 0; i < uint64_t(n) - 1; i += chunk) total += per;
    const auto bytes = ptau.file().bytes();
    const size_t base = ptau.tau_g1_file_offset();
    if (base + (total - 1 + n + 1) * Lem1::kSize > bytes.size())
      ptau.fail("ends before the points the circuit hash reads (truncated)");
    std::vector<J1> d(total);
    pool.parallel_for(
        total,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i)
            d[i] =
                ffjs_sub_affine<G1>(bytes.data() + base + (i + n) * Lem1::kSize, bytes.data() + base + i * Lem1::kSize);
        },
        1024);
    const auto da = normalize_parallel<G1>(d, pool);
    hs.update_u32_be(n - 1);
    std::vector<uint8_t> buf(da.size() * kUSize<G1>);
    for (size_t i = 0; i < da.size(); ++i) encode_u<G1>(da[i], buf.data() + i * kUSize<G1>);
    hs.update(buf);
  }
  hash_section<G1>(hs, cc);
  hash_section<G1>(hs, std::span<const ec::Affine<G1>>(aA));
  hash_section<G1>(hs, std::span<const ec::Affine<G1>>(aB1));
  hash_section<G2>(hs, std::span<const ec::Affine<G2>>(aB2));
  k.cs_hash = hs.digest();
  return k;
}

}  // namespace

InitZkey build_init_zkey(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, util::Progress* progress,
                         util::ThreadPool& pool) {
  const CurveId rc = r1cs.header().curve;
  if (rc != ptau.curve())
    throw std::runtime_error(r1cs.name() + " is a " + curve_snarkjs_name(rc) + " circuit but " + ptau.name() +
                             " is a " + curve_snarkjs_name(ptau.curve()) + " powers of tau");
  return curves::with_curve(rc, [&]<class E>(E) { return build<E>(r1cs, ptau, progress, pool); });
}

void write_init_zkey(const InitZkey& k, const std::string& path) {
  formats::BinWriter w(path, "zkey", 1, 10);
  uint8_t one[4] = {1, 0, 0, 0};
  w.section(1, one);
  w.section(2, k.header);
  w.section(4, k.coefs);
  w.section(3, k.ic);
  w.section(9, k.h);
  w.section(8, k.c);
  w.section(5, k.a);
  w.section(6, k.b1);
  w.section(7, k.b2);
  w.begin(10);
  w.write(k.cs_hash.data(), k.cs_hash.size());
  w.u32(0);
  w.end();
  w.commit();
}

std::string format_hash(const Hash64& h, const std::string& indent) {
  std::string s;
  char b[12];
  for (int line = 0; line < 4; ++line) {
    s += indent;
    for (int g = 0; g < 4; ++g) {
      const uint8_t* p = h.data() + line * 16 + g * 4;
      std::snprintf(b, sizeof b, "%02x%02x%02x%02x ", p[0], p[1], p[2], p[3]);
      s += b;
    }
    if (line < 3) s += "\n";
  }
  return s;
}

}  // namespace zkmill::setup
