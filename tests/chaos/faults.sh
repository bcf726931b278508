# SPDX-License-Identifier: MIT
# The chaos run's faults (sourced by tests/chaos/run.sh after the fault schedule is made, in its
# global scope: NET_ADDR, COORDS, UPID, PID and the helpers it defines are run.sh's). Each fault of
# the schedule is applied and undone from run.sh's shell, so PID[] stays the truth; a
# coordinator that exited by itself is restarted as a standby, as systemd's Restart= would.
#   active_coord / other_coord   which coordinator holds the lease (read from Redis, bounded)
#   apply KIND TARGET            start a fault (kill9, stop, cut, loss, Redis faults)
#   undo KIND TARGET             end it
#   supervise                    restart coordinators that exited
#   undo_due                     undo every pending fault that is due, then supervise
# The active coordinator: the lease holder's endpoint, read from Redis; when Redis cannot say
# (it is restarting, or the primary the sentinels still name is cut off), the last one seen.
# Bounded to a second: the fault loop waits for it, and a read that hung for 10 s on a cut
# primary once stretched a 3.5 s primary cut to 13.5 s and delayed every fault behind it.
ACTIVE=coord1
active_coord() {
  local v c
  v=$(RCLI_TIMEOUT=1 rcli --raw GET zk:lease:coordinator 2>/dev/null) || v=""
  for c in "${COORDS[@]}"; do [[ $v == *"tcp://${NET_ADDR[$c]}:7710"* ]] && ACTIVE=$c; done
  echo "$ACTIVE"
}
other_coord() { [[ $1 == coord1 ]] && echo coord2 || echo coord1; }
declare -A KILLED=()  # coordinators down by a kill9 fault (the supervisor leaves them alone)
# A coordinator's own pid, looked up when it is signalled: unshare's child.
coord_pid() { pgrep -P "${UPID[$1]}" | head -n 1; }
# A coordinator restarted a moment ago may not have forked its own process yet: up to 2 s.
coord_pid_wait() {
  local p i
  for ((i = 0; i < 20; i++)); do
    p=$(coord_pid "$1"); [[ -n $p ]] && { echo "$p"; return 0; }
    sleep 0.1
  done
  return 1
}
apply() {  # apply KIND TARGET (a host or process name: coordinator/standby already resolved)
  # A signal to a coordinator needs its process: one that is not running (it exited just now
  # and supervise has not restarted it, or it is still starting) would make a fault that does
  # nothing yet counts, and its undo could start a second copy. Such a fault is skipped.
  if [[ $2 == coord* ]] && { [[ $1 == kill9 ]] || [[ $1 == stop ]]; }; then
    PID[$2]=$(coord_pid_wait "$2") || return 1
  fi
  case "$1" in
    kill9)
      kill -KILL "${PID[$2]}" 2>/dev/null
      if [[ $2 == coord* ]]; then KILLED[$2]=1; wait "${UPID[$2]}" 2>/dev/null; else wait "${PID[$2]}" 2>/dev/null; fi ;;
    stop) kill -STOP "${PID[$2]}" ;;
    cut) link_cut "$2" ;;
    loss) link_loss "$2" 5; link_delay "$2" 200 50 ;;
    redis-restart) kill -KILL "${PID[redis]}" 2>/dev/null; wait "${PID[redis]}" 2>/dev/null ;;
    primary-kill9) kill -KILL "${PID[$2]}" 2>/dev/null; wait "${PID[$2]}" 2>/dev/null ;;
    primary-cut) link_cut "$2" ;;
    failover) net_exec arbiter redis-cli -p 26379 SENTINEL FAILOVER zkchaos >> "$W/failover.log" 2>&1 ;;
  esac
  return 0  # applied (a wait for a killed process returns its signal status: not a failure)
}
undo() {  # undo KIND TARGET
  case "$1" in
    kill9) if [[ $2 == coord* ]]; then unset "KILLED[$2]"; start "$2" standby; else start "$2"; fi ;;
    stop) kill -CONT "${PID[$2]}" ;;
    cut) link_heal "$2" ;;
    loss) link_loss "$2" 0; link_delay "$2" 0 0 ;;
    redis-restart) start redis ;;
    primary-kill9) start "$2" ;;
    primary-cut) link_heal "$2" ;;
  esac
}
# A coordinator that ended by itself (one started without --standby exits with status 3 when
# it finds another holding the lease: deposed while stopped or cut off) is started again as a
# standby, as systemd's Restart= would.
supervise() {
  local c rc
  for c in "${COORDS[@]}"; do
    [[ -z ${KILLED[$c]:-} ]] || continue
    kill -0 "${UPID[$c]}" 2>/dev/null && continue
    wait "${UPID[$c]}" 2>/dev/null; rc=$?
    log "coordinator $c exited (status $rc); starting it again as a standby"
    echo "$(now_ms) exit $c $rc" >> "$W/faults.log"
    start "$c" standby
  done
}
declare -A FAULTS=()
pending=()  # "due_epoch_ms kind target"
# Undoes every pending fault that is due, then restarts any coordinator that exited.
undo_due() {
  local keep=() p pdue pk pt
  for p in "${pending[@]}"; do
    read -r pdue pk pt <<<"$p"
    if (( $(now_ms) >= pdue )); then undo "$pk" "$pt"; echo "$(now_ms) end $pk $pt" >> "$W/faults.log"; else keep+=("$p"); fi
  done
  pending=("${keep[@]}")
  supervise
}
