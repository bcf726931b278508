#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The chaos run: a whole zkmill farm spread over network namespaces (tests/chaos/netns.sh: a
# Redis host, two coordinator hosts (one active, one --standby; each coordinator in its own pid
# namespace too, so neither can see the other's process), 2 synth and 2 prove hosts on a private
# bridge, CURVE on), jobs of mixed size, curve, kind and priority submitted throughout, and a
# seeded fault schedule (printed first) of kill -9 and SIGSTOP/SIGCONT of workers and of the
# active coordinator (whichever holds the lease then: the standby must take over; a killed or
# deposed coordinator comes back as a standby), link cuts (also of the active coordinator's
# host), loss periods (5% of TCP packets dropped, 200 ms +-50 ms added on the host's proxied
# connections) and a Redis kill -9 + restart. With --sentinel, Redis is a primary and a replica
# on two hosts under three sentinels (one on each Redis host, one on a third host, "arbiter",
# where the clients run too), every component finds the primary through the sentinels and waits
# for the replica on durable writes (redis.min_replicas 1), and the Redis faults are kill -9 of
# the primary (restarted after the fault: it comes back a primary with old data until the
# sentinels make it a replica), cuts of the primary's host, SENTINEL FAILOVER, and cuts and
# loss periods of either Redis host; a probe logs every 100 ms the primary the sentinels name and
# each server's role, writing to those that say they are a primary, and the time from each
# primary fault to the first write the newly named primary took is reported (failover time).
# Then everything heals, the farm finishes its work,
# the workers drain, and the invariants are checked (tests/chaos/chaos.py check):
#   every job done, or failed with a reason (none stuck); every partition of a done job holds
#   exactly one recorded proof (the `recorded` counter and the coordinator's log agree); every
#   proof verifies (`zkmill verify` on all, snarkjs on a sample of the .zkey jobs'); no
#   orphaned lease, queue entry, active job, staged or job witness in Redis; every synth worker
#   drains at the end without dropping a held bundle; every proof was recorded by the holder of
#   the coordinator lease at that moment (its recorded fence against zk:lease:history).
# Takeover times (an active coordinator's fault to the new holder's "TOOK OVER" line) are
# reported with the counts. With --sentinel a partition recorded twice in the logs but once in
# the end is accepted only when the first recording falls in a window of writes a demoted
# primary discarded (lost with the old primary before it was acknowledged: the worker re-sent
# the proof) and the second after the new primary's promotion.
# The last line is `chaos: J jobs, P partitions, F faults (...), lost 0, duplicated 0,
# unverified 0` when every invariant holds; the exit status is 0 then, 1 when one does not,
# 77 when network namespaces cannot be made here (not root, no nft; the reason is printed).
#
#   tests/chaos/run.sh [--short] [--sentinel | --tls] [--seed S] [--bin ZKMILL] [--duration S] [--keep]
#     --short     150 s of faults, about 4 minutes in all on 2 cores (CI: scripts/test.sh runs it
#                 without and with --sentinel)
#     (default)   the long variant: 1200 s of faults, about 25 minutes
#     --sentinel  Redis under Sentinel (a primary, a replica, three sentinels), failovers
#     --tls       the one Redis serves TLS only (redis.tls_ca; a CA and server certificate made
#                 with openssl): the farm's Redis traffic, the checker's and redis-cli's over TLS
#     --duration  seconds of the fault phase (overrides either)
#     --seed      the schedule's and the job mix's seed (default: from the clock; printed)
#     --bin       the zkmill binary (default build/bin/zkmill)
#     --keep      keep the work directory (it is kept anyway when an invariant fails)
# snarkjs: tests/interop/node_modules/.bin/snarkjs (scripts/setup.sh), or $ZKMILL_SNARKJS.
# Stops by itself: a watchdog ends the run (exit 1) at 2x its planned time, and an EXIT trap
# kills every process it started, by pid, and deletes its namespaces.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
short=0 seed="" bin="$root/build/bin/zkmill" duration="" keep=0 sentinel=0 tls=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --short) short=1; shift ;;
    --keep) keep=1; shift ;;
    --sentinel) sentinel=1; shift ;;
    --tls) tls=1; shift ;;
    --seed | --bin | --duration)
      [[ $# -ge 2 ]] || { echo "run.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in --seed) seed=$2 ;; --bin) bin=$2 ;; --duration) duration=$2 ;; esac
      shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
((sentinel && tls)) && { echo "run.sh: --tls is for the one-Redis run (not with --sentinel)" >&2; exit 2; }
seed=${seed:-$(( $(date +%s) % 100000 ))}
duration=${duration:-$([[ $short == 1 ]] && echo 150 || echo 1200)}
[[ $seed =~ ^[0-9]+$ && $duration =~ ^[0-9]+$ ]] || { echo "run.sh: --seed and --duration take integers" >&2; exit 2; }
[[ -x $bin ]] || { echo "run.sh: no zkmill binary at $bin (build it, or pass --bin)" >&2; exit 2; }
bin=$(readlink -f "$bin")
for tool in redis-server redis-cli python3 $( ((sentinel)) && echo redis-sentinel); do
  command -v $tool >/dev/null || { echo "run.sh: '$tool' is missing (scripts/setup.sh installs it)" >&2; exit 2; }
done

source "$here/netns.sh"
if [[ $(id -u) != 0 ]]; then echo "chaos: SKIP: network namespaces need root"; exit 77; fi
if ! why=$(net_probe); then echo "chaos: SKIP: $why"; exit 77; fi

W=$(mktemp -d "${TMPDIR:-/tmp}/zkchaos.XXXXXX")
NET_CTL_DIR="$W/ctl"; mkdir -p "$NET_CTL_DIR" "$W/redis" "$W/redis2" "$W/keys" "$W/curve" "$W/results"
t0=$(date +%s)
log() { printf '[chaos %4ds] %s\n' $(( $(date +%s) - t0 )) "$*"; }
now_ms() { date +%s%3N; }
failed=0
finish() {
  local rc=$?
  [[ -n ${watchdog:-} ]] && kill "$watchdog" 2>/dev/null
  [[ -n ${submitter:-} ]] && kill "$submitter" 2>/dev/null
  net_down
  if ((failed || rc != 0 || keep)); then echo "chaos: work directory kept: $W"; else rm -rf "$W"; fi
}
trap finish EXIT
trap 'echo "chaos: interrupted (during: $BASH_COMMAND)"; exit 1' INT TERM
# The watchdog: twice the planned time, then the run ends (the EXIT trap cleans up).
( sleep $(( 2 * (duration + 240) )); echo "chaos: WATCHDOG: the run took too long; stopping it"; kill -TERM $$ ) &
watchdog=$!

# ------------------------------------------------------------------------------------------
# Hosts, keys, configs
log "seed $seed, $duration s of faults$( ((sentinel)) && echo ", Redis under Sentinel"), work directory $W"
net_up redis=2 $( ((sentinel)) && echo redis2=5 arbiter=6) coord1=3 coord2=4 synth1=11 synth2=12 prove1=21 prove2=22 ||
  { echo "chaos: FAIL: could not build the network"; exit 1; }
# Where clients (submit, the checker, the probe) run: the Redis host, or with Sentinel the
# arbiter (no fault hits it).
CLIENT_HOST=redis
((sentinel)) && CLIENT_HOST=arbiter
WORKERS=(synth1 synth2 prove1 prove2)
COORDS=(coord1 coord2)
PW=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')

"$bin" setup --circuit chain --size 400 --curve bn254 --seed 7 --out "$W/keys/small.key" >/dev/null || exit 1
"$bin" setup --circuit chain --size 3000 --curve bls12-381 --seed 8 --out "$W/keys/big.key" >/dev/null || exit 1
fx="$root/tests/interop/fixtures/bn128"
cp "$fx/multiplier.zkey" "$fx/multiplier.r1cs" "$W/keys/"
# One key pair for both coordinators: a worker trusts whichever holds the lease.
for p in coordinator "${WORKERS[@]}"; do "$bin" keygen --out "$W/curve/$p" >/dev/null || exit 1; done
cat "$W"/curve/{synth,prove}*.pub > "$W/curve/allowed"

common="coordinator:
  heartbeat_ms: 250
  liveness: 8
  lease_ms: 2000
  max_attempts: 10
  backoff_ms: 100
  backoff_max_ms: 2000"
# With Sentinel every farm component asks the sentinels (the arbiter's first: no fault hits it)
# and connects to the primary's own address, so its Redis traffic does not pass a delay proxy.
SENTINELS=""
if ((sentinel)); then
  SENTINELS="${NET_ADDR[arbiter]}:26379,${NET_ADDR[redis]}:26379,${NET_ADDR[redis2]}:26379"
  redis_cfg="redis: {sentinels: [\"${SENTINELS//,/\", \"}\"], master_name: zkchaos, password: $PW, min_replicas: 1, wait_timeout_ms: 2000, connect_timeout_ms: 1000, command_timeout_ms: 2000}"
else
  redis_cfg="redis: {host: 127.0.0.1, port: 16379, password: $PW$( ((tls)) && echo ", tls_ca: $W/tls/ca.crt")}"
fi
# With --tls: a CA and a certificate for the Redis host's addresses (the coordinators reach it
# through their proxies' 127.0.0.1); Redis asks no client certificate (the password still does).
if ((tls)); then
  mkdir -p "$W/tls"
  printf '[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = zkchaos\n[ca]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign\n[leaf]\nsubjectAltName = IP:127.0.0.1,IP:%s\n' \
    "${NET_ADDR[redis]}" > "$W/tls/x509.cnf"
  req=(openssl req -config "$W/tls/x509.cnf" -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  { "${req[@]}" -x509 -extensions ca -days 2 -keyout "$W/tls/ca.key" -out "$W/tls/ca.crt" &&
    "${req[@]}" -new -keyout "$W/tls/redis.key" -out "$W/tls/redis.csr" &&
    openssl x509 -req -in "$W/tls/redis.csr" -CA "$W/tls/ca.crt" -CAkey "$W/tls/ca.key" -CAcreateserial -days 2 \
      -extfile "$W/tls/x509.cnf" -extensions leaf -out "$W/tls/redis.crt"; } >"$W/tls/openssl.log" 2>&1 ||
    { echo "chaos: FAIL: openssl could not make the certificates (see $W/tls/openssl.log)"; exit 1; }
fi
for c in "${COORDS[@]}"; do
  cat > "$W/$c.yaml" <<Y
$redis_cfg
$common
  bind: tcp://${NET_ADDR[$c]}:7710
threads: 1
zmq: {curve: true, key_file: $W/curve/coordinator.key, allowed_keys_file: $W/curve/allowed}
Y
done
for w in "${WORKERS[@]}"; do
  cat > "$W/$w.yaml" <<Y
$common
  endpoint: tcp://127.0.0.1:17710
  standby_endpoints: ["tcp://127.0.0.1:17711"]
threads: 1
worker: {id: $w, key_dir: $W/keys, bundle_bind: "tcp://${NET_ADDR[$w]}:7800", drain_hold_s: 60}
zmq: {curve: true, key_file: $W/curve/$w.key, coordinator_public_key_file: $W/curve/coordinator.pub, allowed_keys_file: $W/curve/allowed}
Y
done
if ((sentinel)); then printf '%s\nlog: {level: warn}\n' "$redis_cfg" > "$W/client.yaml"
else printf 'redis: {host: 127.0.0.1, port: 6379, password: %s%s}\nlog: {level: warn}\n' "$PW" \
  "$( ((tls)) && echo ", tls_ca: $W/tls/ca.crt")" > "$W/client.yaml"; fi

# ------------------------------------------------------------------------------------------
# Components. PID[name] is the live process of each; start NAME (re)starts one. A coordinator
# runs in a pid namespace of its own (unshare, which kills it if unshare dies): on one kernel
# the lease's "dead holder on this machine" shortcut would otherwise let a standby take a killed
# coordinator's lease at once, which no standby on another host can. UPID[coordN] is unshare,
# PID[coordN] the coordinator itself (what faults signal). `start coordN standby` adds --standby.
# With Sentinel the Redis servers run from config files the sentinels rewrite (a server they
# make a replica stays one when restarted), and redis2 starts as redis's replica.
if ((sentinel)); then
  for h in redis redis2; do
    cat > "$W/$h/redis.conf" <<C
port 6379
bind ${NET_ADDR[$h]} 127.0.0.1
requirepass $PW
masterauth $PW
appendonly yes
appendfsync always
save ""
dir $W/$h
C
  done
  echo "replicaof ${NET_ADDR[redis]} 6379" >> "$W/redis2/redis.conf"
  # Three sentinels, quorum 2: a majority survives any one Redis host's fault. The primary is
  # down for them after 1.5 s without an answer.
  for h in redis redis2 arbiter; do
    mkdir -p "$W/sentinel-$h"
    cat > "$W/sentinel-$h/sentinel.conf" <<C
port 26379
bind ${NET_ADDR[$h]} 127.0.0.1
dir $W/sentinel-$h
sentinel monitor zkchaos ${NET_ADDR[redis]} 6379 2
sentinel auth-pass zkchaos $PW
sentinel down-after-milliseconds zkchaos 1500
sentinel failover-timeout zkchaos 10000
sentinel parallel-syncs zkchaos 1
C
  done
fi
declare -A PID=() UPID=()
start() {
  case "$1" in
    redis | redis2)
      if ((sentinel)); then net_spawn "$1" "$W/$1.log" redis-server "$W/$1/redis.conf"
      elif ((tls)); then net_spawn redis "$W/redis.log" redis-server --port 0 --tls-port 6379 --bind "${NET_ADDR[redis]}" \
        127.0.0.1 --tls-cert-file "$W/tls/redis.crt" --tls-key-file "$W/tls/redis.key" --tls-ca-cert-file "$W/tls/ca.crt" \
        --tls-auth-clients no --requirepass "$PW" --appendonly yes --appendfsync always --save "" --dir "$W/redis"
      else net_spawn redis "$W/redis.log" redis-server --port 6379 --bind "${NET_ADDR[redis]}" 127.0.0.1 \
        --requirepass "$PW" --appendonly yes --appendfsync always --save "" --dir "$W/redis"; fi ;;
    sentinel-*) net_spawn "${1#sentinel-}" "$W/$1.log" redis-sentinel "$W/$1/sentinel.conf" ;;
    coord*)
      net_spawn "$1" "$W/$1.log" unshare --pid --fork --kill-child "$bin" coordinator --config "$W/$1.yaml" \
        ${2:+--standby}
      UPID[$1]=$NET_LAST_PID
      local end=$((SECONDS + 5)) child=""
      until child=$(pgrep -P "$NET_LAST_PID"); do ((SECONDS < end)) || break; sleep 0.05; done
      PID[$1]=${child:-$NET_LAST_PID}
      echo "$(now_ms) start $1 ${PID[$1]} ${UPID[$1]}${2:+ standby}" >> "$W/faults.log"
      return ;;
    synth* | prove*) net_spawn "$1" "$W/$1.log" "$bin" worker --config "$W/$1.yaml" --role "${1%[0-9]}" ;;
  esac
  PID[$1]=$NET_LAST_PID
}
# The primary's host (with Sentinel: as the sentinels name it; the last one named when none
# answers) and redis-cli to it.
PRIMARY=redis
primary_host() {
  if ((sentinel)); then
    local s a h
    for s in ${SENTINELS//,/ }; do
      a=$(net_exec arbiter timeout 2 redis-cli -h "${s%:*}" -p "${s#*:}" --raw SENTINEL get-master-addr-by-name zkchaos 2>/dev/null | head -n 1)
      [[ -n $a ]] || continue
      for h in redis redis2; do [[ $a == "${NET_ADDR[$h]}" ]] && PRIMARY=$h; done
      break
    done
  fi
  echo "$PRIMARY"
}
replica_host() { [[ $(primary_host) == redis ]] && echo redis2 || echo redis; }
# RCLI_TIMEOUT (s): how long a command may wait for a primary that does not answer (cut off).
rcli() {
  if ((sentinel)); then
    net_exec arbiter timeout "${RCLI_TIMEOUT:-10}" redis-cli -h "${NET_ADDR[$(primary_host)]}" -a "$PW" --no-auth-warning "$@"
  elif ((tls)); then net_exec redis redis-cli --tls --cacert "$W/tls/ca.crt" -a "$PW" --no-auth-warning "$@"
  else net_exec redis redis-cli -a "$PW" --no-auth-warning "$@"; fi
}
wait_until() {  # wait_until SECONDS CMD...
  local end=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do ((SECONDS < end)) || return 1; sleep 0.2; done
}

start redis
wait_until 20 rcli ping || { echo "chaos: FAIL: redis did not start"; failed=1; exit 1; }
if ((sentinel)); then
  start redis2
  for h in redis redis2 arbiter; do start "sentinel-$h"; done
  # The replica in step, and every sentinel knowing it and the other two (they find the
  # replica through the primary's INFO, every 10 s): before that no failover can happen.
  wait_until 30 bash -c "ip netns exec $(net_ns redis) redis-cli -a '$PW' --no-auth-warning INFO replication | grep -q state=online" ||
    { echo "chaos: FAIL: the replica did not catch up (see $W/redis2.log)"; failed=1; exit 1; }
  sentinels_ready() {
    local h
    for h in redis redis2 arbiter; do
      net_exec "$h" redis-cli -p 26379 SENTINEL replicas zkchaos | grep -q "${NET_ADDR[redis2]}" || return 1
      [[ $(net_exec "$h" redis-cli -p 26379 SENTINEL ckquorum zkchaos) == OK* ]] || return 1
      net_exec "$h" redis-cli -p 26379 --raw SENTINEL sentinels zkchaos | grep -c '^name$' | grep -qx 2 || return 1
    done
  }
  wait_until 40 sentinels_ready || { echo "chaos: FAIL: the sentinels did not find the replica and each other (see $W/sentinel-*.log)"; failed=1; exit 1; }
  # The probe: every 100 ms the primary the sentinels name and a write to each server that
  # says it is a primary (failover times; when a demoted primary's writes were discarded).
  net_spawn arbiter "$W/probe.err" python3 "$here/chaos.py" probe --sentinels "$SENTINELS" --master zkchaos \
    --servers "${NET_ADDR[redis]}:6379,${NET_ADDR[redis2]}:6379" --password "$PW" --out "$W/probe.log"
fi
# Each worker reaches the coordinator, and the coordinator Redis, through a delay proxy on
# its own loopback (link_delay); the bundle data plane goes host to host directly.
((sentinel)) || for c in "${COORDS[@]}"; do net_proxy "$c" 16379 redis 6379 "$W/proxy-$c.log"; done
for w in "${WORKERS[@]}"; do
  net_proxy "$w" 17710 coord1 7710 "$W/proxy-$w.log"
  net_proxy "$w" 17711 coord2 7710 "$W/proxy-$w-2.log"
done
start coord1
wait_until 30 grep -q "holding the coordinator lease" "$W/coord1.log" ||
  { echo "chaos: FAIL: coordinator coord1 did not start (see $W/coord1.log)"; failed=1; exit 1; }
start coord2 standby
wait_until 30 grep -q "waiting to take over" "$W/coord2.log" ||
  { echo "chaos: FAIL: standby coordinator coord2 did not start (see $W/coord2.log)"; failed=1; exit 1; }
for w in "${WORKERS[@]}"; do start "$w"; done
for w in "${WORKERS[@]}"; do
  wait_until 30 grep -qE "worker $w (re-)?registered" "$W/coord1.log" ||
    { echo "chaos: FAIL: worker $w did not register (see $W/$w.log)"; failed=1; exit 1; }
done
log "farm up: redis ${NET_ADDR[redis]}$( ((sentinel)) && echo " (primary), ${NET_ADDR[redis2]} (replica), sentinels $SENTINELS"), coordinator ${NET_ADDR[coord1]} (active) and ${NET_ADDR[coord2]} (standby), CURVE, workers ${WORKERS[*]}"

# ------------------------------------------------------------------------------------------
# The job mix, submitted throughout the fault phase (a subshell; seeded like the schedule).
submit_loop() {
  RANDOM=$((seed + 1))
  local n=0 end=$(( $(date +%s) + duration * 85 / 100 )) kind parts prio args id try
  while (( $(date +%s) < end )); do
    n=$((n + 1))
    case $((RANDOM % 5)) in
      0 | 1 | 2) kind=small parts=$((1 + RANDOM % 8)) ;;
      3) kind=big parts=$((1 + RANDOM % 4)) ;;
      4) kind=zkey parts=$((1 + RANDOM % 3)) ;;
    esac
    prio=$((RANDOM % 4))
    if [[ $kind == zkey ]]; then
      args=(--zkey "$W/keys/multiplier.zkey")
      for ((i = 0; i < parts; i++)); do args+=(--witness "$fx/multiplier.wtns"); done
      vk="$fx/multiplier.vk.json"
    else
      args=(--key "$W/keys/$kind.key" --partitions "$parts" --seed "$n")
      vk="$W/keys/$kind.key.vk.json"
    fi
    # The same idempotency key on every try: a submit cut off by a fault is retried safely.
    id=""
    # With Sentinel a submit fails while the primary has no replica in step: after a failover,
    # until the old primary is back, demoted and resynchronized (up to ~25 s after a primary
    # fault), and Redis faults come at least 20 s apart, so tries go on for up to 90 s (two such
    # windows back to back) rather than a number of times (a try takes 1 to 6 s).
    local deadline=$((SECONDS + 90)) tries=0
    while ((SECONDS < deadline)); do
      tries=$((tries + 1))
      id=$(net_exec "$CLIENT_HOST" "$bin" submit --config "$W/client.yaml" "${args[@]}" --priority "$prio" \
        --idempotency-key "chaos-$seed-$n" 2>>"$W/submit.log") && break
      id=""; sleep $((1 + sentinel))
    done
    if [[ -n $id ]]; then echo "$id $kind $vk $parts" >> "$W/jobs.tsv"
    else echo "submit $n failed $tries times in 90 s" >> "$W/submit.failed"; fi
    sleep "$((RANDOM % 3)).$((RANDOM % 10))"
  done
}
: > "$W/jobs.tsv"
submit_loop & submitter=$!

