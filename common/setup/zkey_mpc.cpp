// SPDX-License-Identifier: MIT
// Phase-2 contribute, beacon and verify (zkey_mpc.hpp).
#include "common/setup/zkey_mpc.hpp"

#include <string_view>

#include "common/curves/dispatch.hpp"
#include "common/formats/bin_writer.hpp"
#include "common/formats/circom_files.hpp"
#include "common/formats/ptau.hpp"
#include "common/msm/pippenger.hpp"
#include "common/pairing/engine.hpp"
#include "common/setup/group_ops.hpp"
#include "common/setup/snarkjs_points.hpp"
#include "common/setup/snarkjs_rng.hpp"
#include "common/setup/zkey_new.hpp"
#include "common/util/hex.hpp"

namespace zkmill::setup {

namespace {

// Points per chunk of a streamed section, and bytes per chunk of a copied one.
constexpr size_t kStreamPointChunk = size_t(1) << 16;
constexpr size_t kCopyChunk = size_t(4) << 20;

// snarkjs hashPubKey: U(deltaAfter) U(g1_s) U(g1_sx) U(g2_spx) transcript.
template <class E>
void hash_pub_key(Blake2b& h, const Contribution& c) {
  using L1 = serde::snarkjs::Lem<typename E::G1Params>;
  using L2 = serde::snarkjs::Lem<typename E::G2Params>;
  const auto v = serde::Validation::SkipSubgroupCheck;
  hash_u<typename E::G1Params>(h, L1::decode(c.delta_after, v));
  hash_u<typename E::G1Params>(h, L1::decode(c.g1_s, v));
  hash_u<typename E::G1Params>(h, L1::decode(c.g1_sx, v));
  hash_u<typename E::G2Params>(h, L2::decode(c.g2_spx, v));
  h.update(c.transcript);
}

// e(a, d) == e(b, c), false when any point is the identity (snarkjs misc.sameRatio).
template <class E>
bool same_ratio(const typename E::G1Affine& a, const typename E::G1Affine& b, const typename E::G2Affine& c,
                const typename E::G2Affine& d) {
  using Eng = pairing::Engine<E>;
  if (a.is_identity() || b.is_identity() || c.is_identity() || d.is_identity()) return false;
  const auto pd = Eng::prepare(d), pc = Eng::prepare(c);
  const typename Eng::PreparedPair pairs[2] = {{a, &pd}, {-b, &pc}};
  return Eng::pairing_product_is_one(std::span<const typename Eng::PreparedPair>(pairs, 2));
}

template <class C>
std::vector<uint8_t> lem_bytes(const ec::Affine<C>& p) {
  std::vector<uint8_t> b(serde::snarkjs::Lem<C>::kSize);
  serde::snarkjs::Lem<C>::encode(p, b.data());
  return b;
}

template <class E>
ContributeResult contribute(const formats::ZkeyFile& f, const std::string& out, Contribution cur, ChaCha& rng,
                            util::ThreadPool& pool) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1Params;
  using G2 = typename E::G2Params;
  using L1 = serde::snarkjs::Lem<G1>;
  using L2 = serde::snarkjs::Lem<G2>;
  if (f.curve() != E::kId) f.fail("curve mismatch");
  MpcParams mpc = read_mpc_params(f);
  Blake2b th;
  th.update(mpc.cs_hash);
  for (const auto& c : mpc.contributions) hash_pub_key<E>(th, c);

  const Fr d = field_from_rng<Fr>(rng);
  const auto g1_s = point_from_rng<G1>(rng).to_affine();
  const auto g1_sx = mul_fr<G1>(ec::Jacobian<G1>::from_affine(g1_s), d).to_affine();
  hash_u<G1>(th, g1_s);
  hash_u<G1>(th, g1_sx);
  cur.transcript = th.digest();
  const auto g2_sp = hash_to_g2<E>(cur.transcript);
  const auto g2_spx = mul_fr<G2>(g2_sp, d).to_affine();
  const auto delta1 = L1::decode(f.delta1(), serde::Validation::Full);
  const auto delta2 = L2::decode(f.delta2(), serde::Validation::Full);
  const auto nd1 = mul_fr<G1>(ec::Jacobian<G1>::from_affine(delta1), d).to_affine();
  const auto nd2 = mul_fr<G2>(ec::Jacobian<G2>::from_affine(delta2), d).to_affine();
  cur.delta_after = lem_bytes<G1>(nd1);
  cur.g1_s = lem_bytes<G1>(g1_s);
  cur.g1_sx = lem_bytes<G1>(g1_sx);
  cur.g2_spx = lem_bytes<G2>(g2_spx);
  mpc.contributions.push_back(cur);

