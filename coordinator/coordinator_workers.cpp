// SPDX-License-Identifier: MIT
// Coordinator, worker liveness: the periodic heartbeat to every worker, silent and dead
// workers told apart by their TCP connection's state (a stalled link is not a dead process),
// and lease reaping, which requeues the partitions of workers that are gone.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>

#include "coordinator/coordinator.hpp"
#include "farm/log_text.hpp"
#include "farm/socket_address.hpp"

namespace zkmill::farm {

void Coordinator::heartbeat_and_expire() {
  const uint64_t now = clock_.now_ms();
  if (now - last_heartbeat_ms_ < cfg_.coordinator.heartbeat_ms) return;
  last_heartbeat_ms_ = now;
  renew_lease();
  clock_.refresh(FarmClock::kSamplePeriodMs);
  metrics_.set_clock_skew(double(clock_.skew_ms().value_or(0)) / 1000.0);
  refresh_quarantine();
  refresh_pauses();
  // Silence alone does not make a worker dead: on a lossy link TCP retransmits with backoff
  // (0.2, 0.4, 0.8 s ...) and its heartbeats arrive late, all at once. Silent past heartbeat x
  // liveness, a worker gets no new work; it is dead once its connection has closed (a killed
  // process: the kernel closes its socket), or after dead_silence_ms with it open (a stalled
  // host, a cut link).
  const uint64_t silent_after = uint64_t(cfg_.coordinator.heartbeat_ms) * cfg_.coordinator.liveness;
  const uint64_t dead_after = std::max<uint64_t>(silent_after, cfg_.coordinator.dead_silence_ms);
  for (auto it = workers_.begin(); it != workers_.end();) {
    WorkerInfo& w = it->second;
    const uint64_t silent_ms = now - std::min(now, w.last_seen_ms);
    if (silent_ms > silent_after) {
      const bool open = connection_open(w);
      if (!open || silent_ms > dead_after) {
        spdlog::warn(
            "coordinator: worker {} silent for {} ms ({}); declared dead, its leases will be requeued",
            printable(it->first), silent_ms,
            open ? "its connection is still open: a stalled host or a cut link"
                 : "missed " + std::to_string(cfg_.coordinator.liveness) + " heartbeats and its connection has closed");
        it = workers_.erase(it);
        metrics_.worker_lost();
        continue;
      }
      if (!w.silent)
        spdlog::info(
            "coordinator: worker {} silent for {} ms but its connection is open (a slow or lossy link?): no new work "
            "for it until it is heard again; declared dead after {} ms of silence",
            printable(it->first), silent_ms, dead_after);
      w.silent = true;
    }
    send(it->first, Heartbeat{++seq_});
    ++it;
  }
  forward_drain_requests();  // first, so the registry shows new draining flags at once
  publish_workers();
}

void Coordinator::note_connection(WorkerInfo& w, int fd) {
  if (fd < 0 || fd == w.fd) return;
  w.fd = fd;
  // ipc:// has no per-connection address to tell a reused descriptor by: left empty.
  const auto peer = peer_address(fd);
  w.peer_address = peer ? peer->text() : std::string();
}

bool Coordinator::connection_open(const WorkerInfo& w) {
  // The descriptor belongs to libzmq's I/O thread, which closes it when the peer goes; the
  // number may then be reused by another connection, hence the peer address check. Read-only
  // queries: nothing here changes the socket.
  if (w.fd < 0 || w.peer_address.empty()) return false;
  WorkerInfo now;
  note_connection(now, w.fd);
  if (now.peer_address != w.peer_address) return false;
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(w.fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return false;
  return info.tcpi_state == TCP_ESTABLISHED;  // CLOSE_WAIT: the peer has closed its end
}

bool Coordinator::is_silent(const WorkerInfo& w, uint64_t now) const {
  return now - std::min(now, w.last_seen_ms) > uint64_t(cfg_.coordinator.heartbeat_ms) * cfg_.coordinator.liveness;
}

void Coordinator::reap() {
  const uint64_t now = clock_.now_ms();
  auto expired = store_.expired_leases(now, 200);
  if (expired.empty()) return;
  // Right after a (re)start, live workers may not have said hello yet: give them one lease period.
  const bool grace = now - serving_since_ms_ < cfg_.coordinator.lease_ms;
  for (const auto& member : expired) {
    auto ref = PartRef::parse(member);
    if (!ref) continue;
    auto r = redis_.command({"HMGET", "zk:part:" + ref->job + ":" + std::to_string(ref->part), "worker", "token"});
    const std::string holder = r.elements.at(0).as_string();
    const std::string token = r.elements.at(1).as_string();
    auto w = workers_.find(holder);
    bool held = w != workers_.end() && !token.empty() && (w->second.tokens.count(token) || w->second.busy.count(token));
    held = held || (!token.empty() && verifying_tokens_.count(token));  // its result is being checked
    if (held || grace) {
      store_.renew_lease(member, now + cfg_.coordinator.lease_ms);
      continue;
    }
    std::string why = w == workers_.end() ? "worker " + printable(holder, 64) + " lost (missed heartbeats)"
                                          : "worker " + printable(holder, 64) + " no longer holds the attempt";
    auto f = store_.fail(*ref, {holder, "", ""}, why, false, now, cfg_.coordinator);
    count_failure("lease_expired", *ref, f);
    if (f.outcome == 0)
      store_.drop_lease(member);  // nothing leased any more
    else
      spdlog::warn("coordinator: {} partition {} requeued: {}", ref->job, ref->part, why);
  }
}

void Coordinator::restore_pauses() {
  std::vector<std::string> skipped;
  pauses_.restore(registry_.pauses(), &skipped);
  for (const auto& id : skipped)
    spdlog::warn("coordinator: dropped an unreadable failed-attempt streak of worker {} ({})", printable(id),
                 WorkerRegistry::kPausesKey);
  const uint64_t now = clock_.now_ms();
  for (const auto& id : pauses_.workers())
    if (pauses_.paused(id, now))
      spdlog::info(
          "coordinator: worker {} is paused for {:.1f} s more (failed attempts in a row before this "
          "coordinator took over)",
          printable(id), double(pauses_.describe(id, now).value("until_ms", now) - now) / 1000.0);
}

void Coordinator::persist_pauses() {
  const auto changed = pauses_.take_changed();
  for (auto it = changed.begin(); it != changed.end(); ++it) {
    try {
      registry_.save_pause(*it, pauses_.record(*it));
    } catch (const RedisError& e) {
      // Written again at the next heartbeat; meanwhile this coordinator pauses as before.
      for (; it != changed.end(); ++it) pauses_.mark_changed(*it);
      spdlog::debug("coordinator: could not write a failed-attempt streak ({}); retried next heartbeat", e.what());
      return;
    }
  }
}

void Coordinator::refresh_pauses() {
  persist_pauses();
  if (pauses_.tracked() == 0) return;
  // Written above, so a streak missing from Redis now was deleted by an operator (`zkmill worker
  // clear`), unless its write failed just now (still pending: kept).
  const auto stored = registry_.pause_ids();
  const uint64_t now = clock_.now_ms();
  for (const auto& id : pauses_.workers()) {
    if (stored.count(id) || pauses_.pending(id)) continue;
    if (pauses_.drop(id, now)) {
      spdlog::info("coordinator: worker {}'s pause lifted by an operator; it gets work again", printable(id));
      dispatch_due_ = true;
    }
  }
}

}  // namespace zkmill::farm
