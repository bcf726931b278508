#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/check-format.sh (the format stage of scripts/test.sh) fails on a misformatted file and
# passes a formatted one, both checked against the tree's .clang-format. Skips (77) without
# clang-format.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v clang-format >/dev/null || { echo "clang-format not installed: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'int  main( ){return 0;}\n' >"$tmp/bad.cpp"
printf 'int main() { return 0; }\n' >"$tmp/good.cpp"
"$root/scripts/check-format.sh" "$tmp/bad.cpp" >"$tmp/bad.log" 2>&1
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: misformatted file gave exit $rc, expected 1"; cat "$tmp/bad.log"; exit 1; }
grep -q 'bad.cpp' "$tmp/bad.log" || { echo "FAIL: the message does not name the file"; cat "$tmp/bad.log"; exit 1; }
"$root/scripts/check-format.sh" "$tmp/good.cpp" || { echo "FAIL: formatted file refused"; exit 1; }
# The whole tree as committed passes (what CI checks).
"$root/scripts/check-format.sh" || { echo "FAIL: the tree is not formatted"; exit 1; }
echo "check-format: ok"
