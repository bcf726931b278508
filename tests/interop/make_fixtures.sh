#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates tests/interop/fixtures/: circom2 + snarkjs 0.7.6 + circomlib build every circuit in
# circuits/ for both curves (r1cs, zkey after one phase-2 contribution, vk, witness).
# Usage: tests/interop/make_fixtures.sh [out_dir]   (default: tests/interop/fixtures)
# Deterministic entropy strings keep reruns reproducible in shape; keys differ per run anyway
# because snarkjs draws fresh randomness, so the fixtures are committed, not rebuilt in CI.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/fixtures}"
nm="$here/node_modules"
snarkjs=(node "$nm/snarkjs/cli.js")
circom=(node "$nm/circom2/cli.js")
power=11  # 2^11 >= 2 * domain for every fixture circuit (snarkjs setup needs twice the domain)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

[[ -f "$nm/snarkjs/cli.js" && -f "$nm/circom2/cli.js" ]] || {
  echo "make_fixtures: snarkjs/circom2 missing under $nm (run scripts/setup.sh)" >&2
  exit 1
}

for curve in bn128 bls12381; do
  dir="$out/$curve"
  mkdir -p "$dir"
  echo "== $curve: powers of tau (2^$power)"
  "${snarkjs[@]}" powersoftau new "$curve" "$power" "$work/pot0.ptau" >/dev/null
  "${snarkjs[@]}" powersoftau contribute "$work/pot0.ptau" "$work/pot1.ptau" --name=zkmill -e="zkmill fixtures $curve" >/dev/null
  "${snarkjs[@]}" powersoftau prepare phase2 "$work/pot1.ptau" "$work/final.ptau" >/dev/null
  for src in "$here"/circuits/*.circom; do
    name="$(basename "$src" .circom)"
    echo "== $curve: $name"
    "${circom[@]}" "$src" --r1cs --wasm --prime "$curve" -l "$nm" -o "$work" >/dev/null
    "${snarkjs[@]}" groth16 setup "$work/$name.r1cs" "$work/final.ptau" "$work/${name}_0.zkey" >/dev/null
    # One contribution so delta != the generator: a prover that confuses delta with g fails.
    "${snarkjs[@]}" zkey contribute "$work/${name}_0.zkey" "$dir/$name.zkey" --name=zkmill -e="zkmill $name $curve" >/dev/null
    "${snarkjs[@]}" zkey export verificationkey "$dir/$name.zkey" "$dir/$name.vk.json" >/dev/null
    "${snarkjs[@]}" wtns calculate "$work/${name}_js/$name.wasm" "$here/circuits/$name.input.json" "$dir/$name.wtns" >/dev/null
    cp "$work/$name.r1cs" "$dir/$name.r1cs"
  done
done
du -sh "$out"
