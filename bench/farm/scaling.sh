#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Farm scaling: throughput with 1, 2, 4, 8 prove workers (separate processes, one CPU thread and
# one pinned core each) on a circuit big enough that proving dominates, through one coordinator
# and a private Redis, all started by deploy/local-farm.sh. Efficiency = throughput(M) /
# (M x throughput(1)); the issue's goal is >= 90 % of linear.
#
# Core plan on an H-core host: prove worker i on core i-1, synth workers on the next cores,
# coordinator + Redis + client on the rest. Needs H >= max(M) + SYNTH + 2.
#   bench/farm/scaling.sh [--bin ZKMILL] [--counts 1,2,4,8] [--size 65528] [--curve bn254]
#                         [--per-worker 4] [--synth 2] [--work DIR]
# Prints one table row per count, plus the per-partition prove time the workers reported.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin/zkmill" counts="1,2,4,8" size=65528 curve=bn254 per=4 synth=2 work=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --counts) counts=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --curve) curve=$2; shift 2 ;;
    --per-worker) per=$2; shift 2 ;;
    --synth) synth=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "scaling.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
bin=$(realpath "$bin")
[[ -x "$bin" ]] || { echo "scaling.sh: no zkmill binary at $bin" >&2; exit 2; }
work=${work:-$(mktemp -d /tmp/zkmill-scaling.XXXXXX)}
mkdir -p "$work/keys"
cores=$(nproc)
IFS=, read -r -a list <<<"$counts"
max=0; for m in "${list[@]}"; do (( m > max )) && max=$m; done
if (( cores < max + synth + 2 )); then
  echo "scaling.sh: WARNING: $cores cores < $max prove + $synth synth + 2: cores are shared, figures show contention" >&2
fi

key="$work/keys/chain.key"
if [[ ! -f "$key" ]]; then
  echo "== setup: chain circuit, $size constraints, $curve"
  "$bin" setup --circuit chain --size "$size" --curve "$curve" --out "$key" --seed 7 >/dev/null
fi

now() { date +%s.%N; }
pin() {  # pin PIDFILE CORE|RANGE (core numbers wrap on a small host)
  local c=$2
  [[ $c == *-* ]] || c=$((c % cores))
  [[ $c == *-* && ${c%-*} -ge $cores ]] && c="0-$((cores - 1))"
  taskset -pc "$c" "$(cat "$1")" >/dev/null
}

printf '%-8s %-11s %-10s %-12s %-14s %-12s\n' workers partitions wall_s parts_per_s prove_ms_mean efficiency
base=""
for m in "${list[@]}"; do
  d="$work/farm-$m"
  rm -rf "$d"
  ZKMILL_BIN="$bin" "$root/deploy/local-farm.sh" start --dir "$d" --keys "$work/keys" --synth "$synth" --prove "$m" \
    --worker-threads 1 >"$work/start-$m.log"
  trap '"$root/deploy/local-farm.sh" stop --dir "$d" >/dev/null 2>&1 || true' EXIT
  for ((i = 1; i <= m; i++)); do pin "$d/prove-$i.pid" $((i - 1)); done
  for ((i = 1; i <= synth; i++)); do pin "$d/synth-$i.pid" $((max + i - 1)); done
  rest="$((max + synth))-$((cores - 1))"
  pin "$d/coordinator.pid" "$rest"
  pin "$d/redis.pid" "$rest"
  cfg="$d/client.yaml"
  # Warm-up: every worker opens and maps the key once.
  taskset -c "$rest" "$bin" submit --config "$cfg" --key "$key" --partitions "$m" --wait --timeout 600 >/dev/null
  n=$((per * m))
  t0=$(now)
  job=$(taskset -c "$rest" "$bin" submit --config "$cfg" --key "$key" --partitions "$n" --seed 3)
  taskset -c "$rest" "$bin" wait "$job" --config "$cfg" --quiet --timeout 1200 >/dev/null
  t1=$(now)
  prove_ms=$("$bin" status "$job" --config "$cfg" --json |
    python3 -c 'import json,sys; s=json.load(sys.stdin); p=[x.get("prove_ms",0) for x in s["partition_states"]]; print(f"{sum(p)/len(p):.1f}")')
  "$root/deploy/local-farm.sh" stop --dir "$d" >/dev/null
  trap - EXIT
  thr=$(python3 -c "print($n / ($t1 - $t0))")
  [[ -z "$base" ]] && base=$thr
  eff=$(python3 -c "print(f'{100 * $thr / ($m * $base):.1f} %')")
  printf '%-8s %-11s %-10.2f %-12.3f %-14s %s\n' "$m" "$n" "$(python3 -c "print($t1 - $t0)")" "$thr" "$prove_ms" "$eff"
done
echo "host: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); chain $size on $curve;" \
  "$synth synth workers; each prove worker: 1 thread, 1 pinned core; work dir $work"
