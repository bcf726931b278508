// SPDX-License-Identifier: MIT
// .zkey container parsing (zkey.hpp): protocol, Groth16 header and the size of every section.
#include "common/formats/zkey.hpp"

#include <bit>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"

namespace zkmill::formats {

ZkeyFile ZkeyFile::open(const std::string& path) { return ZkeyFile(BinFile::open(path, "zkey", 1, 1)); }
ZkeyFile ZkeyFile::parse(std::span<const uint8_t> bytes, std::string name) {
  return ZkeyFile(BinFile::parse(bytes, std::move(name), "zkey", 1, 1));
}

ZkeyFile::ZkeyFile(BinFile f) : file_(std::move(f)) {
  {
    SectionReader rd(file_, file_.section(1, "protocol"), "protocol");
    uint32_t protocol = rd.u32();
    if (protocol == 2) fail("is a PLONK key; only Groth16 keys are supported");
    if (protocol == 10) fail("is an FFLONK key; only Groth16 keys are supported");
    if (protocol != 1) fail("unknown protocol id " + std::to_string(protocol) + "; only Groth16 (1) is supported");
  }
  SectionReader rd(file_, file_.section(2, "Groth16 header"), "Groth16 header");
  n8q_ = rd.u32();
  if (n8q_ != 32 && n8q_ != 48)
    rd.fail("base field size " + std::to_string(n8q_) + " bytes is not bn128's or bls12381's");
  auto q = rd.take(n8q_);
  auto curve = curve_from_base_prime(q);
  if (!curve) rd.fail("curve with base prime " + prime_to_dec(q) + " is not supported (only bn128 and bls12381)");
  curve_ = *curve;
  n8r_ = rd.u32();
  if (n8r_ != 32) rd.fail("scalar field size " + std::to_string(n8r_) + " bytes does not match the curve");
  auto r = rd.take(n8r_);
  if (curve_from_scalar_prime(r) != curve_) rd.fail("scalar prime does not belong to the curve of the base prime");
  n_vars_ = rd.u32();
  n_public_ = rd.u32();
  domain_size_ = rd.u32();
  header_pts_ = rd.take(3 * g1_size() + 3 * g2_size());
  rd.expect_end();
  if (n_vars_ == 0 || uint64_t(n_public_) + 1 > n_vars_)
    fail("header: nPublic " + std::to_string(n_public_) + " + 1 exceeds nVars " + std::to_string(n_vars_));
  if (domain_size_ == 0 || !std::has_single_bit(domain_size_))
    fail("header: domain size " + std::to_string(domain_size_) + " is not a power of two");
  log_domain_ = uint32_t(std::countr_zero(domain_size_));
  // snarkjs evaluates h on the coset of the 2n-th roots, so 2n must divide r - 1.
  const size_t two_adicity =
      curve_ == CurveId::Bn254 ? curves::Bn254::Fr::kTwoAdicity : curves::Bls12381::Fr::kTwoAdicity;
  if (log_domain_ >= two_adicity)
    fail("header: domain 2^" + std::to_string(log_domain_) + " is too large for the field");

  ic_ = points(3, "IC", uint64_t(n_public_) + 1, g1_size());
  {
    SectionReader cr(file_, file_.section(4, "coefficients"), "coefficients");
    n_coefs_ = cr.u32();
    if (uint64_t(n_coefs_) * coef_size() != cr.remaining())
      cr.fail(std::to_string(n_coefs_) + " entries of " + std::to_string(coef_size()) + " bytes need " +
              std::to_string(uint64_t(n_coefs_) * coef_size()) + " bytes, the section has " +
              std::to_string(cr.remaining()));
    coefs_ = cr.take(cr.remaining());
  }
  a_ = points(5, "A", n_vars_, g1_size());
  b1_ = points(6, "B1", n_vars_, g1_size());
  b2_ = points(7, "B2", n_vars_, g2_size());
  c_ = points(8, "C", uint64_t(n_vars_) - n_public_ - 1, g1_size());
  h_ = points(9, "H", domain_size_, g1_size());
}

std::span<const uint8_t> ZkeyFile::points(uint32_t type, const char* what, uint64_t count, size_t size) const {
  auto s = file_.section(type, what);
  if (s.size() != count * size)
    fail(std::string(what) + " section has " + std::to_string(s.size()) + " bytes, expected " + std::to_string(count) +
         " points of " + std::to_string(size) + " bytes (truncated or corrupt)");
  return s;
}

void validate_zkey_coefs(const ZkeyFile& f) {
  const auto bytes = f.coefs();
  const size_t sz = f.coef_size();
  auto check = [&]<class F>(F) {
    for (uint32_t i = 0; i < f.n_coefs(); ++i) {
      const uint8_t* e = bytes.data() + size_t(i) * sz;
      uint32_t m = load_u32_le(e), row = load_u32_le(e + 4), sig = load_u32_le(e + 8);
      if (m > 1)
        f.fail("coefficient " + std::to_string(i) + ": matrix " + std::to_string(m) + " is not A (0) or B (1)");
      if (row >= f.domain_size())
        f.fail("coefficient " + std::to_string(i) + ": row " + std::to_string(row) + " >= domain size " +
               std::to_string(f.domain_size()));
      if (sig >= f.n_vars())
        f.fail("coefficient " + std::to_string(i) + ": signal " + std::to_string(sig) + " >= nVars " +
               std::to_string(f.n_vars()));
      if (!F::from_mont_bytes_le(e + 12))
        f.fail("coefficient " + std::to_string(i) + ": value is not canonical (>= r)");
    }
  };
  if (f.curve() == CurveId::Bn254)
    check(curves::Bn254::Fr{});
  else
    check(curves::Bls12381::Fr{});
}

}  // namespace zkmill::formats
