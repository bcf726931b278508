// SPDX-License-Identifier: MIT
// Worker event loop and the two kinds of task (synthesize -> publish; fetch -> wait for a
// proving slot -> prove); the tasks' bodies are in worker_tasks.cpp.
#include "worker/worker.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <zmq_addon.hpp>

#include "common/curves/dispatch.hpp"
#include "common/util/cancellation.hpp"
#include "farm/clock.hpp"
#include "farm/log_text.hpp"
#include "farm/signal_safe_poll.hpp"

namespace zkmill::farm {

namespace {

uint64_t physical_memory_mb() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) / (1024 * 1024) : 0;
}

std::string default_id() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + std::to_string(getpid());
}

}  // namespace

Worker::Worker(FarmConfig cfg, WorkerOptions opts)
    : cfg_(std::move(cfg)),
      opts_(std::move(opts)),
      id_(cfg_.worker.id.empty() ? default_id() : cfg_.worker.id),
      keys_(cfg_.worker.key_dir),
      zkeys_(cfg_.worker.zkey_cache_mb << 20),
      ctx_(1),
      dealer_(ctx_, zmq::socket_type::dealer) {
  if (!opts_.gpus.empty()) {
    if (!can_prove(opts_.role))
      throw std::invalid_argument("--gpus is for proving; a --role synth worker does not prove");
    gpu_ = std::make_unique<GpuProver>(opts_.gpus);
  }
  if (can_prove(opts_.role)) provers_ = std::make_unique<ProverPool>(opts_.gpus);
  if (cfg_.zmq.curve) curve_ = CurveKeys::load_for_worker(cfg_.zmq, can_synth(opts_.role));
  if (!opts_.fault.empty() && opts_.fault != "corrupt-bundle-once" && opts_.fault != "bad-proof-once" &&
      opts_.fault != "slow-prove" && opts_.fault != "stuck-prove-once")
    throw std::invalid_argument("unknown --inject-fault '" + opts_.fault + "'");
  slow_prove_ = opts_.fault == "slow-prove";
  stuck_prove_once_ = opts_.fault == "stuck-prove-once";
  corrupt_once_ = opts_.fault == "corrupt-bundle-once";
  bad_proof_once_ = opts_.fault == "bad-proof-once";
  if (keys_.size() == 0)
    spdlog::warn("worker {}: no proving keys in '{}': it will get no work", id_, cfg_.worker.key_dir);
  if (can_synth(opts_.role)) {
    wire::BundleServerOptions so;
    // The first chunk served (the bundle header travels separately, so not offset 0).
    so.corrupt_chunk_for_test = [this](const std::string&, uint64_t) { return corrupt_once_.exchange(false); };
    if (curve_) {
      // The same keypair as on the control plane; prove workers learn our public key from
      // the coordinator (hello -> prove.bundle_server_key), and only allow-listed ones get in.
      so.curve = curve_->own;
      so.allowed_client_keys = curve_->allowed_keys;
    }
    server_ = std::make_unique<wire::BundleServer>(ctx_, cfg_.worker.bundle_bind, std::move(so));
    if (curve_)
      allowed_ =
          std::make_unique<AllowListWatch>(cfg_.zmq.allowed_keys_file, "zmq.allowed_keys_file", curve_->allowed_keys);
  }
  dealer_.set(zmq::sockopt::routing_id, id_);
  if (curve_) {
    dealer_.set(zmq::sockopt::curve_serverkey, curve_->coordinator_public_key);
    dealer_.set(zmq::sockopt::curve_publickey, curve_->own.public_key);
    dealer_.set(zmq::sockopt::curve_secretkey, curve_->own.secret_key);
  }
  monitor_ = std::make_unique<HandshakeMonitor>(ctx_, dealer_);
  dealer_.set(zmq::sockopt::linger, 2000);  // lets a final bye/result leave on a graceful exit
  if (!cfg_.coordinator.standby_endpoints.empty()) {
    // Connected to every coordinator, of which only the one holding the lease has bound its
    // endpoint. Messages go only to completed connections (immediate), and a connection to a
    // coordinator that stopped answering (stalled, cut off) is dropped by ZeroMQ's own
    // heartbeat after the dead-peer window, so the DEALER's round robin never feeds a
    // silent one for long.
    dealer_.set(zmq::sockopt::immediate, 1);
    dealer_.set(zmq::sockopt::heartbeat_ivl, int(cfg_.coordinator.heartbeat_ms));
    dealer_.set(zmq::sockopt::heartbeat_timeout, int(cfg_.coordinator.heartbeat_ms * cfg_.coordinator.liveness));
  }
  // A zkey job's `synth` carries the .wtns in a frame of up to ControlMessage::kMaxPayloadBytes
  // (the coordinator is the only peer); decode() still holds JSON bodies to max_message_kb.
  dealer_.set(zmq::sockopt::maxmsgsize,
              int64_t(std::max<size_t>(size_t(cfg_.zmq.max_message_kb) * 1024, ControlMessage::kMaxPayloadBytes)) + 64);
  heartbeat_ms_ = cfg_.coordinator.heartbeat_ms;
  liveness_ = cfg_.coordinator.liveness;
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error("worker: cannot create an eventfd");
}

