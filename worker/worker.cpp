// Worker event loop and the two kinds of task (synthesize -> publish; fetch -> wait for a
// proving slot -> prove).
#include "worker/worker.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <zmq_addon.hpp>

#include "common/cs/witness_expand.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/wire/bundle_fetch.hpp"
#include "farm/clock.hpp"
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
      ctx_(1),
      dealer_(ctx_, zmq::socket_type::dealer) {
  if (opts_.role != "synth" && opts_.role != "prove" && opts_.role != "both")
    throw std::invalid_argument("--role must be synth, prove or both (got '" + opts_.role + "')");
  if (!opts_.gpus.empty()) {
    if (opts_.role == "synth")
      throw std::invalid_argument("--gpus is for proving; a --role synth worker does not prove");
    gpu_ = std::make_unique<GpuProver>(opts_.gpus);
  }
  if (opts_.role != "synth") provers_ = std::make_unique<ProverPool>(opts_.gpus);
  if (cfg_.zmq.curve) curve_ = CurveKeys::load_for_worker(cfg_.zmq, opts_.role != "prove");
  if (!opts_.fault.empty() && opts_.fault != "corrupt-bundle-once" && opts_.fault != "bad-proof-once" &&
      opts_.fault != "slow-prove")
    throw std::invalid_argument("unknown --inject-fault '" + opts_.fault + "'");
  slow_prove_ = opts_.fault == "slow-prove";
  corrupt_once_ = opts_.fault == "corrupt-bundle-once";
  bad_proof_once_ = opts_.fault == "bad-proof-once";
  if (keys_.size() == 0) spdlog::warn("worker {}: no proving keys in '{}': it will get no work", id_, cfg_.worker.key_dir);
  if (opts_.role != "prove") {
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
  }
  dealer_.set(zmq::sockopt::routing_id, id_);
  if (curve_) {
    dealer_.set(zmq::sockopt::curve_serverkey, curve_->coordinator_public_key);
    dealer_.set(zmq::sockopt::curve_publickey, curve_->own.public_key);
    dealer_.set(zmq::sockopt::curve_secretkey, curve_->own.secret_key);
  }
  monitor_ = std::make_unique<HandshakeMonitor>(ctx_, dealer_);
  dealer_.set(zmq::sockopt::linger, 2000);  // lets a final bye/result leave on a graceful exit
  // A zkey job's `synth` carries the .wtns in a frame of up to ControlMessage::kMaxPayloadBytes
  // (the coordinator is the only peer); decode() still holds JSON bodies to max_message_kb.
  dealer_.set(zmq::sockopt::maxmsgsize,
              int64_t(std::max<size_t>(size_t(cfg_.zmq.max_message_kb) * 1024, ControlMessage::kMaxPayloadBytes)) + 64);
  heartbeat_ms_ = cfg_.coordinator.heartbeat_ms;
  liveness_ = cfg_.coordinator.liveness;
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error("worker: cannot create an eventfd");
}

Worker::~Worker() {
  for (auto& [token, t] : tasks_)
    if (t->thread.joinable()) t->thread.join();
  close(wake_fd_);
}

void Worker::send(const ControlMessage& m) {
  if (!m.send(dealer_)) spdlog::debug("worker {}: could not send {} (coordinator queue full)", id_, m.type);
  last_sent_ms_ = now_ms();
}

ControlMessage Worker::hello() const {
  nlohmann::json b = heartbeat().body;
  b["worker"] = id_;
  b["role"] = opts_.role;
  b["cores"] = uint64_t(cfg_.worker.cores ? cfg_.worker.cores : std::thread::hardware_concurrency());
  b["memory_mb"] = cfg_.worker.memory_mb ? cfg_.worker.memory_mb : physical_memory_mb();
  b["circuits"] = keys_.circuit_ids();
  b["bundle_endpoint"] = server_ ? server_->endpoint() : std::string();
  if (server_ && curve_) b["bundle_server_key"] = curve_->own.public_key;
  if (gpu_) b["gpus"] = gpu_->describe();
  b["slots"] = uint64_t(capacity());  // optional: how many assignments we take at once
  return ControlMessage("hello", std::move(b));
}

