// SPDX-License-Identifier: MIT
// Coordinator event loop: poll the ROUTER, handle messages, then run the periodic duties
// (heartbeats and dead-worker detection, lease reaping, retry promotion, job sweeps, dispatch).
// A Redis outage is survived by dropping the connection and retrying on the next turn: no
// message is acked until its effect is in Redis, so workers re-send.
#include "coordinator/coordinator.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>
#include <zmq_addon.hpp>

#include "farm/curve_keys.hpp"
#include "farm/log_text.hpp"
#include "farm/signal_safe_poll.hpp"

namespace zkmill::farm {

namespace {
constexpr size_t kPeekWindow = 32;
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
      ctx_(1),
      router_(ctx_, zmq::socket_type::router),
      registry_(redis_) {
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

void Coordinator::setup_curve() {
  if (!cfg_.zmq.curve) return;
  auto keys = CurveKeys::load_for_coordinator(cfg_.zmq);
  zap_ = std::make_shared<wire::ZapHandler>(ctx_);
  zap_->allow(kControlZapDomain, keys.allowed_keys);
  zap_->set_observer([this](const std::string&, const std::string& key, bool admitted, const std::string& why) {
    if (admitted) return;
    const uint64_t now = now_ms();
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

void Coordinator::log_handshake_failures() {
  while (auto e = monitor_->next()) {
    if (e->succeeded || e->auth) continue;  // refusals by key are logged by the ZAP observer, with the key
    const uint64_t now = now_ms();
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
  const uint64_t now = now_ms();
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
  const auto d = peer_log_limit_.allow(peer, now_ms());
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
  const uint64_t asked_ms = now_ms();
  std::string waited_for;  // the holder a standby waits for, logged when it changes
  uint64_t last_log = 0;
  // Redis refused or is not ready yet: log (at most every 2 s) and wait, unless asked to stop
  // (false for a standby; a starting active coordinator cannot start without Redis).
  auto retry_later = [&](const char* state, const char* until, const std::exception& e) {
    redis_.disconnect();
    if (now_ms() - last_log > 2000) {
      spdlog::warn("coordinator: redis {} at start ({}); retrying", state, e.what());
      last_log = now_ms();
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
      auto holder = lease_->acquire(now_ms());
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
    spdlog::warn("coordinator: standby: TOOK OVER the coordinator lease after waiting {} ms (it was held by {})",
                 now_ms() - asked_ms, waited_for);
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
  started_ms_ = now_ms();
  if (!cfg_.coordinator.metrics_listen.empty())
    http_ = std::make_unique<HttpApi>(cfg_, metrics_.registry(), started_ms_);
  // Also stops at wrong Redis credentials (a configuration error, not an outage). False: a
  // standby asked to stop before it took over.
  if (!take_lease(stop)) {
    spdlog::info("coordinator: stopping (standby; never took over)");
    return;
  }
  serving_since_ms_ = now_ms();
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
      uint64_t now = now_ms();
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
      uint64_t now = now_ms();
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
  const uint64_t now = now_ms();
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
  if (!h.current.empty()) w.busy[h.current] = {false, now_ms(), 0, false, {}};
  for (const auto& t : h.tasks) w.busy[t.at.token] = {t.stage == TaskStage::Synthesizing, now_ms(), 0, false, {}};
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
  w.last_seen_ms = now_ms();
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

const Coordinator::JobInfo& Coordinator::job_info(const std::string& job) {
  if (auto it = jobs_.find(job); it != jobs_.end()) return it->second;
  auto j = store_.job(job);
  JobInfo ji;
  if (!j.empty()) {
    ji.circuit = j["circuit"];
    ji.curve = j["curve"];
    ji.kind = j["kind"];
    ji.seed = std::stoull(j["seed"]);
    ji.created_ms = j["created_ms"].empty() ? 0 : std::stoull(j["created_ms"]);
  }
  return jobs_.emplace(job, ji).first->second;
}

void Coordinator::heartbeat_and_expire() {
  const uint64_t now = now_ms();
  if (now - last_heartbeat_ms_ < cfg_.coordinator.heartbeat_ms) return;
  last_heartbeat_ms_ = now;
  renew_lease();
  refresh_quarantine();
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
  w.peer_address.clear();
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
  char host[INET6_ADDRSTRLEN] = {};
  uint16_t port = 0;
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* in = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
    port = ntohs(in->sin6_port);
  } else {
    return;  // ipc://: no per-connection address to tell a reused descriptor by
  }
  w.peer_address = std::string(host) + ":" + std::to_string(port);
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
  const uint64_t now = now_ms();
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

void Coordinator::sweep_jobs() {
  const uint64_t now = now_ms();
  const auto active = store_.active_jobs();
  // Digests of proofs of jobs that ended (done, failed, cancelled) are of no further use.
  const std::set<std::string> still(active.begin(), active.end());
  for (auto it = recorded_digests_.begin(); it != recorded_digests_.end();) {
    if (still.count(it->first)) {
      ++it;
      continue;
    }
    recorded_digest_count_ -= std::min(recorded_digest_count_, it->second.size());
    it = recorded_digests_.erase(it);
  }
  for (const auto& job : active) {
    auto j = store_.job(job);
    if (j.empty()) continue;
    uint64_t deadline = std::stoull(j["deadline_ms"]);
    if (deadline && now > deadline) {
      if (store_.finish(job, "failed", "deadline exceeded", now)) {
        spdlog::error("coordinator: job {} failed: deadline exceeded", job);
        metrics_.job_finished("failed", since_submit_s(job));
      }
      continue;
    }
    // Covers a crash between the last partition's result and the job's final verification.
    if (j["state"] == "running" && j["n_verified"] == j["partitions"]) finalize(job);
  }
}

void Coordinator::finalize(const std::string& job) {
  if (final_checks_.count(job)) return;  // its check is on the VerifyQueue already
  auto j = store_.job(job);
  uint64_t n = std::stoull(j["partitions"]);
  auto parts = store_.partitions(job, n);
  for (auto& p : parts)
    if (p["state"] != "verified") return;
  // Every proof as stored is checked: by the pairing, or (unless coordinator.final_check_all)
  // by being byte-identical, with its statement, to the proof this process checked for that
  // statement before recording it (proof_digest; the check is a deterministic function of the
  // key, the statement and the proof's text, so it holds for the stored copy too). A proof
  // recorded by another coordinator, or changed in Redis since, is checked with the pairing.
  const std::string circuit = j["circuit"];
  size_t matched = 0;
  if (!cfg_.coordinator.final_check_all) {
    static const std::map<uint64_t, Sha256::Digest> kNone;
    const auto found = recorded_digests_.find(job);
    const auto& known = found == recorded_digests_.end() ? kNone : found->second;
    std::vector<std::map<std::string, std::string>> unmatched;
    for (uint64_t part = 0; part < parts.size(); ++part) {
      auto& p = parts[part];
      const auto d = known.find(part);
      if (d != known.end() && d->second == proof_digest(circuit, p["public"], p["proof"]))
        ++matched;
      else
        unmatched.push_back(std::move(p));
    }
    parts = std::move(unmatched);
  }
  check_counts_->final_matched += matched;
  check_counts_->final_checked += parts.size();
  FinalCheck& fc = final_checks_[job];
  if (parts.empty()) {
    fc = FinalCheck{n, 0, true, "", 0, matched};
    final_done_.push_back(job);  // finished in collect_verdicts, as a checked one would be
    return;
  }
  // Chunks of at least 16 proofs, one per verify thread at most: a big job's check takes a
  // fraction of the time one thread would need, and the loop waits for none of it.
  auto batch = checker_.batch_verifier(circuit);
  const size_t m = parts.size();
  const size_t chunks = std::clamp<size_t>((m + 15) / 16, 1, verify_.threads());
  fc = FinalCheck{n, chunks, true, "", 0, matched};
  for (size_t c = 0, at = 0; c < chunks; ++c) {
    const size_t size = m / chunks + (c < m % chunks ? 1 : 0);
    auto mine = std::make_shared<std::vector<std::map<std::string, std::string>>>(
        std::make_move_iterator(parts.begin() + at), std::make_move_iterator(parts.begin() + at + size));
    at += size;
    const uint64_t id = verify_.submit([batch, mine](std::string* why) {
      std::vector<nlohmann::json> proofs, pubs;
      try {
        for (auto& p : *mine) {
          proofs.push_back(nlohmann::json::parse(p.at("proof")));
          pubs.push_back(nlohmann::json::parse(p.at("public")));
        }
        if (batch(proofs, pubs)) return true;
        *why = "batch verification failed";
      } catch (const std::exception& e) {
        *why = std::string("batch verification: ") + e.what();
      }
      return false;
    });
    final_chunks_.emplace(id, job);
  }
}

void Coordinator::finish_job(const std::string& job) {
  const FinalCheck& fc = final_checks_.at(job);
  metrics_.batch_verified(fc.seconds);
  if (fc.good) {
    if (store_.finish(job, "done", "", now_ms())) {
      spdlog::info(
          "coordinator: job {} done: {} proofs as stored checked ({} batch-verified, {} identical to the "
          "proofs checked when recorded)",
          job, fc.n, fc.n - fc.matched, fc.matched);
      metrics_.job_finished("done", since_submit_s(job));
    }
  } else {
    spdlog::error("coordinator: !!! job {} failed final batch verification: {}", job, fc.why);
    if (store_.finish(job, "failed", "final batch verification failed: " + fc.why, now_ms()))
      metrics_.job_finished("failed", since_submit_s(job));
  }
}

bool Coordinator::attach_input(const std::string& id, const WorkerInfo& w, const Claim& c, ControlMessage& msg) {
  auto wtns = store_.input(c.ref.job, c.ref.part);
  std::string why;
  if (!wtns)
    why =
        "the partition's witness is missing from Redis (zk:wtns:" + c.ref.job + ":" + std::to_string(c.ref.part) + ")";
  else if (wtns->size() >
           std::min<size_t>(size_t(cfg_.coordinator.max_witness_mb) << 20, ControlMessage::kMaxPayloadBytes))
    why = "the partition's witness of " + std::to_string(wtns->size()) +
          " bytes exceeds coordinator.max_witness_mb = " + std::to_string(cfg_.coordinator.max_witness_mb);
  if (why.empty()) {
    // The statement is the witness's public signals, known before any worker reports.
    try {
      if (zkey_statements_.size() > 10000) zkey_statements_.clear();  // bounded; a miss re-reads the witness
      zkey_statements_[c.ref.member()] = checker_.statement_from_wtns(c.job.at("circuit"), *wtns);
    } catch (const std::exception& e) {
      why = std::string("the partition's witness is malformed: ") + e.what();
    }
  }
  if (!why.empty()) {
    // Nothing another attempt could change: fail the job (a no-op if it is already final).
    CoordinatorConfig cc = cfg_.coordinator;
    cc.max_attempts = 1;
    store_.fail(c.ref, {id, w.curve_key, c.token}, why, false, now_ms(), cc);
    spdlog::error("coordinator: {} partition {}: {}", c.ref.job, c.ref.part, why);
    return false;
  }
  msg.payload = std::move(*wtns);
  return true;
}

void Coordinator::dispatch() {
  uint64_t prove_slots = 0, synthesizing = 0;
  const uint64_t now = now_ms();
  bool synth_idle = false;  // a worker that could take a synthesis now
  for (auto& [id, w] : workers_) {
    if (can_prove(w.role) && !w.draining && !quarantined(id, w)) prove_slots += w.slots;
    for (const auto& [token, a] : w.busy) synthesizing += a.synth ? 1 : 0;
    synth_idle = synth_idle ||
                 (w.takes_synth() && !w.draining && can_synth(w.role) && !quarantined(id, w) && !is_silent(w, now));
  }
  // Prove work first: it drains what synthesis already produced. A prove worker takes up to
  // its slots (its devices and the partitions it prefetches); a synthesis runs alone, except on
  // a worker with a lookahead, which queues what it cannot start yet (takes_synth/prove). A silent
  // worker (is_silent) gets nothing new until it is heard again. Each claim is one script; an
  // empty queue ends the pass for every worker.
  bool prove_empty = false;
  for (auto& [id, w] : workers_)
    while (!prove_empty && !w.draining && can_prove(w.role) && !quarantined(id, w) && !is_silent(w, now) &&
           w.takes_prove() && dispatch_prove(id, w, &prove_empty)) {
    }
  if (!synth_idle) return;
  // Synthesized-but-unproved partitions: synth_lookahead per proving slot, so that every
  // slot's next bundle is ready (or being made) when it asks.
  uint64_t ahead = store_.synth_ahead() + synthesizing;
  const uint64_t limit = uint64_t(cfg_.coordinator.synth_lookahead) * std::max<uint64_t>(prove_slots, 1);
  bool synth_empty = false;
  for (auto& [id, w] : workers_) {
    if (ahead >= limit || synth_empty) break;
    if (w.takes_synth() && !w.draining && can_synth(w.role) && !quarantined(id, w) && !is_silent(w, now) &&
        dispatch_synth(id, w, &synth_empty))
      ++ahead;
  }
}

bool Coordinator::dispatch_prove(const std::string& id, WorkerInfo& w, bool* empty) {
  auto c = store_.claim("prove", id, w.curve_key, w.circuits, kPeekWindow, now_ms(), cfg_.coordinator.lease_ms);
  if (!c.ok) {
    *empty = c.reason == "empty";
    return false;
  }
  Prove prove;
  prove.at = {c.ref.job, c.ref.part, c.token};
  prove.circuit = c.job["circuit"];
  prove.curve = c.job["curve"];
  prove.bundle_endpoint = c.part["bundle_endpoint"];
  prove.bundle_key = c.part["bundle_key"];
  // The statement the proof must be of; the prove worker checks its bundle against it.
  auto statement = nlohmann::json::parse(c.part["statement"], nullptr, false);
  if (statement.is_array())
    for (const auto& x : statement)
      if (x.is_string()) prove.public_inputs.push_back(x.get<std::string>());
  // CURVE: the prove worker authenticates the bundle server by this key. Unknown (its synth
  // worker has not said hello since our start): empty, the fetch fails and the partition is retried.
  if (cfg_.zmq.curve) {
    auto k = bundle_server_keys_.find(prove.bundle_endpoint);
    if (k != bundle_server_keys_.end()) prove.bundle_server_key = k->second;
  }
  ControlMessage msg(std::move(prove));
  assign(id, w, c, msg, c.part["statement"]);
  return true;
}

// Sends an assignment and marks the worker busy with it (the token is what its result must carry).
void Coordinator::assign(const std::string& id, WorkerInfo& w, const Claim& c, ControlMessage& m,
                         std::string statement) {
  ++seq_;
  if (auto* s = std::get_if<Synth>(&m.body)) s->seq = seq_;
  if (auto* p = std::get_if<Prove>(&m.body)) p->seq = seq_;
  send(id, m);
  w.busy[c.token] = {m.type() == MessageType::Synth, now_ms(), seq_, true, std::move(statement)};
  spdlog::debug("coordinator: {} partition {} -> {} ({})", c.ref.job, c.ref.part, printable(id), m.type_name());
}

bool Coordinator::dispatch_synth(const std::string& id, WorkerInfo& w, bool* empty) {
  // A zkey partition whose witness cannot be sent fails at once; then the next entry is tried.
  for (size_t tries = 0; tries < kPeekWindow; ++tries) {
    auto c = store_.claim("synth", id, w.curve_key, w.circuits, kPeekWindow, now_ms(), cfg_.coordinator.lease_ms);
    if (!c.ok) {
      *empty = c.reason == "empty";
      return false;
    }
    Synth synth;
    synth.at = {c.ref.job, c.ref.part, c.token};
    synth.circuit = c.job["circuit"];
    synth.curve = c.job["curve"];
    synth.seed = std::stoull(c.job["seed"]);
    ControlMessage msg(std::move(synth));
    if (c.job["kind"] == "zkey" && !attach_input(id, w, c, msg)) continue;  // that attempt failed; try the next entry
    assign(id, w, c, msg);
    return true;
  }
  return false;
}

}  // namespace zkmill::farm
