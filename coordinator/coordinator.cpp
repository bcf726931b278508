// SPDX-License-Identifier: MIT
// Coordinator event loop: poll the ROUTER, handle messages, then run the periodic duties
// (heartbeats and dead-worker detection, lease reaping, retry promotion, job sweeps, dispatch).
// The duties' bodies live beside it: coordinator_workers.cpp (liveness, reaping),
// coordinator_jobs.cpp (sweeps, final checks, dispatch), coordinator_results.cpp (results).
// A Redis outage is survived by dropping the connection and retrying on the next turn: no
// message is acked until its effect is in Redis, so workers re-send.
#include "coordinator/coordinator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>
#include <zmq_addon.hpp>

#include "farm/curve_keys.hpp"
#include "farm/log_text.hpp"
#include "farm/signal_safe_poll.hpp"

namespace zkmill::farm {

namespace {
// Dispatch runs on every turn that handled a message, and at least this often otherwise.
constexpr uint64_t kDispatchPeriodMs = 50;
constexpr const char* kControlZapDomain = "zkmill.control";
// A refused peer retries its handshake every ~100 ms; say so once per this period.
constexpr uint64_t kRefusalLogPeriodMs = 10000;
// A drain request for a worker this coordinator does not know (yet) is kept this long.
constexpr uint64_t kDrainRequestTtlMs = 60000;
// Bundle keys of one draining worker's heartbeat looked up per heartbeat (a worker holds at
// most worker.max_held_bundles; the rest wait for the next heartbeats).
constexpr size_t kMaxReleaseChecks = 1000;
}  // namespace

Coordinator::Coordinator(FarmConfig cfg)
    : cfg_(std::move(cfg)),
      redis_(cfg_.redis),
      wake_(cfg_.redis),
      store_(redis_),
      checker_(store_),
      verify_(cfg_.coordinator.verify_threads),
      native_statements_(verify_.threads()),
      ctx_(1),
      router_(ctx_, zmq::socket_type::router),
      registry_(redis_),
      pauses_(cfg_.coordinator.worker_failure_limit, cfg_.coordinator.worker_pause_ms) {
  router_.set(zmq::sockopt::linger, 0);
  router_.set(zmq::sockopt::router_mandatory, 1);
  // A worker reconnecting after a cut (its ZeroMQ heartbeat dropped the connection) arrives
  // while this side may still hold the old, half-open connection under the same routing id:
  // the newcomer takes the id over. Without this libzmq ignores it until the old one dies
  // (minutes of TCP retransmission) and the worker is black-holed. Taking an id gives no
  // authority: every message is still checked against the CURVE key its worker registered.
  router_.set(zmq::sockopt::router_handover, 1);
  router_.set(zmq::sockopt::maxmsgsize, int64_t(cfg_.zmq.max_message_kb) * 1024 + 64);
  setup_curve();
  monitor_ = std::make_unique<HandshakeMonitor>(ctx_, router_);
}

std::atomic<bool> Coordinator::reload_keys_requested{false};

void Coordinator::setup_curve() {
  if (!cfg_.zmq.curve) return;
  auto keys = CurveKeys::load_for_coordinator(cfg_.zmq);
  zap_ = std::make_shared<wire::ZapHandler>(ctx_);
  zap_->allow(kControlZapDomain, keys.allowed_keys);
  allowed_ = std::make_unique<AllowListWatch>(cfg_.zmq.allowed_keys_file, "zmq.allowed_keys_file", keys.allowed_keys);
  zap_->set_observer([this](const std::string&, const std::string& key, bool admitted, const std::string& why) {
    if (admitted) return;
    const uint64_t now = clock_.now_ms();
    std::lock_guard lock(refused_mu_);
    uint64_t& last = refused_logged_ms_[key];
    if (last && now - last < kRefusalLogPeriodMs) return;
    last = now;
    // Only the public half of a key is ever logged (the secret never leaves the worker).
    spdlog::warn("coordinator: REFUSED a worker connection: CURVE public key {} ({}; not in zmq.allowed_keys_file)",
                 key.empty() ? std::string("(none)") : key, why);
  });
  // The CURVE server's secret key is set before bind, so no plaintext connection is ever accepted.
  router_.set(zmq::sockopt::curve_server, 1);
  router_.set(zmq::sockopt::curve_secretkey, keys.own.secret_key);
  router_.set(zmq::sockopt::zap_domain, std::string(kControlZapDomain));
  spdlog::info("coordinator: CURVE on: public key {}, {} worker key(s) admitted from {}", keys.own.public_key,
               keys.allowed_keys.size(), cfg_.zmq.allowed_keys_file);
}

void Coordinator::reload_allowed_keys() {
  last_allowed_poll_ms_ = clock_.now_ms();
  const auto change = allowed_->poll_logged("coordinator", reload_keys_requested.exchange(false));
  if (!change) return;
  zap_->allow(kControlZapDomain, change->keys);
  const std::set<std::string> removed(change->removed.begin(), change->removed.end());
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (!removed.count(it->second.curve_key)) {
      ++it;
      continue;
    }
    spdlog::warn(
        "coordinator: worker {}'s CURVE key {} was removed from zmq.allowed_keys_file: dropped, it gets no more work "
        "and what it sends is ignored; its partitions are requeued when their leases expire",
        printable(it->first), it->second.curve_key);
    it = workers_.erase(it);
  }
}