std::atomic<bool> Worker::rescan_keys_requested{false};
std::atomic<bool> Worker::reload_allowed_requested{false};

void Worker::reload_allowed_keys() {
  last_allowed_poll_ms_ = now_ms();
  if (const auto change = allowed_->poll_logged("worker " + id_, reload_allowed_requested.exchange(false)))
    server_->set_allowed_client_keys(change->keys);
}

void Worker::rescan_keys() {
  last_rescan_ms_ = now_ms();
  const bool asked = rescan_keys_requested.exchange(false);
  try {
    KeyDirectory fresh(cfg_.worker.key_dir, &keys_);
    const auto before = keys_.circuit_ids(), after = fresh.circuit_ids();
    keys_ = std::move(fresh);
    native_keys_.retain(keys_);
    if (before == after) {
      if (asked) spdlog::info("worker {}: key directory re-read (SIGHUP): {} circuit(s), unchanged", id_, after.size());
      return;
    }
    spdlog::info("worker {}: key directory changed: now serving {} circuit(s) (was {}); registering them", id_,
                 after.size(), before.size());
    send(hello());
    last_hello_ms_ = now_ms();
  } catch (const std::exception& e) {
    spdlog::warn("worker {}: cannot re-read the key directory ({}); still serving the {} circuit(s) read before", id_,
                 e.what(), keys_.size());
  }
}

Worker::~Worker() {
  for (auto& [token, t] : tasks_)
    if (t->thread.joinable()) t->thread.join();
  close(wake_fd_);
}

void Worker::send(const ControlMessage& m) {
  if (!m.send(dealer_)) spdlog::debug("worker {}: could not send {} (coordinator queue full)", id_, m.type_name());
  last_sent_ms_ = now_ms();
}

ControlMessage Worker::hello() const {
  const auto hb = heartbeat();
  const auto& state = *hb.as<WorkerHeartbeat>();
  Hello h;
  h.worker = id_;
  h.role = opts_.role;
  h.cores = uint64_t(cfg_.worker.cores ? cfg_.worker.cores : std::thread::hardware_concurrency());
  h.memory_mb = cfg_.worker.memory_mb ? cfg_.worker.memory_mb : physical_memory_mb();
  h.circuits = keys_.circuit_ids();
  h.bundle_endpoint = server_ ? server_->endpoint() : std::string();
  h.tokens = state.tokens;
  h.current = state.current;
  h.draining = state.draining;
  if (server_ && curve_) h.bundle_server_key = curve_->own.public_key;
  if (gpu_)
    for (const auto& g : gpu_->describe())
      h.gpus.push_back(
          {g.value("index", uint64_t(0)), g.value("name", std::string()), g.value("memory_mb", uint64_t(0))});
  h.slots = uint64_t(capacity());  // optional: how many assignments we take at once
  if (lookahead()) h.lookahead = uint64_t(lookahead());
  h.tasks = state.tasks;
  h.seen = state.seen;
  return ControlMessage(std::move(h));
}

size_t Worker::capacity() const {
  const size_t queued = 1 + size_t(cfg_.worker.lookahead);
  if (!provers_) return queued;
  const size_t window = provers_->window(cfg_.worker.prefetch);
  return can_synth(opts_.role) ? std::max(window, queued) : window;
}

size_t Worker::lookahead() const {
  // A prove worker's extra assignments start at once (they fetch while others prove): none wait.
  if (!can_synth(opts_.role) || cfg_.worker.lookahead == 0) return 0;
  return capacity() - 1;
}