  // Section 2 with the new deltas in place (delta1 and delta2 are its last two points).
  const auto sec2 = f.file().section(2, "header");
  std::vector<uint8_t> header(sec2.begin(), sec2.end());
  const size_t d2_at = header.size() - L2::kSize, d1_at = d2_at - L1::kSize;
  std::copy(cur.delta_after.begin(), cur.delta_after.end(), header.begin() + ptrdiff_t(d1_at));
  const auto nd2b = lem_bytes<G2>(nd2);
  std::copy(nd2b.begin(), nd2b.end(), header.begin() + ptrdiff_t(d2_at));

  // L (section 8) and H (section 9) times 1/d, and the sections in between copied, all a chunk
  // at a time, the input's mapped pages dropped as they are done: the key is never held whole.
  const Fr d_inv = d.inverse();
  formats::BinWriter w(out, "zkey", 1, 10);
  auto copy = [&](uint32_t type, std::span<const uint8_t> sec) {
    w.begin(type);
    for (size_t b = 0; b < sec.size(); b += kCopyChunk) {
      const auto part = sec.subspan(b, std::min(kCopyChunk, sec.size() - b));
      w.write(part);
      f.file().release(part);
    }
    w.end();
  };
  auto scaled = [&](uint32_t type, std::span<const uint8_t> sec, const char* what) {
    w.begin(type);
    const size_t n = sec.size() / L1::kSize;
    std::vector<ec::Jacobian<G1>> j;
    std::vector<uint8_t> bytes;
    for (size_t b = 0; b < n; b += kStreamPointChunk) {
      const auto part = sec.subspan(b * L1::kSize, (std::min(n, b + kStreamPointChunk) - b) * L1::kSize);
      const auto pts =
          formats::detail::decode_section<G1>(f, part, what, serde::Validation::SkipSubgroupCheck, pool, b);
      j.resize(pts.size());
      pool.parallel_for(
          pts.size(),
          [&](size_t lo, size_t hi) {
            for (size_t i = lo; i < hi; ++i) j[i] = mul_fr<G1>(ec::Jacobian<G1>::from_affine(pts[i]), d_inv);
          },
          64);
      const auto aff = normalize_parallel<G1>(j, pool);
      bytes.resize(aff.size() * L1::kSize);
      for (size_t i = 0; i < aff.size(); ++i) L1::encode(aff[i], bytes.data() + i * L1::kSize);
      w.write(bytes);
      f.file().release(part);
    }
    w.end();
  };
  w.section(1, f.file().section(1, "protocol"));
  w.section(2, header);
  for (uint32_t s = 3; s <= 7; ++s) copy(s, f.file().section(s, "key"));
  scaled(8, f.c(), "L");
  scaled(9, f.h(), "H");
  w.section(10, encode_mpc_params(mpc));
  w.commit();

  ContributeResult r;
  r.cs_hash = mpc.cs_hash;
  Blake2b ch;
  hash_pub_key<E>(ch, mpc.contributions.back());
  r.contribution_hash = ch.digest();
  r.index = mpc.contributions.size();
  return r;
}

std::string utf8_prefix(const std::string& s, size_t max_chars) {
  size_t i = 0, chars = 0;
  while (i < s.size() && chars < max_chars) {
    const unsigned char c = uint8_t(s[i]);
    i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    ++chars;
  }
  return s.substr(0, std::min(i, s.size()));
}

// zkey verify's sink: each section of the rebuilt initial key against the key's, a chunk at a
// time as it is made, the key's mapped pages dropped once compared, so neither key is held
// whole. Byte for byte, except: section 2 up to the deltas (the last contribution's), section 10
// (the circuit hash is compared by the caller, contributions are not the initial key's), and L
// (8) and H (9), which every contribution scales by 1/delta: for those one random linear
// combination of each side, R0 = sum r_i P0_i (initial key) and R = sum r_i P_i (the key),
// accumulated chunk by chunk, must satisfy e(R0, delta2_0) = e(R, delta2) (ratio_ok).
template <class E>
class CompareSink final : public SectionSink {
 public:
  using G1 = typename E::G1Params;
  using J1 = ec::Jacobian<G1>;
  using Fr = typename E::Fr;

