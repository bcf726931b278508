#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# loss_attempts.sh: how many extra attempts a job needs on a lossy network (issue 18, "calm
# under loss"). In a network namespace of its own whose loopback drops PCT% of TCP packets
# (nftables, output hook: each packet is judged once), a whole farm (deploy/local-farm.sh: Redis,
# coordinator, 2 synth and 2 prove workers) proves a PARTS-partition job while one prove worker
# is killed (SIGKILL) once the first proof is recorded. Extra attempts = the sum of the
# partitions' `attempts` (failed attempts). The killed worker accounts for what it held: up to 2
# (a proving slot and the partition it prefetched, worker.prefetch = 1). Prints one line per run,
# why attempts failed (the coordinator's "requeued: ..." reasons, counted) and a summary.
#
# A measurement by default. With --max-extra N it is also a test (ctest `calm_under_loss`): each
# run's job must be done with at most N extra attempts, and every proof must verify
# (`zkmill result` + `zkmill verify`); exit 1 otherwise, 77 (skip) where a network namespace
# with nftables cannot be made here (not root, no nft).
#   tests/chaos/loss_attempts.sh [--runs N] [--loss PCT] [--parts N] [--size N] [--bin ZKMILL]
#                                [--logs DIR] [--max-extra N]
#     --logs DIR  keep each run's farm logs in DIR/run-N (the work directory is removed)
# Bounded: each job is waited for 240 s at most; an EXIT trap stops the farm (by its pid
# files), deletes the namespace and the work directory.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=5 loss=5 parts=12 size=20000 bin="$root/build/bin/zkmill" logs="" max_extra=""
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || { echo "loss_attempts.sh: $1 needs a value" >&2; exit 2; }
  case "$1" in
    --runs) runs=$2 ;; --loss) loss=$2 ;; --parts) parts=$2 ;; --size) size=$2 ;; --bin) bin=$2 ;; --logs) logs=$2 ;;
    --max-extra) max_extra=$2 ;;
    *) echo "loss_attempts.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -x $bin ]] || { echo "loss_attempts.sh: no zkmill binary at $bin (build it, or pass --bin)" >&2; exit 2; }
bin=$(readlink -f "$bin")
if [[ $(id -u) != 0 ]]; then echo "loss_attempts: SKIP: network namespaces need root"; exit 77; fi
for tool in ip nft redis-server redis-cli; do
  command -v $tool >/dev/null || { echo "loss_attempts: SKIP: no '$tool' (scripts/setup.sh installs it)"; exit 77; }
