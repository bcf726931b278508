#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `zkmill groth16 prove` vs `snarkjs groth16 prove` on one ~2^16-constraint circom circuit
# (the fixtures' hash chain with 15000 rounds = 60000 constraints, domain 2^16), both curves.
# The circuit, ptau and keys are generated here into a work dir (default /tmp/zkmill-bench),
# never committed; reruns reuse them. Timing: hyperfine if installed, else /usr/bin/time.
# Usage: [RUNS=3] [WARMUP=1] [SETUP_ONLY=1] [CURVES="bn128 bls12381"] bench/interop/run_bench.sh [zkmill_binary] [work_dir]
# SETUP_ONLY=1 prepares every input (the slow JS part) and times nothing, so the timed runs can
# be taken later on a quiet machine.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
zkmill="${1:-$root/build/bin/zkmill}"
work="${2:-/tmp/zkmill-bench}"
nm="$root/tests/interop/node_modules"
snarkjs=(node "$nm/snarkjs/cli.js")
circom=(node "$nm/circom2/cli.js")
rounds=15000
power=17  # snarkjs setup reads the ptau's Lagrange basis at twice the domain
mkdir -p "$work"

sed -e "s/HashChain(40)/HashChain($rounds)/" "$root/tests/interop/circuits/hashchain.circom" >"$work/bigchain.circom"
cp "$root/tests/interop/circuits/hashchain.input.json" "$work/bigchain.input.json"

for curve in ${CURVES:-bn128 bls12381}; do
  d="$work/$curve"
  mkdir -p "$d"
  if [[ ! -f "$d/final.ptau" ]]; then
    echo "== $curve: powers of tau 2^$power (one-time, slow in JS)"
    if [[ ! -f "$d/pot1.ptau" ]]; then
      "${snarkjs[@]}" powersoftau new "$curve" "$power" "$d/pot0.ptau" >/dev/null
      # A contribution is required: a fresh ptau has tau = 1, so Z(tau) = 0 and every H point
      # (and most C points) is the identity, which makes both provers' MSMs trivially cheap.
      "${snarkjs[@]}" powersoftau contribute "$d/pot0.ptau" "$d/pot1.ptau.tmp" --name=bench -e="zkmill bench $curve" >/dev/null
      mv "$d/pot1.ptau.tmp" "$d/pot1.ptau"
    fi
    "${snarkjs[@]}" powersoftau prepare phase2 "$d/pot1.ptau" "$d/final.ptau.tmp" >/dev/null
    mv "$d/final.ptau.tmp" "$d/final.ptau"
    rm -f "$d/pot0.ptau" "$d/pot1.ptau"
  fi
  if [[ ! -f "$d/bigchain.zkey" ]]; then
    echo "== $curve: circuit, key, witness"
    "${circom[@]}" "$work/bigchain.circom" --r1cs --wasm --prime "$curve" -o "$d" >/dev/null
    "${snarkjs[@]}" groth16 setup "$d/bigchain.r1cs" "$d/final.ptau" "$d/bigchain_0.zkey" >/dev/null
    "${snarkjs[@]}" zkey contribute "$d/bigchain_0.zkey" "$d/bigchain.zkey.tmp" --name=bench -e="zkmill bench key" >/dev/null
    mv "$d/bigchain.zkey.tmp" "$d/bigchain.zkey"
    rm -f "$d/bigchain_0.zkey"
    "${snarkjs[@]}" zkey export verificationkey "$d/bigchain.zkey" "$d/vk.json" >/dev/null
    "${snarkjs[@]}" wtns calculate "$d/bigchain_js/bigchain.wasm" "$work/bigchain.input.json" "$d/bigchain.wtns" >/dev/null
  fi
  "${snarkjs[@]}" r1cs info "$d/bigchain.r1cs" | grep -E "Constraints|Wires" || true
  [[ -n "${SETUP_ONLY:-}" ]] && continue
  echo "== $curve: prove"
  zk=("$zkmill" groth16 prove "$d/bigchain.zkey" "$d/bigchain.wtns" "$d/zk_proof.json" "$d/zk_public.json")
  sj=("${snarkjs[@]}" groth16 prove "$d/bigchain.zkey" "$d/bigchain.wtns" "$d/sj_proof.json" "$d/sj_public.json")
  if command -v hyperfine >/dev/null; then
    hyperfine --warmup "${WARMUP:-1}" --runs "${RUNS:-3}" --export-json "$d/hyperfine.json" -n "zkmill $curve" "${zk[*]}" \
      -n "snarkjs $curve" "${sj[*]}"
  else
    /usr/bin/time -f "zkmill $curve: %e s, %M KiB" "${zk[@]}"
    /usr/bin/time -f "snarkjs $curve: %e s, %M KiB" "${sj[@]}"
  fi
  # Each proof must pass the other's verifier.
  "${snarkjs[@]}" groth16 verify "$d/vk.json" "$d/zk_public.json" "$d/zk_proof.json"
  "$zkmill" groth16 verify "$d/vk.json" "$d/sj_public.json" "$d/sj_proof.json"
done