  CompareSink(const formats::ZkeyFile& z, util::ThreadPool& pool) : z_(z), pool_(pool) {
    for (auto& a : acc_) a = J1::identity();
    for (auto& a : acc0_) a = J1::identity();
  }

  void begin(uint32_t type) override {
    type_ = type;
    pos_ = 0;
    const auto& f = z_.file();
    switch (type) {
      case 1:
        target_ = f.section(1, "protocol");
        break;
      case 2:
        target_ = f.section(2, "header");
        break;
      case 4:
        target_ = f.section(4, "coefficients");
        break;
      case 3:
        target_ = z_.ic();
        break;
      case 9:
        target_ = z_.h();
        break;
      case 8:
        target_ = z_.c();
        break;
      case 5:
        target_ = z_.a();
        break;
      case 6:
        target_ = z_.b1();
        break;
      case 7:
        target_ = z_.b2();
        break;
      default:
        target_ = {};
        break;
    }
  }

  void write(std::span<const uint8_t> ours) override {
    if (type_ == 10 || ours.empty()) return;
    bool& bad = differs_[type_];
    if (bad) return;
    if (pos_ + ours.size() > target_.size()) {
      bad = true;
      return;
    }
    const auto theirs = target_.subspan(pos_, ours.size());
    if (type_ == 2) {
      // alpha1, beta1, beta2, gamma2 (and the sizes before them) precede delta1 and delta2, the
      // header's last two points: all of it but the deltas must equal the initial key's.
      const size_t deltas = z_.g1_size() + z_.g2_size();
      bad = ours.size() != target_.size() || ours.size() < deltas ||
            !std::equal(ours.begin(), ours.end() - ptrdiff_t(deltas), theirs.begin());
    } else if (type_ == 8 || type_ == 9) {
      accumulate(ours, theirs);
    } else {
      bad = !std::equal(ours.begin(), ours.end(), theirs.begin());
    }
    z_.file().release(theirs);
    pos_ += ours.size();
  }

  void end() override {
    if (type_ != 10 && pos_ != target_.size()) differs_[type_] = true;
  }

  // Whether section `type` differs (its first bad point's message in error(type) for 8, 9).
  bool differs(uint32_t type) const { return differs_[type]; }
  const std::string& error(uint32_t type) const { return error_[type]; }
  // e(R0, delta2_0) = e(R, delta2) for section 8 or 9 (delta2_0 = the generator).
  bool ratio_ok(uint32_t type, const ec::Affine<typename E::G2Params>& delta2) const {
    const auto r = acc_[type].to_affine(), r0 = acc0_[type].to_affine();
    if (r.is_identity() && r0.is_identity()) return true;
    return same_ratio<E>(r0, r, delta2, E::G2Params::generator());
  }

 private:
  void accumulate(std::span<const uint8_t> ours, std::span<const uint8_t> theirs) {
    using L1 = serde::snarkjs::Lem<G1>;
    const auto v = serde::Validation::SkipSubgroupCheck;
    const char* what = type_ == 8 ? "L" : "H";
    std::vector<ec::Affine<G1>> p, q;
    try {
      p = formats::detail::decode_section<G1>(z_, theirs, what, v, pool_, pos_ / L1::kSize);
    } catch (const formats::FormatError& e) {  // a point that is not on the curve: a corrupt key
      differs_[type_] = true;
      error_[type_] = e.what();
      return;
    }
    q = formats::detail::decode_section<G1>(z_, ours, what, v, pool_);
    std::vector<Fr> r(p.size());
    std::vector<uint8_t> rnd(8 * p.size());
    os_random(rnd);
    for (size_t i = 0; i < r.size(); ++i) {
      uint64_t x = 0;
      for (int b = 0; b < 8; ++b) x |= uint64_t(rnd[8 * i + b]) << (8 * b);
      r[i] = Fr::from_u64(x | 1);
    }
    acc_[type_] += msm::msm<G1>(std::span<const ec::Affine<G1>>(p), std::span<const Fr>(r), pool_);
    acc0_[type_] += msm::msm<G1>(std::span<const ec::Affine<G1>>(q), std::span<const Fr>(r), pool_);
  }

