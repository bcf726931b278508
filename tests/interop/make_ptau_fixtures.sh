#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the small powers-of-tau fixtures of tests/interop/setup_test.cpp with snarkjs 0.7.6:
# fixtures/<curve>/pot8.ptau (new + one contribution, unprepared) and pot8_prepared.ptau (snarkjs
# powersoftau prepare phase2 of it). zkmill's prepare phase2 must reproduce the second from the
# first byte for byte. Power 8 covers the multiplier and hashchain circuits (hashchain fills it).
# Committed, not rebuilt in CI: snarkjs's prepare takes minutes even at this size on 2 cores.
# Usage: tests/interop/make_ptau_fixtures.sh [out_dir]   (default: tests/interop/fixtures)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/fixtures}"
snarkjs=(node "$here/node_modules/snarkjs/cli.js")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[[ -f "$here/node_modules/snarkjs/cli.js" ]] || {
  echo "make_ptau_fixtures: snarkjs missing under $here/node_modules (run scripts/setup.sh)" >&2
  exit 1
}
for curve in bn128 bls12381; do
  mkdir -p "$out/$curve"
  echo "== $curve: pot8"
  "${snarkjs[@]}" powersoftau new "$curve" 8 "$work/pot0.ptau" >/dev/null
  "${snarkjs[@]}" powersoftau contribute "$work/pot0.ptau" "$out/$curve/pot8.ptau" --name=zkmill \
    -e="zkmill ptau fixtures $curve" >/dev/null
  "${snarkjs[@]}" powersoftau prepare phase2 "$out/$curve/pot8.ptau" "$out/$curve/pot8_prepared.ptau" >/dev/null
done
