// Coordinator event loop: poll the ROUTER, handle messages, then run the periodic duties
// (heartbeats and dead-worker detection, lease reaping, retry promotion, job sweeps, dispatch).
// A Redis outage is survived by dropping the connection and retrying on the next turn: no
// message is acked until its effect is in Redis, so workers re-send.
#include "coordinator/coordinator.hpp"

#include <spdlog/spdlog.h>

#include <thread>
#include <zmq_addon.hpp>

#include "farm/curve_keys.hpp"
#include "farm/signal_safe_poll.hpp"

namespace zkmill::farm {

namespace {
constexpr size_t kPeekWindow = 32;
constexpr const char* kControlZapDomain = "zkmill.control";
// A refused peer retries its handshake every ~100 ms; say so once per this period.
constexpr uint64_t kRefusalLogPeriodMs = 10000;
// A drain request for a worker this coordinator does not know (yet) is kept this long.
constexpr uint64_t kDrainRequestTtlMs = 60000;
// Bundle keys of one draining worker's heartbeat looked up per heartbeat (a worker holds at
// most worker.max_held_bundles; the rest wait for the next heartbeats).
constexpr size_t kMaxReleaseChecks = 1000;
// Assignments one worker may hold at once, whatever its hello claims (16 GPUs x (1 + prefetch)).
constexpr uint64_t kMaxWorkerSlots = 64;
}  // namespace

Coordinator::Coordinator(FarmConfig cfg)
    : cfg_(std::move(cfg)),
      redis_(cfg_.redis),
      wake_(cfg_.redis),
      store_(redis_),
      checker_(store_),
      ctx_(1),
      router_(ctx_, zmq::socket_type::router),
      registry_(redis_) {
  router_.set(zmq::sockopt::linger, 0);
  router_.set(zmq::sockopt::router_mandatory, 1);
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
      send(id, ControlMessage("drain", nlohmann::json::object()));
      it->second.draining = true;  // no new work from now on, whatever its next heartbeat says
    } else if (now - std::min(now, requested_ms) < kDrainRequestTtlMs) {
      continue;  // not (re-)registered yet, e.g. right after a coordinator restart
    } else {
      spdlog::warn("coordinator: dropping the drain request for worker {}: it is not registered", id);
    }
    registry_.clear_drain_request(id);
  }
}

void Coordinator::release_unneeded(const std::string& id, const nlohmann::json& held) {
  if (!held.is_array()) return;
  std::vector<std::string> keys;
  for (const auto& k : held)
    if (k.is_string() && keys.size() < kMaxReleaseChecks) keys.push_back(k.get<std::string>());
  for (const auto& key : store_.unneeded_bundles(keys)) {
    spdlog::info("coordinator: releasing bundle {} held by draining worker {} (no partition needs it)", key, id);
    send(id, ControlMessage("release", {{"bundle_key", key}}));
  }
}

void Coordinator::send(const std::string& to, const ControlMessage& m) {
  std::string why;
  if (!ControlMessage::valid(m.type, m.body, &why)) {
    spdlog::error("coordinator: refusing to send invalid message: {}", why);
    return;
  }
  if (!m.send_to(router_, to)) spdlog::debug("coordinator: could not send {} to {}", m.type, to);
}