ControlMessage Worker::heartbeat() const {
  WorkerHeartbeat hb;
  for (const auto& [key, token] : held_) {
    hb.tokens.push_back(token);
    // Draining: the held bundles by key, so the coordinator can release those that no partition
    // needs any more (a failed attempt's, a cancelled job's) instead of letting us wait for them.
    if (draining_) hb.held.push_back(key);
  }
  // `current` (one token) is a task that is running, the one proving if any; `tasks` lists
  // every task held, prefetched ones included, so all their leases are renewed and `zkmill
  // status --workers` can show them.
  for (const auto& [token, t] : tasks_) {
    const TaskStage stage = t->stage.load();
    if (hb.current.empty() || stage == TaskStage::Proving || stage == TaskStage::Synthesizing) hb.current = token;
    hb.tasks.push_back({{t->job, t->part, token}, stage});
  }
  for (const auto& q : queued_) {
    const AttemptRef& at = *q.assignment();
    hb.tasks.push_back({at, TaskStage::Queued});
  }
  hb.draining = draining_;
  hb.seen = seen_seq_;
  return ControlMessage(std::move(hb));
}

void Worker::reconnect_coordinators() {
  std::vector<std::string> endpoints{cfg_.coordinator.endpoint};
  endpoints.insert(endpoints.end(), cfg_.coordinator.standby_endpoints.begin(),
                   cfg_.coordinator.standby_endpoints.end());
  for (const auto& e : endpoints) {
    try {
      dealer_.disconnect(e);
    } catch (const zmq::error_t&) {  // libzmq already dropped it
    }
    dealer_.connect(e);
  }
}

int Worker::run(const std::atomic<bool>& stop) {
  dealer_.connect(cfg_.coordinator.endpoint);
  std::string coordinators = cfg_.coordinator.endpoint;
  for (const auto& e : cfg_.coordinator.standby_endpoints) {
    dealer_.connect(e);
    coordinators += " (standby " + e + ")";
  }
  spdlog::info("worker {}: role {}, coordinator {}, bundles {}{}{}", id_, role_name(opts_.role), coordinators,
               server_ ? server_->endpoint() : std::string("-"),
               curve_ ? ", CURVE public key " + curve_->own.public_key : std::string(", plaintext (zmq.curve off)"),
               gpu_ ? ", proving on GPU(s) " + gpu_->describe().dump() : std::string());
  send(hello());
  last_hello_ms_ = last_heard_ms_ = last_rescan_ms_ = now_ms();
  const size_t max_body = size_t(cfg_.zmq.max_message_kb) * 1024;
  for (;;) {
    if ((stop.load() || drain_requested_) && !draining_) {
      draining_ = true;
      drain_started_ms_ = now_ms();
      spdlog::info(
          "worker {}: draining (finishing the {} partition(s) it runs, returning the {} queued, taking no new one)",
          id_, tasks_.size(), queued_.size());
      return_queued();
      send(heartbeat());
    }
    // A draining worker whose coordinator has gone silent would wait for acks forever; its
    // unacked results are not lost (the leases expire and the partitions are redone). The
    // silence counts from the drain's start too, and is four liveness periods: a link that has
    // just healed carries the coordinator's heartbeats again only after TCP's retransmission
    // backoff (seconds), and presuming too early costs the held bundles' re-synthesis.
    const bool coordinator_gone =
        draining_ && now_ms() - std::max(last_heard_ms_, drain_started_ms_) > 4 * heartbeat_ms_ * liveness_;
    if (draining_ && tasks_.empty() && (unacked_.empty() || coordinator_gone) &&
        !serve_held_bundles(coordinator_gone)) {
      send(Bye{});
      spdlog::info("worker {}: drained, exiting", id_);
      return 0;
    }
    zmq::pollitem_t items[] = {{dealer_.handle(), 0, ZMQ_POLLIN, 0}, {nullptr, wake_fd_, ZMQ_POLLIN, 0}};
    signal_safe_poll(items, 2, std::chrono::milliseconds(20));
    if (items[1].revents & ZMQ_POLLIN) {
      uint64_t n = 0;
      if (read(wake_fd_, &n, sizeof n) < 0) n = 0;  // EAGAIN: already drained
    }
    for (int n = 0; n < 100; ++n) {
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(dealer_, std::back_inserter(frames), zmq::recv_flags::dontwait)) break;
      std::string why;
      auto m = ControlMessage::decode(frames, max_body, &why, ControlMessage::kMaxPayloadBytes);
      if (!m) {
        const auto d = malformed_log_.allow("coordinator", now_ms());
        if (d.log)
          spdlog::warn("worker {}: dropped a malformed message from the coordinator: {}{}", id_, printable(why),
                       d.suppressed ? " (" + std::to_string(d.suppressed) + " similar warning(s) suppressed)" : "");
        continue;
      }
      last_heard_ms_ = now_ms();
      // Assignments and heartbeats are numbered; echoing the highest tells the coordinator
      // what has arrived (WorkerHeartbeat::seen).
      uint64_t seq = 0;
      if (const auto* h = m->as<Heartbeat>()) seq = h->seq;
      if (const auto* sy = m->as<Synth>()) seq = sy->seq;
      if (const auto* pr = m->as<Prove>()) seq = pr->seq;
      seen_seq_ = std::max(seen_seq_, seq);
      handle(*m);
    }
    collect_tasks();
    start_queued();
    log_handshake_failures();
    const uint64_t now = now_ms();
    if (allowed_ && (reload_allowed_requested.load() || now - last_allowed_poll_ms_ >= 2000)) reload_allowed_keys();
    const uint64_t rescan_ms = uint64_t(cfg_.worker.key_rescan_s) * 1000;
    if (tasks_.empty() && queued_.empty() && !draining_ &&
        (rescan_keys_requested.load() || (rescan_ms && now - last_rescan_ms_ >= rescan_ms)))
      rescan_keys();
    if (now - last_sent_ms_ >= heartbeat_ms_) {
      send(heartbeat());
      for (const auto& [token, r] : unacked_) send(r);  // until acked (coordinator may have restarted)
    }
    // Paranoid Pirate: a silent coordinator is presumed restarted; introduce ourselves again
    // (ZeroMQ reconnects the TCP connection by itself).
    if (now - last_heard_ms_ > heartbeat_ms_ * liveness_ && now - last_hello_ms_ > heartbeat_ms_ * liveness_) {
      spdlog::warn("worker {}: coordinator silent for {} ms; saying hello again", id_, now - last_heard_ms_);
      // A handshake the coordinator refused (our key not on its allow-list) ends that
      // connection for good in libzmq (a protocol error is not retried): connect again, so
      // that a key added to the allow-list since is let in without restarting this worker.
      if (handshake_failures_) reconnect_coordinators();
      send(hello());
      last_hello_ms_ = now;
    }
  }
}