void Coordinator::log_handshake_failures() {
  while (auto e = monitor_->next()) {
    if (e->succeeded || e->auth) continue;  // refusals by key are logged by the ZAP observer, with the key
    const uint64_t now = clock_.now_ms();
    std::lock_guard lock(refused_mu_);
    uint64_t& last = refused_logged_ms_[e->what];
    if (last && now - last < kRefusalLogPeriodMs) continue;
    last = now;
    spdlog::warn("coordinator: REFUSED a worker connection on {}: {}{}", cfg_.coordinator.bind, e->what,
                 cfg_.zmq.curve ? " (with zmq.curve on: a worker without CURVE, or one using another coordinator "
                                  "public key in zmq.coordinator_public_key_file)"
                                : " (zmq.curve is off here: a worker with zmq.curve on?)");
  }
}

void Coordinator::forward_drain_requests() {
  const uint64_t now = clock_.now_ms();
  for (const auto& [id, requested_ms] : registry_.drain_requests()) {
    auto it = workers_.find(id);
    if (it != workers_.end()) {
      spdlog::info("coordinator: draining worker {} (requested with `zkmill worker drain`)", id);
      send(id, Drain{});
      it->second.draining = true;  // no new work from now on, whatever its next heartbeat says
    } else if (now - std::min(now, requested_ms) < kDrainRequestTtlMs) {
      continue;  // not (re-)registered yet, e.g. right after a coordinator restart
    } else {
      spdlog::warn("coordinator: dropping the drain request for worker {}: it is not registered", id);
    }
    registry_.clear_drain_request(id);
  }
}

void Coordinator::release_unneeded(const std::string& id, const std::vector<std::string>& held) {
  std::vector<std::string> keys(held.begin(), held.begin() + std::min(held.size(), kMaxReleaseChecks));
  for (const auto& key : store_.unneeded_bundles(keys)) {
    spdlog::info("coordinator: releasing bundle {} held by draining worker {} (no partition needs it)", printable(key),
                 printable(id));
    send(id, Release{key});
  }
}

void Coordinator::send(const std::string& to, const ControlMessage& m) {
  if (!m.send_to(router_, to)) spdlog::debug("coordinator: could not send {} to {}", m.type_name(), printable(to));
}

void Coordinator::peer_warning(const std::string& peer, const std::string& line) {
  const auto d = peer_log_limit_.allow(peer, clock_.now_ms());
  if (!d.log) return;
  if (d.suppressed)
    spdlog::warn("{} ({} similar warning(s) about peer '{}' suppressed before this one)", line, d.suppressed,
                 printable(d.key, 64));
  else
    spdlog::warn("{}", line);
}