void Coordinator::run(const std::atomic<bool>& stop) {
  // Wrong credentials are a configuration error, not an outage to wait out: stop with it.
  try {
    redis_.command({"PING"});
  } catch (const RedisAuthError& e) {
    throw std::runtime_error(e.what());
  } catch (const RedisReplyError& e) {
    const std::string what = e.what();
    if (what.find("NOAUTH") != std::string::npos || what.find("NOPERM") != std::string::npos)
      throw std::runtime_error("redis refused the coordinator (set redis.user / redis.password): " + what);
    throw;
  } catch (const RedisError& e) {
    spdlog::warn("coordinator: redis unavailable at start ({}); retrying", e.what());
    redis_.disconnect();
  }
  router_.bind(cfg_.coordinator.bind);
  if (!cfg_.coordinator.metrics_listen.empty()) metrics_.serve(cfg_.coordinator.metrics_listen, cfg_.redis);
  started_ms_ = now_ms();
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
    zmq::pollitem_t items[] = {{router_.handle(), 0, ZMQ_POLLIN, 0}, {nullptr, wake_.fd(), ZMQ_POLLIN, 0}};
    signal_safe_poll(items, wake_.fd() >= 0 ? 2 : 1, std::chrono::milliseconds(50));
    if (wake_.fd() >= 0 && (items[1].revents & ZMQ_POLLIN)) {
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
        if (frames.empty()) continue;
        std::string from = frames.front().to_string();
        frames.erase(frames.begin());
        std::string why;
        auto m = ControlMessage::decode(frames, max_body, &why);
        if (!m) {
          spdlog::warn("coordinator: dropped a malformed message from '{}': {}", from.substr(0, 64), why);
          metrics_.message_dropped();
          continue;
        }
        handle(from, *m);
      }
      log_handshake_failures();
      heartbeat_and_expire();
      uint64_t now = now_ms();
      store_.promote_delayed(now);
      reap();
      if (now - last_sweep_ms_ >= 500) {
        sweep_jobs();
        last_sweep_ms_ = now;
      }
      dispatch();
    } catch (const RedisError& e) {
      redis_.disconnect();
      uint64_t now = now_ms();
      if (now - last_redis_error_log_ms_ > 2000) {
        spdlog::warn("coordinator: redis unavailable ({}); retrying", e.what());
        last_redis_error_log_ms_ = now;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  spdlog::info("coordinator: stopping");
}

void Coordinator::WorkerInfo::take_report(const nlohmann::json& b) {
  tokens.clear();
  for (const auto& t : b["tokens"])
    if (t.is_number_unsigned()) tokens.insert(t.get<uint64_t>());
  if (const uint64_t current = b["current"].get<uint64_t>()) tokens.insert(current);
  // Optional (workers that prefetch): every task held, [{token, job, part, stage}]. Kept for
  // `zkmill status --workers` only in a checked form, and bounded.
  tasks = nlohmann::json::array();
  if (!b.contains("tasks") || !b["tasks"].is_array()) return;
  for (const auto& t : b["tasks"]) {
    if (tasks.size() >= kMaxWorkerSlots) break;
    if (!t.is_object() || !t.contains("token") || !t["token"].is_number_unsigned()) continue;
    const uint64_t token = t["token"].get<uint64_t>();
    tokens.insert(token);
    auto str = [&](const char* k) {
      return t.contains(k) && t[k].is_string() ? t[k].get<std::string>().substr(0, 64) : std::string();
    };
    tasks.push_back({{"token", token},
                     {"job", str("job")},
                     {"part", t.contains("part") && t["part"].is_number_unsigned() ? t["part"].get<uint64_t>() : 0},
                     {"stage", str("stage")}});
  }
}

void Coordinator::handle(const std::string& from, const ControlMessage& m) {
  if (m.type == "hello") return on_hello(from, m.body);
  auto it = workers_.find(from);
  if (it == workers_.end()) {
    // A worker from before our restart (or one we declared dead): it must introduce itself
    // again before anything it says is trusted. Its results are re-sent after the hello.
    send(from, ControlMessage("reconnect", nlohmann::json::object()));
    return;
  }
  WorkerInfo& w = it->second;
  w.last_seen_ms = now_ms();
  if (m.type == "worker_heartbeat") {
    w.take_report(m.body);
    // Sticky: a heartbeat sent before our `drain` reached the worker must not undo it.
    w.draining = w.draining || m.body["draining"].get<bool>();
    if (w.draining && m.body.contains("held")) release_unneeded(from, m.body["held"]);
    // An assignment the worker never got (lost in a reconnect, or refused): free its slot; the
    // lease reaper fails that attempt because nobody reports holding it.
    std::erase_if(w.busy, [&](const auto& a) {
      return !w.tokens.count(a.first) && w.last_seen_ms - a.second.at_ms > 4ull * cfg_.coordinator.heartbeat_ms;
    });
  } else if (m.type == "bye") {
    spdlog::info("coordinator: worker {} left (drained)", from);
    workers_.erase(it);
  } else if (m.type == "synth_done" || m.type == "prove_done" || m.type == "task_failed") {
    on_result(from, w, m);
  } else {
    spdlog::warn("coordinator: unexpected '{}' from worker {}", m.type, from);
  }
}

void Coordinator::on_hello(const std::string& from, const nlohmann::json& b) {
  const std::string role = b["role"].get<std::string>();
  if (role != "synth" && role != "prove" && role != "both") {
    spdlog::warn("coordinator: worker {} announced an unknown role '{}'; ignored", from, role.substr(0, 32));
    return;
  }
  if (b["worker"].get<std::string>() != from) {
    spdlog::warn("coordinator: hello from '{}' names itself '{}'; ignored", from, b["worker"].get<std::string>());
    return;
  }
  WorkerInfo w;
  w.role = role;
  for (const auto& c : b["circuits"])
    if (c.is_string()) w.circuits.insert(c.get<std::string>());
  w.bundle_endpoint = b["bundle_endpoint"].get<std::string>();
  w.take_report(b);
  // Busy with what it reports working on (from before our restart, or a reconnect).
  const uint64_t current = b["current"].get<uint64_t>();
  if (current) w.busy[current] = {false, now_ms()};
  for (const auto& t : w.tasks) w.busy[t["token"].get<uint64_t>()] = {t["stage"] == "synthesizing", now_ms()};
  // Optional: how many assignments it takes at once (prove workers: slots x (1 + prefetch)).
  if (b.contains("slots") && b["slots"].is_number_unsigned())
    w.slots = std::clamp<uint64_t>(b["slots"].get<uint64_t>(), 1, kMaxWorkerSlots);
  w.draining = b["draining"].get<bool>();
  w.last_seen_ms = now_ms();
  // Optional fields: the GPUs a prove worker proves on, and (CURVE) its bundle server's key.
  if (b.contains("gpus") && b["gpus"].is_array()) w.gpus = b["gpus"];
  if (b.contains("bundle_server_key") && b["bundle_server_key"].is_string() && !w.bundle_endpoint.empty())
    bundle_server_keys_[w.bundle_endpoint] = b["bundle_server_key"].get<std::string>();
  bool known = workers_.count(from);
  spdlog::info("coordinator: worker {} {} (role {}, {} cores, {} MiB, {} circuit(s), {} GPU(s))", from,
               known ? "re-registered" : "registered", role, b["cores"].get<uint64_t>(), b["memory_mb"].get<uint64_t>(),
               w.circuits.size(), w.gpus.size());
  workers_[from] = std::move(w);
  send(from, ControlMessage("welcome", {{"heartbeat_ms", cfg_.coordinator.heartbeat_ms},
                                        {"liveness", cfg_.coordinator.liveness}}));
}

void Coordinator::on_result(const std::string& from, WorkerInfo& w, const ControlMessage& m) {
  const auto& b = m.body;
  PartRef ref{b["job"].get<std::string>(), b["part"].get<uint64_t>()};
  const uint64_t token = b["token"].get<uint64_t>();
  if (ref.job.size() < 2 || ref.job[0] != 'j' || ref.job.find_first_not_of("0123456789", 1) != std::string::npos) {
    spdlog::warn("coordinator: {} from {} names a malformed job '{}'", m.type, from, ref.job.substr(0, 32));
    return;
  }
  const uint64_t now = now_ms();
  if (m.type == "synth_done") {
    bool ok = store_.synth_done(ref, token, w.bundle_endpoint, b["bundle_key"].get<std::string>(), now,
                                cfg_.coordinator.lease_ms);
    spdlog::debug("coordinator: {} partition {} synthesized by {}{}", ref.job, ref.part, from, ok ? "" : " (stale)");
    if (!ok)
      send(from, ControlMessage("release", {{"bundle_key", b["bundle_key"]}}));
    else
      store_.record_timings(ref, b, {"synth_ms"});
    if (ok)
      metrics_.synthesized(b);
    else
      metrics_.discarded();
  } else if (m.type == "task_failed") {
    // `permanent` (optional): the worker found the input itself wrong (an unsatisfied or
    // malformed witness); another attempt would fail the same way, so the job fails now.
    CoordinatorConfig cc = cfg_.coordinator;
    if (b.contains("permanent") && b["permanent"].is_boolean() && b["permanent"].get<bool>()) cc.max_attempts = 1;
    auto f = store_.fail(ref, token, from, b["error"].get<std::string>(), now, cc);
    count_failure("task_failed", ref, f);
    if (f.outcome == 1)
      spdlog::warn("coordinator: {} partition {} attempt {} failed on {}: {}; retry in {} ms", ref.job, ref.part,
                   f.attempts, from, b["error"].get<std::string>(), f.delay_ms);
    else if (f.outcome == 2)
      spdlog::error("coordinator: job {} failed: partition {} exhausted {} attempts; last error: {}", ref.job, ref.part,
                    f.attempts, b["error"].get<std::string>());
  } else {  // prove_done
    const JobInfo& ji = job_info(ref.job);
    std::string why;
    const auto t0 = std::chrono::steady_clock::now();
    const bool good = checker_.verify_one(ji.circuit, b["proof"], b["public"], &why);
    const double verify_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!good) {
      spdlog::error(
          "coordinator: !!! PROOF REJECTED: job {} partition {} from worker {}: {} — counted as a failed attempt",
          ref.job, ref.part, from, why);
      metrics_.rejected(verify_s);
      count_failure("proof_rejected", ref,
                    store_.fail(ref, token, from, "proof from " + from + " rejected: " + why, now, cfg_.coordinator));
    } else {
      auto d = store_.prove_done(ref, token, b["proof"].dump(), b["public"].dump(), now);
      if (d.recorded) {
        store_.record_timings(ref, b, {"fetch_ms", "expand_ms", "prove_ms", "slot_wait_ms", "bundle_bytes"});
        metrics_.verified(b, verify_s, since_submit_s(ref.job));
        spdlog::info("coordinator: {} partition {} verified ({}/{})", ref.job, ref.part, d.verified, d.total);
        if (auto sw = workers_.find(d.synth_worker); sw != workers_.end() && !d.bundle_key.empty())
          send(d.synth_worker, ControlMessage("release", {{"bundle_key", d.bundle_key}}));
        if (d.verified == d.total) finalize(ref.job);
      } else {
        spdlog::info("coordinator: {} partition {} result from {} discarded ({})", ref.job, ref.part, from, d.reason);
        metrics_.discarded();
      }
    }
  }
  w.busy.erase(token);
  send(from, ControlMessage("ack", {{"token", token}}));
}

