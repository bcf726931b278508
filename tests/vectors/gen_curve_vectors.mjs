// SPDX-License-Identifier: MIT
// Generates the curve/encoding test vectors tests/vectors/*_points.json from @noble/curves.
//
// @noble/curves is an independent implementation; files: {bn254,bls12_381}{,_g2}_points.json.
//
// Run from tests/vectors: `npm install && node gen_curve_vectors.mjs`. Output is deterministic
// (fixed scalars, SHA-256-derived "random" values), so re-running must reproduce the committed
// files byte for byte. The C++ tests (tests/common/serde/vectors_test.cpp) check that zkmill's
// scalar multiples, sums and encodings equal noble's, and that every invalid encoding is
// rejected for the listed reason (names as serde::to_string(DecodeErrc)).
//
// Formats (see common/serde/*.hpp for the specs):
//   zcash_compressed / zcash_uncompressed  BLS12-381 only; produced by noble's toHex(bool)
//                                           for subgroup points, by `zcash()` below otherwise
//                                           (checked equal to noble on every valid point first);
//   evm                                    BN254 EIP-196/197 (big-endian x||y, Fq2 as c1||c0);
//   snarkjs_lem                            both curves: x||y, little-endian Montgomery, Fq2 c0||c1.
// noble has no byte encoding for BN254 points ("there is no standard"), so for BN254 the
// independent part is the coordinates; the byte layouts are the spec's, written out here.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';

const here = dirname(fileURLToPath(import.meta.url));
const hex = (u8) => Buffer.from(u8).toString('hex');
const sha = (s) => BigInt('0x' + createHash('sha256').update(s).digest('hex'));
const assert = (c, m) => { if (!c) throw new Error('assertion failed: ' + m); };

// Fixed-width integer <-> bytes.
const be = (v, n) => { const b = new Uint8Array(n); for (let i = n - 1; i >= 0; i--, v >>= 8n) b[i] = Number(v & 0xffn); return b; };
const le = (v, n) => be(v, n).reverse();
const cat = (...a) => Buffer.concat(a.map((x) => Buffer.from(x)));

