#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# client_connect_retry_test.sh BUILD_DIR: the client commands ride out lost SYNs to Redis and
# fail clearly, in bounded time, when Redis cannot be reached (RedisConfig::connect_attempts:
# the client commands try a timed-out connect 3 times; a refused one once). Why it matters: at 5% TCP
# loss about 1 in 70 single-try connects timed out (lost SYN, then lost resend within the 2 s
# connect timeout), which failed a `zkmill result` in the calm_under_loss test.
# Runs `zkmill status` in a network namespace of its own whose loopback drops chosen SYNs
# (nftables, output hook) with a real redis-server inside. Skips (77) without root, ip, nft or
# redis-server; the Sentinel case skips alone without redis-sentinel. Exit 1 on the first failed
# check.
set -uo pipefail
bin=${1:?usage: client_connect_retry_test.sh BUILD_DIR}/bin/zkmill
[[ -x $bin ]] || { echo "client_connect_retry: no zkmill binary at $bin" >&2; exit 2; }
if [[ $(id -u) != 0 ]]; then echo "client_connect_retry: SKIP: network namespaces need root"; exit 77; fi
for tool in ip nft redis-server redis-cli; do
  command -v $tool >/dev/null || { echo "client_connect_retry: SKIP: no '$tool'"; exit 77; }
done
ns="zkcr$$" port=6399
W=$(mktemp -d "${TMPDIR:-/tmp}/zkcr.XXXXXX")
cleanup() {
  # By its pid: a redis-cli through the SYN-dropping rule would wait out its own retries.
  [[ -f $W/redis.pid ]] && kill "$(cat "$W/redis.pid")" 2>/dev/null
  [[ -f $W/sentinel.pid ]] && kill "$(cat "$W/sentinel.pid")" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "client_connect_retry: FAIL: $*"; exit 1; }
if ! why=$(ip netns add "$ns" 2>&1); then echo "client_connect_retry: SKIP: cannot create a namespace: $why"; exit 77; fi
ip -n "$ns" link set lo up
ip netns exec "$ns" redis-server --port $port --save '' --appendonly no --dir "$W" --daemonize yes \
  --pidfile "$W/redis.pid" --logfile "$W/redis.log" >/dev/null || fail "redis-server did not start"
for _ in $(seq 50); do ip netns exec "$ns" redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
printf 'redis:\n  host: 127.0.0.1\n  port: %s\n' $port > "$W/client.yaml"
printf 'redis:\n  host: 127.0.0.1\n  port: %s\n' $((port + 1)) > "$W/nobody.yaml"

# SYNs (not SYN-ACKs) to Redis's port; `numgen inc` counts the packets the rule sees.
syn="oifname \"lo\" tcp dport $port tcp flags & (syn | ack) == syn"
rules() {
  ip netns exec "$ns" nft -f - <<NFT 2>&1
table inet zkcr
delete table inet zkcr
table inet zkcr {
  chain out { type filter hook output priority 0; $1 }
}
NFT
}
dropped() { ip netns exec "$ns" nft list table inet zkcr | grep -o 'packets [0-9]*' | head -1 | cut -d' ' -f2; }
status() { timeout 60 ip netns exec "$ns" "$bin" status --config "$1" > "$W/out" 2> "$W/err"; }

# 1. The first connect's SYN and its resend are lost: the second connect gets through.
why=$(rules "$syn numgen inc mod 1000000 < 2 counter drop;") || {
  echo "client_connect_retry: SKIP: cannot add an nftables rule: $why"
  exit 77
}
status "$W/client.yaml" || fail "status exited $? with the first two SYNs lost: $(cat "$W/err")"
grep -q '^jobs:' "$W/out" || fail "status printed no farm summary: $(cat "$W/out")"
[[ $(dropped) == 2 ]] || fail "expected 2 SYNs dropped (one timed-out connect), the rule counted $(dropped)"
echo "client_connect_retry: ok: two lost SYNs (one timed-out connect) did not fail 'zkmill status'"
# The same for `zkmill worker drain` (its own Redis connection): it gets through to say that no
# such worker is registered.
rules "$syn numgen inc mod 1000000 < 2 counter drop;" >/dev/null || fail "cannot replace the nftables rule"
timeout 60 ip netns exec "$ns" "$bin" worker drain --config "$W/client.yaml" nobody > "$W/out" 2> "$W/err"
rc=$?
((rc == 1)) && grep -q "no worker 'nobody' is registered" "$W/err" ||
  fail "worker drain exited $rc with the first two SYNs lost: $(cat "$W/err")"