  const formats::ZkeyFile& z_;
  util::ThreadPool& pool_;
  uint32_t type_ = 0;
  size_t pos_ = 0;
  std::span<const uint8_t> target_;
  bool differs_[11] = {};
  std::string error_[11];
  J1 acc_[11], acc0_[11];
};

template <class E>
VerifyReport verify(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, const formats::ZkeyFile& z,
                    util::ThreadPool& pool) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1Params;
  using G2 = typename E::G2Params;
  using L1 = serde::snarkjs::Lem<G1>;
  using L2 = serde::snarkjs::Lem<G2>;
  VerifyReport rep;
  auto bad = [&](const std::string& why) {
    rep.ok = false;
    rep.reason = why;
    return rep;
  };
  const auto v = serde::Validation::Full;
  MpcParams mpc = read_mpc_params(z);
  Blake2b acc;
  acc.update(mpc.cs_hash);
  auto cur_delta = G1::generator();
  std::vector<std::string> contrib_lines;
  for (size_t i = 0; i < mpc.contributions.size(); ++i) {
    const auto& c = mpc.contributions[i];
    const std::string tag = "contribution #" + std::to_string(i + 1);
    ec::Affine<G1> g1_s, g1_sx, after;
    ec::Affine<G2> g2_spx;
    try {
      g1_s = L1::decode(c.g1_s, v), g1_sx = L1::decode(c.g1_sx, v), after = L1::decode(c.delta_after, v);
      g2_spx = L2::decode(c.g2_spx, v);
    } catch (const serde::DecodeError& e) {
      return bad(tag + ": invalid point: " + e.what());
    }
    Blake2b ours(acc);
    hash_u<G1>(ours, g1_s);
    hash_u<G1>(ours, g1_sx);
    if (ours.digest() != c.transcript) return bad(tag + ": inconsistent transcript");
    const auto g2_sp = hash_to_g2<E>(c.transcript).to_affine();
    if (!same_ratio<E>(g1_s, g1_sx, g2_sp, g2_spx))
      return bad(tag + ": public key G1 and G2 do not have the same ratio");
    if (!same_ratio<E>(cur_delta, after, g2_sp, g2_spx))
      return bad(tag + ": deltaAfter does not follow the public key");
    if (c.type == 1) {
      ChaCha rng = rng_from_beacon(c.beacon_hash, c.num_iterations_exp);
      const Fr d = field_from_rng<Fr>(rng);
      const auto es = point_from_rng<G1>(rng).to_affine();
      const auto esx = mul_fr<G1>(ec::Jacobian<G1>::from_affine(es), d).to_affine();
      if (es != g1_s) return bad(tag + ": key of the beacon does not match (g1_s)");
      if (esx != g1_sx) return bad(tag + ": key of the beacon does not match (g1_sx)");
    }
    hash_pub_key<E>(acc, c);
    Blake2b one;
    hash_pub_key<E>(one, c);
    std::string line = tag + (c.name ? " " + *c.name : "") + ":\n" + format_hash(one.digest());
    if (c.type == 1)
      line += "\n\tBeacon generator: " + util::to_hex(c.beacon_hash) +
              "\n\tBeacon iterations Exp: " + std::to_string(c.num_iterations_exp);
    contrib_lines.push_back(line);
    cur_delta = after;
  }