const Coordinator::JobInfo& Coordinator::job_info(const std::string& job) {
  if (auto it = jobs_.find(job); it != jobs_.end()) return it->second;
  auto j = store_.job(job);
  JobInfo ji;
  if (!j.empty()) {
    ji.circuit = j["circuit"];
    ji.curve = j["curve"];
    ji.seed = std::stoull(j["seed"]);
    ji.created_ms = j["created_ms"].empty() ? 0 : std::stoull(j["created_ms"]);
  }
  return jobs_.emplace(job, ji).first->second;
}

void Coordinator::heartbeat_and_expire() {
  const uint64_t now = now_ms();
  if (now - last_heartbeat_ms_ < cfg_.coordinator.heartbeat_ms) return;
  last_heartbeat_ms_ = now;
  const uint64_t dead_after = uint64_t(cfg_.coordinator.heartbeat_ms) * cfg_.coordinator.liveness;
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (now - it->second.last_seen_ms > dead_after) {
      spdlog::warn("coordinator: worker {} missed {} heartbeats; declared dead, its leases will be requeued", it->first,
                   cfg_.coordinator.liveness);
      it = workers_.erase(it);
      metrics_.worker_lost();
      continue;
    }
    send(it->first, ControlMessage("heartbeat", nlohmann::json::object()));
    ++it;
  }
  forward_drain_requests();  // first, so the registry shows new draining flags at once
  publish_workers();
}