done
ns="zkl$$"
W=$(mktemp -d "${TMPDIR:-/tmp}/zkloss.XXXXXX")
cleanup() {
  [[ -d $W/farm ]] && ip netns exec "$ns" "$root/deploy/local-farm.sh" stop --dir "$W/farm" >/dev/null 2>&1
  ip netns del "$ns" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
if ! why=$(ip netns add "$ns" 2>&1); then echo "loss_attempts: SKIP: cannot create a network namespace: $why"; exit 77; fi
ip -n "$ns" link set lo up
if ! why=$(ip netns exec "$ns" nft -f - 2>&1 <<NFT
table inet zkloss {
  chain out { type filter hook output priority 0; oifname "lo" meta l4proto tcp numgen random mod 100 < $loss drop; }
}
NFT
); then
  echo "loss_attempts: SKIP: cannot add an nftables rule in the namespace: $why"
  exit 77
fi
mkdir -p "$W/keys"
"$bin" setup --circuit chain --size "$size" --curve bn254 --seed 1 --out "$W/keys/chain.key" >/dev/null 2>&1 || {
  echo "loss_attempts: FAIL: zkmill setup failed"
  exit 1
}
vk="$W/keys/chain.key.vk.json"
rc() { ip netns exec "$ns" redis-cli -p "$rport" "$@"; }  # the current run's Redis (rport)
total=0 worst=0 results="" failures=0
for ((r = 1; r <= runs; r++)); do
  rm -rf "$W/farm" "$W/out"
  ip netns exec "$ns" "$root/deploy/local-farm.sh" start --dir "$W/farm" --keys "$W/keys" --synth 2 --prove 2 \
    --bin "$bin" --worker-threads 1 >/dev/null 2>&1 || { echo "loss_attempts: FAIL: run $r: the farm did not start"; exit 1; }
  job=$(ip netns exec "$ns" "$bin" submit --config "$W/farm/client.yaml" --key "$W/keys/chain.key" --partitions "$parts" 2>"$W/submit.err")
  [[ -n $job ]] || { echo "loss_attempts: FAIL: run $r: zkmill submit failed: $(tail -n 1 "$W/submit.err")"; exit 1; }
  rport=$(cat "$W/farm/redis.port")
  for _ in $(seq 1200); do [[ $(rc HGET "zk:job:$job" n_verified) -ge 1 ]] && break; sleep 0.1; done
  kill -KILL "$(cat "$W/farm/prove-1.pid")"
  killed_at=$(date -u +%T.%3N)
  ip netns exec "$ns" "$bin" wait "$job" --config "$W/farm/client.yaml" --timeout 240 --quiet >/dev/null 2>&1
  state=$(rc HGET "zk:job:$job" state)
  extra=0 max=0
  for ((i = 0; i < parts; i++)); do
    a=$(rc HGET "zk:part:$job:$i" attempts)
    failed[i]=${a:-0}
    extra=$((extra + ${a:-0}))
    ((${a:-0} > max)) && max=$a
  done
  dead=$(grep -c 'declared dead' "$W/farm/coordinator.log")
  echo "run $r: job $state, extra attempts $extra (most failed on one partition: $max), workers declared dead: $dead"
  grep -ho 'requeued: .*' "$W/farm/coordinator.log" | sed 's/worker [^ ]* /worker W /' | sort | uniq -c | sed 's/^/    /'
  if [[ -n $max_extra ]]; then
    # Every proof, through the client's path and the verifier: a done job is not enough.
    bad=0
    if [[ $state != done ]] ||
      ! ip netns exec "$ns" "$bin" result "$job" --config "$W/farm/client.yaml" --out "$W/out" >/dev/null 2>&1; then
      bad=$parts
    else
      for ((i = 0; i < parts; i++)); do
        "$bin" verify "$vk" "$W/out/partition-$i.public.json" "$W/out/partition-$i.proof.json" >/dev/null 2>&1 ||
          bad=$((bad + 1))
      done
    fi
    if ((bad || extra > max_extra)); then
      # Why, where a CI log's tail shows it: each partition that failed an attempt (its last
      # error), then the coordinator's last warnings.
      for ((i = 0; i < parts; i++)); do
        ((failed[i] > 0)) && echo "    partition $i: ${failed[i]} failed attempt(s), state $(rc HGET "zk:part:$job:$i" state), last error: $(rc HGET "zk:part:$job:$i" error)"
      done
      echo "    prove-1 killed at $killed_at UTC; the coordinator's last warnings:"
      grep ' warning ' "$W/farm/coordinator.log" | tail -n 12 | cut -c 1-220 | sed 's/^/    /'
      echo "loss_attempts: FAIL: run $r: job $state, $extra extra attempts (at most $max_extra allowed), $bad of $parts proofs not verified"
      failures=$((failures + 1))
      [[ -z $logs ]] && { logs="${TMPDIR:-/tmp}/zkloss-logs.$$"; echo "loss_attempts: logs kept in $logs"; }
    fi
  fi
  if [[ -n $logs ]]; then mkdir -p "$logs/run-$r" && cp "$W"/farm/*.log "$logs/run-$r/"; fi
  results+="$extra "
  total=$((total + extra))
  ((extra > worst)) && worst=$extra
  ip netns exec "$ns" "$root/deploy/local-farm.sh" stop --dir "$W/farm" >/dev/null 2>&1
done
echo "loss_attempts: ${loss}% loss, $parts partitions, $runs runs: extra attempts $results(worst $worst)"
if [[ -n $max_extra ]]; then
  ((failures == 0)) || { echo "loss_attempts: FAIL: $failures of $runs runs"; exit 1; }
  echo "loss_attempts: PASS: every run done with at most $max_extra extra attempts, every proof verified"
fi
