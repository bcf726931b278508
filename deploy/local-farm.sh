#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# local-farm.sh: a whole zkmill farm on this machine, for development and tests:
# a private redis-server (AOF on, fsync always) on a free loopback port, the coordinator
# (Prometheus /metrics on another free loopback port), N synth and M prove workers. `start`
# returns once every worker has registered and writes DIR/client.yaml for
# `zkmill submit|status|wait|cancel|result --config DIR/client.yaml`.
#   local-farm.sh start  --dir DIR --keys KEYDIR --synth N --prove M [--bin ZKMILL] [--worker-threads T]
#       KEYDIR: zkmill keys and/or snarkjs .zkey files (each .zkey best with its .r1cs beside it);
#       --worker-threads: each worker's CPU thread pool (config `threads`; default 0 = all cores);
#       the zkmill binary: --bin, else $ZKMILL_BIN, else build/bin/zkmill of this checkout, else
#       `zkmill` on PATH. Refuses a DIR whose farm still runs (stop it first).
#       Ports: each server gets a kernel-chosen free loopback port; if another process takes it
#       before our server binds it (farms started in parallel), that server exits with "Address
#       already in use" and is started again on a new port (a few tries). A server counts as up
#       only once it answers as itself (redis: INFO's process_id is our pid). A component that
#       fails to start has the tail of its log printed.
#   local-farm.sh scale  --dir DIR [--synth N] [--prove M] [--gpus LIST] [--drain-timeout S]
#       start workers, or drain the highest-numbered ones (SIGTERM: each finishes its current
#       partition, then exits), until N synth and M prove workers run; returns once new
#       workers have registered and drained ones have exited (SIGKILL after S seconds, 900)
#   --gpus LIST (start and scale): one GPU prove worker per listed CUDA device, named gpu-<d>
#       (`zkmill worker --role prove --gpus d`), besides the --prove CPU ones; scale makes the
#       set exactly LIST (`none`: no GPU workers). Refused where nvidia-smi finds no such GPU.
#   --set SECTION.KEY=VALUE (start, repeatable): a config setting for the farm, written into
#       farm.yaml (coordinator.*, read by the coordinator) or each worker's yaml (worker.*), e.g.
#       --set worker.prefetch=0 --set coordinator.synth_lookahead=8 (docs/config.md lists the
#       keys; a wrong one stops the start with the component's error). scale reuses them.
#   local-farm.sh status --dir DIR   processes, metrics URL and `zkmill status`; exit 1 if
#                                    redis or the coordinator is down
#   local-farm.sh stop   --dir DIR   (SIGTERM: workers drain, then coordinator, then redis)
# Files in DIR: redis.{pid,port,log}, coordinator.{pid,log}, metrics.port, farm.yaml,
# client.yaml, zkmill.bin, keys.dir, worker.threads and settings (what scale reuses), <role>-<i>.{pid,yaml,log}, and
# <role>-<i>.draining while a worker drains.
set -euo pipefail

usage="usage: local-farm.sh start --dir DIR --keys KEYDIR --synth N --prove M [--gpus LIST] [--bin ZKMILL] [--worker-threads T] [--set SECTION.KEY=VALUE]...
       local-farm.sh scale --dir DIR [--synth N] [--prove M] [--gpus LIST|none] [--drain-timeout SECONDS]
       local-farm.sh status --dir DIR
       local-farm.sh stop --dir DIR"

cmd=${1:-}; shift || true
dir="" keys="" synth="" prove="" bin="" drain_timeout=900 worker_threads="" gpus="" settings=()
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || { echo "local-farm.sh: '$1' needs a value" >&2; exit 2; }
  case "$1" in
    --dir) dir=$2 ;;
    --keys) keys=$2 ;;
    --synth) synth=$2 ;;
    --prove) prove=$2 ;;
    --bin) bin=$2 ;;
    --drain-timeout) drain_timeout=$2 ;;
    --worker-threads) worker_threads=$2 ;;
    --gpus) gpus=$2 ;;
    --set)
      [[ "$2" =~ ^(coordinator|worker)\.[a-z_]+=[^[:space:]]+$ ]] || {
        echo "local-farm.sh: --set takes coordinator.KEY=VALUE or worker.KEY=VALUE (docs/config.md), got '$2'" >&2
        exit 2
      }
      settings+=("$2") ;;
    *) echo "local-farm.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -n "$dir" ]] || { echo "local-farm.sh: --dir is required" >&2; echo "$usage" >&2; exit 2; }
