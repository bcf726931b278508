#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deploy/local-farm.sh as an operator and as ctest -j use it (ctest: local_farm_script):
#  1. without --bin, $ZKMILL_BIN, a build or zkmill on PATH it says in one line what to do;
#  2. `start` refuses a directory whose farm still runs (GPU prove workers included; it says how
#     to stop it); once stopped, the directory starts again;
#  3. a port taken by another process before our server binds it is given up and another one
#     tried (the script's ZKMILL_LOCAL_FARM_FIRST_PORT hook makes redis and the coordinator try
#     a port this test holds first);
#  4. 6 farms started at once all come up, round after round, on distinct ports
#     (ZKMILL_FARM_STRESS_ROUNDS rounds, default 2): the race that once failed
#     ZkeyFarmTest.SubmitRefusesTruncatedOtherCurveWrongSizeAndOversizeWitnesses;
#  5. --set SECTION.KEY=VALUE reaches the coordinator's config (farm.yaml) and each worker's,
#     scale reuses it, a malformed one is refused before anything starts (exit 2), and a key the
#     coordinator does not know stops the start with its error (exit 1).
# A failed start prints the failing component's log tail (the script does), shown here.
# Usage: local_farm_script_test.sh BUILD_DIR
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: local_farm_script_test.sh BUILD_DIR}" && pwd)
zkmill=$build/bin/zkmill
script=$src/deploy/local-farm.sh
work=$(mktemp -d)
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
cleanup() {
  local d
  for d in "$work"/*/; do [[ -e "$d/redis.pid" ]] && bash "$script" stop --dir "$d" > /dev/null 2>&1; done
  [[ -n "${holder:-}" ]] && kill "$holder" 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/keys"
"$zkmill" setup --circuit chain --size 200 --curve bn254 --seed 1 --out "$work/keys/chain.key" > /dev/null 2>&1 ||
  { echo "zkmill setup failed" >&2; exit 1; }

# 1. No binary anywhere: one line saying what to do, exit 2.
mkdir -p "$work/lone/deploy"
cp "$script" "$work/lone/deploy/local-farm.sh"
err=$(env -u ZKMILL_BIN PATH=/usr/bin:/bin bash "$work/lone/deploy/local-farm.sh" start --dir "$work/lone/farm" \
      --keys "$work/keys" 2>&1 > /dev/null); rc=$?
[[ $rc -eq 2 ]] || fail "no binary: exit $rc, expected 2"
[[ "$err" == *"no zkmill binary"*"--bin"* ]] || fail "no binary: message '$err'"
[[ $(wc -l <<< "$err") -eq 1 ]] || fail "no binary: more than one line: '$err'"

# 2. A running farm's directory is refused; a stopped one starts again.
start() {  # start DIR [SYNTH [PROVE [ARGS...]]]
  bash "$script" start --dir "$1" --keys "$work/keys" --synth "${2:-0}" --prove "${3:-1}" --bin "$zkmill" "${@:4}"
}
out=$(start "$work/f1" 2>&1) || fail "start f1: $out"
pid=$(cat "$work/f1/redis.pid")
err=$(start "$work/f1" 2>&1); rc=$?
[[ $rc -eq 1 ]] || fail "second start: exit $rc, expected 1"
[[ "$err" == *"a farm is still running in"*"stop it first"*"stop --dir"* ]] || fail "second start: message '$err'"
[[ "$(cat "$work/f1/redis.pid")" == "$pid" ]] && kill -0 "$pid" || fail "second start touched the running farm"
bash "$script" status --dir "$work/f1" > /dev/null || fail "status after the refused start"
# A GPU prove worker's pid file (gpu-<d>.pid) counts as a running process of the farm too (here a
# copy of prove-1's: the script only asks that the pid be a live zkmill).
cp "$work/f1/prove-1.pid" "$work/f1/gpu-7.pid"
err=$(start "$work/f1" 2>&1); rc=$?
[[ $rc -eq 1 && "$err" == *"gpu-7 (pid"* ]] || fail "a running GPU worker is not named: exit $rc, message '$err'"
rm -f "$work/f1/gpu-7.pid"
bash "$script" stop --dir "$work/f1" > /dev/null
out=$(start "$work/f1" 2>&1) || fail "restart of a stopped farm's directory: $out"
bash "$script" stop --dir "$work/f1" > /dev/null

# 3. A port lost to another process is retried.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
print(s.getsockname()[1], flush=True); time.sleep(600)' > "$work/held.port" &
holder=$!
for _ in $(seq 50); do [[ -s "$work/held.port" ]] && break; sleep 0.1; done
held=$(cat "$work/held.port")
err=$(ZKMILL_LOCAL_FARM_FIRST_PORT=$held start "$work/f2" 2>&1 > /dev/null) || fail "start with a lost port: $err"
[[ "$err" == *"redis lost port $held"* ]] || fail "redis did not retry: '$err'"
[[ "$err" == *"the coordinator lost port $held"* ]] || fail "the coordinator did not retry: '$err'"
[[ "$(cat "$work/f2/redis.port")" != "$held" ]] || fail "redis.port is the held port"
"$zkmill" status --config "$work/f2/client.yaml" > /dev/null 2>&1 || fail "the farm started after a lost port does not answer"
bash "$script" stop --dir "$work/f2" > /dev/null
kill "$holder" 2> /dev/null; holder=""

# 5. --set: config settings for the farm.
out=$(start "$work/s1" 1 1 --set coordinator.synth_lookahead=3 --set worker.prefetch=0 2>&1) || fail "start with --set: $out"
grep -qx '  synth_lookahead: 3' "$work/s1/farm.yaml" || fail "--set coordinator.synth_lookahead: not in farm.yaml"
grep -qx '  prefetch: 0' "$work/s1/prove-1.yaml" || fail "--set worker.prefetch: not in prove-1.yaml"
grep -qx '  prefetch: 0' "$work/s1/synth-1.yaml" || fail "--set worker.prefetch: not in synth-1.yaml"
out=$(bash "$script" scale --dir "$work/s1" --prove 2 2>&1) || fail "scale of a farm with settings: $out"
grep -qx '  prefetch: 0' "$work/s1/prove-2.yaml" || fail "scale: prove-2 started without the settings"
"$zkmill" submit --config "$work/s1/client.yaml" --key "$work/keys/chain.key" --partitions 2 --wait --timeout 120 \
  > /dev/null 2>&1 || fail "a job on the farm started with --set"
bash "$script" stop --dir "$work/s1" > /dev/null
err=$(start "$work/s2" 1 1 --set prefetch=0 2>&1 > /dev/null); rc=$?
[[ $rc -eq 2 && "$err" == *"--set takes coordinator.KEY=VALUE or worker.KEY=VALUE"* ]] ||
  fail "malformed --set: exit $rc, message '$err'"
[[ ! -e "$work/s2/redis.pid" ]] || fail "malformed --set: something was started"
err=$(start "$work/s3" 1 1 --set coordinator.no_such_key=1 2>&1 > /dev/null); rc=$?
[[ $rc -eq 1 && "$err" == *"no_such_key"* ]] || fail "unknown --set key: exit $rc, message '$err'"
[[ -z "$(ls "$work/s3"/*.pid 2> /dev/null)" ]] || fail "unknown --set key: processes left: $(ls "$work/s3"/*.pid)"

# 4. Farms started in parallel all come up.
rounds=${ZKMILL_FARM_STRESS_ROUNDS:-2}
for ((round = 1; round <= rounds; round++)); do
  for i in 1 2 3 4 5 6; do
    (start "$work/p$i" 1 1 > "$work/p$i.out" 2>&1; echo $? > "$work/p$i.rc") &
  done
  wait
  ports=()
  for i in 1 2 3 4 5 6; do
    if [[ "$(cat "$work/p$i.rc")" != 0 ]]; then
      fail "round $round: farm $i did not start:"; cat "$work/p$i.out" >&2
    fi
    ports+=("$(cat "$work/p$i/redis.port" 2>/dev/null)")
  done
  [[ $(printf '%s\n' "${ports[@]}" | sort -u | wc -l) -eq 6 ]] || fail "round $round: farms share a redis port: ${ports[*]}"
  for i in 1 2 3 4 5 6; do bash "$script" stop --dir "$work/p$i" > /dev/null 2>&1; done
  [[ $failures -eq 0 ]] || break
  echo "round $round: 6 farms started in parallel, all up"
done

[[ $failures -eq 0 ]] && echo "PASSED" || { echo "$failures failure(s)" >&2; exit 1; }