void Worker::log_handshake_failures() {
  while (auto e = monitor_->next()) {
    if (e->succeeded) {
      if (handshake_failures_) spdlog::info("worker {}: connected to the coordinator", id_);
      handshake_failures_ = 0;
      continue;
    }
    // One line per 10 s says why nothing happens (a refused handshake is tried again when the
    // coordinator has been silent a liveness period: reconnect_coordinators).
    const uint64_t now = now_ms();
    ++handshake_failures_;
    if (now - last_refusal_log_ms_ < 10000) continue;
    last_refusal_log_ms_ = now;
    // The event's own address: with standby endpoints it may be another than the first.
    spdlog::error("worker {}: the coordinator at {} REFUSED the connection: {} ({}); no work until this is fixed", id_,
                  e->endpoint.empty() ? cfg_.coordinator.endpoint : e->endpoint, e->what,
                  curve_
                      ? "our public key " + curve_->own.public_key +
                            " must be in the coordinator's zmq.allowed_keys_file and zmq.coordinator_public_key_file "
                            "must be the coordinator's key"
                      : std::string("we run with zmq.curve off"));
  }
}

void Worker::handle(const ControlMessage& m) {
  switch (m.type()) {
    case MessageType::Drain:
      if (!draining_) spdlog::info("worker {}: drain requested by the coordinator (zkmill worker drain)", id_);
      drain_requested_ = true;
      return;
    case MessageType::Welcome: {
      const auto& w = *m.as<Welcome>();
      heartbeat_ms_ = std::max<uint64_t>(10, w.heartbeat_ms);
      liveness_ = std::max<uint64_t>(2, w.liveness);
      for (const auto& [token, r] : unacked_) send(r);
      return;
    }
    case MessageType::Reconnect:
      send(hello());
      last_hello_ms_ = now_ms();
      return;
    case MessageType::Heartbeat:
      return;  // liveness only
    case MessageType::Ack:
      unacked_.erase(m.as<Ack>()->token);
      return;
    case MessageType::Abort:
      return abort_task(*m.as<Abort>());
    case MessageType::Release: {
      const std::string& key = m.as<Release>()->bundle_key;
      if (server_) server_->retract(key);
      std::erase_if(held_, [&](const auto& h) { return h.first == key; });
      return;
    }
    case MessageType::Synth:
    case MessageType::Prove:
      if (const std::string why = refusal(m.type()); !why.empty()) {
        spdlog::warn("worker {}: got {} while {}; not taken (the coordinator will requeue it)", id_, m.type_name(),
                     why);
        return;
      }
      if (const AttemptRef& at = *m.assignment();
          tasks_.count(at.token) || std::any_of(queued_.begin(), queued_.end(), [&](const ControlMessage& q) {
            return q.assignment()->token == at.token;
          })) {
        spdlog::warn("worker {}: got token {} twice; ignored", id_, at.token);
        return;
      }
      if (queued_.empty() && can_start(m.type())) return start_task(m);
      queued_.push_back(m);  // starts when the tasks ahead of it allow (start_queued)
      send(heartbeat());     // tell the coordinator at once that we hold it
      return;
    default:
      spdlog::warn("worker {}: unexpected message '{}'", id_, m.type_name());
  }
}

