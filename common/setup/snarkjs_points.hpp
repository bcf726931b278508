// SPDX-License-Identifier: MIT
// Point encodings of snarkjs's phase-2 hashes, beside the LEM file layout (serde/snarkjs_binary):
//   - "U" (ffjavascript toRprUncompressed / batchLEMtoU): affine x || y, each coordinate the
//     canonical big-endian integer, an Fq2 coordinate c1 || c0; the point at infinity is all
//     zero bytes (no flag bit, unlike zcash's uncompressed form). Every circuit hash and
//     transcript hash is over these bytes.
//   - raw LEM words taken without validation: zkey new's circuit hash reads one point past the
//     end of the ptau's tauG1 section when the circuit fills a ceremony of more than 2^14 + 1
//     points (see setup/zkey_new.cpp); ffjavascript's WebAssembly arithmetic treats those bytes
//     as Montgomery words, and its add/sub are not mod-q arithmetic on words >= q, so
//     ffjs_sub_affine reproduces its subtraction step by step.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/serde/codec.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/setup/hash.hpp"

namespace zkmill::setup {

// Appends v little-endian, as snarkjs writes the u32 fields of its contribution records.
inline void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

template <class G>
constexpr size_t kUSize = 2 * serde::kCoordBytes<typename G::Base>;

template <class G>
void encode_u(const ec::Affine<G>& p, uint8_t* out) {
  constexpr size_t n = serde::kCoordBytes<typename G::Base>;
  if (p.infinity) {
    std::fill(out, out + 2 * n, uint8_t(0));
    return;
  }
  serde::put_coord<serde::Layout::BigEndianC1First>(p.x, out);
  serde::put_coord<serde::Layout::BigEndianC1First>(p.y, out + n);
}

template <class G>
void hash_u(Blake2b& h, const ec::Affine<G>& p) {
  uint8_t b[kUSize<G>];
  encode_u<G>(p, b);
  h.update(b);
}

// wasmcurves' F1m (build_f1m.js) bit for bit on raw Montgomery words of any value < 2^(64 N),
// not only the canonical ones: add and sub correct by one q and wrap mod 2^(64 N), so on words
// >= q they are not arithmetic mod q; mul (Montgomery, one conditional subtraction) stays
// congruent but its output may be >= q. Needed where snarkjs feeds such words to its group law.
template <class Fq>
struct WasmF1m {
  static constexpr size_t N = Fq::N;
  using L = ff::Limbs<N>;
  static const L& q() { return Fq::modulus(); }
  static bool sub_raw(L& r, const L& a, const L& b) {  // r = a - b mod 2^(64N); borrow out
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) {
      const unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
      r[i] = uint64_t(d);
      borrow = uint64_t(d >> 64) ? 1 : 0;
    }
    return borrow != 0;
  }
  static bool add_raw(L& r, const L& a, const L& b) {  // r = a + b mod 2^(64N); carry out
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) {
      const unsigned __int128 s = (unsigned __int128)a[i] + b[i] + carry;
      r[i] = uint64_t(s);
      carry = uint64_t(s >> 64);
    }
    return carry != 0;
  }
  // f1m_add: int add; on carry, or if the sum >= q, subtract q (wrapping).
  static L add(const L& a, const L& b) {
    L r;
    if (add_raw(r, a, b) || ff::cmp(r, q()) >= 0) sub_raw(r, r, q());
    return r;
  }
  // f1m_sub: int sub; on borrow add q (wrapping).
  static L sub(const L& a, const L& b) {
    L r;
    if (sub_raw(r, a, b)) add_raw(r, r, q());
    return r;
  }
  // f1m_mul / f1m_square: T = (a b + m q) / 2^(64N), m = -a b q^-1 mod 2^(64N) (unique, so the
  // 32-bit limbs of wasm give the same T); T < 2^(64N) + q; subtract q once if T >= q.
  static L mul(const L& a, const L& b) {
    static const uint64_t inv = [] {  // -q^-1 mod 2^64, by Newton's iteration
      uint64_t v = 1;
      for (int i = 0; i < 7; ++i) v *= 2 - q()[0] * v;
      return 0 - v;
    }();
    std::array<uint64_t, 2 * N + 1> t{};
    // t += x y 2^(64 i), the carry carried up as far as it goes.
    auto add_mul = [&t](size_t i, uint64_t x, const L& y) {
      uint64_t c = 0;
      for (size_t j = 0; j < N; ++j) {
        const unsigned __int128 s = (unsigned __int128)x * y[j] + t[i + j] + c;
        t[i + j] = uint64_t(s);
        c = uint64_t(s >> 64);
      }
      for (size_t k = i + N; c; ++k) {
        const unsigned __int128 s = (unsigned __int128)t[k] + c;
        t[k] = uint64_t(s);
        c = uint64_t(s >> 64);
      }
    };
    for (size_t i = 0; i < N; ++i) add_mul(i, a[i], b);
    for (size_t i = 0; i < N; ++i) add_mul(i, t[i] * inv, q());
    L r;
    std::copy_n(t.begin() + N, N, r.begin());
    if (t[2 * N] != 0 || ff::cmp(r, q()) >= 0) sub_raw(r, r, q());
    return r;
  }
  static L word(const uint8_t* in) {
    L w{};
    for (size_t i = 0; i < Fq::kBytes; ++i) w[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
    return w;
  }
  static Fq reduce(L w) {  // the residue; w < 2^(64 N) < 16 q for both curves
    while (ff::cmp(w, q()) >= 0) sub_raw(w, w, q());
    return Fq::from_raw_mont(w);
  }
};

