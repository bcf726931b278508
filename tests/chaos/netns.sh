#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns.sh: a multi-host test network on one machine, sourced by tests/chaos/run.sh (and
# usable by hand: `source tests/chaos/netns.sh; net_up; ...; net_down`).
#
# Each host is a network namespace `zkc<id>-<host>` with one interface, eth0, whose veth peer
# sits in a switch namespace `zkc<id>-sw` on a bridge: a private subnet (10.77.0.0/24) that
# exists only inside these namespaces. Nothing is created in the caller's namespace (each veth
# pair is made directly between its two namespaces) and nothing there can reach the subnet, so
# the test's traffic never leaves them. net_down (run it from an EXIT trap) deletes the
# namespaces, which takes their interfaces, nftables rules and qdiscs with them.
#
# Link faults (per host, on its eth0; this kernel has no netem qdisc):
#   link_cut HOST / link_heal HOST   an nftables drop-all (TCP connections stay open, as on a
#                                    real partition, and resume when it heals)
#   link_down HOST / link_up HOST    the interface itself (connections see errors at once)
#   link_loss HOST PCT               nftables: drop PCT% of TCP packets, both directions (0: off)
#   link_rate HOST RATE              tbf qdisc, e.g. 2mbit (empty: off)
#   link_delay HOST MS JITTER        added latency on HOST's proxied connections (delay_proxy.py;
#                                    see net_proxy) — a userspace stand-in for netem
set -o pipefail

NET_ID=${NET_ID:-$$}
NET_PREFIX="zkc${NET_ID}"
NET_SUBNET=10.77.0
NET_HOSTS=()
declare -A NET_ADDR=()
NET_PIDS=()         # processes started in the namespaces (net_spawn), ended by net_down
NET_CTL_DIR=${NET_CTL_DIR:-}

net_ns() { echo "${NET_PREFIX}-$1"; }

# net_probe: can this process make namespaces? (root, a kernel with netns and veth, ip and nft)
net_probe() {
  command -v ip >/dev/null || { echo "no 'ip' command (iproute2)"; return 1; }
  command -v nft >/dev/null || { echo "no 'nft' command (Debian package nftables)"; return 1; }
  local ns="${NET_PREFIX}-probe" why
  if ! why=$(ip netns add "$ns" 2>&1); then echo "cannot create a network namespace: $why"; return 1; fi
  if ! why=$(ip link add eth0 netns "$ns" type veth peer name eth1 netns "$ns" 2>&1 &&
    ip netns exec "$ns" nft add table inet probe 2>&1); then
    ip netns del "$ns" 2>/dev/null
    echo "cannot create veth pairs or nftables rules in a namespace: $why"
    return 1
  fi
  ip netns del "$ns"
}