void Coordinator::reap() {
  const uint64_t now = now_ms();
  auto expired = store_.expired_leases(now, 200);
  if (expired.empty()) return;
  // Right after a (re)start, live workers may not have said hello yet: give them one lease period.
  const bool grace = now - started_ms_ < cfg_.coordinator.lease_ms;
  for (const auto& member : expired) {
    auto ref = PartRef::parse(member);
    if (!ref) continue;
    auto r = redis_.command({"HMGET", "zk:part:" + ref->job + ":" + std::to_string(ref->part), "worker", "token"});
    const std::string holder = r.elements.at(0).as_string();
    const uint64_t token = uint64_t(r.elements.at(1).as_int());
    auto w = workers_.find(holder);
    bool held = w != workers_.end() && (w->second.tokens.count(token) || w->second.busy.count(token));
    if (held || grace) {
      store_.renew_lease(member, now + cfg_.coordinator.lease_ms);
      continue;
    }
    std::string why = w == workers_.end() ? "worker " + holder + " lost (missed heartbeats)"
                                          : "worker " + holder + " no longer holds the attempt";
    auto f = store_.fail(*ref, 0, holder, why, now, cfg_.coordinator);
    count_failure("lease_expired", *ref, f);
    if (f.outcome == 0)
      store_.redis().command({"ZREM", "zk:leases", member});  // nothing leased any more
    else
      spdlog::warn("coordinator: {} partition {} requeued: {}", ref->job, ref->part, why);
  }
}