// ffjavascript's g1m_subAffine(p1, p2) (wasmcurves build_curve_jacobian_a0.js: negAffine, then
// addAffine's add-2007-bl chord formula) on two LEM points taken as raw words, as zkey new's
// circuit hash does (snarkjs src/zkey_new.js, hashHPointsChunk); the Jacobian result's
// coordinates are then reduced mod q, which batchToAffine and batchLEMtoU (multiplications and
// a Montgomery reduction only) respect. Exact for any bytes, including words >= q and points
// off the curve, where ordinary field arithmetic would differ (add/sub wrap mod 2^(64 N)).
template <class G>
ec::Jacobian<G> ffjs_sub_affine(const uint8_t* p1, const uint8_t* p2) {
  using Fq = typename G::Base;
  static_assert(!serde::QuadraticExt<Fq>, "G1 only");
  using F = WasmF1m<Fq>;
  using L = typename F::L;
  const L x1 = F::word(p1), y1 = F::word(p1 + Fq::kBytes), x2 = F::word(p2);
  const L y2 = F::sub(L{}, F::word(p2 + Fq::kBytes));  // negAffine: y = 0 - y
  auto zero = [](const L& v) { return std::all_of(v.begin(), v.end(), [](uint64_t w) { return w == 0; }); };
  auto jac = [](const L& x, const L& y, const L& z) {
    return ec::Jacobian<G>{F::reduce(x), F::reduce(y), F::reduce(z)};
  };
  const L one = Fq::one().v;
  if (zero(x1) && zero(y1)) return jac(x2, y2, one);
  if (zero(x2) && zero(y2)) return jac(x1, y1, one);
  if (x1 == x2 && y1 == y2) return jac(x2, y2, one).dbl();  // doubleAffine(-p2)
  const L h = F::sub(x2, x1), dy = F::sub(y2, y1), hh = F::mul(h, h);
  L i = F::add(hh, hh);
  i = F::add(i, i);
  const L j = F::mul(h, i), r = F::add(dy, dy), v = F::mul(x1, i), r2 = F::mul(r, r), v2 = F::add(v, v);
  const L x3 = F::sub(F::sub(r2, j), v2);
  L y1j = F::mul(y1, j);
  y1j = F::add(y1j, y1j);
  const L y3 = F::sub(F::mul(F::sub(v, x3), r), y1j);
  return jac(x3, y3, F::add(h, h));
}

}  // namespace zkmill::setup