std::string Worker::refusal(MessageType type) const {
  if (draining_) return "draining";
  const bool synth = type == MessageType::Synth;
  if (synth ? !can_synth(opts_.role) : !can_prove(opts_.role))
    return "serving role " + std::string(role_name(opts_.role));
  const size_t held = tasks_.size() + queued_.size();
  if (held >= capacity()) return "busy (" + std::to_string(held) + " assignment(s) held)";
  // Without a lookahead an assignment must start at once; with one it may wait its turn.
  if (lookahead() == 0 && !can_start(type)) return "busy (synthesis runs alone)";
  return "";
}

bool Worker::can_start(MessageType type) const {
  // A synthesis uses the whole machine: on a `both` worker it runs alone.
  if (type == MessageType::Synth) return tasks_.empty();
  if (std::any_of(tasks_.begin(), tasks_.end(), [](const auto& t) { return t.second->synth; })) return false;
  return !provers_ || tasks_.size() < provers_->window(cfg_.worker.prefetch);
}

void Worker::start_queued() {
  while (!draining_ && !queued_.empty() && can_start(queued_.front().type())) {
    ControlMessage m = std::move(queued_.front());
    queued_.pop_front();
    start_task(m);
  }
}

void Worker::return_queued() {
  while (!queued_.empty()) {
    const ControlMessage m = std::move(queued_.front());
    queued_.pop_front();
    const AttemptRef at = *m.assignment();
    spdlog::info("worker {}: returning {} partition {} unstarted (draining)", id_, at.job, at.part);
    TaskFailed f{at, "returned unstarted: the worker is draining", false};
    f.returned = true;
    report(at.token, std::move(f));  // kept and re-sent until acked, like any result
  }
}

void Worker::abort_task(const Abort& a) {
  const std::string why = printable(a.reason, 200);
  auto same = [&](const AttemptRef& at) {
    return at.token == a.at.token && at.job == a.at.job && at.part == a.at.part;
  };
  if (auto it = tasks_.find(a.at.token); it != tasks_.end()) {
    Task& t = *it->second;
    if (!same({t.job, t.part, t.token}) || t.stop.stop_requested()) return;
    t.abort_reason = why;
    t.stop.request_stop();
    spdlog::info("worker {}: aborting {} partition {} ({}): {}", id_, t.job, t.part, stage_name(t.stage.load()), why);
    return;
  }
  const auto q =
      std::find_if(queued_.begin(), queued_.end(), [&](const ControlMessage& m) { return same(*m.assignment()); });
  if (q == queued_.end()) return;  // not held (any more): its result is on its way, or it never came
  const AttemptRef at = *q->assignment();
  queued_.erase(q);
  spdlog::info("worker {}: dropped queued {} partition {} unstarted: {}", id_, at.job, at.part, why);
  TaskFailed f{at, "aborted before it started: " + why, false};
  f.returned = true;
  report(at.token, std::move(f));  // refused as stale by the coordinator; frees our slot there
}

