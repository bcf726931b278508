// SPDX-License-Identifier: MIT
// snarkjs Groth16 proving keys (.zkey, version 1): the container is parsed and bounds-checked
// in place (ZkeyFile); the typed key (ZkeyProvingKey<E>) holds the points decoded once into
// ec::Affine vectors for the MSM and keeps reading the coefficient section from the mapping.
//
// Sections (snarkjs src/zkey_utils.js): 1 protocol (u32, 1 = Groth16); 2 Groth16 header
// (u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic, u32 domainSize, alpha1, beta1, beta2,
// gamma2, delta1, delta2); 3 IC (nPublic + 1 G1); 4 coefficients (u32 count, then per entry
// u32 matrix (0 = A, 1 = B), u32 constraint row, u32 signal, n8r-byte c R^2 mod r); 5 A, 6 B1
// (nVars G1 each), 7 B2 (nVars G2), 8 C (nVars - nPublic - 1 G1: signals after the public
// ones), 9 H (domainSize G1); 10 contributions (ignored). Points are LE Montgomery x || y.
//
// Why decode rather than map the points: an ec::Affine is x, y (Montgomery limbs, the same
// bytes as the file's) plus an infinity flag and padding, 72 bytes for BN254 G1 against the
// file's 64, so the file's arrays are not arrays of ec::Affine. Decoding costs one pass and
// memory of about 1.1x the point sections (the mapping itself is page cache, dropped as the
// decode streams through it).
//
// Validation (trust/cost): every coordinate is checked canonical (< q) and every point on
// its curve: a few multiplications a point, it turns a corrupted or truncated-and-padded file
// into a clear error instead of a wrong proof. Subgroup membership is checked for the
// verifying-key points (alpha, beta, gamma, delta: 6 points) but NOT for the bulk sections:
// it costs a scalar multiplication a point (hundreds of times the rest), and a .zkey is
// trusted input from the phase-2 ceremony that produced it (snarkjs zkey verify checks it
// against the transcript). A malicious bulk point can only make our own proof fail to verify,
// and prove checks its proof before writing it.
#pragma once

#include <atomic>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "common/formats/binfile.hpp"
#include "common/groth16/proving_key.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::formats {

// The Groth16 header and the raw sections, validated for size and shape (not content).
class ZkeyFile {
 public:
  static ZkeyFile open(const std::string& path);
  static ZkeyFile parse(std::span<const uint8_t> bytes, std::string name);

  const BinFile& file() const { return file_; }
  const std::string& name() const { return file_.name(); }
  CurveId curve() const { return curve_; }
  uint32_t n8q() const { return n8q_; }
  uint32_t n8r() const { return n8r_; }
  uint32_t n_vars() const { return n_vars_; }
  uint32_t n_public() const { return n_public_; }  // excluding ONE
  uint32_t domain_size() const { return domain_size_; }
  uint32_t log_domain_size() const { return log_domain_; }
  uint32_t n_coefs() const { return n_coefs_; }
  size_t g1_size() const { return 2 * size_t(n8q_); }
  size_t g2_size() const { return 4 * size_t(n8q_); }
  size_t coef_size() const { return 12 + size_t(n8r_); }

  // Header points in file order alpha1, beta1, beta2, gamma2, delta1, delta2.
  std::span<const uint8_t> alpha1() const { return header_pts_.subspan(0, g1_size()); }
  std::span<const uint8_t> beta1() const { return header_pts_.subspan(g1_size(), g1_size()); }
  std::span<const uint8_t> beta2() const { return header_pts_.subspan(2 * g1_size(), g2_size()); }
  std::span<const uint8_t> gamma2() const { return header_pts_.subspan(2 * g1_size() + g2_size(), g2_size()); }
  std::span<const uint8_t> delta1() const { return header_pts_.subspan(2 * g1_size() + 2 * g2_size(), g1_size()); }
  std::span<const uint8_t> delta2() const { return header_pts_.subspan(3 * g1_size() + 2 * g2_size(), g2_size()); }
  std::span<const uint8_t> ic() const { return ic_; }
  std::span<const uint8_t> coefs() const { return coefs_; }  // the entries, after the count
  std::span<const uint8_t> a() const { return a_; }
  std::span<const uint8_t> b1() const { return b1_; }
  std::span<const uint8_t> b2() const { return b2_; }
  std::span<const uint8_t> c() const { return c_; }
  std::span<const uint8_t> h() const { return h_; }

  [[noreturn]] void fail(const std::string& msg) const { file_.fail(msg); }

 private:
  explicit ZkeyFile(BinFile f);
  std::span<const uint8_t> points(uint32_t type, const char* what, uint64_t count, size_t size) const;

  BinFile file_;
  CurveId curve_{};
  uint32_t n8q_ = 0, n8r_ = 0, n_vars_ = 0, n_public_ = 0, domain_size_ = 0, log_domain_ = 0, n_coefs_ = 0;
  std::span<const uint8_t> header_pts_, ic_, coefs_, a_, b1_, b2_, c_, h_;
};

