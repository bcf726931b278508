#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The chaos run's planning and judging (tests/chaos/run.sh drives the processes).

  chaos.py schedule --seed S --duration D --workers W1,W2,... [--sentinel]
      prints the fault schedule, one fault a line: "AT_S KIND TARGET DURATION_S"; the same
      seed gives the same schedule. Two faults never hit one target at the same time. Target
      "coordinator" is the active coordinator (the lease holder when the fault starts: run.sh
      resolves it), "standby" the other coordinator's host. With --sentinel (a primary and a
      replica under Redis Sentinel) the Redis faults are "primary-kill9", "primary-cut" and
      "failover" (SENTINEL FAILOVER) of "primary", and cut and loss of "primary" or "replica"
      (resolved by run.sh through the sentinels when the fault starts), instead of one restart.
  chaos.py check [--host H] --port P --password PW --jobs FILE --coord-logs LOG... --zkmill BIN
                 --client CFG --out DIR [--snarkjs BIN] [--sample N] [--probe FILE] [--tls-ca CA]
      reads the farm's final state from Redis (its own small RESP client: no redis-py) and
      checks the invariants; prints a report, and exits 1 if any invariant does not hold. With
      --probe (the probe's log, Sentinel) a partition recorded again after a demoted primary
      discarded its first recording is told from a duplicate.
  chaos.py probe --sentinels H:P,... --servers H:P,... --master NAME --password PW --out FILE
      until killed, every 100 ms: logs the primary the sentinels name, and each server's role,
      writing a key outside the farm's (chaos:probe) to those that say they are a primary.
  chaos.py failovers --faults FAULTS_LOG --probe FILE --coord-logs LOG...
      for each fault of the Redis primary, the time from its start to the first write taken by
      another server (the new primary), and to the farm's next recorded proof.
  chaos.py takeovers --faults FAULTS_LOG --coord-logs LOG...
      for each fault of the active coordinator, the time from its start to the next "TOOK
      OVER" (or "holding the coordinator lease") line of a coordinator log: the new holder's
      takeover, or that none followed.
"""
import argparse
import bisect
import collections
import concurrent.futures
import datetime
import glob
import json
import os
import random
import re
import socket
import ssl
import subprocess
import sys

# --------------------------------------------------------------------------------------------
# schedule


def schedule(a):
    rng = random.Random(a.seed)
    workers = a.workers.split(",")
    # With Sentinel the Redis host is whichever server is the primary (or the replica) then.
    # With Sentinel a cut of the primary is its own kind (primary-cut, below).
    hosts = workers + ["standby"] + (["replica"] if a.sentinel else ["redis"])
    # About a quarter of the faults hit the active coordinator: the standby must take over when
    # one outlasts the lease period (2 s in run.sh), and not when it does not.
    kinds = [  # (kind, weight, targets, duration range in s)
        ("kill9", 3, workers, (1, 3)),
        ("stop", 2, workers, (1, 6)),
        ("cut", 3, hosts, (2, 8)),
        ("loss", 3, hosts + ["coordinator"] + (["primary"] if a.sentinel else []), (5, 15)),
        ("kill9", 1.5, ["coordinator"], (1, 3)),
        ("stop", 1.5, ["coordinator"], (1, 6)),
        ("cut", 1.5, ["coordinator"], (2, 8)),
    ]
    if a.sentinel:
        # The primary killed (restarted after the duration: it comes back as it was, a primary
        # with stale data, until the sentinels make it a replica) or cut off (longer than the
        # sentinels' down-after period, mostly), or an ordered switch.
        kinds += [
            ("primary-kill9", 1.5, ["primary"], (1, 3)),
            ("primary-cut", 1.5, ["primary"], (3, 8)),
            ("failover", 1, ["primary"], (0.5, 0.5)),
        ]
    busy = collections.defaultdict(float)  # target -> busy until
    # One Redis fault in the middle of it, no other fault of the Redis hosts around it: a restart
    # (kill -9; AOF with fsync always) of the lone Redis, or with Sentinel a kill -9 of the
    # primary (a failover to the replica).
    mid = round(a.duration * rng.uniform(0.35, 0.65), 1)
    faults = [(mid, "primary-kill9", "primary", 2.0) if a.sentinel else (mid, "redis-restart", "redis", 1.0)]
    # After a fault of a Redis server the pair needs time to be a pair again before the next
    # one (with Sentinel: the old primary is made a replica about 8 s after it is back, then
    # resynchronizes); a failover with no replica to promote would just be an outage.
    settle = 20 if a.sentinel else 0
    t = 5.0
    while t < a.duration:
        kind, _, targets, (lo, hi) = rng.choices(kinds, weights=[k[1] for k in kinds])[0]
        target = rng.choice(targets)
        # Hosts and processes overlap (worker synth1 runs on host synth1): one busy clock each;
        # one for both coordinators, so at most one of them is down at a time, and a coordinator
        # fault waits until the last one's takeover (or not) has settled (a lease period and
        # the workers' reconnection); one for the Redis servers.
        key = {"coordinator": "coord", "standby": "coord", "primary": "redis", "replica": "redis"}.get(target, target)
        # Around the middle Redis fault: nothing of the coordinators or Redis from 1 s before it
        # to 4 s after it has settled, and a Redis fault must also have settled before it (a
        # failover 12 s before the middle kill left the farm without a replica for a minute).
        before = settle if key == "redis" else 0
        clash = key in ("redis", "coord") and t < mid + 4 + settle and t + hi + 1 + before > mid - 1
        if busy[key] <= t and not clash:
            d = round(rng.uniform(lo, hi), 1)
            faults.append((round(t, 1), kind, target, d))
            busy[key] = t + d + {"coord": 5, "redis": max(settle, 1)}.get(key, 1)
        t += rng.uniform(a.gap / 2, a.gap * 1.5)
    for f in sorted(faults):
        print(f"{f[0]} {f[1]} {f[2]} {f[3]}")


# --------------------------------------------------------------------------------------------
# a minimal RESP client (the farm's keys are text; only HGETALL values may be binary)


class Redis:
    def __init__(self, port, password, host="127.0.0.1", timeout=10, tls_ca=""):
        self.s = socket.create_connection((host, port), timeout=timeout)
        if tls_ca:  # run.sh --tls: the server's certificate checked against the run's CA
            self.s = ssl.create_default_context(cafile=tls_ca).wrap_socket(self.s, server_hostname=host)
        self.f = self.s.makefile("rb")
        if password:
            self.call("AUTH", password)

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for x in args:
            x = x if isinstance(x, bytes) else str(x).encode()
            out += b"$%d\r\n%s\r\n" % (len(x), x)
        self.s.sendall(out)
        return self._read()

    def _read(self):
        line = self.f.readline()
        if not line:
            raise ConnectionError("redis closed the connection")
        t, rest = line[:1], line[1:-2]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            raise RuntimeError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            try:
                return data.decode()
            except UnicodeDecodeError:
                return data
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        raise RuntimeError(f"bad RESP reply {line!r}")

    def hgetall(self, key):
        v = self.call("HGETALL", key) or []
        return dict(zip(v[::2], v[1::2]))

    def scan(self, pattern):
        cursor, keys = "0", []
        while True:
            cursor, batch = self.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
            keys += batch
            if cursor == "0":
                return keys


# --------------------------------------------------------------------------------------------
# check


def check(a):
    r = Redis(a.port, a.password, a.host, tls_ca=a.tls_ca)
    problems = []
    jobs = []  # (id, kind, vk, partitions)
    with open(a.jobs) as f:
        for line in f:
            if line.strip():
                jid, kind, vk, parts = line.split()
                jobs.append((jid, kind, vk, int(parts)))

    # Each partition's "verified" lines in the coordinator logs (every run appends to them),
    # with their times.
    verified_at = collections.defaultdict(list)
    pat = re.compile(r"coordinator: (j\d+) partition (\d+) verified \(")
    for pathglob in a.coord_logs:
        for path in glob.glob(pathglob):
            with open(path, errors="replace") as f:
                for line in f:
                    m = pat.search(line)
                    if m:
                        verified_at[(m.group(1), int(m.group(2)))].append(log_ms(line) or 0)
    verified_lines = collections.Counter({k: len(v) for k, v in verified_at.items()})
    # With Sentinel: a recording the old primary took but had not passed to the replica is gone
    # after a failover (its proof was not acknowledged to the worker yet: the worker re-sends it
    # and the new primary records it). Two "verified" lines with one recording in the end, a
    # switch of primary between them, are that; anything else is a duplicate.
    windows = rollback_windows(a.probe) if a.probe else []

    def rolled_back(times):
        # Every recording but the last inside a window whose writes were discarded, each
        # followed by the next one after that window's promotion.
        times = sorted(times)
        return all(any(p - 5000 <= t <= d + 1000 and nxt >= p - 1000 for p, d in windows)
                   for t, nxt in zip(times, times[1:]))

    re_recorded = 0

    # Retries as the coordinator logged them: failed attempts and requeued partitions.
    retry_pat = re.compile(r"coordinator: j\d+ partition \d+ (attempt \d+ failed on|requeued:)")
    retries = 0
    for pathglob in a.coord_logs:
        for path in glob.glob(pathglob):
            with open(path, errors="replace") as f:
                retries += sum(1 for line in f if retry_pat.search(line))

    states = collections.Counter()
    lost = duplicated = unverified = parts_total = 0
    to_verify = []  # (job, kind, vk, n)
    for jid, kind, vk, n in jobs:
        job = r.hgetall(f"zk:job:{jid}")
        st = job.get("state", "(missing)")
        states[st] += 1
        parts_total += n
        if st not in ("done", "failed"):
            problems.append(f"job {jid} is {st}: neither done nor failed (stuck or lost)")
            lost += n
            continue
        if st == "failed" and not job.get("error"):
            problems.append(f"job {jid} failed without a reason")
        for i in range(n):
            p = r.hgetall(f"zk:part:{jid}:{i}")
            rec = int(p.get("recorded", "0"))
            if rec == 1 and verified_lines[(jid, i)] >= 2 and rolled_back(verified_at[(jid, i)]):
                re_recorded += 1
            elif rec > 1 or verified_lines[(jid, i)] > 1:
                duplicated += 1
                problems.append(f"{jid} partition {i}: recorded {rec} times, {verified_lines[(jid, i)]} 'verified' lines")
            if st == "done" and (rec != 1 or not p.get("proof") or p.get("state") != "done"):
                lost += 1
                problems.append(f"{jid} partition {i}: job done but partition {p.get('state')} recorded {rec}")
        if st == "done":
            if int(job.get("n_verified", "0")) != n:
                problems.append(f"job {jid} done with n_verified {job.get('n_verified')} of {n}")
            to_verify.append((jid, kind, vk, n))

    # Fencing: every recorded proof was recorded by the holder of the coordinator lease at that
    # moment. The lease's tenure history (zk:lease:history: "<start µs> <token> <holder>", by
    # Redis's clock) says whose tenure each recording's time (recorded_at_us) fell in; its
    # recorded_fence must be that tenure's token. A coordinator that lost the lease (stalled,
    # cut off) and still recorded would leave its own, older token in a later tenure.
    tenures = []
    for e in r.call("LRANGE", "zk:lease:history", 0, -1) or []:
        at, token = e.split(" ", 2)[:2]
        tenures.append((int(at), token))
    tenures.sort(key=lambda x: x[0])
    starts = [t[0] for t in tenures]
    fenced_ok = 0
    for jid, kind, vk, n in jobs:
        for i in range(n):
            p = r.hgetall(f"zk:part:{jid}:{i}")
            if int(p.get("recorded", "0")) < 1:
                continue
            fence, at = p.get("recorded_fence", ""), p.get("recorded_at_us", "")
            k = bisect.bisect_right(starts, int(at)) - 1 if at.isdigit() else -1
            if not fence or k < 0:
                problems.append(f"{jid} partition {i}: recorded without a fence and time inside a lease tenure "
                                f"(recorded_fence '{fence}', recorded_at_us '{at}')")
            elif tenures[k][1] != fence:
                problems.append(f"{jid} partition {i}: recorded by a coordinator that did not hold the lease "
                                f"(fence {fence}; the holder then was {tenures[k][1]})")
            else:
                fenced_ok += 1

    # Nothing left behind: no lease, queue entry, active job, staged or job witness.
    for key in ("zk:leases", "zk:q:synth", "zk:q:prove", "zk:q:delayed"):
        if r.call("ZCARD", key):
            problems.append(f"orphaned entries in {key}: {r.call('ZRANGE', key, 0, 9)}")
    if r.call("SCARD", "zk:active"):
        problems.append(f"zk:active still lists {r.call('SMEMBERS', 'zk:active')}")
    for pattern in ("zk:stage:*", "zk:wtns:*"):
        left = r.scan(pattern)
        if left:
            problems.append(f"orphaned keys {pattern}: {len(left)} ({left[:3]})")

    # Every recorded proof of a done job verifies: through `zkmill result` (the client's path)
    # and `zkmill verify`; a sample of the zkey jobs' proofs also through snarkjs.
    checked = snark_checked = 0
    snark_todo = []
    todo = []  # (job, partition, vk, public, proof)
    for jid, kind, vk, n in to_verify:
        d = os.path.join(a.out, jid)
        res = subprocess.run([a.zkmill, "result", jid, "--config", a.client, "--out", d], capture_output=True, text=True)
        if res.returncode != 0:
            problems.append(f"zkmill result {jid} failed: {res.stderr.strip()[-300:]}")
            unverified += n
            continue
        for i in range(n):
            todo.append((jid, i, vk, f"{d}/partition-{i}.public.json", f"{d}/partition-{i}.proof.json"))
            if kind == "zkey":
                snark_todo.append(todo[-1])

    def verify(t):
        return t, subprocess.run([a.zkmill, "verify", t[2], t[3], t[4]], capture_output=True, text=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for (jid, i, *_), v in pool.map(verify, todo):
            if v.returncode != 0:
                unverified += 1
                problems.append(f"{jid} partition {i}: zkmill verify refused it: {(v.stdout + v.stderr).strip()[-200:]}")
            else:
                checked += 1
    if a.snarkjs and snark_todo:
        for jid, i, vk, pub, proof in random.Random(0).sample(snark_todo, min(a.sample, len(snark_todo))):
            v = subprocess.run([a.snarkjs, "groth16", "verify", vk, pub, proof], capture_output=True, text=True)
            if v.returncode != 0 or "OK" not in v.stdout:
                unverified += 1
                problems.append(f"{jid} partition {i}: snarkjs refused it: {v.stdout.strip()[-200:]}")
            else:
                snark_checked += 1

    for p in problems:
        print(f"chaos: FAIL: {p}")
    print(f"chaos: jobs {dict(states)}; partitions {parts_total}; retries {retries}; "
          f"proofs verified {checked} (zkmill verify), {snark_checked} of the zkey ones also by snarkjs; "
          f"{fenced_ok} recorded by the lease holder of their moment ({len(tenures)} lease tenures)"
          + (f"; {re_recorded} recorded again after a failover lost the first recording (not acknowledged yet), "
             f"{len(windows)} demotions of a primary" if a.probe else ""))
    summary = {"jobs": len(jobs), "partitions": parts_total, "lost": lost, "duplicated": duplicated,
               "unverified": unverified, "retries": retries, "problems": len(problems),
               "done": states.get("done", 0), "failed": states.get("failed", 0), "tenures": len(tenures),
               "fenced_ok": fenced_ok, "re_recorded": re_recorded}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f)
    return 1 if problems else 0


# --------------------------------------------------------------------------------------------
# probe, failovers (Sentinel)


def sentinel_primary(sentinels, master):
    for sa in sentinels:
        host, port = sa.rsplit(":", 1)
        try:
            r = Redis(int(port), "", host, timeout=0.5)
            try:
                addr = r.call("SENTINEL", "get-master-addr-by-name", master)
            finally:
                r.s.close()
            if addr:
                return addr[0], int(addr[1])
        except (OSError, RuntimeError, ConnectionError):
            continue
    return None


def probe(a):
    """Every 100 ms: which server the sentinels name primary ("MS S ADDR", or "MS S -"), and
    each server's role, writing a key outside the farm's (chaos:probe) to those that say they
    are a primary: "MS W ADDR master" (the write was taken), "replica" or "down". Two servers
    taking writes at once (an old primary back before the sentinels demoted it) show as such."""
    import time
    sentinels = a.sentinels.split(",")
    servers = a.servers.split(",")
    conns = {}
    with open(a.out, "a", buffering=1) as out:
        while True:
            ms = int(time.time() * 1000)
            at = sentinel_primary(sentinels[:1], a.master) or sentinel_primary(sentinels[1:], a.master)
            out.write(f"{ms} S {at[0] + ':' + str(at[1]) if at else '-'}\n")
            for srv in servers:
                ms = int(time.time() * 1000)
                try:
                    if srv not in conns:
                        host, port = srv.rsplit(":", 1)
                        conns[srv] = Redis(int(port), a.password, host, timeout=0.3)
                    c = conns[srv]
                    role = c.call("ROLE")[0]
                    if role == "master":
                        try:
                            c.call("SET", "chaos:probe", ms)
                        except RuntimeError as e:  # READONLY: demoted just now
                            role = "replica" if "READONLY" in str(e) else "down"
                    out.write(f"{ms} W {srv} {'replica' if role == 'slave' else role}\n")
                except (OSError, RuntimeError, ConnectionError):
                    out.write(f"{ms} W {srv} down\n")
                    c = conns.pop(srv, None)
                    if c is not None:
                        try:
                            c.s.close()
                        except OSError:
                            pass
            time.sleep(0.1)


def probe_log(path):
    """(sentinel [(ms, addr)], per server [(ms, status)]) from the probe's log."""
    named, roles = [], collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 3 and p[1] == "S":
                named.append((int(p[0]), p[2]))
            elif len(p) == 4 and p[1] == "W":
                roles[p[2]].append((int(p[0]), p[3]))
    return named, roles


def rollback_windows(path):
    """[(promotion ms, demotion ms)]: for each demotion of a primary (it took writes, then says
    replica) the last promotion of another server before it. Writes the demoted one took from
    a little before that promotion (what had not reached the replica yet) until its demotion
    (an old primary back and taking writes before the sentinels made it a replica) are gone."""
    _, roles = probe_log(path)
    promotions, demotions = [], []
    for srv, seq in roles.items():
        last, last_master = None, None  # the last status other than "down"
        for ms, st in seq:
            if st == "down":
                continue
            if st == "master" and last == "replica":
                promotions.append((ms, srv))
            if st == "replica" and last == "master":
                demotions.append((last_master, srv))
            if st == "master":
                last_master = ms
            last = st
    out = []
    for d, srv in demotions:
        p = max((t for t, s in promotions if s != srv and t <= d + 1000), default=None)
        if p is not None:
            out.append((p, d))
    return out


def report(what, rows, times, after):
    """Prints one line per fault, then 'chaos: WHATs: N after AFTER: kind n (max, median), ...'."""
    for r in rows:
        print(f"chaos: {what}: {r}")
    summary = ", ".join(f"{k} {len(v)} (max {max(v):.1f} s, median {sorted(v)[len(v) // 2]:.1f} s)"
                        for k, v in sorted(times.items()))
    print(f"chaos: {what}s: {sum(len(v) for v in times.values())} after {after}{': ' + summary if summary else ''}")
    return 0


def failovers(a):
    named, roles = probe_log(a.probe)
    took = {srv: [ms for ms, st in seq if st == "master"] for srv, seq in roles.items()}
    proofs = sorted(t for p in a.coord_logs for t in (log_ms(l) for l in open(p, errors="replace") if " verified (" in l)
                    if t is not None)
    faults = []  # (begin ms, kind, primary's address when it began)
    with open(a.faults) as f:
        for line in f:
            ms, what, *rest = line.split()
            if what == "begin" and rest and rest[0] in ("primary-kill9", "primary-cut", "failover"):
                faults.append((int(ms), rest[0], rest[2] if len(rest) > 2 else "?"))
    times, rows = collections.defaultdict(list), []
    for n, (t0, kind, addr) in enumerate(faults):
        t1 = faults[n + 1][0] if n + 1 < len(faults) else float("inf")
        # The failover is over for a client when the sentinels name another server and it takes
        # a write: the first probe write to the server named then, not the faulted one.
        new = None
        for ms, srv in named:
            if t0 <= ms < t1 and srv != "-" and not srv.startswith(addr + ":"):
                w = next((t for t in took.get(srv, []) if t >= ms), None)
                if w is not None and w < t1:
                    new = (w, srv)
                    break
        # The old primary taking writes again after the fault, while not (or no longer) named:
        # back before the sentinels demoted it (those writes are discarded).
        old = [t for srv, ts in took.items() if srv.startswith(addr + ":") for t in ts if t0 < t < t1]
        proof = next((t for t in proofs if t >= (new[0] if new else t0)), None)
        if new:
            dt = (new[0] - t0) / 1000
            times[kind].append(dt)
            split = [t for t in old if t > new[0]]
            rows.append(f"{kind} of {addr}: {new[1]} took its first write {dt:.2f} s after the fault began"
                        + (f", the farm's next recorded proof {(proof - t0) / 1000:.2f} s after" if proof else "")
                        + (f"; the old primary too took writes until {(max(split) - t0) / 1000:.1f} s after "
                           "(back before it was demoted; those are discarded)" if split else ""))
        elif old:
            rows.append(f"{kind} of {addr}: no failover; it took writes again {(min(old) - t0) / 1000:.2f} s after")
        else:
            rows.append(f"{kind} of {addr}: no write taken by any primary before the next such fault")
    return report("failover", rows, times, f"{len(faults)} faults of the Redis primary")


# --------------------------------------------------------------------------------------------
# takeovers


def log_ms(line):
    """spdlog's local time (the run's TZ) at the start of a log line, as epoch ms, or None."""
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}) ", line)
    if not m:
        return None
    return datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp() * 1000