void Coordinator::sweep_jobs() {
  const uint64_t now = now_ms();
  for (const auto& job : store_.active_jobs()) {
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
  auto j = store_.job(job);
  uint64_t n = std::stoull(j["partitions"]);
  auto parts = store_.partitions(job, n);
  std::vector<nlohmann::json> proofs, pubs;
  for (auto& p : parts) {
    if (p["state"] != "verified") return;
    proofs.push_back(nlohmann::json::parse(p["proof"]));
    pubs.push_back(nlohmann::json::parse(p["public"]));
  }
  std::string why;
  const auto t0 = std::chrono::steady_clock::now();
  bool ok = checker_.verify_batch(j["circuit"], proofs, pubs, &why);
  metrics_.batch_verified(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (ok) {
    if (store_.finish(job, "done", "", now_ms())) {
      spdlog::info("coordinator: job {} done: {} proofs batch-verified", job, n);
      metrics_.job_finished("done", since_submit_s(job));
    }
  } else {
    spdlog::error("coordinator: !!! job {} failed final batch verification: {}", job, why);
    if (store_.finish(job, "failed", "final batch verification failed: " + why, now_ms()))
      metrics_.job_finished("failed", since_submit_s(job));
  }
}

bool Coordinator::attach_input(const Claim& c, ControlMessage& msg) {
  auto wtns = store_.input(c.ref.job, c.ref.part);
  std::string why;
  if (!wtns)
    why =
        "the partition's witness is missing from Redis (zk:wtns:" + c.ref.job + ":" + std::to_string(c.ref.part) + ")";
  else if (wtns->size() >
           std::min<size_t>(size_t(cfg_.coordinator.max_witness_mb) << 20, ControlMessage::kMaxPayloadBytes))
    why = "the partition's witness of " + std::to_string(wtns->size()) +
          " bytes exceeds coordinator.max_witness_mb = " + std::to_string(cfg_.coordinator.max_witness_mb);
  if (!why.empty()) {
    // Nothing another attempt could change: fail the job (a no-op if it is already final).
    CoordinatorConfig cc = cfg_.coordinator;
    cc.max_attempts = 1;
    store_.fail(c.ref, c.token, "", why, now_ms(), cc);
    spdlog::error("coordinator: {} partition {}: {}", c.ref.job, c.ref.part, why);
    return false;
  }
  msg.body["input_bytes"] = uint64_t(wtns->size());
  msg.payload = std::move(*wtns);
  return true;
}

void Coordinator::dispatch() {
  uint64_t prove_slots = 0, synthesizing = 0;
  for (auto& [id, w] : workers_) {
    if (w.can_prove() && !w.draining) prove_slots += w.slots;
    if (w.synthesizing()) ++synthesizing;
  }
  // Prove work first: it drains what synthesis already produced. A prove worker takes up to
  // its slots (its devices and the partitions it prefetches); a synthesis runs alone.
  for (auto& [id, w] : workers_)
    while (!w.draining && w.can_prove() && w.busy.size() < w.slots && !w.synthesizing() && dispatch_prove(id, w)) {
    }
  // Synthesized-but-unproved partitions: synth_lookahead per proving slot, so that every
  // slot's next bundle is ready (or being made) when it asks.
  uint64_t ahead = store_.synth_ahead() + synthesizing;
  const uint64_t limit = uint64_t(cfg_.coordinator.synth_lookahead) * std::max<uint64_t>(prove_slots, 1);
  for (auto& [id, w] : workers_) {
    if (ahead >= limit) break;
    if (w.busy.empty() && !w.draining && w.can_synth() && dispatch_synth(id, w)) ++ahead;
  }
}

bool Coordinator::dispatch_prove(const std::string& id, WorkerInfo& w) {
  auto cands = store_.peek("prove", kPeekWindow);
  if (cands.empty()) return false;
  std::vector<std::vector<std::string>> cmds;
  for (auto& m : cands) {
    auto ref = PartRef::parse(m);
    cmds.push_back({"HGET",
                    "zk:part:" + (ref ? ref->job : std::string("?")) + ":" + (ref ? std::to_string(ref->part) : "0"),
                    "synth_worker"});
  }
  auto holders = redis_.pipeline(cmds);
  // Best: a partition whose bundle this worker holds (no transfer); else the first it serves.
  int pick = -1;
  for (size_t i = 0; i < cands.size(); ++i) {
    auto ref = PartRef::parse(cands[i]);
    if (!ref || !w.circuits.count(job_info(ref->job).circuit)) continue;
    if (holders[i].as_string() == id) {
      pick = int(i);
      break;
    }
    if (pick < 0) pick = int(i);
  }
  if (pick < 0) return false;
  auto c = store_.claim("prove", cands[size_t(pick)], id, now_ms(), cfg_.coordinator.lease_ms);
  if (!c.ok) return false;
  ControlMessage prove("prove", {{"job", c.ref.job},
                                 {"part", c.ref.part},
                                 {"token", c.token},
                                 {"circuit", c.job["circuit"]},
                                 {"curve", c.job["curve"]},
                                 {"bundle_endpoint", c.part["bundle_endpoint"]},
                                 {"bundle_key", c.part["bundle_key"]}});
  // CURVE: the prove worker authenticates the bundle server by this key. Unknown (its synth
  // worker has not said hello since our start): empty, the fetch fails and the partition is retried.
  if (cfg_.zmq.curve) {
    auto k = bundle_server_keys_.find(c.part["bundle_endpoint"]);
    prove.body["bundle_server_key"] = k == bundle_server_keys_.end() ? std::string() : k->second;
  }
  assign(id, w, c, prove);
  return true;
}

// Sends an assignment and marks the worker busy with it (the token is what its result must carry).
void Coordinator::assign(const std::string& id, WorkerInfo& w, const Claim& c, const ControlMessage& m) {
  send(id, m);
  w.busy[c.token] = {m.type == "synth", now_ms()};
  spdlog::debug("coordinator: {} partition {} -> {} ({}, token {})", c.ref.job, c.ref.part, id, m.type, c.token);
}

bool Coordinator::dispatch_synth(const std::string& id, WorkerInfo& w) {
  for (const auto& m : store_.peek("synth", kPeekWindow)) {
    auto ref = PartRef::parse(m);
    if (!ref) continue;
    const JobInfo& ji = job_info(ref->job);
    if (!ji.circuit.empty() && !w.circuits.count(ji.circuit)) continue;
    auto c = store_.claim("synth", m, id, now_ms(), cfg_.coordinator.lease_ms);
    if (!c.ok) continue;  // stale entry (cancelled or failed job): the claim removed it
    ControlMessage msg("synth", {{"job", c.ref.job},
                                 {"part", c.ref.part},
                                 {"token", c.token},
                                 {"circuit", c.job["circuit"]},
                                 {"curve", c.job["curve"]},
                                 {"seed", std::stoull(c.job["seed"])}});
    if (c.job["kind"] == "zkey" && !attach_input(c, msg)) continue;  // that attempt failed; try the next entry
    assign(id, w, c, msg);
    return true;
  }
  return false;
}

}  // namespace zkmill::farm