for n in "$synth" "$prove" "$drain_timeout" "$worker_threads"; do
  [[ -z "$n" || "$n" =~ ^[0-9]+$ ]] || { echo "local-farm.sh: '$n' is not a non-negative integer" >&2; exit 2; }
done

# --gpus LIST: validated against the devices nvidia-smi lists, before anything starts.
gpu_list=()
check_gpus() {
  [[ -n "$gpus" && "$gpus" != none ]] || return 0
  [[ "$gpus" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "local-farm.sh: --gpus must be a comma-separated list of device numbers (e.g. 0,1) or none, got '$gpus'" >&2; exit 2; }
  local have d
  have=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | grep -E '^[0-9]+$' || true)
  if [[ -z "$have" ]]; then
    echo "local-farm.sh: --gpus $gpus: this machine has no NVIDIA GPU (nvidia-smi finds none); use --prove N for CPU prove workers" >&2
    exit 2
  fi
  IFS=, read -ra gpu_list <<< "$gpus"
  for d in "${gpu_list[@]}"; do
    grep -qx "$d" <<< "$have" || { echo "local-farm.sh: --gpus: no GPU $d here (nvidia-smi lists: $(echo $have | tr ' ' ,))" >&2; exit 2; }
  done
}
check_gpus

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

free_port() {
  # A port the kernel considers free now. Another process may bind it before our server does
  # (the port is released here); start_redis and start_coordinator detect that and retry.
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# How many times a server is started on a fresh port after losing its port to another process.
port_tries=5
# Test hook: the first port redis and the coordinator try (tests pass a port they hold, to
# show that a lost port is retried); unset in normal use.
clash_port=${ZKMILL_LOCAL_FARM_FIRST_PORT:-}

log_tail() {  # log_tail FILE: its last lines on stderr, so a failed start shows why
  [[ -f "$1" ]] || return 0
  echo "---- last lines of $1:" >&2
  tail -n 25 "$1" | sed 's/^/  | /' >&2
  echo "----" >&2
}

# The metrics server (civetweb) says only "cannot listen on HOST:PORT" when its port is taken.
port_clash() { grep -qiE "address already in use|EADDRINUSE|cannot listen on" "$1" 2>/dev/null; }  # port_clash LOG

# The zkmill binary: --bin, $ZKMILL_BIN, this checkout's build, or PATH; one line if none.
find_bin() {
  if [[ -n "$bin" ]]; then :
  elif [[ -n "${ZKMILL_BIN:-}" ]]; then bin=$ZKMILL_BIN
  elif [[ -x "$(cd "$here/.." && pwd)/build/bin/zkmill" ]]; then bin="$(cd "$here/.." && pwd)/build/bin/zkmill"
  elif command -v zkmill >/dev/null 2>&1; then bin=$(command -v zkmill)
  else
    echo "local-farm.sh: no zkmill binary: build it (cmake -S . -B build -G Ninja && cmake --build build --target zkmill), or pass --bin PATH or set ZKMILL_BIN" >&2
    exit 2
  fi
  [[ "$bin" == */* ]] && bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  [[ -x "$bin" ]] || { echo "local-farm.sh: '$bin' is not an executable zkmill binary" >&2; exit 2; }
}

wait_for() {  # wait_for SECONDS COMMAND...
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < deadline )) || return 1
    sleep 0.1
  done
}

# running PID: the process runs. A zombie (it exited and its parent has not reaped it yet) does
# not count, though it answers kill -0: the farm's processes outlive the `start` that spawned
# them, so their parent is init, which may reap only every few seconds (2 s on some VMs'), and
# waiting on kill -0 made every `stop` wait that long per process.
running() { kill -0 "$1" 2>/dev/null && [[ "$(ps -o stat= -p "$1" 2>/dev/null)" != Z* ]]; }
exited() { ! running "$1"; }

# alive PIDFILE: the process named by PIDFILE runs.
alive() {
  [[ -f "$1" ]] || return 1
  running "$(cat "$1")"
}

# redis_pid_at PORT: the process id the redis on PORT reports (empty if none answers within
# 2 s; a listener that is not redis never answers, hence the timeout).
redis_pid_at() { timeout 2 redis-cli -p "$1" info server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p'; }

# The processes of a farm in DIR that still run (by pid file; a pid reused by an unrelated
# process is not counted: the command must be redis-server or zkmill).
running_here() {
  local f pid comm
  for f in "$dir"/redis.pid "$dir"/coordinator.pid "$dir"/synth-*.pid "$dir"/prove-*.pid "$dir"/gpu-*.pid; do
    [[ -f "$f" ]] || continue
    pid=$(cat "$f")
    kill -0 "$pid" 2>/dev/null || continue
    comm=$(ps -o comm= -p "$pid" 2>/dev/null || true)
    [[ "$comm" == redis-server* || "$comm" == zkmill* ]] && echo "$(basename "$f" .pid) (pid $pid)"
  done
}

# The coordinator logs "worker NAME registered (role ..." (or re-registered) on each hello.
registered() { grep -qE "worker $1 (re-)?registered \(role" "$dir/coordinator.log" 2>/dev/null; }

# section_settings SECTION: the --set values of that section (DIR/settings), as YAML lines of
# that section's block ("  key: value").
section_settings() {
  [[ -f "$dir/settings" ]] || return 0
  local kv
  while IFS= read -r kv; do
    [[ $kv == "$1".* ]] || continue
    kv=${kv#"$1".}
    printf '  %s: %s\n' "${kv%%=*}" "${kv#*=}"
  done < "$dir/settings"
}

start_worker() {  # start_worker NAME ROLE [ARGS...]
  local name=$1 role=$2; shift 2
  { cat "$dir/farm.yaml"; printf 'threads: %s\nworker:\n  id: %s\n  key_dir: %s\n' "$(cat "$dir/worker.threads" 2>/dev/null || echo 0)" \
      "$name" "$(cat "$dir/keys.dir")"; section_settings worker; } > "$dir/$name.yaml"
  "$(cat "$dir/zkmill.bin")" worker --config "$dir/$name.yaml" --role "$role" "$@" < /dev/null >> "$dir/$name.log" 2>&1 &
  echo $! > "$dir/$name.pid"
  rm -f "$dir/$name.draining"
}

wait_registered() {  # wait_registered NAME...
  local name
  for name in "$@"; do
    wait_for 30 registered "$name" || fail_start "worker $name did not register" "$dir/$name.log"
  done
}

# Workers of ROLE that run and are not draining, lowest number first.
live_workers() {  # live_workers ROLE
  local f
  for f in "$dir/$1"-*.pid; do
    [[ -e "$f" ]] || continue
    local name; name=$(basename "$f" .pid)
    alive "$f" && [[ ! -e "$dir/$name.draining" ]] && echo "$name"
  done | sort -t- -k2,2n
}

next_index() {  # next_index ROLE: one past the highest number in use (running or draining)
  local f max=0 i
  for f in "$dir/$1"-*.pid; do
    [[ -e "$f" ]] || continue
    i=$(basename "$f" .pid); i=${i##*-}
    (( i > max )) && max=$i
  done
  echo $((max + 1))
}

# A start that fails half-way stops what it started (workers, coordinator, redis), so no
# orphan redis-server is left on a port; the logs stay in DIR.
fail_start() {  # fail_start MESSAGE [LOG]: says why (with the log's tail), stops what started
  echo "local-farm.sh: $1" >&2
  [[ -n "${2:-}" ]] && log_tail "$2"
  [[ $cmd == start ]] && stop >/dev/null 2>&1
  exit 1
}

# Starts redis-server on a free port; retries on a port lost to another process. Sets rport.
start_redis() {
  local try
  for ((try = 1; try <= port_tries; try++)); do
    rport=$(free_port)
    (( try == 1 )) && [[ -n "$clash_port" ]] && rport=$clash_port
    : > "$dir/redis.log"
    redis-server --port "$rport" --bind 127.0.0.1 --dir "$dir/redis" --appendonly yes --appendfsync always \
      --save "" --daemonize no --logfile "$dir/redis.log" < /dev/null >> "$dir/redis.log" 2>&1 &
    echo $! > "$dir/redis.pid"
    echo "$rport" > "$dir/redis.port"
    # Up: it answers, and the answer is from our process (not another farm's redis that got
    # the port first).
    ours() { ! alive "$dir/redis.pid" || [[ "$(redis_pid_at "$rport")" == "$(cat "$dir/redis.pid")" ]]; }
    wait_for 30 ours || fail_start "redis did not answer on 127.0.0.1:$rport within 30 s" "$dir/redis.log"
    alive "$dir/redis.pid" && return 0
    port_clash "$dir/redis.log" || fail_start "redis did not start" "$dir/redis.log"
    echo "local-farm.sh: redis lost port $rport to another process; trying another" >&2
  done
  fail_start "redis did not start: $port_tries ports taken by other processes" "$dir/redis.log"
}

write_configs() {  # the client's and the farm's config, for rport, cport, mport
  cat > "$dir/client.yaml" <<YAML
redis:
  host: 127.0.0.1
  port: $rport
coordinator:
  endpoint: tcp://127.0.0.1:$cport
YAML
  cat > "$dir/farm.yaml" <<YAML
redis:
  host: 127.0.0.1
  port: $rport
coordinator:
  endpoint: tcp://127.0.0.1:$cport
  heartbeat_ms: 250
  liveness: 4
  lease_ms: 2000
  backoff_ms: 100
  backoff_max_ms: 2000
  metrics_listen: 127.0.0.1:$mport
$(section_settings coordinator)
YAML
  echo "$mport" > "$dir/metrics.port"
}

# Starts the coordinator on free control and metrics ports; retries on a port lost to
# another process (it exits with "Address already in use"). Sets cport and mport.
start_coordinator() {
  local try
  for ((try = 1; try <= port_tries; try++)); do
    cport=$(free_port); mport=$(free_port)
    (( try == 1 )) && [[ -n "$clash_port" ]] && cport=$clash_port
    [[ "$cport" != "$mport" ]] || continue
    write_configs
    "$bin" coordinator --config "$dir/farm.yaml" < /dev/null > "$dir/coordinator.log" 2>&1 &
    echo $! > "$dir/coordinator.pid"
    # Up means bound (control endpoint and metrics): it logs "serving on" after both.
    serving() { grep -q "coordinator: serving on" "$dir/coordinator.log" || ! alive "$dir/coordinator.pid"; }
    wait_for 30 serving || fail_start "the coordinator did not start within 30 s" "$dir/coordinator.log"
    alive "$dir/coordinator.pid" && return 0
    port_clash "$dir/coordinator.log" || fail_start "the coordinator did not start" "$dir/coordinator.log"
    echo "local-farm.sh: the coordinator lost port $cport or $mport to another process; trying others" >&2
  done
  fail_start "the coordinator did not start: $port_tries port pairs taken by other processes" "$dir/coordinator.log"
}

start() {
  [[ -n "$keys" && -d "$keys" ]] || { echo "local-farm.sh: --keys must name a directory of proving keys (zkmill keys, .zkey files)" >&2; exit 2; }
  synth=${synth:-1} prove=${prove:-1}
  find_bin
  mkdir -p "$dir/redis"
  dir=$(cd "$dir" && pwd); keys=$(cd "$keys" && pwd)
  local running
  running=$(running_here | paste -sd, - | sed 's/,/, /g')
  if [[ -n "$running" ]]; then
    echo "local-farm.sh: a farm is still running in $dir ($running); stop it first: $0 stop --dir $dir" >&2
    exit 1
  fi
  echo "$keys" > "$dir/keys.dir"
  echo "${worker_threads:-0}" > "$dir/worker.threads"
  printf '%s\n' "${settings[@]}" | grep -v '^$' > "$dir/settings" || true
  echo "$bin" > "$dir/zkmill.bin"
  local rport cport mport
  start_redis
  start_coordinator
  local i role names=()
  for role in synth prove; do
    local n=$synth; [[ $role == prove ]] && n=$prove
    for ((i = 1; i <= n; i++)); do
      start_worker "$role-$i" "$role"
      names+=("$role-$i")
    done
  done
  local d
  for d in "${gpu_list[@]}"; do
    start_worker "gpu-$d" prove --gpus "$d"
    names+=("gpu-$d")
  done
  wait_registered "${names[@]}"
  echo "farm up: redis 127.0.0.1:$rport, coordinator tcp://127.0.0.1:$cport, $synth synth + $prove prove workers${gpus:+ + GPU prove workers on $gpus}"
  echo "metrics: http://127.0.0.1:$mport/metrics"
  echo "client config: $dir/client.yaml"
}

scale() {
  [[ -f "$dir/farm.yaml" && -f "$dir/zkmill.bin" ]] || { echo "local-farm.sh: no farm started in $dir" >&2; exit 1; }
  alive "$dir/coordinator.pid" || { echo "local-farm.sh: the coordinator of $dir is not running" >&2; exit 1; }
  dir=$(cd "$dir" && pwd)
  local role target name started=() draining=()
  for role in synth prove; do
    target=$synth; [[ $role == prove ]] && target=$prove
    [[ -n "$target" ]] || continue
    mapfile -t live < <(live_workers "$role")
    local have=${#live[@]} i
    for ((i = have; i < target; i++)); do
      name="$role-$(next_index "$role")"
      start_worker "$name" "$role"
      started+=("$name")
    done
    # Drain the newest first: SIGTERM lets the worker finish and report its current partition.
    for ((i = have - 1; i >= target; i--)); do
      name=${live[$i]}
      touch "$dir/$name.draining"
      kill -TERM "$(cat "$dir/$name.pid")" 2>/dev/null || true
      draining+=("$name")
    done
  done
  # GPU prove workers: exactly one per listed device.
  if [[ -n "$gpus" ]]; then
    local d want=" ${gpu_list[*]} "
    for d in "${gpu_list[@]}"; do
      alive "$dir/gpu-$d.pid" && [[ ! -e "$dir/gpu-$d.draining" ]] && continue
      start_worker "gpu-$d" prove --gpus "$d"
      started+=("gpu-$d")
    done
    for name in $(live_workers gpu); do
      [[ $want == *" ${name#gpu-} "* ]] && continue
      touch "$dir/$name.draining"
      kill -TERM "$(cat "$dir/$name.pid")" 2>/dev/null || true
      draining+=("$name")
    done
  fi
  [[ ${#started[@]} -eq 0 ]] || wait_registered "${started[@]}"
  for name in "${draining[@]}"; do
    if ! wait_for "$drain_timeout" exited "$(cat "$dir/$name.pid")"; then
      echo "local-farm.sh: $name did not drain within ${drain_timeout}s; killed (its partition is redone)" >&2
      kill -KILL "$(cat "$dir/$name.pid")" 2>/dev/null || true
    fi
    rm -f "$dir/$name.pid" "$dir/$name.draining"
  done
  echo "scaled: $(live_workers synth | wc -l) synth + $(live_workers prove | wc -l) prove workers" \
    "$(n=$(live_workers gpu | wc -l); (( n == 0 )) || echo "+ $n GPU prove workers ")(started: ${started[*]:-none}; drained: ${draining[*]:-none})"
}

status() {
  [[ -f "$dir/redis.port" ]] || { echo "local-farm.sh: no farm started in $dir" >&2; exit 1; }
  local ok=0 f name state
  if alive "$dir/redis.pid"; then echo "redis        running  pid $(cat "$dir/redis.pid")  127.0.0.1:$(cat "$dir/redis.port")"
  else echo "redis        DOWN"; ok=1; fi
  if alive "$dir/coordinator.pid"; then
    echo "coordinator  running  pid $(cat "$dir/coordinator.pid")  metrics http://127.0.0.1:$(cat "$dir/metrics.port")/metrics"
  else echo "coordinator  DOWN"; ok=1; fi
  for f in "$dir"/synth-*.pid "$dir"/prove-*.pid "$dir"/gpu-*.pid; do
    [[ -e "$f" ]] || continue
    name=$(basename "$f" .pid)
    state=running
    [[ -e "$dir/$name.draining" ]] && state=draining
    alive "$f" || state=exited
    printf '%-12s %-8s pid %s\n' "$name" "$state" "$(cat "$f")"
  done
  if [[ $ok -eq 0 && -f "$dir/zkmill.bin" ]]; then "$(cat "$dir/zkmill.bin")" status --config "$dir/client.yaml" --limit 10 || ok=1; fi
  return $ok
}

stop_pid() {  # stop_pid FILE SECONDS: SIGTERM, wait, then SIGKILL
  local f=$1 pid
  [[ -f "$f" ]] || return 0
  pid=$(cat "$f")
  if kill -TERM "$pid" 2>/dev/null; then
    wait_for "$2" exited "$pid" || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

stop() {
  local f
  for f in "$dir"/synth-*.pid "$dir"/prove-*.pid "$dir"/gpu-*.pid; do [[ -e "$f" ]] && stop_pid "$f" 30; done
  rm -f "$dir"/*.draining
  stop_pid "$dir/coordinator.pid" 10
  # SHUTDOWN (a clean AOF close) only when the redis on that port is ours: after a start that
  # lost its port, the port belongs to someone else's redis.
  if [[ -f "$dir/redis.port" && -f "$dir/redis.pid" ]] && alive "$dir/redis.pid" &&
     [[ "$(redis_pid_at "$(cat "$dir/redis.port")")" == "$(cat "$dir/redis.pid")" ]]; then
    timeout 10 redis-cli -p "$(cat "$dir/redis.port")" shutdown >/dev/null 2>&1 || true
  fi
  stop_pid "$dir/redis.pid" 10
  echo "farm in $dir stopped"
}

case "$cmd" in
  start) start ;;
  scale) scale ;;
  status) status ;;
  stop) stop ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