size_t Worker::capacity() const {
  if (!provers_) return 1;
  return provers_->window(cfg_.worker.prefetch);
}

const char* Worker::stage_name(Stage s) {
  switch (s) {
    case Stage::Synthesizing:
      return "synthesizing";
    case Stage::Fetching:
      return "fetching";
    case Stage::Fetched:
      return "prefetched";
    case Stage::Proving:
      return "proving";
  }
  return "?";
}

ControlMessage Worker::heartbeat() const {
  nlohmann::json tokens = nlohmann::json::array(), held = nlohmann::json::array();
  for (const auto& [key, token] : held_) {
    tokens.push_back(token);
    held.push_back(key);
  }
  // `current` (one token: what an older coordinator reads) is a task that is running, the one
  // proving if any; `tasks` (optional) lists every task held, prefetched ones included, so
  // all their leases are renewed and `zkmill status --workers` can show them.
  uint64_t current = 0;
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& [token, t] : tasks_) {
    const Stage stage = t->stage.load();
    if (!current || stage == Stage::Proving || stage == Stage::Synthesizing) current = token;
    tasks.push_back({{"token", token}, {"job", t->job}, {"part", t->part}, {"stage", stage_name(stage)}});
  }
  nlohmann::json b{{"tokens", tokens}, {"current", current}, {"draining", draining_}, {"tasks", std::move(tasks)}};
  // Draining: the held bundles by key, so the coordinator can release those that no partition
  // needs any more (a failed attempt's, a cancelled job's) instead of letting us wait for them.
  if (draining_ && !held_.empty()) b["held"] = std::move(held);
  return ControlMessage("worker_heartbeat", std::move(b));
}

int Worker::run(const std::atomic<bool>& stop) {
  dealer_.connect(cfg_.coordinator.endpoint);
  spdlog::info("worker {}: role {}, coordinator {}, bundles {}{}{}", id_, opts_.role, cfg_.coordinator.endpoint,
               server_ ? server_->endpoint() : std::string("-"),
               curve_ ? ", CURVE public key " + curve_->own.public_key : std::string(", plaintext (zmq.curve off)"),
               gpu_ ? ", proving on GPU(s) " + gpu_->describe().dump() : std::string());
  send(hello());
  last_hello_ms_ = last_heard_ms_ = now_ms();
  const size_t max_body = size_t(cfg_.zmq.max_message_kb) * 1024;
  for (;;) {
    if ((stop.load() || drain_requested_) && !draining_) {
      draining_ = true;
      drain_started_ms_ = now_ms();
      spdlog::info("worker {}: draining (finishing the {} partition(s) it holds, taking no new one)", id_,
                   tasks_.size());
      send(heartbeat());
    }
    // A draining worker whose coordinator has gone silent would wait for acks forever; its
    // unacked results are not lost (the leases expire and the partitions are redone).
    const bool coordinator_gone = now_ms() - last_heard_ms_ > heartbeat_ms_ * liveness_;
    if (draining_ && tasks_.empty() && (unacked_.empty() || coordinator_gone) &&
        !serve_held_bundles(coordinator_gone)) {
      send(ControlMessage("bye", nlohmann::json::object()));
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
        spdlog::warn("worker {}: dropped a malformed message from the coordinator: {}", id_, why);
        continue;
      }
      last_heard_ms_ = now_ms();
      handle(*m);
    }
    collect_tasks();
    log_handshake_failures();
    const uint64_t now = now_ms();
    if (now - last_sent_ms_ >= heartbeat_ms_) {
      send(heartbeat());
      for (const auto& [token, r] : unacked_) send(r);  // until acked (coordinator may have restarted)
    }
    // Paranoid Pirate: a silent coordinator is presumed restarted; introduce ourselves again
    // (ZeroMQ reconnects the TCP connection by itself).
    if (now - last_heard_ms_ > heartbeat_ms_ * liveness_ && now - last_hello_ms_ > heartbeat_ms_ * liveness_) {
      spdlog::warn("worker {}: coordinator silent for {} ms; saying hello again", id_, now - last_heard_ms_);
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
    // libzmq retries a refused handshake forever; one line per 10 s says why nothing happens.
    const uint64_t now = now_ms();
    ++handshake_failures_;
    if (now - last_refusal_log_ms_ < 10000) continue;
    last_refusal_log_ms_ = now;
    spdlog::error("worker {}: the coordinator at {} REFUSED the connection: {} ({}); no work until this is fixed", id_,
                  cfg_.coordinator.endpoint, e->what,
                  curve_
                      ? "our public key " + curve_->own.public_key +
                            " must be in the coordinator's zmq.allowed_keys_file and zmq.coordinator_public_key_file "
                            "must be the coordinator's key"
                      : std::string("we run with zmq.curve off"));
  }
}