[[ $(dropped) == 2 ]] || fail "expected 2 SYNs dropped for worker drain, the rule counted $(dropped)"
echo "client_connect_retry: ok: two lost SYNs did not keep 'zkmill worker drain' from Redis"

# 2. Every SYN is lost: a clear error after 3 connects, exit 1, no hang.
rules "$syn counter drop;" >/dev/null || fail "cannot replace the nftables rule"
status "$W/client.yaml"
rc=$?
((rc == 1)) || fail "status exited $rc with every SYN lost (want 1): $(cat "$W/err")"
grep -q "redis 127.0.0.1:$port: Connection timed out (3 connects tried)" "$W/err" ||
  fail "unexpected error with every SYN lost: $(cat "$W/err")"
echo "client_connect_retry: ok: every SYN lost: exit 1, '$(tail -n 1 "$W/err")'"

# 3. Nothing listens: refused at once, not tried again.
status "$W/nobody.yaml"
rc=$?
((rc == 1)) || fail "status exited $rc with nothing listening (want 1): $(cat "$W/err")"
grep -q "Connection refused" "$W/err" && ! grep -q "connects tried" "$W/err" ||
  fail "unexpected error with nothing listening: $(cat "$W/err")"
echo "client_connect_retry: ok: nothing listening: exit 1, '$(tail -n 1 "$W/err")'"

# 4. Through a Sentinel (redis.sentinels): the connect to the sentinel rides out the same two
# lost SYNs (before, a lone sentinel's timed-out connect failed the command: "no sentinel named
# the primary").
sport=$((port + 20000))
if command -v redis-sentinel >/dev/null; then
  printf 'port %s\ndaemonize yes\npidfile %s\nlogfile %s\ndir %s\nsentinel monitor zkcr 127.0.0.1 %s 1\n' \
    $sport "$W/sentinel.pid" "$W/sentinel.log" "$W" $port > "$W/sentinel.conf"
  rules "" >/dev/null || fail "cannot clear the nftables rules"
  ip netns exec "$ns" redis-sentinel "$W/sentinel.conf" >/dev/null || fail "redis-sentinel did not start"
  for _ in $(seq 50); do
    ip netns exec "$ns" redis-cli -p $sport sentinel get-master-addr-by-name zkcr 2>/dev/null | grep -q "^$port$" && break
    sleep 0.1
  done
  printf 'redis:\n  sentinels: ["127.0.0.1:%s"]\n  master_name: zkcr\n' $sport > "$W/sentinel.yaml"
  status "$W/sentinel.yaml" || fail "status through the sentinel exited $? with no loss: $(cat "$W/err")"
  rules "oifname \"lo\" tcp dport $sport tcp flags & (syn | ack) == syn numgen inc mod 1000000 < 2 counter drop;" \
    >/dev/null || fail "cannot replace the nftables rule"
  status "$W/sentinel.yaml" || fail "status exited $? with the first two SYNs to the sentinel lost: $(cat "$W/err")"
  grep -q '^jobs:' "$W/out" || fail "status through the sentinel printed no farm summary: $(cat "$W/out")"
  [[ $(dropped) == 2 ]] || fail "expected 2 SYNs to the sentinel dropped, the rule counted $(dropped)"
  echo "client_connect_retry: ok: two lost SYNs to the only sentinel did not fail 'zkmill status'"
else
  echo "client_connect_retry: the Sentinel case skipped: no redis-sentinel"
fi
echo "client_connect_retry: PASS"
