#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU busy fraction of one GPU prove worker on a local farm (issue 15): GPU busy = the GPU prove
# time the worker reports (prove_ms, summed over the job's partitions) / wall time. Everything is
# started by deploy/local-farm.sh: a private Redis, the coordinator, S synth workers and one GPU
# prove worker (`--gpus D`); settings such as worker.prefetch or worker.bundle_kind go to the
# farm with --set.
#   bench/farm/gpu_busy.sh --key KEY [--bin ZKMILL] [--partitions 16] [--synth 14] [--gpu 0]
#                          [--mode live|presynth] [--set SECTION.KEY=VALUE]... [--work DIR]
# Modes:
#   live      the GPU worker runs from the start; a 1-partition warm-up job first (key upload,
#             matrices), then the timed job: wall = submit .. done. Synthesis is part of the
#             pipeline, so this shows whether S synth workers keep the GPU fed.
#   presynth  synthesis keeps up by construction: the job is submitted with no prove worker,
#             every partition is synthesized first (coordinator.synth_lookahead is raised so none
#             waits), then the GPU worker is started: wall = worker start .. done, and the
#             steady-state window = first .. last proof of the worker's log (its cold start and
#             first proof fall before the window, so that proof's GPU time is not counted).
# Prints the per-partition telemetry (bundle_bytes, fetch / expand / slot-wait / prove ms) and
# one summary line; the farm's logs stay in the work directory.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin/zkmill" key="" parts=16 synth=14 gpu=0 mode=live work="" sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --key) key=$2; shift 2 ;;
    --partitions) parts=$2; shift 2 ;;
    --synth) synth=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) sed -n '3,20p' "$0"; exit 0 ;;
    *) echo "gpu_busy.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$key" && -f "$key" ]] || { echo "gpu_busy.sh: --key must name a zkmill key file" >&2; exit 2; }
[[ $mode == live || $mode == presynth ]] || { echo "gpu_busy.sh: --mode is live or presynth" >&2; exit 2; }
bin=$(realpath "$bin")
work=${work:-$(mktemp -d /tmp/zkmill-gpu-busy.XXXXXX)}
mkdir -p "$work"
d="$work/farm"
rm -rf "$d"
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }
farm() { ZKMILL_BIN="$bin" "$root/deploy/local-farm.sh" "$@"; }
trap 'farm stop --dir "$d" >/dev/null 2>&1 || true' EXIT
cfg="$d/client.yaml"

if [[ $mode == live ]]; then
  farm start --dir "$d" --keys "$(dirname "$key")" --synth "$synth" --prove 0 --gpus "$gpu" "${sets[@]}" >"$work/start.log"
  "$bin" submit --config "$cfg" --key "$key" --partitions 1 --seed 1 --wait --timeout 900 >/dev/null
  t0=$(now)
  job=$("$bin" submit --config "$cfg" --key "$key" --partitions "$parts" --seed 3)
else
  farm start --dir "$d" --keys "$(dirname "$key")" --synth "$synth" --prove 0 \
    --set coordinator.synth_lookahead=$((parts + 8)) "${sets[@]}" >"$work/start.log"
  job=$("$bin" submit --config "$cfg" --key "$key" --partitions "$parts" --seed 3)
  s0=$(now)
  # Every partition synthesized (and none further: there is no prove worker yet).
  until "$bin" status "$job" --config "$cfg" --json |
    python3 -c 'import json,sys; c=json.load(sys.stdin)["counts"]; sys.exit(0 if c.get("synthesized",0)==sum(c.values()) else 1)'; do
    sleep 0.5
    ((SECONDS < 1800)) || { echo "gpu_busy.sh: synthesis did not finish within 30 min" >&2; exit 1; }
  done
  echo "presynth: $parts partitions synthesized in $(since "$s0") s by $synth synth workers"
  t0=$(now)
  farm scale --dir "$d" --gpus "$gpu" >>"$work/start.log"
fi
"$bin" wait "$job" --config "$cfg" --quiet --timeout 1800 >/dev/null
t1=$(now)
"$bin" status "$job" --config "$cfg" --json >"$work/status.json"
# The worker's log lines "... partition N proved on the GPU d (...)" carry their time (common/util/log.cpp).
grep -h "proved on the GPU" "$d/gpu-$gpu.log" | grep -F "$job" >"$work/proved.log" || true
python3 - "$work/status.json" "$work/proved.log" "$t0" "$t1" "$mode" "$synth" <<'EOF'
import json, sys, re, datetime, statistics as st
s = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
t0, t1, mode, synth = float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], int(sys.argv[6])
P = s["partition_states"]
print(f"{'part':>4} {'bundle_bytes':>13} {'synth_ms':>9} {'fetch_ms':>9} {'expand_ms':>9} {'wait_ms':>8} {'prove_ms':>9}")
for p in P:
    print(f"{p['partition']:>4} {p.get('bundle_bytes',0):>13} {p.get('synth_ms',0):>9.1f} {p.get('fetch_ms',0):>9.1f} "
          f"{p.get('expand_ms',0):>9.1f} {p.get('slot_wait_ms',0):>8.1f} {p.get('prove_ms',0):>9.1f}")
prove = [p.get("prove_ms", 0) for p in P]
wall = (t1 - t0) * 1000
# Steady state: proof completion times from the log; the first proof's GPU time precedes the window.
ts = []
for l in lines:
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)", l)
    n = re.search(r"partition (\d+) proved", l)
    if m and n:
        ts.append((datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp() * 1000, int(n.group(1))))
ts.sort()
steady = ""
if len(ts) >= 3:
    window = ts[-1][0] - ts[0][0]
    gpu_in = sum(P[i]["prove_ms"] for _, i in ts[1:])
    steady = f"; steady state (proofs 2..{len(ts)}): {gpu_in:.0f} ms GPU in {window:.0f} ms = {100 * gpu_in / window:.1f}% busy"
print(f"{mode}: {len(P)} partitions, {s['verified']} verified, {synth} synth workers; wall {wall:.0f} ms, GPU prove "
      f"{sum(prove):.0f} ms (mean {st.mean(prove):.1f}), GPU busy {100 * sum(prove) / wall:.1f}%{steady}; "
      f"bundle {st.mean(p.get('bundle_bytes', 0) for p in P) / 2**20:.1f} MiB, synth mean "
      f"{st.mean(p.get('synth_ms', 0) for p in P):.0f} ms, fetch mean {st.mean(p.get('fetch_ms', 0) for p in P):.1f} ms, "
      f"expand mean {st.mean(p.get('expand_ms', 0) for p in P):.1f} ms")
EOF