void Worker::handle(const ControlMessage& m) {
  if (m.type == "drain") {
    if (!draining_) spdlog::info("worker {}: drain requested by the coordinator (zkmill worker drain)", id_);
    drain_requested_ = true;
  } else if (m.type == "welcome") {
    heartbeat_ms_ = std::max<uint64_t>(10, m.body["heartbeat_ms"].get<uint64_t>());
    liveness_ = std::max<uint64_t>(2, m.body["liveness"].get<uint64_t>());
    for (const auto& [token, r] : unacked_) send(r);
  } else if (m.type == "reconnect") {
    send(hello());
    last_hello_ms_ = now_ms();
  } else if (m.type == "heartbeat") {
    // liveness only
  } else if (m.type == "ack") {
    unacked_.erase(m.body["token"].get<uint64_t>());
  } else if (m.type == "release") {
    const std::string key = m.body["bundle_key"].get<std::string>();
    if (server_) server_->retract(key);
    std::erase_if(held_, [&](const auto& h) { return h.first == key; });
  } else if (m.type == "synth" || m.type == "prove") {
    if (const std::string why = refusal(m.type); !why.empty()) {
      spdlog::warn("worker {}: got {} while {}; not taken (the coordinator will requeue it)", id_, m.type, why);
      return;
    }
    start_task(m);
  } else {
    spdlog::warn("worker {}: unexpected message '{}'", id_, m.type);
  }
}

std::string Worker::refusal(const std::string& type) const {
  if (draining_) return "draining";
  if ((type == "synth" && opts_.role == "prove") || (type == "prove" && opts_.role == "synth"))
    return "serving role " + opts_.role;
  if (tasks_.size() >= capacity()) return "busy (" + std::to_string(tasks_.size()) + " task(s) held)";
  // A synthesis uses the whole machine: on a `both` worker it runs alone.
  const bool synthesizing = std::any_of(tasks_.begin(), tasks_.end(), [](const auto& t) { return t.second->synth; });
  if (synthesizing || (type == "synth" && !tasks_.empty())) return "busy (synthesis runs alone)";
  return "";
}

