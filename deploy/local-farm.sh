#!/usr/bin/env bash
# local-farm.sh: a whole zkmill farm on this machine, for development and tests:
# a private redis-server (AOF on, fsync always) on a free loopback port, the coordinator,
# N synth and M prove workers. `start` returns once every worker has registered and writes
# DIR/client.yaml for `zkmill submit|status|wait|cancel|result --config DIR/client.yaml`.
#   local-farm.sh start --dir DIR --keys KEYDIR --synth N --prove M [--bin ZKMILL]
#     (KEYDIR: zkmill keys and/or snarkjs .zkey files, each .zkey best with its .r1cs beside it)
#   local-farm.sh stop  --dir DIR       (SIGTERM: workers drain, then coordinator, then redis)
set -euo pipefail

cmd=${1:-}; shift || true
dir="" keys="" synth=1 prove=1 bin="${ZKMILL_BIN:-zkmill}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --synth) synth=$2; shift 2 ;;
    --prove) prove=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "local-farm.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$dir" ]] || { echo "local-farm.sh: --dir is required" >&2; exit 2; }

free_port() {
  # Ask the kernel for an ephemeral port; the tiny race until our server binds it is fine
  # on a development box (a clash shows up as a start failure, not as a silent problem).
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_for() {  # wait_for SECONDS COMMAND...
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < deadline )) || return 1
    sleep 0.1
  done
}

start() {
  [[ -n "$keys" && -d "$keys" ]] || { echo "local-farm.sh: --keys must name a directory of proving keys (zkmill keys, .zkey files)" >&2; exit 2; }
  mkdir -p "$dir/redis"
  dir=$(cd "$dir" && pwd); keys=$(cd "$keys" && pwd)
  local rport cport
  rport=$(free_port); cport=$(free_port)
  redis-server --port "$rport" --bind 127.0.0.1 --dir "$dir/redis" --appendonly yes --appendfsync always \
    --save "" --daemonize no --logfile "$dir/redis.log" &
  echo $! > "$dir/redis.pid"
  echo "$rport" > "$dir/redis.port"
  wait_for 10 redis-cli -p "$rport" ping || { echo "local-farm.sh: redis did not start (see $dir/redis.log)" >&2; exit 1; }
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
YAML
  "$bin" coordinator --config "$dir/farm.yaml" > "$dir/coordinator.log" 2>&1 &
  echo $! > "$dir/coordinator.pid"
  local i
  for role in synth prove; do
    local n=$synth; [[ $role == prove ]] && n=$prove
    for ((i = 1; i <= n; i++)); do
      local name="$role-$i"
      { cat "$dir/farm.yaml"; printf 'worker:\n  id: %s\n  key_dir: %s\n' "$name" "$keys"; } > "$dir/$name.yaml"
      "$bin" worker --config "$dir/$name.yaml" --role "$role" > "$dir/$name.log" 2>&1 &
      echo $! > "$dir/$name.pid"
    done
  done
  local want=$((synth + prove))
  registered() { [[ $(grep -c "registered (role" "$dir/coordinator.log" 2>/dev/null) -ge $want ]]; }
  wait_for 30 registered || { echo "local-farm.sh: workers did not register (see $dir/*.log)" >&2; exit 1; }
  echo "farm up: redis 127.0.0.1:$rport, coordinator tcp://127.0.0.1:$cport, $synth synth + $prove prove workers"
  echo "client config: $dir/client.yaml"
}

stop_pid() {  # stop_pid FILE SECONDS: SIGTERM, wait, then SIGKILL
  local f=$1 pid
  [[ -f "$f" ]] || return 0
  pid=$(cat "$f")
  if kill -TERM "$pid" 2>/dev/null; then
    wait_for "$2" bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

stop() {
  local f
  for f in "$dir"/synth-*.pid "$dir"/prove-*.pid; do [[ -e "$f" ]] && stop_pid "$f" 30; done
  stop_pid "$dir/coordinator.pid" 10
  if [[ -f "$dir/redis.port" ]]; then redis-cli -p "$(cat "$dir/redis.port")" shutdown >/dev/null 2>&1 || true; fi
  stop_pid "$dir/redis.pid" 10
  echo "farm in $dir stopped"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: local-farm.sh start --dir DIR --keys KEYDIR --synth N --prove M [--bin ZKMILL] | stop --dir DIR" >&2; exit 2 ;;
esac