uint64_t Coordinator::lease_period_ms() const {
  return std::max<uint64_t>(1000, uint64_t(cfg_.coordinator.heartbeat_ms) * cfg_.coordinator.liveness);
}

bool Coordinator::take_lease(const std::atomic<bool>& stop) {
  lease_ = std::make_unique<CoordinatorLease>(redis_, cfg_.coordinator.bind, lease_period_ms());
  // A standby asks often enough that its takeover adds little to the lease's expiry.
  const uint64_t poll_ms = std::clamp<uint64_t>(lease_period_ms() / 8, 50, 250);
  // Intervals on this host's steady clock: the farm clock's first sample may come in this loop.
  const auto asked = std::chrono::steady_clock::now();
  std::string waited_for;  // the holder a standby waits for, logged when it changes
  std::optional<std::chrono::steady_clock::time_point> last_log;
  // Redis refused or is not ready yet: log (at most every 2 s) and wait, unless asked to stop
  // (false for a standby; a starting active coordinator cannot start without Redis).
  auto retry_later = [&](const char* state, const char* until, const std::exception& e) {
    redis_.disconnect();
    if (!last_log || std::chrono::steady_clock::now() - *last_log > std::chrono::seconds(2)) {
      spdlog::warn("coordinator: redis {} at start ({}); retrying", state, e.what());
      last_log = std::chrono::steady_clock::now();
    }
    if (stop.load()) {
      if (cfg_.coordinator.standby) return false;
      throw std::runtime_error(std::string("stopped before redis was ") + until);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return true;
  };
  for (;;) {
    try {
      clock_.refresh(FarmClock::kSamplePeriodMs);  // the lease's stamps on the server's clock
      auto holder = lease_->acquire(clock_.now_ms());
      if (!holder) break;
      if (!cfg_.coordinator.standby)
        throw CoordinatorLeaseHeld(
            "another coordinator is active on this Redis: " + holder->describe() +
            " holds the coordinator lease (zk:lease:coordinator, renewed every heartbeat; it expires " +
            std::to_string(lease_period_ms()) +
            " ms after that coordinator stops). One coordinator per farm; start this one with --standby "
            "(coordinator.standby) to have it wait and take over");
      if (holder->describe() != waited_for) {
        waited_for = holder->describe();
        spdlog::info("coordinator: standby: {} holds the coordinator lease; waiting to take over (checked every {} ms)",
                     waited_for, poll_ms);
      }
      if (stop.load()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    } catch (const RedisAuthError& e) {
      throw std::runtime_error(e.what());
    } catch (const RedisReplyError& e) {
      const std::string what = e.what();
      if (what.find("NOAUTH") != std::string::npos || what.find("NOPERM") != std::string::npos)
        throw std::runtime_error("redis refused the coordinator (set redis.user / redis.password): " + what);
      // A restarted Redis answers LOADING while it reads its AOF, a primary with
      // min-replicas-to-write NOREPLICAS while its replica is gone: Redis is not there yet, as
      // when it refuses connections (the chaos run's standby exited with status 1 on LOADING,
      // a standby on NOREPLICAS likewise). Anything else is a bug: let it out.
      if (!redis_retryable(e)) throw;
      metrics_.redis_error(redis_error_kind(e));
      if (!retry_later("not ready", "ready", e)) return false;
    } catch (const RedisError& e) {
      metrics_.redis_error(redis_error_kind(e));
      if (!retry_later("unavailable", "reachable", e)) return false;
    }
  }
  store_.set_fence(lease_->token());
  registry_.set_fence(lease_->token());
  if (!waited_for.empty())
    spdlog::warn(
        "coordinator: standby: TOOK OVER the coordinator lease after waiting {} ms (it was held by {})",
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - asked).count(),
        waited_for);
  spdlog::info("coordinator: holding the coordinator lease ({} ms, renewed every {} ms)", lease_period_ms(),
               cfg_.coordinator.heartbeat_ms);
  return true;
}

void Coordinator::renew_lease() {
  CoordinatorLease::Holder by;
  switch (lease_->renew(&by)) {
    case CoordinatorLease::Renewal::Renewed:
      return;
    case CoordinatorLease::Renewal::Retaken:
      spdlog::warn(
          "coordinator: the coordinator lease had lapsed (redis restarted, or this coordinator stalled); "
          "nobody else held it, so it is ours again");
      return;
    case CoordinatorLease::Renewal::Lost:
      throw CoordinatorLeaseLost("another coordinator took over the coordinator lease: " + by.describe() +
                                 "; this one steps down (its writes are refused from now on)");
  }
}

void Coordinator::run(const std::atomic<bool>& stop) {
  // Resources first (a second coordinator with a clashing metrics address says so), then the
  // lease, and only then the ROUTER: a refused coordinator never takes the control endpoint.
  // The start time is what /readyz matches against the published summary (this coordinator).
  try {
    clock_.refresh();  // so that the start is on the farm's clock too (the dashboard's "up N min")
  } catch (const RedisError&) {
    redis_.disconnect();  // not there yet: take_lease waits for it
  }
  started_ms_ = clock_.now_ms();
  if (!cfg_.coordinator.metrics_listen.empty())
    http_ = std::make_unique<HttpApi>(cfg_, metrics_.registry(), started_ms_);
  // Also stops at wrong Redis credentials (a configuration error, not an outage). False: a
  // standby asked to stop before it took over.
  if (!take_lease(stop)) {
    spdlog::info("coordinator: stopping (standby; never took over)");
    return;
  }
  serving_since_ms_ = clock_.now_ms();
  try {
    restore_pauses();
  } catch (const RedisError& e) {
    spdlog::warn("coordinator: could not read the workers' failed-attempt streaks ({}); starting without them",
                 e.what());
  }
  try {
    serve(stop);
  } catch (const CoordinatorLeaseLost&) {
    throw;  // not ours any more: nothing to release
  } catch (...) {
    try {
      lease_->release();
    } catch (const RedisError&) {
    }
    throw;
  }
  try {
    lease_->release();  // a successor need not wait out the period
  } catch (const RedisError& e) {
    spdlog::warn("coordinator: could not release the coordinator lease ({}); it expires in {} ms", e.what(),
                 lease_period_ms());
  }
  spdlog::info("coordinator: stopping");
}

void Coordinator::serve(const std::atomic<bool>& stop) {
  router_.bind(cfg_.coordinator.bind);
  seq_ = serving_since_ms_ * 1000;
  spdlog::info(
      "coordinator: serving on {} (redis {}), lease {} ms, heartbeat {} ms x {}", cfg_.coordinator.bind,
      cfg_.redis.unix_socket.empty() ? cfg_.redis.host + ":" + std::to_string(cfg_.redis.port) : cfg_.redis.unix_socket,
      cfg_.coordinator.lease_ms, cfg_.coordinator.heartbeat_ms, cfg_.coordinator.liveness);
  const size_t max_body = size_t(cfg_.zmq.max_message_kb) * 1024;
  while (!stop.load()) {
    if (wake_.fd() < 0) {
      try {
        wake_.subscribe("zk:wake");
      } catch (const RedisError&) {
        wake_.disconnect();  // retried next turn; the main connection reports the outage
      }
    }
    zmq::pollitem_t items[] = {{router_.handle(), 0, ZMQ_POLLIN, 0},
                               {nullptr, verify_.fd(), ZMQ_POLLIN, 0},
                               {nullptr, wake_.fd(), ZMQ_POLLIN, 0}};
    // At most 50 ms, less while a received proof waits out its batch window (flush_checks).
    signal_safe_poll(items, wake_.fd() >= 0 ? 3 : 2, std::chrono::milliseconds(check_window_wait_ms(50)));
    if (wake_.fd() >= 0 && (items[2].revents & ZMQ_POLLIN)) {
      dispatch_due_ = true;  // a job was submitted
      try {
        wake_.drain_pubsub();
      } catch (const RedisError&) {
        wake_.disconnect();
      }
    }
    try {
      for (int n = 0; n < 1000; ++n) {
        std::vector<zmq::message_t> frames;
        if (!zmq::recv_multipart(router_, std::back_inserter(frames), zmq::recv_flags::dontwait)) break;
        if (frames.size() < 2) continue;
        // The socket it came in on (ZMQ_SRCFD: deprecated in favour of metadata, which has no
        // per-connection identity; still answered by libzmq 4.3 for frames read from a
        // connection), for WorkerInfo::fd. -1 where no frame says.
        Peer from{frames.front().to_string(), {}, -1};
        for (auto& f : frames)
          if (from.fd < 0) from.fd = zmq_msg_get(f.handle(), ZMQ_SRCFD);
        frames.erase(frames.begin());
        // CURVE: the key the ZAP handler authenticated (its User-Id). A routing id alone can
        // be claimed by anyone once its owner disconnects; the key cannot.
        if (cfg_.zmq.curve) {
          try {
            if (const char* key = frames.front().gets("User-Id")) from.key = key;
          } catch (const zmq::error_t&) {
          }
        }
        std::string why;
        auto m = ControlMessage::decode(frames, max_body, &why);
        if (!m) {
          metrics_.message_dropped();
          peer_warning(from.id, "coordinator: dropped a malformed message from '" + printable(from.id, 64) +
                                    "': " + printable(why));
          continue;
        }
        handle(from, *m);
        dispatch_due_ = true;  // a result or hello may have freed a worker
      }
      // The turn's syntheses: one script records them all (the prove queue then holds them for
      // this turn's dispatch).
      record_synthesized();
      // Proofs received this turn go to idle verify threads before and after the verdicts are
      // collected (collecting frees threads: what gathered meanwhile goes to them at once).
      flush_checks();
      collect_verdicts();
      flush_checks();
      log_handshake_failures();
      heartbeat_and_expire();
      uint64_t now = clock_.now_ms();
      // Retries fall due on the scale of backoff_ms and leases expire on that of lease_ms, so
      // both are checked every few ms, not on every turn: at hundreds of results per second
      // these per-turn checks were most of the coordinator's Redis round trips.
      if (now - last_promote_ms_ >= std::clamp<uint64_t>(cfg_.coordinator.backoff_ms / 4, 1, 20)) {
        if (store_.promote_delayed(now)) dispatch_due_ = true;
        last_promote_ms_ = now;
      }
      if (now - last_reap_ms_ >= std::clamp<uint64_t>(cfg_.coordinator.lease_ms / 20, 1, 100)) {
        reap();
        last_reap_ms_ = now;
      }
      if (now - last_sweep_ms_ >= 500) {
        sweep_jobs();
        last_sweep_ms_ = now;
      }
      if (allowed_ && (reload_keys_requested.load() || now - last_allowed_poll_ms_ >= 2000)) reload_allowed_keys();
      if (cfg_.coordinator.retention_s && now - last_expire_ms_ >= 1000) {
        expire_results();
        last_expire_ms_ = now;
      }
      // Dispatch when something may have changed (a message, a new job, a promoted retry), and
      // at least every kDispatchPeriodMs for what changed unseen (a cancel, a job from a
      // client whose wake-up was lost).
      if (dispatch_due_ || now - last_dispatch_ms_ >= kDispatchPeriodMs) {
        dispatch();
        dispatch_due_ = false;
        last_dispatch_ms_ = now;
      }
      ack_durable();
    } catch (const CoordinatorLeaseLost& e) {
      // The renewal found another holder: step down. Otherwise a write was refused by the
      // fence: either the lease lapsed (then it is re-taken and we go on) or another
      // coordinator holds it (then renew_lease throws and we step down).
      if (std::string(e.what()).find("ZKFENCED") == std::string::npos) throw;
      spdlog::warn("coordinator: a write was refused by the lease fence ({}); checking the lease", e.what());
      try {
        renew_lease();
      } catch (const RedisError&) {
        redis_.disconnect();  // checked again on the next heartbeat
      }
    } catch (const RedisError& e) {
      // The turn's work stays where it was (verdicts are dropped only once recorded, acks wait
      // for a WAIT on a later connection): the next turns redo it once Redis takes writes.
      redis_.disconnect();
      const std::string kind = redis_error_kind(e);
      metrics_.redis_error(kind);
      uint64_t now = clock_.now_ms();
      if (now - last_redis_error_log_ms_ > 2000) {
        if (kind == "noreplicas")
          spdlog::warn(
              "coordinator: {}. Until then nothing is recorded, assigned or acknowledged and no heartbeat goes out "
              "(the coordinator lease cannot be renewed); workers keep their results. Retrying",
              e.what());
        else
          spdlog::warn("coordinator: redis unavailable ({}); retrying", e.what());
        last_redis_error_log_ms_ = now;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

void Coordinator::WorkerInfo::take_report(const std::vector<std::string>& held, const std::string& current,
                                          const std::vector<TaskReport>& reported) {
  tokens = {held.begin(), held.end()};
  if (!current.empty()) tokens.insert(current);
  // Prefetching workers report every task they hold, [{token, job, part, stage}] (decoded and
  // bounded by ControlMessage); kept for `zkmill status --workers`.
  tasks = reported;
  for (const auto& t : tasks) tokens.insert(t.at.token);
}

void Coordinator::handle(const Peer& from, const ControlMessage& m) {
  // Admitted when it connected, but its key has been revoked since: ignored, hello included.
  if (allowed_ && !allowed_->allows(from.key)) {
    if (revoked_logged_.size() > 10000) revoked_logged_.clear();
    if (revoked_logged_.insert(from.id + " " + from.key).second)
      spdlog::warn(
          "coordinator: ignoring what '{}' sends (first: a {}): its CURVE key is no longer in zmq.allowed_keys_file",
          printable(from.id, 64), m.type_name());
    return;
  }
  if (const auto* h = m.as<Hello>()) return on_hello(from, *h);
  auto it = workers_.find(from.id);
  if (it == workers_.end()) {
    // A worker from before our restart (or one we declared dead): it must introduce itself
    // again before anything it says is trusted. Its results are re-sent after the hello.
    send(from.id, Reconnect{});
    return;
  }
  WorkerInfo& w = it->second;
  if (w.curve_key != from.key) {
    peer_warning(from.id, "coordinator: ignored a " + std::string(m.type_name()) + " from '" + printable(from.id, 64) +
                              "': its CURVE key is not the one that worker registered with");
    return;
  }
  const uint64_t now = clock_.now_ms();
  if (w.silent)
    spdlog::info("coordinator: worker {} heard again after {} ms of silence (a slow link, not a dead worker)",
                 printable(from.id), now - w.last_seen_ms);
  w.silent = false;
  w.last_seen_ms = now;
  note_connection(w, from.fd);
  switch (m.type()) {
    case MessageType::WorkerHeartbeat:
      return on_heartbeat(from, w, *m.as<WorkerHeartbeat>());
    case MessageType::Bye:
      spdlog::info("coordinator: worker {} left (drained)", printable(from.id));
      workers_.erase(it);
      return;
    case MessageType::SynthDone:
      return on_synth_done(from, w, *m.as<SynthDone>());
    case MessageType::ProveDone:
      return on_prove_done(from, w, *m.as<ProveDone>());
    case MessageType::TaskFailed:
      return on_task_failed(from, w, *m.as<TaskFailed>());
    default:
      peer_warning(from.id, "coordinator: ignored a " + std::string(m.type_name()) + " from worker '" +
                                printable(from.id, 64) + "' (a coordinator-to-worker message)");
  }
}

void Coordinator::on_heartbeat(const Peer& from, WorkerInfo& w, const WorkerHeartbeat& h) {
  w.take_report(h.tokens, h.current, h.tasks);
  // Sticky: a heartbeat sent before our `drain` reached the worker must not undo it.
  w.draining = w.draining || h.draining;
  if (w.draining && !h.held.empty()) release_unneeded(from.id, h.held);
  // An assignment the worker never got (lost in a reconnect): free its slot; the lease reaper
  // fails that attempt because nobody reports holding it. Only once the worker has received
  // something sent after it (`seen`, when it reports one): before that the assignment may just
  // be slow (TCP retransmissions on a lossy link), not lost.
  std::erase_if(w.busy, [&](const auto& a) {
    const bool had_it = !h.seen || *h.seen >= a.second.seq;
    return !w.tokens.count(a.first) && had_it && w.last_seen_ms - a.second.at_ms > 4ull * cfg_.coordinator.heartbeat_ms;
  });
}

void Coordinator::on_hello(const Peer& from, const Hello& h) {
  if (h.worker != from.id) {
    peer_warning(from.id, "coordinator: hello from '" + printable(from.id, 64) + "' names itself '" +
                              printable(h.worker, 64) + "'; ignored");
    return;
  }
  WorkerInfo w;
  w.role = h.role;
  w.curve_key = from.key;
  w.circuits = {h.circuits.begin(), h.circuits.end()};
  w.bundle_endpoint = h.bundle_endpoint;
  w.take_report(h.tokens, h.current, h.tasks);
  // Busy with what it reports working on (from before our restart, or a reconnect).
  const uint64_t now = clock_.now_ms();
  if (!h.current.empty()) w.busy[h.current] = {false, now, 0, false, {}};
  for (const auto& t : h.tasks) w.busy[t.at.token] = {t.stage == TaskStage::Synthesizing, now, 0, false, {}};
  // Optional: how many assignments it takes at once (prove workers: slots x (1 + prefetch);
  // synth and `both` workers with a lookahead: those queued too). Capped: a worker cannot
  // hoard the queue by advertising more (the cap is also what a lookahead can let a later
  // higher-priority job wait behind, per worker).
  w.slots = std::min<uint64_t>(h.slots.value_or(1), cfg_.coordinator.max_worker_slots);
  if (h.slots.value_or(1) > w.slots)
    peer_warning(from.id, "coordinator: worker '" + printable(from.id, 64) + "' advertises " +
                              std::to_string(*h.slots) +
                              " slots; capped at coordinator.max_worker_slots = " + std::to_string(w.slots));
  w.queues = h.lookahead.value_or(0) > 0 && w.slots > 1;
  w.draining = h.draining;
  w.last_seen_ms = now;
  note_connection(w, from.fd);
  // A hello again from a worker we know (same key): it heard nothing from us for a while (a
  // slow link, a stall here) and introduces itself in case we restarted. Assignments sent after
  // the last message it had received (`seen`) are still on their way to it: keep them busy,
  // or the slot would be filled twice and the worker refuse the second assignment.
  if (auto old = workers_.find(from.id); old != workers_.end() && old->second.curve_key == w.curve_key && h.seen)
    for (const auto& [token, a] : old->second.busy)
      if (a.seq > *h.seen) w.busy.emplace(token, a);
  w.gpus = h.gpus;
  if (!h.bundle_server_key.empty() && !w.bundle_endpoint.empty())
    bundle_server_keys_[w.bundle_endpoint] = h.bundle_server_key;
  const bool known = workers_.count(from.id);
  spdlog::info("coordinator: worker {} {} (role {}, {} cores, {} MiB, {} circuit(s), {} GPU(s), {} slot(s)){}",
               printable(from.id), known ? "re-registered" : "registered", role_name(h.role), h.cores, h.memory_mb,
               w.circuits.size(), w.gpus.size(), w.slots,
               quarantined(from.id, w) ? "; it is QUARANTINED and gets no work" : "");
  workers_[from.id] = std::move(w);
  send(from.id, Welcome{cfg_.coordinator.heartbeat_ms, cfg_.coordinator.liveness});
}

}  // namespace zkmill::farm