void Worker::start_task(const ControlMessage& m) {
  auto task = std::make_unique<Task>();
  Task* t = task.get();
  t->token = m.body["token"].get<uint64_t>();
  t->job = m.body["job"].get<std::string>();
  t->part = m.body["part"].get<uint64_t>();
  t->synth = m.type == "synth";
  t->stage = t->synth ? Stage::Synthesizing : Stage::Fetching;
  if (tasks_.count(t->token)) {
    spdlog::warn("worker {}: got token {} twice; ignored", id_, t->token);
    return;
  }
  tasks_.emplace(t->token, std::move(task));
  t->thread = std::thread([this, t, m] {
    const auto& b = m.body;
    auto failed = [&](const std::exception& e, bool permanent) {
      // `permanent` (optional field): retrying cannot help, the coordinator fails the job now.
      t->result = ControlMessage("task_failed", {{"job", b["job"]},
                                                 {"part", b["part"]},
                                                 {"token", b["token"]},
                                                 {"error", std::string(e.what())},
                                                 {"permanent", permanent}});
    };
    try {
      t->result = m.type == "synth" ? run_synth(m) : run_prove(b, *t);
    } catch (const PermanentTaskError& e) {
      failed(e, true);
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
    it->second->thread.join();
    ControlMessage r = std::move(it->second->result);
    const uint64_t token = it->first;
    it = tasks_.erase(it);
    report(token, std::move(r));
  }
}

void Worker::report(uint64_t token, ControlMessage r) {
  if (r.type == "task_failed")
    spdlog::warn("worker {}: {} partition {} failed: {}", id_, r.body["job"].get<std::string>(),
                 r.body["part"].get<uint64_t>(), r.body["error"].get<std::string>());
  if (r.type == "synth_done") {
    held_.emplace_back(r.body["bundle_key"].get<std::string>(), token);
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

ControlMessage Worker::run_synth(const ControlMessage& m) {
  const auto& b = m.body;
  const std::string circuit = b["circuit"], job = b["job"];
  const uint64_t part = b["part"], token = b["token"], seed = b["seed"];
  const KeyDirectory::Key* key = keys_.find(circuit);
  if (!key) throw std::runtime_error("worker " + id_ + " has no key for circuit " + circuit);
  const bool zkey = key->format == KeyDirectory::Format::Zkey;
  if (zkey != !m.payload.empty())
    throw std::runtime_error(zkey ? "synth of a .zkey circuit came without its witness frame"
                                  : "synth of a native circuit came with a witness frame");
  auto t0 = std::chrono::steady_clock::now();
  auto bundle = zkey ? zkeys_.synthesize(*key, m.payload, part) : curves::with_curve(key->curve, [&]<class E>(E) {
    using Fr = typename E::Fr;
    auto pk = groth16::ProvingKey<E>::open(key->path);
    auto full = groth16::synthesize_builtin<E>(pk.meta, seed, part, key->digest);
    if (cfg_.worker.bundle_kind != "witness") return full;
    // Witness only: the prove worker recomputes a, b, c from the circuit's matrices, so only
    // inputs and the (bit-packed) aux travel.
    const auto mats = matrices_.get<E>(*key);
    return cs::WitnessBundle::pack_witness<Fr>(full.header(), mats->id, full.template inputs<Fr>(),
                                               full.template aux<Fr>());
  });
  const std::string bundle_key = job + "/" + std::to_string(part) + "/" + std::to_string(token);
  const uint64_t bytes = bundle.bytes().size();
  server_->publish(bundle_key, std::make_shared<const cs::WitnessBundle>(std::move(bundle)));
  const double synth_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info("worker {}: {} partition {} synthesized ({} bytes, {:.1f} ms)", id_, job, part, bytes, synth_ms);
  // synth_ms and bundle_bytes are optional telemetry (not in the schema), for `zkmill status --json`
  // and the coordinator's metrics.
  return ControlMessage("synth_done", {{"job", job},
                                       {"part", part},
                                       {"token", token},
                                       {"bundle_key", bundle_key},
                                       {"synth_ms", synth_ms},
                                       {"bundle_bytes", bytes}});
}

ControlMessage Worker::run_prove(const nlohmann::json& b, Task& t) {
  const std::string circuit = b["circuit"], job = b["job"];
  const uint64_t part = b["part"], token = b["token"];
  const KeyDirectory::Key* key = keys_.find(circuit);
  if (!key) throw std::runtime_error("worker " + id_ + " has no key for circuit " + circuit);
  auto t0 = std::chrono::steady_clock::now();
  wire::FetchOptions fo;
  fo.max_total_bytes = cfg_.worker.max_bundle_mb << 20;
  fo.timeout = std::chrono::milliseconds(10000);
  if (curve_) {
    const std::string server_key = b.value("bundle_server_key", std::string());
    if (!CurveKeys::is_z85_key(server_key))
      throw std::runtime_error("no CURVE public key for the bundle server at " +
                               b["bundle_endpoint"].get<std::string>() +
                               " (its synth worker has not registered with this coordinator)");
    fo.curve = wire::CurveClientKeys{curve_->own, server_key};
  }
  cs::WitnessBundle w = wire::fetch_bundle(ctx_, b["bundle_endpoint"].get<std::string>(),
                                           b["bundle_key"].get<std::string>(), fo);
  if (w.header().circuit_id != key->digest || w.header().partition != part || w.curve() != key->curve)
    throw std::runtime_error("fetched bundle is for another circuit, curve or partition");
  double fetch_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t fetched_bytes = w.bytes().size();  // telemetry: wire bytes of this partition
  double expand_ms = 0;
  if (w.kind() == cs::BundleKind::Witness) {
    // a, b, c from the circuit's matrices, on our CPU threads, before taking a proving slot:
    // it overlaps the proofs running there.
    if (key->format != KeyDirectory::Format::Native)
      throw std::runtime_error("fetched a witness-only bundle for a .zkey circuit");
    const auto te = std::chrono::steady_clock::now();
    w = curves::with_curve(key->curve, [&]<class E>(E) {
      const auto mats = matrices_.get<E>(*key);
      return cs::expand_witness<typename E::Fr>(w, mats->r1cs, mats->id);
    });
    expand_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - te).count();
  }
  // Fetched: wait for a proving slot (a device, or the CPU). Meanwhile our other tasks fetch,
  // which is the point of prefetching; the wait is not part of prove_ms.
  t.stage = Stage::Fetched;
  ProverPool::Lease slot = provers_->acquire();
  t.stage = Stage::Proving;
  const auto t1 = std::chrono::steady_clock::now();
  if (slow_prove_) std::this_thread::sleep_for(std::chrono::seconds(3));  // test hook
  const int device = slot.device();
  nlohmann::json proof_json, pub_json;
  std::string backend;
  if (key->format == KeyDirectory::Format::Zkey) {
    auto proved = zkeys_.prove(*key, circuit, w, bad_proof_once_.exchange(false), gpu_.get(), device);
    backend = proved.backend;
    proof_json = std::move(proved.proof);
    pub_json = std::move(proved.pub);
  } else if (w.kind() != cs::BundleKind::Native) {
    throw std::runtime_error(std::string("fetched bundle is of kind ") + cs::bundle_kind_name(w.kind()) +
                             ", the circuit's key is a native key");
  } else {
    curves::with_curve(key->curve, [&]<class E>(E) {
      auto pk = groth16::ProvingKey<E>::open(key->path);
      auto proof = gpu_ ? gpu_->prove(pk, w, circuit, device) : groth16::prove<E>(pk, w);
      backend = gpu_ ? "GPU " + std::to_string(device) : std::string("CPU");
      if (bad_proof_once_.exchange(false)) proof.c = proof.a;  // test hook: well-formed but wrong
      auto inputs = groth16::public_inputs<E>(w);
      proof_json = groth16::snarkjs::proof_to_json<E>(proof);
      pub_json = groth16::snarkjs::public_to_json<typename E::Fr>(inputs);
    });
  }
  const auto t2 = std::chrono::steady_clock::now();
  const double prove_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  const double wait_ms = std::chrono::duration<double, std::milli>(t1 - t0).count() - fetch_ms - expand_ms;
  spdlog::info(
      "worker {}: {} partition {} proved on the {} (fetch {:.1f} ms, expand {:.1f} ms, waited {:.1f} ms for "
      "a slot, prove {:.1f} ms, {} bytes fetched)",
      id_, job, part, backend, fetch_ms, expand_ms, wait_ms, prove_ms, fetched_bytes);
  // fetch_ms, expand_ms (witness-only bundles: a, b, c computed here), slot_wait_ms, prove_ms
  // and bundle_bytes (the partition's wire bytes) are optional telemetry: `zkmill status JOB
  // --json` shows them per partition.
  return ControlMessage("prove_done", {{"job", job},
                                       {"part", part},
                                       {"token", token},
                                       {"proof", proof_json},
                                       {"public", pub_json},
                                       {"fetch_ms", fetch_ms},
                                       {"prove_ms", prove_ms},
                                       {"slot_wait_ms", wait_ms},
                                       {"expand_ms", expand_ms},
                                       {"bundle_bytes", fetched_bytes}});
}

}  // namespace zkmill::farm