// The typed proving key. vk carries alpha/beta/delta in both groups where Groth16 has them.
template <class E>
struct ZkeyProvingKey {
  using G1A = typename E::G1Affine;
  using G2A = typename E::G2Affine;
  ZkeyFile file;  // keeps the mapping (and the coefficient section) alive
  groth16::VerifyingKey<E> vk;
  std::vector<G1A> a, b1, c, h;
  std::vector<G2A> b2;

  uint32_t n_vars() const { return file.n_vars(); }
  uint32_t n_public() const { return file.n_public(); }
  size_t domain_size() const { return file.domain_size(); }
};

namespace detail {

// Decodes count back-to-back LEM points across the pool; the first failure (lowest chunk
// reported) becomes a FormatError naming the file, section and point index (counted from
// `first_index`, for callers that stream a section in chunks).
template <class G>
std::vector<ec::Affine<G>> decode_section(const ZkeyFile& f, std::span<const uint8_t> bytes, const char* what,
                                          serde::Validation v, util::ThreadPool& pool, size_t first_index = 0) {
  using Codec = serde::snarkjs::Lem<G>;
  const size_t n = bytes.size() / Codec::kSize;
  std::vector<ec::Affine<G>> out(n);
  std::mutex mu;
  std::string error;
  std::atomic<bool> failed{false};
  pool.parallel_for(
      n,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end && !failed.load(std::memory_order_relaxed); ++i) {
          try {
            out[i] = Codec::decode(bytes.subspan(i * Codec::kSize, Codec::kSize), v);
          } catch (const serde::DecodeError& e) {
            std::lock_guard lock(mu);
            if (!failed.exchange(true))
              error = std::string(what) + " point " + std::to_string(first_index + i) + ": " + e.what();
            return;
          }
        }
      },
      1024);
  if (failed) f.fail(error);
  return out;
}

template <class G>
ec::Affine<G> decode_one(const ZkeyFile& f, std::span<const uint8_t> bytes, const char* what) {
  try {
    return serde::snarkjs::Lem<G>::decode(bytes, serde::Validation::Full);
  } catch (const serde::DecodeError& e) {
    f.fail(std::string("header point ") + what + ": " + e.what());
  }
}

}  // namespace detail

// Checks every coefficient entry (matrix in {0, 1}, row < domainSize, signal < nVars,
// value < r) once, so the prover's hot loop reads the mapped entries without checks.
void validate_zkey_coefs(const ZkeyFile& f);

// The verifying key alone (header points and IC, fully validated): what
// `zkey export verificationkey` needs, without decoding the bulk sections.
template <class E>
groth16::VerifyingKey<E> load_zkey_vk(const ZkeyFile& f, util::ThreadPool& pool = util::ThreadPool::global()) {
  using G1 = typename E::G1Params;
  using G2 = typename E::G2Params;
  if (f.curve() != E::kId)
    f.fail(std::string("is a ") + curve_snarkjs_name(f.curve()) + " key, expected " + curve_snarkjs_name(E::kId));
  groth16::VerifyingKey<E> vk;
  vk.alpha_g1 = detail::decode_one<G1>(f, f.alpha1(), "alpha1");
  vk.beta_g1 = detail::decode_one<G1>(f, f.beta1(), "beta1");
  vk.beta_g2 = detail::decode_one<G2>(f, f.beta2(), "beta2");
  vk.gamma_g2 = detail::decode_one<G2>(f, f.gamma2(), "gamma2");
  vk.delta_g1 = detail::decode_one<G1>(f, f.delta1(), "delta1");
  vk.delta_g2 = detail::decode_one<G2>(f, f.delta2(), "delta2");
  vk.ic = detail::decode_section<G1>(f, f.ic(), "IC", serde::Validation::Full, pool);
  return vk;
}

template <class E>
ZkeyProvingKey<E> load_zkey(ZkeyFile f, util::ThreadPool& pool = util::ThreadPool::global()) {
  using G1 = typename E::G1Params;
  using G2 = typename E::G2Params;
  ZkeyProvingKey<E> k{f, load_zkey_vk<E>(f, pool), {}, {}, {}, {}, {}};
  validate_zkey_coefs(f);
  const auto bulk = serde::Validation::SkipSubgroupCheck;
  k.a = detail::decode_section<G1>(f, f.a(), "A", bulk, pool);
  k.b1 = detail::decode_section<G1>(f, f.b1(), "B1", bulk, pool);
  k.b2 = detail::decode_section<G2>(f, f.b2(), "B2", bulk, pool);
  k.c = detail::decode_section<G1>(f, f.c(), "C", bulk, pool);
  k.h = detail::decode_section<G1>(f, f.h(), "H", bulk, pool);
  return k;
}

}  // namespace zkmill::formats