# net_up HOST=OCTET...: the switch and one namespace per host, HOST at 10.77.0.OCTET.
net_up() {
  local sw; sw=$(net_ns sw)
  NET_CTL_DIR=${NET_CTL_DIR:-$(mktemp -d)}
  ip netns add "$sw" || return 1
  ip -n "$sw" link add br0 type bridge || return 1
  ip -n "$sw" link set br0 up
  ip -n "$sw" link set lo up
  local spec host octet ns
  for spec in "$@"; do
    host=${spec%%=*} octet=${spec#*=}
    ns=$(net_ns "$host")
    ip netns add "$ns" || return 1
    ip link add eth0 netns "$ns" type veth peer name "p-$host" netns "$sw" || return 1
    ip -n "$sw" link set "p-$host" master br0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$NET_SUBNET.$octet/24" dev eth0
    ip -n "$ns" link set eth0 up
    NET_HOSTS+=("$host")
    NET_ADDR[$host]="$NET_SUBNET.$octet"
    : > "$NET_CTL_DIR/delay-$host"
  done
  # The veth carriers come up asynchronously: wait until every host's eth0 is up (this
  # image has no ping; reachability is then proven by the services' own connections).
  local deadline=$((SECONDS + 10))
  for host in "${NET_HOSTS[@]}"; do
    until [[ $(ip netns exec "$(net_ns "$host")" cat /sys/class/net/eth0/operstate 2>/dev/null) == up ]]; do
      ((SECONDS < deadline)) || { echo "netns: eth0 of $host did not come up" >&2; return 1; }
      sleep 0.1
    done
  done
}

# net_exec HOST CMD...: run CMD in HOST's namespace (foreground).
net_exec() { local h=$1; shift; ip netns exec "$(net_ns "$h")" "$@"; }

# net_spawn HOST LOG CMD...: start CMD in HOST's namespace in the background, its output
# appended to LOG; its pid is left in NET_LAST_PID (ip netns exec execs CMD, so the pid is
# CMD's own). Not in $(...): the pid must be recorded in this shell for net_down.
NET_LAST_PID=""
net_spawn() {
  local h=$1 log=$2; shift 2
  ip netns exec "$(net_ns "$h")" "$@" >>"$log" 2>&1 </dev/null &
  NET_LAST_PID=$!
  NET_PIDS+=("$NET_LAST_PID")
}

# net_proxy HOST LOCAL_PORT TARGET_HOST TARGET_PORT LOG: a delay_proxy in HOST's namespace on
# 127.0.0.1:LOCAL_PORT forwarding to TARGET_HOST's address; link_delay HOST controls it.
net_proxy() {
  local h=$1 lport=$2 th=$3 tport=$4 log=$5
  net_spawn "$h" "$log" python3 "$(dirname "${BASH_SOURCE[0]}")/delay_proxy.py" --listen "127.0.0.1:$lport" \
    --to "${NET_ADDR[$th]}:$tport" --control "$NET_CTL_DIR/delay-$h"
}

link_cut() {
  net_exec "$1" nft -f - <<NFT
table inet zkcut {
  chain in  { type filter hook input priority -10; iifname "eth0" drop; }
  chain out { type filter hook output priority -10; oifname "eth0" drop; }
}
NFT
}
link_heal() { net_exec "$1" nft delete table inet zkcut 2>/dev/null || true; }
link_down() { ip -n "$(net_ns "$1")" link set eth0 down; }
link_up() { ip -n "$(net_ns "$1")" link set eth0 up; }

link_loss() {
  local h=$1 pct=$2
  net_exec "$h" nft delete table inet zkloss 2>/dev/null || true
  ((pct > 0)) || return 0
  net_exec "$h" nft -f - <<NFT
table inet zkloss {
  chain in  { type filter hook input priority -5; iifname "eth0" meta l4proto tcp numgen random mod 100 < $pct drop; }
  chain out { type filter hook output priority -5; oifname "eth0" meta l4proto tcp numgen random mod 100 < $pct drop; }
}
NFT
}

link_rate() {
  local h=$1 rate=$2
  ip netns exec "$(net_ns "$h")" tc qdisc del dev eth0 root 2>/dev/null || true
  [[ -n $rate ]] || return 0
  ip netns exec "$(net_ns "$h")" tc qdisc add dev eth0 root tbf rate "$rate" burst 32kb latency 500ms
}

link_delay() { echo "$2 ${3:-0}" > "$NET_CTL_DIR/delay-$1"; }

# net_down: end every process net_spawn started (by pid), then delete the namespaces.
net_down() {
  local pid ns
  for pid in "${NET_PIDS[@]}"; do kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null; done
  for pid in "${NET_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  NET_PIDS=()
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${NET_PREFIX}-"); do
    # A process we did not start could still sit in it (it would keep the namespace alive):
    # list them rather than kill what is not ours.
    if [[ -n $(ip netns pids "$ns" 2>/dev/null) ]]; then
      echo "netns: processes still in $ns: $(ip netns pids "$ns" | tr '\n' ' ')" >&2
    fi
    ip netns del "$ns" 2>/dev/null
  done
  NET_HOSTS=()
  [[ -n $NET_CTL_DIR && -d $NET_CTL_DIR ]] && rm -rf "$NET_CTL_DIR"
  NET_CTL_DIR=""
}