function makeCurve(name, curve, { b1, b2, fpBytes, frBytes }) {
  const { Fp, Fp2, Fr } = curve.fields;
  const p = Fp.ORDER, r = Fr.ORDER;
  const half = (p - 1n) / 2n;
  const R = 1n << BigInt(8 * fpBytes);
  const isFp2 = (v) => typeof v === 'object';
  const lem1 = (v) => le((v * R) % p, fpBytes);                   // Montgomery word, LE
  const be1 = (v) => be(v, fpBytes);
  const coord = {
    lem: (v) => (isFp2(v) ? cat(lem1(v.c0), lem1(v.c1)) : lem1(v)),
    be: (v) => (isFp2(v) ? cat(be1(v.c1), be1(v.c0)) : be1(v)),    // zcash / EIP-197 order c1||c0
    dec: (v) => (isFp2(v) ? [v.c0.toString(), v.c1.toString()] : v.toString()),
  };
  const lexLargest = (y) => (isFp2(y) ? (y.c1 !== 0n ? y.c1 > half : y.c0 > half) : y > half);
  const n = (fp2) => (fp2 ? 2 * fpBytes : fpBytes);
  // zcash flags: 0x80 compressed, 0x40 infinity, 0x20 sort (y lexicographically largest).
  function zcash(a, fp2, compressed) {
    let out;
    if (a === null) { out = new Uint8Array(compressed ? n(fp2) : 2 * n(fp2)); out[0] = compressed ? 0xc0 : 0x40; return out; }
    out = compressed ? coord.be(a.x) : cat(coord.be(a.x), coord.be(a.y));
    out = new Uint8Array(out);
    if (compressed) out[0] |= 0x80 | (lexLargest(a.y) ? 0x20 : 0);
    return out;
  }
  const evm = (a, fp2) => (a === null ? new Uint8Array(2 * n(fp2)) : cat(coord.be(a.x), coord.be(a.y)));
  const lem = (a, fp2) => (a === null ? new Uint8Array(2 * n(fp2)) : cat(coord.lem(a.x), coord.lem(a.y)));

  function describe(P, group) {
    const fp2 = group === 'g2';
    const a = P.is0() ? null : P.toAffine();
    const o = a === null ? { infinity: true } : { infinity: false, x: coord.dec(a.x), y: coord.dec(a.y) };
    if (name === 'bls12-381') {
      o.zcash_compressed = hex(zcash(a, fp2, true));
      o.zcash_uncompressed = hex(zcash(a, fp2, false));
      // noble refuses to encode non-members, and a zero reached by P + (-P) (use its ZERO).
      const Q = P.is0() ? curve[group.toUpperCase()].Point.ZERO : P;
      if (Q.isTorsionFree()) {
        assert(o.zcash_compressed === Q.toHex(true), `${name} ${group} compressed matches noble`);
        assert(o.zcash_uncompressed === Q.toHex(false), `${name} ${group} uncompressed matches noble`);
      }
    } else {
      o.evm = hex(evm(a, fp2));
    }
    o.snarkjs_lem = hex(lem(a, fp2));
    return o;
  }

  // Curve points off the subgroup: x = H(seed) + i for the first i making x^3 + b a square.
  function hashedPoint(group, seed) {
    const fp2 = group === 'g2';
    const F = fp2 ? Fp2 : Fp;
    const b = fp2 ? b2 : b1;
    let x = fp2 ? Fp2.fromBigTuple([sha(seed + '/c0') % p, sha(seed + '/c1') % p]) : sha(seed) % p;
    for (;;) {
      const rhs = F.add(F.mul(F.sqr(x), x), b);
      let y = null;
      try { y = F.sqrt(rhs); } catch { y = null; }
      if (y !== null && F.eql(F.sqr(y), rhs)) return curve[group.toUpperCase()].Point.fromAffine({ x, y });
      x = F.add(x, F.ONE);
    }
  }
  function nonSquareX(group, start) {
    const fp2 = group === 'g2';
    const F = fp2 ? Fp2 : Fp;
    const b = fp2 ? b2 : b1;
    let x = fp2 ? Fp2.fromBigTuple([start, 1n]) : start;
    for (;;) {
      const rhs = F.add(F.mul(F.sqr(x), x), b);
      let ok = true;
      try { const y = F.sqrt(rhs); ok = F.eql(F.sqr(y), rhs); } catch { ok = false; }
      if (!ok) return x;
      x = F.add(x, F.ONE);
    }
  }

  const scalars = [1n, 2n, 3n, 5n, sha(`zkmill ${name} k0`) % r, sha(`zkmill ${name} k1`) % r, (1n << 128n) + 7n, r - 1n];

  function group(g) {
    const fp2 = g === 'g2';
    const Point = curve[g.toUpperCase()].Point;
    const pts = scalars.map((k) => Point.BASE.multiply(k));
    const multiples = [{ k: '0', ...describe(Point.ZERO, g) }, ...scalars.map((k, i) => ({ k: k.toString(), ...describe(pts[i], g) }))];
    const all = [Point.ZERO, ...pts];
    // Sums P_a + P_b over indices into `multiples`: generic, doubling, P + (-P), P + O.
    const pairs = [[1, 2], [5, 6], [3, 3], [6, 6], [1, 8], [4, 0], [0, 0], [7, 5]];
    const sums = pairs.map(([a, b]) => {
      const s = all[a].add(all[b]);
      const d = describe(s, g);
      return { a, b, infinity: d.infinity, ...(d.infinity ? {} : { x: d.x, y: d.y }) };
    });
    // Points on the curve outside the prime-order subgroup (none for BN254 G1: cofactor 1).
    // Each of their encodings must decode under SkipSubgroupCheck and fail 'not_in_subgroup'
    // under full validation, so they are not repeated in `invalid`.
    const nonSubgroup = [];
    if (!(name === 'bn254' && g === 'g1')) {
      for (let i = 0; i < 2; i++) {
        const P = hashedPoint(g, `zkmill ${name} ${g} nonsubgroup ${i}`);
        assert(!P.isTorsionFree(), 'hashed point outside the subgroup');
        nonSubgroup.push(describe(P, g));
      }
    }
    // Invalid encodings with the expected rejection reason.
    const invalid = [];
    const add = (format, bytes, reason, note) => invalid.push({ format, hex: hex(bytes), reason, note });
    const G = Point.BASE.toAffine();
    const W = n(fp2);
    const pbytes = fp2 ? cat(be1(p), be1(0n)) : be1(p);  // a coordinate equal to p (c1 = p for Fq2)
    const lemP = fp2 ? cat(le(p, fpBytes), le(0n, fpBytes)) : le(p, fpBytes);  // Montgomery word p
    const gLem = lem(G, fp2);
    add('snarkjs_lem', gLem.subarray(0, 2 * W - 1), 'wrong_length', 'one byte short');
    add('snarkjs_lem', cat(lemP, gLem.subarray(W)), 'non_canonical', 'x word = p');
    add('snarkjs_lem', cat(gLem.subarray(0, W), lemP), 'non_canonical', 'y word = p');
    const off = { x: G.x, y: fp2 ? Fp2.add(G.y, Fp2.ONE) : Fp.add(G.y, 1n) };
    add('snarkjs_lem', lem(off, fp2), 'not_on_curve', 'generator with y + 1');
    const nearZero = new Uint8Array(2 * W); nearZero[2 * W - 1] = 1;
    add('snarkjs_lem', nearZero, 'not_on_curve', 'all zero but the last byte (not infinity)');
    if (name === 'bls12-381') {
      const gc = zcash(G, fp2, true), gu = zcash(G, fp2, false);
      const flip = (b, set, clear) => { const c = new Uint8Array(b); c[0] = (c[0] | set) & ~clear; return c; };
      add('zcash_compressed', gc.subarray(0, W - 1), 'wrong_length', `${W - 1} bytes`);
      add('zcash_compressed', cat(gc, [0]), 'wrong_length', `${W + 1} bytes`);
      add('zcash_compressed', new Uint8Array(0), 'wrong_length', 'empty');
      add('zcash_uncompressed', gu.subarray(0, 2 * W - 1), 'wrong_length', `${2 * W - 1} bytes`);
      add('zcash_compressed', flip(gc, 0, 0x80), 'compression_flag_missing', 'generator, C bit cleared');
      add('zcash_uncompressed', flip(gu, 0x80, 0), 'compression_flag_unexpected', 'generator, C bit set');
      add('zcash_uncompressed', flip(gu, 0x20, 0), 'sort_flag_unexpected', 'generator, S bit set');
      const infC = zcash(null, fp2, true), infU = zcash(null, fp2, false);
      add('zcash_compressed', flip(infC, 0x20, 0), 'invalid_infinity', 'infinity with S bit (0xe0)');
      add('zcash_uncompressed', flip(infU, 0x20, 0), 'invalid_infinity', 'infinity with S bit (0x60)');
      const infC1 = new Uint8Array(infC); infC1[W - 1] = 1;
      add('zcash_compressed', infC1, 'invalid_infinity', 'infinity with a non-zero payload byte');
      const infU1 = new Uint8Array(infU); infU1[1] = 1;
      add('zcash_uncompressed', infU1, 'invalid_infinity', 'infinity with a non-zero payload byte');
      const infU2 = new Uint8Array(infU); infU2[0] |= 0x01;
      add('zcash_uncompressed', infU2, 'invalid_infinity', 'infinity with a non-zero low bit in the flag byte');
      add('zcash_compressed', flip(pbytes, 0x80, 0), 'non_canonical', 'x = p (c1 = p for G2)');
      add('zcash_uncompressed', cat(pbytes, coord.be(G.y)), 'non_canonical', 'x = p');
      add('zcash_uncompressed', cat(coord.be(G.x), pbytes), 'non_canonical', 'y = p');
      if (fp2) {
        add('zcash_compressed', flip(cat(be1(G.x.c1), be1(p)), 0x80, 0), 'non_canonical', 'x.c0 = p');
      }
      const nx = nonSquareX(g, 7n);
      add('zcash_compressed', zcash({ x: nx, y: fp2 ? Fp2.ZERO : 0n }, fp2, true), 'not_on_curve', 'x^3 + b not a square');
      add('zcash_uncompressed', zcash(off, fp2, false), 'not_on_curve', 'generator with y + 1');
      add('zcash_uncompressed', new Uint8Array(2 * W), 'not_on_curve', 'all zero without the infinity flag');
      if (!fp2) {
        // (0, +-2): x = 0 gives the 3-torsion points of y^2 = x^3 + 4.
        const t3 = { x: 0n, y: 2n };
        add('zcash_compressed', zcash(t3, false, true), 'not_in_subgroup', '(0, 2), a point of order 3');
        add('zcash_uncompressed', zcash(t3, false, false), 'not_in_subgroup', '(0, 2), a point of order 3');
        add('zcash_uncompressed', cat(be1(0n), be1(p + 2n)), 'non_canonical', '(0, 2 + p)');
      }
    } else {
      const ge = evm(G, fp2);
      add('evm', ge.subarray(0, 2 * W - 1), 'wrong_length', `${2 * W - 1} bytes`);
      add('evm', cat(ge, [0]), 'wrong_length', `${2 * W + 1} bytes`);
      if (fp2) {
        add('evm', cat(be1(G.x.c1 + p), be1(G.x.c0), coord.be(G.y)), 'non_canonical', 'x.c1 + p');
        add('evm', cat(be1(G.x.c1), be1(G.x.c0), be1(G.y.c1), be1(G.y.c0 + p)), 'non_canonical', 'y.c0 + p');
      } else {
        add('evm', cat(be1(G.x + p), be1(G.y)), 'non_canonical', 'x + p (generator if reduced)');
        add('evm', cat(be1(G.x), be1(G.y + p)), 'non_canonical', 'y + p (generator if reduced)');
      }
      add('evm', evm(off, fp2), 'not_on_curve', 'generator with y + 1');
      const e01 = new Uint8Array(2 * W); e01[2 * W - 1] = 1;
      add('evm', e01, 'not_on_curve', '(0, 1): not infinity');
    }
    return { multiples, sums, non_subgroup: nonSubgroup, invalid };
  }

  // Scalars in snarkjs files: .wtns canonical LE, .zkey coefficient word c R^2 mod r (LE),
  // plain Montgomery LE word c R mod r; and the canonical decimal of snarkjs JSON.
  const Rr = 1n << BigInt(8 * frBytes);
  const frValues = [0n, 1n, 2n, r - 1n, sha(`zkmill ${name} fr0`) % r, sha(`zkmill ${name} fr1`) % r];
  const fr = {
    values: frValues.map((c) => ({
      dec: c.toString(),
      wtns: hex(le(c, frBytes)),
      zkey_coef: hex(le((c * Rr * Rr) % r, frBytes)),
      lem: hex(le((c * Rr) % r, frBytes)),
    })),
    invalid: [
      { format: 'wtns', hex: hex(le(r, frBytes)), reason: 'non_canonical', note: 'value = r' },
      { format: 'zkey_coef', hex: hex(le((1n << BigInt(8 * frBytes)) - 1n, frBytes)), reason: 'non_canonical', note: 'all ones' },
      { format: 'wtns', hex: hex(le(1n, frBytes - 1)), reason: 'wrong_length', note: 'one byte short' },
    ],
  };

  return {
    curve: name,
    source: '@noble/curves 2.4.0 via tests/vectors/gen_curve_vectors.mjs',
    p: p.toString(),
    r: r.toString(),
    g1: group('g1'),
    g2: group('g2'),
    fr,
  };
}