  CompareSink<E> cmp(z, pool);
  const InitZkeyInfo init = make_init_zkey(r1cs, ptau, cmp, nullptr, pool);
  if (z.n_vars() != init.n_vars || z.n_public() != init.n_public || z.domain_size() != init.domain_size)
    return bad("different circuit parameters (nVars " + std::to_string(z.n_vars()) + " vs " +
               std::to_string(init.n_vars) + ", nPublic " + std::to_string(z.n_public()) + " vs " +
               std::to_string(init.n_public) + ", domain " + std::to_string(z.domain_size()) + " vs " +
               std::to_string(init.domain_size) + ")");
  if (cmp.differs(2)) return bad("alpha, beta or gamma differ from the ceremony's (or a different curve/header)");
  ec::Affine<G1> delta1;
  ec::Affine<G2> delta2;
  try {
    delta1 = L1::decode(z.delta1(), v);
    delta2 = L2::decode(z.delta2(), v);
  } catch (const serde::DecodeError& e) {
    return bad(std::string("invalid delta: ") + e.what());
  }
  if (delta1 != cur_delta) return bad("invalid delta1 (not the last contribution's deltaAfter)");
  if (!same_ratio<E>(G1::generator(), cur_delta, G2::generator(), delta2)) return bad("invalid delta2");
  if (mpc.cs_hash != init.cs_hash) return bad("circuit hash does not match (a key for another circuit or ceremony)");
  if (cmp.differs(3)) return bad("IC section is not identical to the initial key's");
  if (cmp.differs(4)) return bad("coefficients section is not identical to the initial key's");
  if (cmp.differs(5)) return bad("A section is not identical to the initial key's");
  if (cmp.differs(6)) return bad("B1 section is not identical to the initial key's");
  if (cmp.differs(7)) return bad("B2 section is not identical to the initial key's");
  for (const auto& [type, name] : {std::pair<uint32_t, const char*>{8, "L"}, {9, "H"}}) {
    if (!cmp.error(type).empty()) return bad(cmp.error(type));
    if (cmp.differs(type) || !cmp.ratio_ok(type, delta2))
      return bad(std::string(name) + " section does not match (not the initial key's divided by delta)");
  }

  rep.ok = true;
  rep.log.push_back("Circuit hash:\n" + format_hash(mpc.cs_hash));
  for (size_t i = contrib_lines.size(); i-- > 0;) rep.log.push_back(contrib_lines[i]);
  return rep;
}

// The beacon hash argument: hex digits, a leading "0x" allowed (util::from_hex takes digits
// only, so the prefix is this argument's own rule).
std::vector<uint8_t> parse_beacon_hash(const std::string& s) {
  const std::string_view digits = std::string_view(s).substr(s.rfind("0x", 0) == 0 ? 2 : 0);
  auto bytes = util::from_hex(digits);
  if (!bytes || bytes->empty())
    throw std::invalid_argument("beacon hash '" + s + "' is not an even number of hex digits (1 to 255 bytes)");
  return std::move(*bytes);
}

}  // namespace

MpcParams read_mpc_params(const formats::ZkeyFile& f) {
  const auto& bf = f.file();
  formats::SectionReader rd(bf, bf.section(10, "contributions"), "contributions");
  MpcParams p;
  auto h = rd.take(64);
  std::copy(h.begin(), h.end(), p.cs_hash.begin());
  const uint32_t n = rd.u32();
  const size_t g1 = f.g1_size(), g2 = f.g2_size();
  if (uint64_t(n) * (3 * g1 + g2 + 72) > rd.remaining()) rd.fail(std::to_string(n) + " contributions: truncated");
  for (uint32_t i = 0; i < n; ++i) {
    Contribution c;
    auto cp = [&](size_t k) {
      auto s = rd.take(k);
      return std::vector<uint8_t>(s.begin(), s.end());
    };
    c.delta_after = cp(g1), c.g1_s = cp(g1), c.g1_sx = cp(g1), c.g2_spx = cp(g2);
    auto t = rd.take(64);
    std::copy(t.begin(), t.end(), c.transcript.begin());
    c.type = rd.u32();
    const uint32_t len = rd.u32();
    auto params = rd.take(len);
    size_t pos = 0;
    int last = 0;
    auto byte = [&]() {
      if (pos >= params.size()) rd.fail("contribution " + std::to_string(i + 1) + ": parameters truncated");
      return params[pos++];
    };
    while (pos < params.size()) {
      const int type = byte();
      if (type <= last) rd.fail("contribution " + std::to_string(i + 1) + ": parameters not sorted");
      last = type;
      if (type == 1) {
        const size_t l = byte();
        if (params.size() - pos < l) rd.fail("contribution " + std::to_string(i + 1) + ": name truncated");
        c.name = std::string(params.begin() + ptrdiff_t(pos), params.begin() + ptrdiff_t(pos + l));
        pos += l;
      } else if (type == 2) {
        c.num_iterations_exp = byte();
      } else if (type == 3) {
        const size_t l = byte();
        if (params.size() - pos < l) rd.fail("contribution " + std::to_string(i + 1) + ": beacon hash truncated");
        c.beacon_hash.assign(params.begin() + ptrdiff_t(pos), params.begin() + ptrdiff_t(pos + l));
        pos += l;
      } else {
        rd.fail("contribution " + std::to_string(i + 1) + ": unknown parameter " + std::to_string(type));
      }
    }
    p.contributions.push_back(std::move(c));
  }
  rd.expect_end();
  return p;
}