def takeovers(a):
    took = []  # (ms, log) of every "TOOK OVER" line
    for path in a.coord_logs:
        with open(path, errors="replace") as f:
            for line in f:
                # A standby that saw a holder logs TOOK OVER; one that found the lease free
                # (its holder's lease expired before it first asked: a restarted coordinator)
                # logs only that it holds it. Both start a new holder's tenure.
                if "TOOK OVER the coordinator lease" in line or "holding the coordinator lease" in line:
                    t = log_ms(line)
                    if t is not None:
                        took.append((t, os.path.basename(path).rsplit(".", 1)[0]))
    took.sort()
    faults = []  # (begin ms, kind, coordinator)
    with open(a.faults) as f:
        for line in f:
            ms, what, *rest = line.split()
            if what == "begin" and len(rest) > 2 and rest[2] == "active":
                faults.append((int(ms), rest[0], rest[1]))
    # Faults of the active coordinator only (run.sh marks them "active"); a takeover (by the
    # other coordinator) counts for the latest such fault before it.
    rows, times = [], collections.defaultdict(list)
    for n, (t0, kind, c) in enumerate(faults):
        t1 = faults[n + 1][0] if n + 1 < len(faults) else float("inf")
        # After a kill -9 the killed coordinator comes back as a standby on its host, a new
        # process that may win the expired lease too; after a stop, cut or loss only the other
        # coordinator's TOOK OVER is a takeover (the faulted one taking it back is not).
        nxt = [(t, who) for t, who in took if t0 <= t < t1 and (who != c or kind == "kill9")]
        if nxt:
            dt = (nxt[0][0] - t0) / 1000
            times[kind].append(dt)
            by = nxt[0][1] if nxt[0][1] != c else f"{c} (restarted)"
            rows.append(f"{kind} of {c}: {by} TOOK OVER {dt:.2f} s after the fault began")
        else:
            rows.append(f"{kind} of {c}: no takeover ({c} kept or took back the lease)")
    return report("takeover", rows, times, f"{len(faults)} faults of a coordinator")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("schedule")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--duration", type=float, required=True)
    s.add_argument("--gap", type=float, default=6.0, help="mean seconds between fault starts")
    s.add_argument("--workers", required=True)
    s.add_argument("--sentinel", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("--host", default="127.0.0.1")
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--password", default="")
    c.add_argument("--tls-ca", default="", help="the Redis serves TLS: its CA's certificate")
    c.add_argument("--jobs", required=True)
    c.add_argument("--coord-logs", nargs="+", required=True)
    c.add_argument("--zkmill", required=True)
    c.add_argument("--client", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--snarkjs", default="")
    c.add_argument("--sample", type=int, default=3)
    c.add_argument("--probe", default="", help="probe log: a partition recorded again after a primary switch")
    p = sub.add_parser("probe")
    p.add_argument("--sentinels", required=True)
    p.add_argument("--servers", required=True)
    p.add_argument("--master", required=True)
    p.add_argument("--password", default="")
    p.add_argument("--out", required=True)
    f = sub.add_parser("failovers")
    f.add_argument("--faults", required=True)
    f.add_argument("--probe", required=True)
    f.add_argument("--coord-logs", nargs="+", required=True)
    t = sub.add_parser("takeovers")
    t.add_argument("--faults", required=True)
    t.add_argument("--coord-logs", nargs="+", required=True)
    a = ap.parse_args()
    sys.exit({"schedule": schedule, "check": check, "takeovers": takeovers, "probe": probe,
              "failovers": failovers}[a.cmd](a))


if __name__ == "__main__":
    main()
