#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks C++/CUDA sources against the committed .clang-format without changing them.
#   scripts/check-format.sh            every tracked .cpp/.hpp/.h/.cu/.cuh file
#   scripts/check-format.sh FILE...    only these files (a file outside the tree is checked with
#                                      the tree's .clang-format)
# Exit status: 0 all formatted, 1 some file differs (clang-format names each), 2 clang-format missing.
# Fix a file with: clang-format -i FILE
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v clang-format >/dev/null; then
  echo "check-format.sh: clang-format not found (scripts/setup.sh installs it)" >&2
  exit 2
fi
if (($# > 0)); then
  clang-format --dry-run -Werror --style="file:$root/.clang-format" "$@" || exit 1
else
  cd "$root"
  git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' ':!:tests/interop/node_modules' |
    xargs -0 clang-format --dry-run -Werror || exit 1
fi