# ------------------------------------------------------------------------------------------
# The fault schedule: applied and undone from this shell, so PID[] stays the truth.
python3 "$here/chaos.py" schedule --seed "$seed" --duration "$duration" --workers "$(IFS=,; echo "${WORKERS[*]}")" \
  $( ((sentinel)) && echo --sentinel) > "$W/schedule"
echo "chaos: fault schedule (seed $seed; at_s kind target duration_s; 'coordinator' is whichever holds the lease then, 'standby' the other one$( ((sentinel)) && echo "; 'primary' and 'replica' the Redis servers' roles then")):"
sed 's/^/  /' "$W/schedule"
source "$here/faults.sh"  # active_coord, apply, undo, supervise, undo_due
start_ms=$(now_ms)
while read -r at kind target dur; do
  due=$(( start_ms + ${at/./} * 100 ))
  while (( $(now_ms) < due )); do
    undo_due
    sleep 0.1
  done
  supervise  # a coordinator that exited by itself is back (as a standby) before a fault aims at one
  role=""
  case "$target" in
    primary) target=$(primary_host) role=" ${NET_ADDR[$target]}"; log "fault: $kind of the Redis primary ($target) for ${dur} s" ;;
    replica) target=$(replica_host) role=" replica"; log "fault: $kind of the Redis replica's host ($target) for ${dur} s" ;;
    coordinator) target=$(active_coord) role=" active"; log "fault: $kind of the active coordinator ($target) for ${dur} s" ;;
    standby) target=$(other_coord "$(active_coord)") role=" standby"; log "fault: $kind of the standby coordinator's host ($target) for ${dur} s" ;;
    *) log "fault: $kind $target for ${dur} s" ;;
  esac
  # The fault's time is taken before it is applied (a kill -9 includes waiting for the process).
  began=$(now_ms)
  if ! apply "$kind" "$target"; then
    log "fault: $kind of $target skipped: its process is not running"
    echo "$began skipped $kind $target$role" >> "$W/faults.log"
    continue
  fi
  echo "$began begin $kind $target$role" >> "$W/faults.log"
  FAULTS[$kind]=$(( ${FAULTS[$kind]:-0} + 1 ))
  pending+=("$(( $(now_ms) + ${dur/./} * 100 )) $kind $target")