void Worker::start_task(const ControlMessage& m) {
  auto task = std::make_unique<Task>();
  Task* t = task.get();
  t->synth = m.type() == MessageType::Synth;
  const AttemptRef at = *m.assignment();
  t->token = at.token;
  t->job = at.job;
  t->part = at.part;
  t->stage = t->synth ? TaskStage::Synthesizing : TaskStage::Fetching;
  if (tasks_.count(t->token)) {
    spdlog::warn("worker {}: got token {} twice; ignored", id_, t->token);
    return;
  }
  tasks_.emplace(t->token, std::move(task));
  t->thread = std::thread([this, t, m, at] {
    auto failed = [&](const std::exception& e, bool permanent) {
      // `permanent`: retrying cannot help; the coordinator fails the job now (synthesis only).
      t->result = TaskFailed{at, std::string(e.what()), permanent};
    };
    try {
      t->result = t->synth ? run_synth(*m.as<Synth>(), m.payload, t->stop.get_token()) : run_prove(*m.as<Prove>(), *t);
    } catch (const PermanentTaskError& e) {
      failed(e, true);
    } catch (const util::Cancelled& e) {
      failed(e, false);
      t->cancelled = true;
    } catch (const std::exception& e) {
      failed(e, false);
    }
    t->done.store(true);
    const uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof one) < 0) {
      // Counter full (cannot happen: it would take 2^64 wake-ups): the poll timeout picks it up.
    }
  });
  send(heartbeat());  // tell the coordinator at once what we are working on
}

void Worker::collect_tasks() {
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (!it->second->done.load()) {
      ++it;
      continue;
    }
    Task& t = *it->second;
    t.thread.join();
    ControlMessage r = std::move(t.result);
    if (auto* f = std::get_if<TaskFailed>(&r.body); f && t.cancelled)
      f->error = "aborted (" + t.abort_reason + "): " + f->error;
    const bool aborted = t.cancelled;
    const std::string token = it->first;
    it = tasks_.erase(it);
    report(token, std::move(r), aborted);
  }
}

void Worker::report(const std::string& token, ControlMessage r, bool aborted) {
  if (const auto* f = r.as<TaskFailed>(); f && aborted)
    spdlog::info("worker {}: {} partition {} stopped: {}", id_, f->at.job, f->at.part, f->error);
  else if (f && !f->returned)
    spdlog::warn("worker {}: {} partition {} failed: {}", id_, f->at.job, f->at.part, f->error);
  if (const auto* s = r.as<SynthDone>()) {
    held_.emplace_back(s->bundle_key, token);
    while (held_.size() > cfg_.worker.max_held_bundles) {
      // Bounded memory: the oldest bundle goes; its prove worker's fetch fails and the
      // partition is re-synthesized.
      server_->retract(held_.front().first);
      held_.pop_front();
    }
  }
  unacked_[token] = r;
  send(r);
}

bool Worker::serve_held_bundles(bool coordinator_gone) {
  if (held_.empty()) return false;
  // The coordinator sends `release` once a bundle's partition is proved; exiting before then
  // would fail the prove worker's fetch (after its timeout) and re-synthesize the partition.
  // Our heartbeats name the held bundles, and the coordinator also releases those nothing will
  // fetch (a failed attempt's, a finished job's). The wait is still bounded, for a coordinator
  // that never answers; a silent coordinator sends no releases, and its leases for our
  // partitions expire anyway.
  const uint64_t now = now_ms();
  const bool timed_out = now - drain_started_ms_ >= uint64_t(cfg_.worker.drain_hold_s) * 1000;
  if (!timed_out && !coordinator_gone) {
    if (!serving_held_logged_)
      spdlog::info(
          "worker {}: drained; serving {} held bundle(s) until the coordinator releases them (at most {} s "
          "after the drain began)",
          id_, held_.size(), cfg_.worker.drain_hold_s);
    serving_held_logged_ = true;
    return true;
  }
  spdlog::warn("worker {}: dropping {} bundle(s) never released ({}); their partitions are re-synthesized", id_,
               held_.size(), coordinator_gone ? "the coordinator went silent" : "worker.drain_hold_s passed");
  return false;
}

}  // namespace zkmill::farm
