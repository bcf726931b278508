#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where a cold build spends its time: configures a fresh build directory, builds it with ccache
# off, and prints the CPU seconds (user + sys, children included) of every compile and link,
# largest first, with the total and what that means in wall time on a given number of idle
# cores. CPU seconds, not wall, because they do not depend on what else the machine is running
# (a shared box's wall times are meaningless). README.md ("Build time") quotes its output.
#
#   scripts/build-times.sh [-j JOBS] [-c CORES] [BUILD_DIR [NINJA_TARGET...]]
#     BUILD_DIR  default build-times/ (removed and configured afresh, Release, Ninja)
#     -j JOBS    parallel jobs for ninja (default 2, as CI)
#     -c CORES   cores of the machine to estimate the wall time for (default 2, as CI)
#   Extra CMake options: ZKMILL_BUILD_TIMES_CMAKE_ARGS="-DZKMILL_CUDA=OFF ..."
#   The log (one "user sys wall output" line per step) stays in BUILD_DIR/build-times.log.
#
# Internally the script is also the compiler launcher: CMake runs
# `build-times.sh --launch LOG compiler args...` for every compile and link.
set -euo pipefail

if [[ ${1:-} == --launch ]]; then
  log=$2
  shift 2
  out="?" prev=""
  for a in "$@"; do
    [[ $prev == -o ]] && out=$a
    prev=$a
  done
  t=$(mktemp)
  rc=0
  /usr/bin/time -f "%U %S %e" -o "$t" "$@" || rc=$?
  # One short line per step, appended: atomic under O_APPEND, so parallel jobs do not interleave.
  printf '%s %s\n' "$(tail -n 1 "$t")" "$out" >>"$log"
  rm -f "$t"
  exit "$rc"
fi

jobs=2 cores=2
while getopts "j:c:" opt; do
  case $opt in
    j) jobs=$OPTARG ;;
    c) cores=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))

cd "$(dirname "${BASH_SOURCE[0]}")/.."
self=$(pwd)/scripts/build-times.sh
dir=${1:-build-times}
shift || true
[[ -x /usr/bin/time ]] || {
  echo "build-times.sh: /usr/bin/time is missing (Debian package 'time')" >&2
  exit 1
}
[[ $dir != . && $dir != / ]] || exit 2

rm -rf "$dir"
mkdir -p "$dir"
log=$(cd "$dir" && pwd)/build-times.log
launcher="$self;--launch;$log"
# shellcheck disable=SC2086 # word splitting of the extra CMake arguments is intended
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZKMILL_CCACHE=OFF \
  "-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$launcher" \
  "-DCMAKE_CXX_LINKER_LAUNCHER=$launcher" ${ZKMILL_BUILD_TIMES_CMAKE_ARGS:-} >/dev/null
: >"$log"
start=$(date +%s)
CCACHE_DISABLE=1 ninja -C "$dir" -j "$jobs" "$@"
wall=$(($(date +%s) - start))

# Largest steps first, then the totals. The wall estimate on idle cores is the larger of the
# two lower bounds: all the CPU time spread evenly, and the single longest step.
awk '{ printf "%.2f %s\n", $1 + $2, $4 }' "$log" | sort -k1,1gr |
  awk -v cores="$cores" -v wall="$wall" -v root="$dir/" '
  { cpu = $1; total += cpu; n++
    if (cpu > longest) longest = cpu
    name = $2; sub("^" root, "", name)
    if (n <= 40) printf "%8.1f s  %s\n", cpu, name
    if (name ~ /\.cu\.o$/) cuda += cpu }
  END {
    if (n > 40) printf "     ... %d more steps\n", n - 40
    est = total / cores; if (longest > est) est = longest
    printf "\n%d steps, %.0f CPU s in all (%.0f s in nvcc compiles); longest step %.0f s\n", n, total, cuda, longest
    printf "estimated wall on %d idle cores: %.1f min (this run: %.1f min wall)\n", cores, est / 60, wall / 60 }'
