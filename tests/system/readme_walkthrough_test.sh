#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README.md's farm walkthrough, run verbatim (ctest: readme_walkthrough): the ```sh block
# between the readme-walkthrough markers is extracted and run by bash -e (every command must
# succeed) from a directory laid out like a fresh clone after setup.sh: deploy/ and tests/ are
# the sources, build/ is the build tree given as $1. zkmill is not on PATH and ZKMILL_BIN is
# unset, so local-farm.sh must find build/bin/zkmill itself. The farm is stopped whatever
# happens. Usage: readme_walkthrough_test.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: readme_walkthrough_test.sh BUILD_DIR}" && pwd)
[[ -x "$build/bin/zkmill" ]] || { echo "no $build/bin/zkmill" >&2; exit 1; }

block=$(sed -n '/<!-- readme-walkthrough:begin -->/,/<!-- readme-walkthrough:end -->/p' "$src/README.md" |
        sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
[[ -n "$block" ]] || { echo "README.md has no readme-walkthrough block" >&2; exit 1; }
grep -q "deploy/local-farm.sh start" <<< "$block" || { echo "the walkthrough starts no farm" >&2; exit 1; }

clone=$(mktemp -d)
trap 'rm -rf "$clone"' EXIT
ln -s "$src/deploy" "$clone/deploy"
ln -s "$src/tests" "$clone/tests"
ln -s "$build" "$clone/build"
{
  echo 'set -euo pipefail'
  echo 'trap '"'"'[[ -n "${FARM:-}" ]] && deploy/local-farm.sh stop --dir "$FARM" >/dev/null 2>&1; [[ -n "${FARM:-}" && -n "${KEYDIR:-}" ]] && rm -rf "$FARM" "$KEYDIR"; true'"'"' EXIT'
  echo 'set -x'
  echo "$block"
} > "$clone/walkthrough.sh"
out=$(cd "$clone" && env -u ZKMILL_BIN PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      bash walkthrough.sh 2> "$clone/stderr") || {
  echo "FAILED: the README walkthrough; its output:" >&2
  echo "$out" >&2
  cat "$clone/stderr" >&2
  exit 1
}
echo "$out"
# What the walkthrough promises: the farm came up, a proof verified, the farm stopped.
for want in "farm up:" "OK: proof is valid" "stopped"; do
  grep -qF "$want" <<< "$out" || { echo "FAILED: no '$want' in the output" >&2; cat "$clone/stderr" >&2; exit 1; }
done
echo "PASSED: the README walkthrough ran verbatim"
