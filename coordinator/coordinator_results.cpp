// SPDX-License-Identifier: MIT
// The coordinator's handling of worker results (synth_done, prove_done, task_failed): who may
// end an attempt, the partition's statement, proof verification against it, and quarantine of
// a worker that sends a result for another statement. Kept apart from the event loop in
// coordinator.cpp; the Lua scripts in farm/farm_store_scripts.cpp check the same rules atomically.
#include <spdlog/spdlog.h>

#include <thread>

#include "coordinator/coordinator.hpp"
#include "farm/log_text.hpp"

namespace zkmill::farm {

void Coordinator::settle(const Peer& from, WorkerInfo& w, const std::string& token) {
  w.busy.erase(token);
  send(from.id, Ack{token});
}

void Coordinator::settle_durable(const Peer& from, WorkerInfo& w, const std::string& token) {
  w.busy.erase(token);
  ack_after_wait(from.id, token);
}

void Coordinator::ack_after_wait(const std::string& worker, const std::string& token) {
  durable_acks_.push_back({worker, token, redis_.connection_id()});
}

void Coordinator::ack_durable() {
  if (durable_acks_.empty()) return;
  const uint64_t now = clock_.now_ms();
  if (now < next_wait_ms_) return;
  // At most half a heartbeat per turn: the loop must go on heartbeating while a replica lags.
  const uint32_t timeout_ms = std::max<uint32_t>(1, cfg_.coordinator.heartbeat_ms / 2);
  if (!redis_.wait_replicas(timeout_ms)) {
    // Not acked: the workers keep their proofs and re-send them each heartbeat; a re-send of
    // a recorded proof is refused (already verified) and comes back here.
    next_wait_ms_ = now + cfg_.coordinator.heartbeat_ms;
    if (now - last_wait_log_ms_ > 10000) {
      spdlog::warn(
          "coordinator: {} recorded proof(s) not acknowledged yet: fewer than redis.min_replicas = {} replica(s) "
          "confirmed them within {} ms; their workers keep and re-send them",
          durable_acks_.size(), redis_.config().min_replicas, timeout_ms);
      last_wait_log_ms_ = now;
    }
    durable_acks_.clear();
    return;
  }
  // The WAIT confirmed what the server connected to now holds. A recording made on an earlier
  // connection (Redis failed over, or the connection dropped, since) may not be there: acking
  // it would have its worker drop a proof the new primary never saw. Its re-send is recorded
  // (or found recorded) on this connection and acked then. (Without replicas nothing is
  // waited for: every ack goes.)
  const bool any_connection = redis_.config().min_replicas == 0;
  size_t stale = 0;
  for (const auto& a : durable_acks_) {
    if (any_connection || a.connection == redis_.connection_id())
      send(a.worker, Ack{a.token});
    else
      ++stale;
  }
  if (stale)
    spdlog::info(
        "coordinator: {} result(s) recorded on an earlier redis connection not acknowledged; their workers re-send "
        "them",
        stale);
  durable_acks_.clear();
}

void Coordinator::refused(const Peer& from, std::string_view what, const AttemptRef& at, const std::string& why) {
  metrics_.discarded();
  // Routine for a worker's own late re-send (its attempt was retried); anything else is a peer
  // naming someone else's attempt. Rate-limited per peer either way.
  peer_warning(from.id, "coordinator: refused " + std::string(what) + " for " + at.job + " partition " +
                            std::to_string(at.part) + " from '" + printable(from.id, 64) + "': " + printable(why));
}

std::optional<std::vector<std::string>> Coordinator::zkey_statement(const PartRef& ref, const std::string& circuit,
                                                                    std::string* why) {
  if (auto it = zkey_statements_.find(ref.member()); it != zkey_statements_.end()) return it->second;
  auto wtns = store_.input(ref.job, ref.part);
  if (!wtns) {
    if (why) *why = "the partition's witness is no longer in Redis";
    return std::nullopt;
  }
  try {
    return checker_.statement_from_wtns(circuit, *wtns);
  } catch (const std::exception& e) {
    if (why) *why = e.what();
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> Coordinator::native_statement(const PartRef& ref, const JobInfo& ji,
                                                                      std::string* why) {
  std::string error;
  if (auto s = native_statements_.take(ref.member(), &error)) return s;
  if (!error.empty()) {
    if (why) *why = "computing it failed: " + error;
    return std::nullopt;
  }
  try {  // not started here (a synthesis dispatched before this coordinator took over): now
    return checker_.builtin_statement(ji.circuit, ji.seed, ref.part, why);
  } catch (const std::exception& e) {
    if (why) *why = std::string("computing it failed: ") + e.what();
  }
  return std::nullopt;
}

void Coordinator::prepare_native_statement(const Claim& c) {
  try {
    const auto fn = checker_.builtin_fn(c.job.at("circuit"));
    if (!fn) return;  // a registration without the circuit's meta: native_statement says so
    const uint64_t seed = std::stoull(c.job.at("seed")), part = c.ref.part;
    native_statements_.start(c.ref.member(), [fn, seed, part] { return fn(seed, part); });
  } catch (const RedisError&) {
    throw;
  } catch (const std::exception& e) {  // computed at synth_done instead, which reports the problem
    spdlog::warn("coordinator: {} partition {}: statement not prepared: {}", c.ref.job, c.ref.part, e.what());
  }
}

FarmStore::Attempt Coordinator::known_attempt(const Peer& from, const WorkerInfo& w, const PartRef& ref,
                                              const std::string& token, bool synth) {
  // `w` is the sender's entry (routing id, and CURVE key: handle() checked both), so an
  // attempt in its table was leased to exactly this sender with this token. It stays there
  // until settled, and the reaper renews such leases, so it is still this worker's attempt
  // unless its job ended meanwhile (cancelled, failed, past its deadline): the recording
  // script refuses the result then, as it refuses any result not of the current attempt.
  if (auto a = w.busy.find(token); a != w.busy.end() && a->second.leased_here && a->second.synth == synth) {
    FarmStore::Attempt known;
    known.state = synth ? "synthesizing" : "proving";
    known.token = token;
    known.worker = from.id;
    known.worker_key = from.key;
    known.statement = a->second.statement;
    return known;
  }
  return store_.attempt(ref);
}

void Coordinator::on_synth_done(const Peer& from, WorkerInfo& w, const SynthDone& m) {
  const PartRef ref{m.at.job, m.at.part};
  const FarmStore::Sender sender{from.id, from.key, m.at.token};
  const uint64_t now = clock_.now_ms();
  // A refused synthesis's bundle is released unless the partition still needs it: a re-send
  // of an already recorded synth_done (its ack was late) must not retract the live bundle.
  auto release = [&] {
    if (!store_.unneeded_bundles({m.bundle_key}).empty()) send(from.id, Release{m.bundle_key});
  };
  // Who may end this attempt is checked before anything costly; the script checks it again.
  const auto attempt = known_attempt(from, w, ref, m.at.token, true);
  std::string why = attempt.refusal(sender);
  if (why.empty() && attempt.state != "synthesizing") why = "partition " + attempt.state;
  if (!why.empty()) {
    refused(from, "synth_done", m.at, why);
    release();
    return settle(from, w, m.at.token);
  }
  // The statement: checked against the key (count, field elements) and equal to the one the
  // coordinator knows: read from the witness for a zkey job, computed natively from the
  // built-in circuit, the job's seed and the partition for a native one.
  const JobInfo& ji = job_info(ref.job);
  auto statement = checker_.canonical_statement(ji.circuit, m.public_inputs, &why);
  if (statement) {
    const bool zkey = ji.kind == "zkey";
    std::string missing;
    auto expected = zkey ? zkey_statement(ref, ji.circuit, &missing) : native_statement(ref, ji, &missing);
    if (!expected) {
      spdlog::warn("coordinator: {} partition {}: no statement to check the synthesis against: {}", ref.job, ref.part,
                   missing);
    } else if (*expected != *statement) {
      statement.reset();
      why = zkey ? "its public inputs are not the partition's (signals 1..nPublic of the job's witness)"
                 : "its public inputs are not the partition's (the circuit's statement for the job's seed and this "
                   "partition)";
    }
  }
  if (!statement) {
    release();
    quarantine(from, ref, "synth_done for " + ref.job + " partition " + std::to_string(ref.part) + ": " + why);
    count_failure("statement_rejected", ref,
                  store_.fail(ref, sender, "synthesis by " + printable(from.id, 64) + " rejected: " + why, false, now,
                              cfg_.coordinator));
    return settle(from, w, m.at.token);
  }
  // Recorded with the turn's other syntheses by one script (record_synthesized), then acked.
  synthesized_.push_back({from,
                          m,
                          {ref, sender, w.bundle_endpoint, m.bundle_key, nlohmann::json(*statement).dump(),
                           FarmStore::telemetry({{"synth_ms", m.synth_ms}})}});
}

void Coordinator::record_synthesized() {
  if (synthesized_.empty()) return;
  std::vector<FarmStore::SynthRecord> batch;
  for (const auto& p : synthesized_) batch.push_back(p.record);
  // When this throws nothing is dropped: the batch is recorded again next turn, and what of it
  // reached Redis before the failure is then refused as "partition synthesized", never twice.
  const auto outcomes = store_.synth_done(batch, clock_.now_ms(), cfg_.coordinator.lease_ms);
  auto pending = std::move(synthesized_);
  synthesized_.clear();
  for (size_t i = 0; i < pending.size(); ++i) {
    const PendingSynth& p = pending[i];
    const FarmStore::Outcome& o = outcomes[i];
    zkey_statements_.erase(p.record.ref.member());
    spdlog::debug("coordinator: {} partition {} synthesized by {}{}", p.m.at.job, p.m.at.part, printable(p.from.id),
                  o.ok ? "" : " (" + o.reason + ")");
    if (o.ok) {
      metrics_.synthesized(p.m);
      pauses_.succeeded(p.from.id);
      persist_pauses();
    } else {
      // Released unless the partition still needs it (a late re-send of a recorded synthesis).
      if (!store_.unneeded_bundles({p.m.bundle_key}).empty()) send(p.from.id, Release{p.m.bundle_key});
      metrics_.discarded();
    }
    if (auto w = workers_.find(p.from.id); w != workers_.end() && w->second.curve_key == p.from.key)
      settle(p.from, w->second, p.m.at.token);
    else
      send(p.from.id, Ack{p.m.at.token});
  }
}

void Coordinator::on_prove_done(const Peer& from, WorkerInfo& w, const ProveDone& m) {
  const PartRef ref{m.at.job, m.at.part};
  const FarmStore::Sender sender{from.id, from.key, m.at.token};
  // Who may end this attempt is checked before the costly pairing check (a late re-send of a
  // recorded result is refused here, unchecked); the recording script checks it again.
  const auto attempt = known_attempt(from, w, ref, m.at.token, false);
  std::string why = attempt.refusal(sender);
  if (why.empty() && attempt.state != "proving") why = "partition " + attempt.state;
  if (!why.empty()) {
    refused(from, "prove_done", m.at, why);
    return settle_durable(from, w, m.at.token);
  }
  // The same result re-sent while its proof is checked: answered when the verdict comes.
  if (verifying_tokens_.count(m.at.token)) return;
  // The worker is free now; the check runs on the VerifyQueue (flush_checks, at the end of
  // this turn) and the loop goes on.
  w.busy.erase(m.at.token);
  const uint64_t id = ++next_proof_id_;
  std::string text = m.proof.dump();
  unchecked_[job_info(ref.job).circuit].push_back({id, nlohmann::json::parse(text, nullptr, false),
                                                   nlohmann::json::parse(attempt.statement, nullptr, false),
                                                   std::chrono::steady_clock::now()});
  verifying_tokens_.insert(m.at.token);
  verifying_.emplace(id, PendingProof{from, m, std::move(text), attempt.statement});
}

uint64_t Coordinator::check_window_wait_ms(uint64_t limit) const {
  const uint64_t window_us = cfg_.coordinator.verify_batch_window_us;
  if (window_us == 0 || unchecked_.empty()) return limit;
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [circuit, items] : unchecked_) {
    if (items.empty() || items.size() >= cfg_.coordinator.verify_batch_max) continue;
    const auto waited = uint64_t(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::microseconds>(now - items.front().arrived).count()));
    // Past its window a group waits only for a thread or its circuit's check in flight, whose
    // verdicts wake the loop (the VerifyQueue's eventfd).
    if (waited < window_us) limit = std::min(limit, (window_us - waited + 999) / 1000);
  }
  return limit;
}

Sha256::Digest Coordinator::proof_digest(const std::string& circuit, const std::string& statement,
                                         const std::string& proof) {
  Sha256 h;
  // Length-prefixed: no two different triples hash the same text.
  for (const std::string* part : {&circuit, &statement, &proof}) {
    h.update(std::to_string(part->size()) + ":");
    h.update(*part);
  }
  return h.finish();
}

void Coordinator::flush_checks() {
  if (unchecked_.empty()) return;
  const size_t busy = verify_.in_flight(), threads = verify_.threads();
  if (busy >= threads) return;  // the next free thread takes what has gathered by then
  size_t idle = threads - busy;
  // Bounds a group's latency (and a failed group's re-check).
  const size_t max_group = std::max<size_t>(1, cfg_.coordinator.verify_batch_max);
  const size_t min_group = std::min<size_t>(4, max_group);  // while the circuit has a check in flight
  const auto window = std::chrono::microseconds(cfg_.coordinator.verify_batch_window_us);
  const auto now = std::chrono::steady_clock::now();
  for (auto next = unchecked_.begin(); next != unchecked_.end();) {
    auto& [circuit, items] = *next;
    const size_t n = items.size();
    const auto c = groups_checking_.find(circuit);
    const size_t checking = c == groups_checking_.end() ? 0 : c->second;
    // A group goes when it is full, or when its first proof has waited out the window and no
    // check of its circuit is in flight (or min_group have gathered meanwhile).
    const bool window_over = now - items.front().arrived >= window;
    const bool due = n >= max_group || (window_over && (checking == 0 || n >= min_group));
    if (idle == 0 || !due) {
      ++next;  // they go with the proofs that gather until the window ends or a check comes back
      continue;
    }
    // The key is read here, on the loop (cached after the first proof of the circuit).
    auto one = checker_.verifier(circuit);
    auto batch = checker_.batch_verifier(circuit);
    const size_t groups = std::max((n + max_group - 1) / max_group, std::min(idle, (n + min_group - 1) / min_group));
    idle -= std::min(idle, groups);
    groups_checking_[circuit] += groups;
    for (size_t g = 0, at = 0; g < groups; ++g) {
      const size_t size = n / groups + (g < n % groups ? 1 : 0);
      auto todo = std::make_shared<std::vector<UncheckedProof>>(std::make_move_iterator(items.begin() + at),
                                                                std::make_move_iterator(items.begin() + at + size));
      at += size;
      auto out = std::make_shared<std::vector<VerifyQueue::Verdict>>();
      const uint64_t delay_ms = verify_delay_ms_;
      const uint64_t gid =
          verify_.submit([one, batch, todo, out, delay_ms, counts = check_counts_, circuit = circuit](std::string*) {
            if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
            const auto t0 = std::chrono::steady_clock::now();
            std::vector<const UncheckedProof*> batchable;
            for (const auto& u : *todo) {
              if (u.statement.is_array())
                batchable.push_back(&u);
              else
                out->push_back({u.id, false, "the partition has no statement recorded", 0});
            }
            // Several proofs: one multi-pairing for all of them. It accepts only if every proof
            // verifies for its own statement (but for a 2^-128 chance): not a weaker check.
            bool all = false;
            if (batchable.size() > 1) {
              std::vector<nlohmann::json> proofs, pubs;
              for (const auto* u : batchable) {
                proofs.push_back(u->proof);
                pubs.push_back(u->statement);
              }
              try {
                all = batch(proofs, pubs);
              } catch (const std::exception&) {
                all = false;  // a malformed proof among them: the checks one by one say which
              }
              if (!all)
                spdlog::warn("coordinator: the batch check of {} proofs of circuit {} failed; checking them one by one",
                             batchable.size(), circuit);
            }
            (batchable.size() == 1 ? counts->alone : all ? counts->batched : counts->rechecked) += batchable.size();
            for (const auto* u : batchable) {
              VerifyQueue::Verdict v{u->id, true, "", 0};
              if (!all) {
                try {
                  v.good = one(u->proof, u->statement);
                  if (!v.good) v.why = "proof does not verify";
                } catch (const std::exception& e) {
                  v.good = false;
                  v.why = std::string("proof or public inputs malformed: ") + e.what();
                }
              }
              out->push_back(std::move(v));
            }
            const double each = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                                double(std::max<size_t>(1, todo->size()));
            for (auto& v : *out) v.seconds = each;
            return true;
          });
      groups_.emplace(gid, Group{circuit, std::move(out)});
    }
    next = unchecked_.erase(next);
  }
}

void Coordinator::collect_verdicts() {
  for (auto& v : verify_.done()) {
    if (auto g = groups_.find(v.id); g != groups_.end()) {
      for (auto& each : *g->second.verdicts) verdicts_.push_back(std::move(each));
      if (auto c = groups_checking_.find(g->second.circuit); c != groups_checking_.end() && --c->second == 0)
        groups_checking_.erase(c);
      groups_.erase(g);
    } else if (auto f = final_chunks_.find(v.id); f != final_chunks_.end()) {
      FinalCheck& fc = final_checks_[f->second];
      fc.seconds += v.seconds;
      if (!v.good && fc.good) {
        fc.good = false;
        fc.why = v.why;
      }
      if (--fc.outstanding == 0) final_done_.push_back(f->second);
      final_chunks_.erase(f);
    }
  }
  // Front first, each removed only once recorded: when recording throws (Redis down, a fenced
  // write) this verdict and the ones behind it are recorded on a later turn. Recording twice is
  // harmless: the second prove_done finds the partition verified and is discarded.
  while (!verdicts_.empty()) {
    const VerifyQueue::Verdict& v = verdicts_.front();
    auto it = verifying_.find(v.id);
    if (it == verifying_.end()) {
      verdicts_.pop_front();
    } else if (!v.good) {
      on_rejected(it->second, v);
      verifying_tokens_.erase(it->second.m.at.token);
      verifying_.erase(it);
      verdicts_.pop_front();
    } else {
      record_verified();
    }
  }
  // Jobs whose final batch check came back; one that cannot be written (finish_job throws)
  // stays for a later turn.
  while (!final_done_.empty()) {
    finish_job(final_done_.front());
    final_checks_.erase(final_done_.front());
    final_done_.pop_front();
  }
}

void Coordinator::record_verified() {
  // The good verdicts at the front (up to kMaxRecordBatch): one script records them all, so a
  // turn that collects many proofs costs one round trip, not one per proof.
  constexpr size_t kMaxRecordBatch = 256;
  std::vector<FarmStore::ProveRecord> batch;
  std::vector<std::map<uint64_t, PendingProof>::iterator> pending;
  size_t n = 0;
  for (; n < verdicts_.size() && batch.size() < kMaxRecordBatch && verdicts_[n].good; ++n) {
    auto it = verifying_.find(verdicts_[n].id);
    if (it == verifying_.end()) continue;
    const ProveDone& m = it->second.m;
    batch.push_back(
        {{m.at.job, m.at.part},
         {it->second.from.id, it->second.from.key, m.at.token},
         it->second.proof_text,
         FarmStore::telemetry(
             {{"fetch_ms", m.fetch_ms},
              {"expand_ms", m.expand_ms},
              {"prove_ms", m.prove_ms},
              {"slot_wait_ms", m.slot_wait_ms},
              {"bundle_bytes", m.bundle_bytes ? std::optional<double>(double(*m.bundle_bytes)) : std::nullopt}})});
    pending.push_back(it);
  }
  // When this throws the verdicts stay queued and the batch is recorded again on a later turn;
  // what of it reached Redis before the failure (a lost reply) is then refused as already
  // verified, and acked: never recorded twice.
  const auto outcomes = store_.prove_done(batch, clock_.now_ms());
  // Recorded. Nothing below writes to Redis before the verdicts are dropped, so each one's
  // follow-ups (ack, bundle release, metrics) happen once.
  std::set<std::string> finished;  // jobs whose last proof this batch recorded
  for (size_t i = 0; i < pending.size(); ++i) {
    const PendingProof& p = pending[i]->second;
    const ProveDone& m = p.m;
    const FarmStore::ProveDone& d = outcomes[i];
    const double seconds = [&] {
      for (size_t k = 0; k < n; ++k)
        if (verdicts_[k].id == pending[i]->first) return verdicts_[k].seconds;
      return 0.0;
    }();
    if (d.recorded) {
      // What the final check compares the proof as stored with: the text just recorded, for the
      // statement it was checked against (the script records the partition's stored statement
      // as `public`; were they to differ, the final check would find no match and re-check).
      if (recorded_digest_count_ >= kMaxRecordedDigests) {
        recorded_digests_.clear();
        recorded_digest_count_ = 0;
      }
      if (recorded_digests_[m.at.job]
              .insert_or_assign(m.at.part, proof_digest(job_info(m.at.job).circuit, p.statement, p.proof_text))
              .second)
        ++recorded_digest_count_;
      metrics_.verified(m, seconds, since_submit_s(m.at.job), clock_.now_ms());
      pauses_.succeeded(p.from.id);
      persist_pauses();
      spdlog::info("coordinator: {} partition {} verified ({}/{})", m.at.job, m.at.part, d.verified, d.total);
      if (workers_.count(d.synth_worker) && !d.bundle_key.empty()) send(d.synth_worker, Release{d.bundle_key});
      if (d.verified == d.total) finished.insert(m.at.job);
    } else {
      spdlog::info("coordinator: {} partition {} result from {} discarded ({})", m.at.job, m.at.part,
                   printable(p.from.id), d.reason);
      metrics_.discarded();
    }
    // Acked at the end of the turn (after WAIT, with redis.min_replicas): the proof is in Redis.
    ack_after_wait(p.from.id, m.at.token);
  }
  for (auto& it : pending) {
    verifying_tokens_.erase(it->second.m.at.token);
    verifying_.erase(it);
  }
  verdicts_.erase(verdicts_.begin(), verdicts_.begin() + std::ptrdiff_t(n));
  // May throw (Redis, a failed batch check writes too): sweep_jobs finalizes such a job later.
  for (const auto& job : finished) finalize(job);
}

void Coordinator::on_rejected(const PendingProof& p, const VerifyQueue::Verdict& v) {
  const Peer& from = p.from;
  const ProveDone& m = p.m;
  const PartRef ref{m.at.job, m.at.part};
  const FarmStore::Sender sender{from.id, from.key, m.at.token};
  std::string why = v.why;
  // The prover's own idea of the statement is only a diagnostic: did it prove something else?
  const JobInfo& ji = job_info(ref.job);
  std::string ignored;
  if (!m.public_inputs.empty()) {
    const auto statement = nlohmann::json::parse(store_.attempt(ref).statement, nullptr, false);
    auto claimed = checker_.canonical_statement(ji.circuit, m.public_inputs, &ignored);
    if (claimed && statement.is_array() && nlohmann::json(*claimed) != statement)
      why += " (its public inputs are not the partition's: a proof of another statement)";
  }
  spdlog::error("coordinator: !!! PROOF REJECTED: job {} partition {} from worker {}: {} — counted as a failed attempt",
                ref.job, ref.part, printable(from.id), why);
  metrics_.rejected(v.seconds);
  quarantine(from, ref, "prove_done for " + ref.job + " partition " + std::to_string(ref.part) + ": " + why);
  count_failure("proof_rejected", ref,
                store_.fail(ref, sender, "proof from " + printable(from.id, 64) + " rejected: " + why, false,
                            clock_.now_ms(), cfg_.coordinator));
  ack_after_wait(from.id, m.at.token);
}

void Coordinator::on_task_failed(const Peer& from, WorkerInfo& w, const TaskFailed& m) {
  const PartRef ref{m.at.job, m.at.part};
  const std::string error = printable(m.error, 1000);
  // A handed-back assignment (a draining worker's lookahead queue) costs the partition no
  // attempt, but only if the worker's last report had it queued, i.e. never started: a worker
  // cannot hide a failure of work it ran by calling it returned.
  const bool returned = m.returned && !m.permanent && w.reported_queued(m.at.token);
  auto f = store_.fail(ref, {from.id, from.key, m.at.token}, error, m.permanent, clock_.now_ms(), cfg_.coordinator,
                       returned);
  if (f.outcome == 0) {
    if (f.reason == "stale token" || f.reason.rfind("not from", 0) == 0) refused(from, "task_failed", m.at, f.reason);
    return settle(from, w, m.at.token);
  }
  if (returned) {
    spdlog::info("coordinator: {} partition {} returned unstarted by draining worker {}; queued again", ref.job,
                 ref.part, printable(from.id));
    dispatch_due_ = true;
    return settle(from, w, m.at.token);
  }
  count_failure("task_failed", ref, f);
  // The worker's own failure, as far as we can tell (not a witness the synth side calls
  // hopeless, which fails the job): enough of them in a row and it is paused.
  if (!m.permanent || f.permanent_ignored) {
    if (const uint64_t pause = pauses_.failed(from.id, error, clock_.now_ms())) {
      metrics_.worker_paused();
      spdlog::warn(
          "coordinator: worker {} failed {} attempts in a row (last: {}); no new work for {:.1f} s, then one more try "
          "(coordinator.worker_failure_limit, worker_pause_ms)",
          printable(from.id), pauses_.describe(from.id, clock_.now_ms()).value("failures", 0u), error,
          double(pause) / 1000.0);
    }
    persist_pauses();
  }
  if (f.permanent_ignored)
    spdlog::warn(
        "coordinator: {} partition {}: prove worker {} reported a permanent failure of a witness a synth worker "
        "checked; counted as a failed attempt of that worker, not the job's",
        ref.job, ref.part, printable(from.id));
  if (f.outcome == 1)
    spdlog::warn("coordinator: {} partition {} attempt {} failed on {}: {}; retry in {} ms", ref.job, ref.part,
                 f.attempts, printable(from.id), error, f.delay_ms);
  else
    spdlog::error("coordinator: job {} failed: partition {} exhausted {} attempts; last error: {}", ref.job, ref.part,
                  f.attempts, error);
  settle(from, w, m.at.token);
}

void Coordinator::quarantine(const Peer& who, const PartRef& ref, const std::string& reason) {
  nlohmann::json record{
      {"reason", reason}, {"job", ref.job}, {"part", ref.part}, {"since_ms", clock_.now_ms()}, {"key", who.key}};
  registry_.quarantine(who.id, record);
  quarantined_[who.id] = record;
  if (!who.key.empty()) quarantined_keys_.insert(who.key);
  spdlog::error(
      "coordinator: worker {} QUARANTINED: {}; it gets no more work until an operator runs `zkmill worker "
      "clear {}`",
      printable(who.id), reason, printable(who.id));
}

bool Coordinator::sidelined(const std::string& id, const WorkerInfo& w, uint64_t now) const {
  return quarantined(id, w) || pauses_.paused(id, now);
}

bool Coordinator::quarantined(const std::string& id, const WorkerInfo& w) const {
  return quarantined_.count(id) || (!w.curve_key.empty() && quarantined_keys_.count(w.curve_key));
}

void Coordinator::refresh_quarantine() {
  auto now = registry_.quarantined();
  for (const auto& [id, rec] : quarantined_)
    if (!now.count(id)) spdlog::info("coordinator: worker {} cleared from quarantine by an operator", printable(id));
  quarantined_ = std::move(now);
  quarantined_keys_.clear();
  for (const auto& [id, rec] : quarantined_)
    if (rec.contains("key") && rec["key"].is_string() && !rec["key"].get<std::string>().empty())
      quarantined_keys_.insert(rec["key"].get<std::string>());
}

}  // namespace zkmill::farm
