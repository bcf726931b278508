// SPDX-License-Identifier: MIT
// Generates tests/vectors/hash_vectors.json: Poseidon outputs from circomlibjs (BN254, the
// reference and the optimized implementation, which must agree) and SHA-256 digests from
// node's crypto (OpenSSL), both independent of zkmill, for the gadget tests in
// tests/common/circuits/gadgets_test.cpp.
//
// circomlibjs is installed with the interop tools: `npm install --prefix tests/interop` (or
// scripts/setup.sh), then from the repository root: `node tests/vectors/gen_hash_vectors.mjs`.
// Inputs are deterministic (SHA-256 of counters), so a rerun reproduces the file byte for byte.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPoseidonReference, buildPoseidonOpt } from '../interop/node_modules/circomlibjs/main.js';

const here = dirname(fileURLToPath(import.meta.url));
const BN254_R = 21888242871839275222246108997522297290549126433483242858788418276737842964865n;
const sha = (s) => createHash('sha256').update(s).digest();
const fieldElem = (label) => BigInt('0x' + sha(label).toString('hex') + sha(label + '/2').toString('hex')) % BN254_R;
const assert = (c, m) => { if (!c) throw new Error('assertion failed: ' + m); };

const ref = await buildPoseidonReference();
const opt = await buildPoseidonOpt();
const poseidon = [];
for (const t of [2, 3, 5, 9, 12, 17]) {
  const cases = [Array.from({ length: t - 1 }, (_, i) => BigInt(i + 1)), Array.from({ length: t - 1 }, () => 0n)];
  for (let k = 0; k < 4; k++) cases.push(Array.from({ length: t - 1 }, (_, i) => fieldElem(`poseidon t=${t} case ${k} input ${i}`)));
  cases.push(Array.from({ length: t - 1 }, () => BN254_R - 1n));
  for (const inputs of cases) {
    const a = ref.F.toObject(ref(inputs));
    const b = opt.F.toObject(opt(inputs));
    assert(a === b, `reference and optimized Poseidon differ at t=${t}`);
    poseidon.push({ t, inputs: inputs.map(String), output: a.toString() });
  }
}

// SHA-256 over messages of lengths around every padding boundary and up to 1000 bytes.
const lengths = [0, 1, 3, 31, 32, 55, 56, 57, 63, 64, 65, 111, 119, 120, 127, 128, 129, 191, 200, 333, 447, 448, 512, 640, 777, 999, 1000];
const sha256 = lengths.map((len, k) => {
  const msg = Buffer.alloc(len);
  for (let off = 0; off < len; off += 32) sha(`sha256 message ${k} block ${off}`).copy(msg, off, 0, Math.min(32, len - off));
  return { message: msg.toString('hex'), digest: sha(msg).toString('hex') };
});

const out = { generator: 'tests/vectors/gen_hash_vectors.mjs', circomlibjs: '0.1.7', curve: 'bn254', poseidon, sha256 };
writeFileSync(join(here, 'hash_vectors.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`wrote ${poseidon.length} Poseidon and ${sha256.length} SHA-256 vectors`);