std::vector<uint8_t> encode_mpc_params(const MpcParams& p) {
  std::vector<uint8_t> b(p.cs_hash.begin(), p.cs_hash.end());
  put_u32(b, uint32_t(p.contributions.size()));
  for (const auto& c : p.contributions) {
    for (const auto* v : {&c.delta_after, &c.g1_s, &c.g1_sx, &c.g2_spx}) b.insert(b.end(), v->begin(), v->end());
    b.insert(b.end(), c.transcript.begin(), c.transcript.end());
    put_u32(b, c.type);
    std::vector<uint8_t> params;
    if (c.name) {
      const std::string nm = utf8_prefix(*c.name, 64);
      params.push_back(1);
      params.push_back(uint8_t(std::min<size_t>(nm.size(), 255)));
      params.insert(params.end(), nm.begin(), nm.begin() + ptrdiff_t(std::min<size_t>(nm.size(), 255)));
    }
    if (c.type == 1) {
      params.push_back(2);
      params.push_back(c.num_iterations_exp);
      params.push_back(3);
      params.push_back(uint8_t(c.beacon_hash.size()));
      params.insert(params.end(), c.beacon_hash.begin(), c.beacon_hash.end());
    }
    put_u32(b, uint32_t(params.size()));
    b.insert(b.end(), params.begin(), params.end());
  }
  return b;
}

ContributeResult zkey_contribute(const std::string& in, const std::string& out, const std::string& name,
                                 const std::string& entropy, util::ThreadPool& pool) {
  auto f = formats::ZkeyFile::open(in);
  ChaCha rng = rng_from_entropy(entropy);
  Contribution c;
  c.type = 0;
  if (!name.empty()) c.name = name;
  return curves::with_curve(f.curve(), [&]<class E>(E) { return contribute<E>(f, out, c, rng, pool); });
}

ContributeResult zkey_beacon(const std::string& in, const std::string& out, const std::string& name,
                             const std::string& beacon_hex, unsigned num_iterations_exp, util::ThreadPool& pool) {
  const auto hash = parse_beacon_hash(beacon_hex);
  if (hash.size() > 255) throw std::invalid_argument("beacon hash longer than 255 bytes");
  if (num_iterations_exp < 10 || num_iterations_exp > 63)
    throw std::invalid_argument("beacon iterations exponent must be between 10 and 63, not " +
                                std::to_string(num_iterations_exp));
  auto f = formats::ZkeyFile::open(in);
  ChaCha rng = rng_from_beacon(hash, num_iterations_exp);
  Contribution c;
  c.type = 1;
  c.num_iterations_exp = uint8_t(num_iterations_exp);
  c.beacon_hash = hash;
  if (!name.empty()) c.name = name;
  return curves::with_curve(f.curve(), [&]<class E>(E) { return contribute<E>(f, out, c, rng, pool); });
}

VerifyReport zkey_verify(const std::string& r1cs_path, const std::string& ptau_path, const std::string& zkey_path,
                         util::ThreadPool& pool) {
  auto r1cs = formats::R1csFile::open(r1cs_path);
  auto ptau = formats::PtauFile::open(ptau_path);
  auto z = formats::ZkeyFile::open(zkey_path);
  if (r1cs.header().curve != ptau.curve())
    throw std::runtime_error(r1cs_path + " is a " + curve_snarkjs_name(r1cs.header().curve) + " circuit but " +
                             ptau_path + " is a " + curve_snarkjs_name(ptau.curve()) + " powers of tau");
  if (z.curve() != ptau.curve()) {
    VerifyReport r;
    r.reason = zkey_path + " is a " + curve_snarkjs_name(z.curve()) + " key, the circuit is " +
               curve_snarkjs_name(ptau.curve());
    return r;
  }
  return curves::with_curve(z.curve(), [&]<class E>(E) { return verify<E>(r1cs, ptau, z, pool); });
}

}  // namespace zkmill::setup