const bnF = bn254.fields;
const bn = makeCurve('bn254', bn254, {
  b1: 3n,
  b2: bnF.Fp2.div(bnF.Fp2.fromBigTuple([3n, 0n]), bnF.Fp2.fromBigTuple([9n, 1n])),  // 3 / (9 + u), D-twist
  fpBytes: 32,
  frBytes: 32,
});
const bls = makeCurve('bls12-381', bls12_381, {
  b1: 4n,
  b2: bls12_381.fields.Fp2.fromBigTuple([4n, 4n]),  // 4 (1 + u), M-twist
  fpBytes: 48,
  frBytes: 32,
});

// Compact but diffable: one line per array element / leaf field.
function layout(v, ind = '') {
  if (Array.isArray(v) && v.length && typeof v[0] === 'object' && !Array.isArray(v[0]))
    return '[\n' + v.map((e) => ind + ' ' + JSON.stringify(e)).join(',\n') + '\n' + ind + ']';
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const ks = Object.keys(v);
    return '{\n' + ks.map((k) => `${ind} ${JSON.stringify(k)}: ${layout(v[k], ind + ' ')}`).join(',\n') + '\n' + ind + '}';
  }
  return JSON.stringify(v);
}
// Each curve's G2 goes to its own file so every file stays small (< 30 KB).
for (const [stem, data] of [['bn254', bn], ['bls12_381', bls]]) {
  const { g2, ...rest } = data;
  const files = [[`${stem}_points.json`, rest], [`${stem}_g2_points.json`, { curve: data.curve, source: data.source, g2 }]];
  for (const [file, obj] of files) writeFileSync(join(here, file), layout(obj) + '\n');
  console.log(`wrote ${stem}_points.json (g1: ${data.g1.multiples.length} multiples, ${data.g1.invalid.length} invalid; fr) and ` +
              `${stem}_g2_points.json (g2: ${g2.multiples.length} multiples, ${g2.invalid.length} invalid)`);
}