done < "$W/schedule"
# Let the fault phase run its length, undoing each fault when due.
while (( ${#pending[@]} > 0 )) || (( $(now_ms) < start_ms + duration * 1000 )); do
  undo_due
  sleep 0.2
done
supervise
log "fault phase over; every fault undone; active coordinator: $(active_coord)"
wait "$submitter"; submitter=""

# ------------------------------------------------------------------------------------------
# Quiesce: every job final (bounded), then drain the workers and stop the coordinator.
active() { [[ $(rcli SCARD zk:active) == 0 ]]; }
if ! wait_until $(( short ? 150 : 600 )) active; then
  log "jobs still active after the drain period: $(rcli SMEMBERS zk:active | tr '\n' ' ')"
fi
# Let the farm settle before draining: a worker drained while the coordinator is still silent
# to it (a cut just healed) gives its held bundles up at once, by design; the invariant is
# about a farm whose links work. Every worker must have been heard from in the last second.
all_heard() {
  rcli --raw HGETALL zk:workers | python3 -c '
import json, sys
lines = sys.stdin.read().split("\n")
now, want = int(sys.argv[1]), set(sys.argv[2:])
seen = {lines[i]: json.loads(lines[i + 1]) for i in range(0, len(lines) - 1, 2) if lines[i]}
sys.exit(0 if all(w in seen and now - seen[w]["last_seen_ms"] < 1000 for w in want) else 1)' "$(now_ms)" "${WORKERS[@]}"
}
wait_until 30 all_heard || log "not every worker has been heard from by the coordinator (see zk:workers)"
log "all jobs final; draining the workers"
held_fail=0
for w in "${WORKERS[@]}"; do kill -TERM "${PID[$w]}"; done
for w in "${WORKERS[@]}"; do
  if ! wait_until 40 bash -c "! kill -0 ${PID[$w]}"; then
    echo "chaos: FAIL: worker $w did not drain within 40 s (still holding bundles?)"; held_fail=1
  fi
  if grep -q "bundle(s) never released" "$W/$w.log"; then
    echo "chaos: FAIL: worker $w dropped bundles it held: $(grep 'never released' "$W/$w.log" | tail -1)"; held_fail=1
  fi
done
# The standby first: were the active one stopped first, the standby would take over.
for c in $(other_coord "$(active_coord)") $(active_coord); do
  PID[$c]=$(coord_pid "$c")
  kill -TERM "${PID[$c]}" 2>/dev/null
  if ! wait_until 20 bash -c "! kill -0 ${UPID[$c]}"; then
    echo "chaos: FAIL: coordinator $c (pid ${PID[$c]}) did not stop within 20 s of SIGTERM:"
    ps -o pid,ppid,stat,wchan:20,cmd -p "${PID[$c]},${UPID[$c]}"; pgrep -a -P "${UPID[$c]}"
    held_fail=1
  fi
done

snarkjs=${ZKMILL_SNARKJS:-$root/tests/interop/node_modules/.bin/snarkjs}
[[ -x $snarkjs ]] || { log "snarkjs not installed (tests/interop: npm ci): the zkey proofs get zkmill verify only"; snarkjs=""; }
# The checker reads the primary (with Sentinel: the one the sentinels name now).
CHECK_AT=(--port 6379)
((tls)) && CHECK_AT+=(--tls-ca "$W/tls/ca.crt")
((sentinel)) && CHECK_AT+=(--host "${NET_ADDR[$(primary_host)]}" --probe "$W/probe.log")
net_exec "$CLIENT_HOST" python3 "$here/chaos.py" check "${CHECK_AT[@]}" --password "$PW" --jobs "$W/jobs.tsv" \
  --coord-logs "$W/coord1.log" "$W/coord2.log" --zkmill "$bin" --client "$W/client.yaml" --out "$W/results" \
  --snarkjs "$snarkjs" --sample 3
check_rc=$?

# The checker must be able to fail: plant one violation of each kind in a copy of the final
# state's judgement (a second recording, a proof swapped for another partition's, a job put
# back to running, a stray lease, a stray staged witness, a proof recorded under a fence
# that did not hold the lease, a done job's partition that lost its proof (a recording rolled
# back with no re-send, as a failover after an early ack would leave it) and a job gone from
# Redis (its creation lost)) and check it names every one.
selfcheck() {
  local a b c d
  a=$(awk '$2 == "small" && $4 >= 2 {print $1; exit}' "$W/jobs.tsv")
  b=$(awk -v a="$a" '$1 != a {print $1; exit}' "$W/jobs.tsv")
  local j
  c="" d=""
  for j in $(awk -v a="$a" -v b="$b" '$1 != a && $1 != b {print $1}' "$W/jobs.tsv"); do
    if [[ -z $c && $(rcli HGET "zk:job:$j" state) == done ]]; then c=$j; elif [[ -z $d ]]; then d=$j; fi
    [[ -n $c && -n $d ]] && break
  done
  [[ -n $a && -n $b && -n $c && -n $d ]] || { echo "no 4 jobs (one of them done) to plant violations in"; return 1; }
  grep -E "^($a|$b|$c|$d) " "$W/jobs.tsv" > "$W/planted.tsv"
  rcli HINCRBY "zk:part:$a:1" recorded 1 >/dev/null
  rcli HSET "zk:part:$a:0" proof "$(rcli HGET "zk:part:$a:1" proof)" >/dev/null
  rcli HSET "zk:job:$b" state running >/dev/null
  rcli ZADD zk:leases 1 "999999999999:00000000" >/dev/null
  rcli SET zk:stage:planted:0 x >/dev/null
  rcli HSET "zk:part:$a:1" recorded_fence 0123456789abcdef0123456789abcdef >/dev/null
  rcli HSET "zk:part:$c:0" state proving recorded 0 >/dev/null
  rcli HDEL "zk:part:$c:0" proof >/dev/null
  rcli RENAME "zk:job:$d" "planted:gone:$d" >/dev/null
  local out
  out=$(net_exec "$CLIENT_HOST" python3 "$here/chaos.py" check "${CHECK_AT[@]}" --password "$PW" --jobs "$W/planted.tsv" \
    --coord-logs "$W/coord1.log" "$W/coord2.log" --zkmill "$bin" --client "$W/client.yaml" --out "$W/planted") && {
    echo "the checker passed a state with planted violations"; return 1; }
  local want
  for want in "$a partition 1: recorded 2 times" "$a partition 0: zkmill verify refused it" "job $b is running" \
    "orphaned entries in zk:leases" "orphaned keys zk:stage:" \
    "$a partition 1: recorded by a coordinator that did not hold the lease" \
    "$c partition 0: job done but partition proving recorded 0" "job $d is (missing)"; do
    grep -qF "$want" <<<"$out" || { echo "the checker missed a planted violation: '$want'"; echo "$out"; return 1; }
  done
}
mkdir -p "$W/planted"
if why=$(selfcheck); then log "self-check: the checker caught all 8 planted violations"
else echo "chaos: FAIL: self-check: $why"; check_rc=1; fi
[[ -f $W/submit.failed ]] && { echo "chaos: FAIL: $(wc -l < "$W/submit.failed") submit(s) never got through"; check_rc=1; }

# Recovery: after each fault ends, how long until the next proof is recorded (an upper bound:
# it includes any time the farm had nothing to do).
recovery=$(python3 - "$W/faults.log" "$W/coord1.log" "$W/coord2.log" <<'PY'
import sys, re, datetime
ends = [int(l.split()[0]) for l in open(sys.argv[1]) if " end " in l]
ts = []
for l in (l for p in sys.argv[2:] for l in open(p, errors="replace")):
    if " verified (" in l:
        # spdlog's local time (this run's TZ), as the log writes it: 2026-12-01T07:39:56.513
        m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}) ", l)
        if m:
            ts.append(datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp() * 1000)
gaps = [min((t - e for t in ts if t >= e), default=None) for e in ends]
gaps = [g for g in gaps if g is not None]
print(f"{max(gaps) / 1000:.1f}" if gaps else "n/a")
PY
)
read -r jobs parts lost dup unver retries < <(python3 -c "import json;d=json.load(open('$W/results/summary.json'));print(d['jobs'],d['partitions'],d['lost'],d['duplicated'],d['unverified'],d['retries'])" 2>/dev/null || echo "0 0 ? ? ? ?")
nf=0 kinds=""
for k in kill9 stop cut loss redis-restart primary-kill9 primary-cut failover; do
  [[ -n ${FAULTS[$k]:-} ]] || continue
  nf=$((nf + FAULTS[$k])); kinds+="${kinds:+, }$k ${FAULTS[$k]}"
done
log "retries $retries; max time from a fault's end to the next recorded proof ${recovery} s"
# Takeovers: each fault of the active coordinator to the standby's "TOOK OVER" line.
python3 "$here/chaos.py" takeovers --faults "$W/faults.log" --coord-logs "$W/coord1.log" "$W/coord2.log"
# Failovers: each fault of the Redis primary to the first write a new primary took.
((sentinel)) && python3 "$here/chaos.py" failovers --faults "$W/faults.log" --probe "$W/probe.log" \
  --coord-logs "$W/coord1.log" "$W/coord2.log"
exits=$(grep -c " exit coord" "$W/faults.log")
log "coordinators that exited by themselves (deposed without --standby) and were restarted as standbys: $exits"
log "faults skipped (their coordinator process was not running): $(grep -c " skipped " "$W/faults.log")"
if ((check_rc != 0 || held_fail != 0)); then failed=1; fi
echo "chaos: $jobs jobs, $parts partitions, $nf faults ($kinds), lost $lost, duplicated $dup, unverified $unver$([[ $failed == 1 ]] && echo ' — INVARIANTS VIOLATED')"
exit $failed
