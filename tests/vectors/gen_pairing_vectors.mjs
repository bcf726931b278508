// SPDX-License-Identifier: MIT
// Generates pairing cross-check vectors (bn254_pairing.json, bls12_381_pairing.json) from an
// independent implementation, @noble/curves 2.4.0, for tests/common/pairing/vectors_test.cpp.
//
// Re-run (deterministic; CI does not run it, the JSON outputs are committed):
//   cd tests/vectors && npm install && node gen_pairing_vectors.mjs
//
// Each case: scalars a, b (decimal), P = [a]G1 and Q = [b]G2 in affine coordinates (decimal;
// an Fq2 element c0 + c1 u as [c0, c1]), and e(P, Q) as 12 decimal Fq coefficients.
// GT coefficient order. noble's Fp12 is {c0, c1: Fp6} = c0 + c1 w, each Fp6 {c0, c1, c2} =
// c0 + c1 v + c2 v^2, each Fp2 {c0, c1} = c0 + c1 u, with u^2 = -1, v^3 = xi (9 + u for bn254,
// 1 + u for bls12-381) and w^2 = v: the same basis as zkmill's tower (common/tower/fp12.hpp),
// so the mapping is the identity and we list the leaves depth-first:
//   [c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1,
//    c1.c0.c0, c1.c0.c1, c1.c1.c0, c1.c1.c1, c1.c2.c0, c1.c2.c1]
// (noble's Fp12.fromBigTwelve order). `product` is noble's pairingBatch over all cases' pairs,
// i.e. prod_i e(P_i, Q_i), to cross-check multi-Miller loops.
// The values are noble's pairing outputs as they are: e(P, Q)^k with k = 2u(6u^2+3u+1) for
// bn254 and k = 3 for bls12-381 relative to the plain (p^12-1)/r power (the same values
// snarkjs computes); `gt_power_k` records k and `check_exact_power` re-verifies it here.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bn254 } from '@noble/curves/bn254.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const here = dirname(fileURLToPath(import.meta.url));

// splitmix64 over BigInt: a reproducible stream of 64-bit words from a seed.
function* splitmix64(seed) {
  const M = (1n << 64n) - 1n;
  let s = seed & M;
  for (;;) {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    yield z ^ (z >> 31n);
  }
}
function scalarStream(seed, r) {
  const g = splitmix64(seed);
  return () => {
    let v = 0n;
    for (let i = 0; i < 5; i++) v = (v << 64n) | g.next().value;
    return (v % (r - 1n)) + 1n; // in [1, r-1]
  };
}

const dec = (x) => x.toString(10);
const fp2 = (x) => [dec(x.c0), dec(x.c1)];
function fp12Coeffs(f) {
  const out = [];
  for (const h of [f.c0, f.c1]) for (const q of [h.c0, h.c1, h.c2]) out.push(dec(q.c0), dec(q.c1));
  return out;
}

// Re-derive which power of the reduced pairing noble returns, so the JSON documents it.
function checkExactPower(curve, k) {
  const { Fp12, Fp, Fr } = curve.fields;
  const p = Fp.ORDER;
  const r = Fr.ORDER;
  const f = curve.pairing(curve.G1.Point.BASE, curve.G2.Point.BASE, false);
  const exact = Fp12.pow(f, (p ** 12n - 1n) / r);
  return Fp12.eql(Fp12.pow(exact, k), Fp12.finalExponentiate(f));
}

function generate(name, curve, seed, k, kFormula, xiDoc) {
  const r = curve.fields.Fr.ORDER;
  const next = scalarStream(seed, r);
  const scalars = [
    [1n, 1n],
    [2n, 3n],
    [r - 1n, 1n],
    [next(), next()],
    [next(), next()],
    [next(), next()],
  ];
  const G1 = curve.G1.Point.BASE;
  const G2 = curve.G2.Point.BASE;
  const cases = [];
  const pairs = [];
  for (const [a, b] of scalars) {
    const P = G1.multiply(a);
    const Q = G2.multiply(b);
    const pa = P.toAffine();
    const qa = Q.toAffine();
    pairs.push({ g1: P, g2: Q });
    cases.push({
      a: dec(a),
      b: dec(b),
      P: { x: dec(pa.x), y: dec(pa.y) },
      Q: { x: fp2(qa.x), y: fp2(qa.y) },
      e: fp12Coeffs(curve.pairing(P, Q)),
    });
  }
  const exact = checkExactPower(curve, k);
  if (!exact) throw new Error(`${name}: noble's GT power is not k = ${kFormula}`);
  const out = {
    curve: name,
    source: '@noble/curves 2.4.0 via tests/vectors/gen_pairing_vectors.mjs',
    tower: `Fp2 = Fq[u]/(u^2+1), Fp6 = Fp2[v]/(v^3 - (${xiDoc})), Fp12 = Fp6[w]/(w^2 - v)`,
    gt_order: 'c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, ..., c1.c2.c1 (value = sum c_i.c_j.c_l w^i v^j u^l)',
    gt_power_k: { formula: kFormula, value: dec(k), check_exact_power: exact },
    cases,
    product: fp12Coeffs(curve.pairingBatch(pairs)),
  };
  const file = join(here, `${name}_pairing.json`);
  writeFileSync(file, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${file}: ${cases.length} cases`);
}

const u = 4965661367192848881n;
generate('bn254', bn254, 0x62_6e_32_35_34n, 2n * u * (6n * u * u + 3n * u + 1n), '2u(6u^2+3u+1), u = 4965661367192848881', '9 + u');
generate('bls12_381', bls12_381, 0x62_6c_73_31_32n, 3n, '3', '1 + u');
