#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# loss_attempts.sh: how many extra attempts a job needs on a lossy network (issue 18, "calm
# under loss"). In a network namespace of its own whose loopback drops PCT% of TCP packets
# (nftables, output hook: each packet is judged once), a whole farm (deploy/local-farm.sh: Redis,
# coordinator, 2 synth and 2 prove workers) proves a PARTS-partition job while one prove worker
# is killed (SIGKILL) once the first proof is recorded. Extra attempts = the sum of the
# partitions' `attempts` (failed attempts; the killed worker's partition accounts for one). Prints one line per run and
# a summary. A measurement, not a test: it asserts nothing.
#   tests/chaos/loss_attempts.sh [--runs N] [--loss PCT] [--parts N] [--size N] [--bin ZKMILL]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=5 loss=5 parts=12 size=20000 bin="$root/build/bin/zkmill"
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || { echo "loss_attempts.sh: $1 needs a value" >&2; exit 2; }
  case "$1" in
    --runs) runs=$2 ;; --loss) loss=$2 ;; --parts) parts=$2 ;; --size) size=$2 ;; --bin) bin=$2 ;;
    *) echo "loss_attempts.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
bin=$(readlink -f "$bin")
ns="zkl$$"
W=$(mktemp -d "${TMPDIR:-/tmp}/zkloss.XXXXXX")
cleanup() {
  [[ -d $W/farm ]] && ip netns exec "$ns" "$root/deploy/local-farm.sh" stop --dir "$W/farm" >/dev/null 2>&1
  ip netns del "$ns" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
ip netns add "$ns" || exit 77
ip -n "$ns" link set lo up
mkdir -p "$W/keys"
"$bin" setup --circuit chain --size "$size" --curve bn254 --seed 1 --out "$W/keys/chain.key" >/dev/null 2>&1 || exit 1
ip netns exec "$ns" nft -f - <<NFT || exit 1
table inet zkloss {
  chain out { type filter hook output priority 0; oifname "lo" meta l4proto tcp numgen random mod 100 < $loss drop; }
}
NFT
total=0 worst=0 results=""
for ((r = 1; r <= runs; r++)); do
  rm -rf "$W/farm"
  ip netns exec "$ns" "$root/deploy/local-farm.sh" start --dir "$W/farm" --keys "$W/keys" --synth 2 --prove 2 \
    --bin "$bin" --worker-threads 1 >/dev/null 2>&1 || { echo "run $r: the farm did not start"; exit 1; }
  job=$(ip netns exec "$ns" "$bin" submit --config "$W/farm/client.yaml" --key "$W/keys/chain.key" --partitions "$parts" 2>/dev/null)
  rport=$(cat "$W/farm/redis.port")
  rc() { ip netns exec "$ns" redis-cli -p "$rport" "$@"; }
  for _ in $(seq 600); do [[ $(rc HGET "zk:job:$job" n_verified) -ge 1 ]] && break; sleep 0.1; done
  kill -KILL "$(cat "$W/farm/prove-1.pid")"
  ip netns exec "$ns" "$bin" wait "$job" --config "$W/farm/client.yaml" --timeout 600 --quiet >/dev/null 2>&1
  state=$(rc HGET "zk:job:$job" state)
  sum=0
  for ((i = 0; i < parts; i++)); do sum=$((sum + $(rc HGET "zk:part:$job:$i" attempts))); done
  extra=$sum max=0
  for ((i = 0; i < parts; i++)); do a=$(rc HGET "zk:part:$job:$i" attempts); ((a > max)) && max=$a; done
  dead=$(grep -c 'declared dead' "$W/farm/coordinator.log")
  echo "run $r: job $state, extra attempts $extra (most failed on one partition: $max), workers declared dead: $dead"
  results+="$extra "
  total=$((total + extra)); ((extra > worst)) && worst=$extra
  ip netns exec "$ns" "$root/deploy/local-farm.sh" stop --dir "$W/farm" >/dev/null 2>&1
done
echo "loss_attempts: ${loss}% loss, $parts partitions, $runs runs: extra attempts $results(worst $worst)"
