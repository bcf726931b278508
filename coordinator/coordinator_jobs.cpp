// SPDX-License-Identifier: MIT
// Coordinator, jobs: sweeps (deadlines, a final check missed by a crash), each job's final
// batch verification and completion, and dispatch: claims of synth and prove work handed to
// idle workers, with the partition's input attached.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "coordinator/coordinator.hpp"
#include "farm/log_text.hpp"

namespace zkmill::farm {

namespace {
constexpr size_t kPeekWindow = 32;

// What every assignment (Synth, Prove) carries from its claim: the attempt it is (the token its
// result must bring back) and the job's circuit and curve.
template <class Message>
Message assignment_for(Claim& c) {
  Message m;
  m.at = {c.ref.job, c.ref.part, c.token};
  m.circuit = c.job["circuit"];
  m.curve = c.job["curve"];
  return m;
}
}  // namespace

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

void Coordinator::sweep_jobs() {
  const uint64_t now = clock_.now_ms();
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
  // The facts cached of jobs that ended: read again from Redis if a late message names one.
  std::erase_if(jobs_, [&](const auto& kv) { return !still.count(kv.first); });
  abort_stale_tasks(still);
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

void Coordinator::abort_stale_tasks(const std::set<std::string>& active) {
  std::map<std::string, std::string> ended;  // job -> why it ended ("" running), read once per sweep
  auto why_ended = [&](const std::string& job) -> const std::string& {
    auto it = ended.find(job);
    if (it != ended.end()) return it->second;
    std::string why;
    // Not in zk:active: confirmed final (or gone) before any work is stopped, so that a
    // misread set never aborts a running job's partitions.
    if (!active.count(job)) {
      const auto j = store_.job(job);
      const auto st = j.find("state");
      if (j.empty())
        why = "job deleted";
      else if (st != j.end() && (st->second == "cancelled" || st->second == "failed"))
        why = "job " + st->second;
      else if (st != j.end() && st->second == "done")
        why = "job done (another attempt proved the partition)";
    }
    return ended.emplace(job, why).first->second;
  };
  for (auto& [id, w] : workers_) {
    std::set<std::string> reported;
    for (const auto& t : w.tasks) {
      reported.insert(t.at.token);
      if (w.checked.count(t.at.token)) continue;
      std::string why = why_ended(t.at.job);
      if (why.empty()) {
        // Assigned here: current (its lease is renewed while reported). Learnt from a hello
        // (a restart here, or a worker presumed lost and back): current only if Redis says so.
        const auto b = w.busy.find(t.at.token);
        if (b != w.busy.end() && b->second.leased_here) continue;
        const auto a = store_.attempt({t.at.job, t.at.part});
        if (a.token == t.at.token) {
          w.checked[t.at.token] = true;
          continue;
        }
        why = "attempt superseded (the partition was reassigned or ended meanwhile)";
      }
      spdlog::info("coordinator: {} partition {} on worker {} ({}): {}; telling it to abort", t.at.job, t.at.part,
                   printable(id), stage_name(t.stage), why);
      send(id, Abort{t.at, why});
      w.checked[t.at.token] = false;
    }
    std::erase_if(w.checked, [&](const auto& kv) { return !reported.count(kv.first); });
  }
}

void Coordinator::expire_results() {
  // Partitions deleted per call at most (about five Redis commands each, in one script): a
  // backlog (a lowered retention, a farm upgraded with many ended jobs) goes a slice a second.
  constexpr uint64_t kBudgetParts = 10000;
  constexpr uint64_t kIndexChunk = 1000;
  // The pass over zk:jobs first, whole, before any deletion: deleting shifts the members'
  // ranks, and the pass walks them by rank.
  for (int chunk = 0; chunk < 10 && !index_ended_done_; ++chunk) {
    const uint64_t scanned = store_.index_ended(index_ended_at_, kIndexChunk);
    index_ended_at_ += scanned;
    index_ended_done_ = scanned < kIndexChunk;
  }
  if (!index_ended_done_) return;
  const uint64_t now = clock_.now_ms(), keep = uint64_t(cfg_.coordinator.retention_s) * 1000;
  if (now <= keep) return;
  const auto gone = store_.expire_ended(now - keep, kBudgetParts);
  if (gone.empty()) return;
  metrics_.jobs_deleted(gone.size());
  spdlog::info("coordinator: deleted {} job(s) that ended more than {} s ago (coordinator.retention_s): {}{}",
               gone.size(), cfg_.coordinator.retention_s, gone.front(),
               gone.size() > 1 ? " ... " + gone.back() : std::string());
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
    if (store_.finish(job, "done", "", clock_.now_ms())) {
      spdlog::info(
          "coordinator: job {} done: {} proofs as stored checked ({} batch-verified, {} identical to the "
          "proofs checked when recorded)",
          job, fc.n, fc.n - fc.matched, fc.matched);
      metrics_.job_finished("done", since_submit_s(job));
    }
  } else {
    spdlog::error("coordinator: !!! job {} failed final batch verification: {}", job, fc.why);
    if (store_.finish(job, "failed", "final batch verification failed: " + fc.why, clock_.now_ms()))
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
    store_.fail(c.ref, {id, w.curve_key, c.token}, why, false, clock_.now_ms(), cc);
    spdlog::error("coordinator: {} partition {}: {}", c.ref.job, c.ref.part, why);
    return false;
  }
  msg.payload = std::move(*wtns);
  return true;
}

void Coordinator::dispatch() {
  uint64_t prove_slots = 0, synthesizing = 0;
  const uint64_t now = clock_.now_ms();
  bool synth_idle = false;  // a worker that could take a synthesis now
  for (auto& [id, w] : workers_) {
    if (can_prove(w.role) && !w.draining && !sidelined(id, w, now)) prove_slots += w.slots;
    for (const auto& [token, a] : w.busy) synthesizing += a.synth ? 1 : 0;
    synth_idle = synth_idle ||
                 (w.takes_synth() && !w.draining && can_synth(w.role) && !sidelined(id, w, now) && !is_silent(w, now));
  }
  // Prove work first: it drains what synthesis already produced. A prove worker takes up to
  // its slots (its devices and the partitions it prefetches); a synthesis runs alone, except on
  // a worker with a lookahead, which queues what it cannot start yet (takes_synth/prove). A silent
  // worker (is_silent) gets nothing new until it is heard again. Each claim is one script; an
  // empty queue ends the pass for every worker.
  bool prove_empty = false;
  for (auto& [id, w] : workers_)
    while (!prove_empty && !w.draining && can_prove(w.role) && !sidelined(id, w, now) && !is_silent(w, now) &&
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
    if (w.takes_synth() && !w.draining && can_synth(w.role) && !sidelined(id, w, now) && !is_silent(w, now) &&
        dispatch_synth(id, w, &synth_empty))
      ++ahead;
  }
}

std::optional<Claim> Coordinator::claim_for(const char* queue, const std::string& id, const WorkerInfo& w,
                                            bool* empty) {
  auto c = store_.claim(queue, id, w.curve_key, w.circuits, kPeekWindow, clock_.now_ms(), cfg_.coordinator.lease_ms);
  if (c.ok) return c;
  *empty = c.reason == "empty";
  return std::nullopt;
}

bool Coordinator::dispatch_prove(const std::string& id, WorkerInfo& w, bool* empty) {
  auto claimed = claim_for("prove", id, w, empty);
  if (!claimed) return false;
  Claim& c = *claimed;
  auto prove = assignment_for<Prove>(c);
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
  w.busy[c.token] = {m.type() == MessageType::Synth, clock_.now_ms(), seq_, true, std::move(statement)};
  spdlog::debug("coordinator: {} partition {} -> {} ({})", c.ref.job, c.ref.part, printable(id), m.type_name());
}

bool Coordinator::dispatch_synth(const std::string& id, WorkerInfo& w, bool* empty) {
  // A zkey partition whose witness cannot be sent fails at once; then the next entry is tried.
  for (size_t tries = 0; tries < kPeekWindow; ++tries) {
    auto claimed = claim_for("synth", id, w, empty);
    if (!claimed) return false;
    Claim& c = *claimed;
    auto synth = assignment_for<Synth>(c);
    synth.seed = std::stoull(c.job["seed"]);
    ControlMessage msg(std::move(synth));
    if (c.job["kind"] == "zkey" && !attach_input(id, w, c, msg)) continue;  // that attempt failed; try the next entry
    if (c.job["kind"] != "zkey") prepare_native_statement(c);
    assign(id, w, c, msg);
    return true;
  }
  return false;
}

}  // namespace zkmill::farm
