// SPDX-License-Identifier: MIT
// FarmStore: the partitions' lifecycle in Redis, each transition one fenced Lua script
// (farm_store_scripts.cpp, which lists the keys).
#include "farm/farm_store.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "farm/coordinator_lease.hpp"
#include "farm/farm_store_scripts.hpp"
#include "farm/random_token.hpp"

namespace zkmill::farm {

namespace {

std::string num(uint64_t x) { return std::to_string(x); }

}  // namespace

std::string PartRef::member() const {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%012llu:%08llu", std::stoull(job.substr(1)), (unsigned long long)part);
  return buf;
}

std::optional<PartRef> PartRef::parse(const std::string& m) {
  if (m.size() != 21 || m[12] != ':') return std::nullopt;
  for (size_t i = 0; i < m.size(); ++i)
    if (i != 12 && (m[i] < '0' || m[i] > '9')) return std::nullopt;
  PartRef r;
  r.job = std::to_string(std::stoull(m.substr(0, 12)));
  r.job.insert(r.job.begin(), 'j');  // (not "j" + ...: GCC 12 warns falsely on that, -Wrestrict)
  r.part = std::stoull(m.substr(13));
  return r;
}

void FarmStore::put_circuit(const std::string& circuit, const std::string& curve, const std::string& vk_json,
                            const std::string& meta_json) {
  r_.command({"HSET", "zk:circuit:" + circuit, "curve", curve, "vk", vk_json, "meta", meta_json});
}

std::map<std::string, std::string> FarmStore::circuit(const std::string& circuit) {
  return r_.command({"HGETALL", "zk:circuit:" + circuit}).as_map();
}

std::pair<std::string, bool> FarmStore::submit(const JobSpec& s, uint64_t now_ms) {
  auto r = r_.eval(lua::kSubmit, {},
                   {s.circuit, s.curve, num(s.partitions), num(s.seed), std::to_string(s.priority), s.idempotency_key,
                    num(s.deadline_ms), num(now_ms), s.kind, s.stage, s.params});
  if (r.elements.at(1).as_int() == 2)
    throw IdempotencyConflict("idempotency key '" + s.idempotency_key + "' already names job " +
                              r.elements.at(0).as_string() + ", submitted with other parameters (" +
                              r.elements.at(2).as_string() + "; this submit: " + s.params +
                              "); use another key, or the same parameters to get that job back");
  return {r.elements.at(0).as_string(), r.elements.at(1).as_int() == 1};
}

void FarmStore::stage_input(const std::string& stage, uint64_t part, const std::string& bytes) {
  r_.command({"SET", "zk:stage:" + stage + ":" + num(part), bytes, "PX", num(kStageTtlMs)});
}

std::optional<std::string> FarmStore::input(const std::string& job, uint64_t part) {
  auto r = r_.command({"GET", "zk:wtns:" + job + ":" + num(part)});
  if (r.is_nil()) return std::nullopt;
  return std::move(r.str);
}

std::string FarmStore::cancel(const std::string& job, uint64_t now_ms) {
  return r_.eval(lua::kCancel, {}, {job, num(now_ms)}).as_string();
}

std::map<std::string, std::string> FarmStore::job(const std::string& job) {
  return r_.command({"HGETALL", "zk:job:" + job}).as_map();
}

std::vector<std::map<std::string, std::string>> FarmStore::partitions(const std::string& job, uint64_t n) {
  std::vector<std::vector<std::string>> cmds;
  for (uint64_t i = 0; i < n; ++i) cmds.push_back({"HGETALL", "zk:part:" + job + ":" + num(i)});
  std::vector<std::map<std::string, std::string>> out;
  for (auto& r : r_.pipeline(cmds)) out.push_back(r.as_map());
  return out;
}

std::vector<std::string> FarmStore::list_jobs(size_t limit) {
  std::vector<std::string> out;
  for (auto& e : r_.command({"ZREVRANGE", "zk:jobs", "0", std::to_string(long(limit) - 1)}).elements)
    out.push_back(e.as_string());
  return out;
}

std::vector<std::string> FarmStore::active_jobs() {
  std::vector<std::string> out;
  for (auto& e : r_.command({"SMEMBERS", "zk:active"}).elements) out.push_back(e.as_string());
  return out;
}

std::vector<std::string> FarmStore::peek(const std::string& queue, size_t limit) {
  std::vector<std::string> out;
  for (auto& e : r_.command({"ZRANGE", "zk:q:" + queue, "0", std::to_string(long(limit) - 1)}).elements)
    out.push_back(e.as_string());
  return out;
}

RedisReply FarmStore::fenced(const char* script, std::vector<std::string> args) {
  return CoordinatorLease::fenced_eval(r_, script, {}, std::move(args), fence_);
}

Claim FarmStore::claim(const std::string& queue, const std::string& worker, const std::string& worker_key,
                       const std::set<std::string>& circuits, size_t window, uint64_t now_ms, uint64_t lease_ms) {
  std::vector<std::string> args{queue, worker, num(now_ms), num(lease_ms), random_token(), worker_key, num(window)};
  args.insert(args.end(), circuits.begin(), circuits.end());
  auto r = fenced(lua::kClaim, std::move(args));
  Claim c;
  if (r.elements.at(0).as_int() != 1) {
    c.reason = r.elements.at(1).as_string();
    return c;
  }
  auto ref = PartRef::parse(r.elements.at(2).as_string());
  if (!ref) throw RedisReplyError("redis: the claim script named a bad member " + r.elements.at(2).as_string());
  c.ok = true;
  c.ref = *ref;
  c.token = r.elements.at(1).as_string();
  c.job = r.elements.at(3).as_map();
  c.part = r.elements.at(4).as_map();
  return c;
}

FarmStore::Outcome FarmStore::synth_done(const PartRef& ref, const Sender& from, const std::string& endpoint,
                                         const std::string& bundle_key, const std::string& statement_json,
                                         uint64_t now_ms, uint64_t lease_ms, const Fields& fields) {
  return synth_done({{ref, from, endpoint, bundle_key, statement_json, fields}}, now_ms, lease_ms).at(0);
}

std::vector<FarmStore::Outcome> FarmStore::synth_done(const std::vector<SynthRecord>& batch, uint64_t now_ms,
                                                      uint64_t lease_ms) {
  if (batch.empty()) return {};
  std::vector<std::string> args{num(batch.size()), num(now_ms), num(lease_ms)};
  for (const auto& b : batch) {
    args.insert(args.end(), {b.ref.member(), b.from.token, b.from.worker, b.from.key, b.endpoint, b.bundle_key,
                             b.statement_json, num(b.fields.size())});
    for (const auto& [name, value] : b.fields) args.insert(args.end(), {name, value});
  }
  auto r = fenced(lua::kSynthDone, std::move(args));
  if (r.elements.size() != batch.size())
    throw RedisReplyError("redis: the synth_done script answered " + std::to_string(r.elements.size()) +
                          " outcomes for a batch of " + std::to_string(batch.size()));
  std::vector<Outcome> out;
  for (const auto& e : r.elements) out.push_back({e.elements.at(0).as_int() == 1, e.elements.at(1).as_string()});
  return out;
}

FarmStore::Attempt FarmStore::attempt(const PartRef& ref) {
  auto r = r_.command(
      {"HMGET", "zk:part:" + ref.job + ":" + num(ref.part), "state", "token", "worker", "worker_key", "statement"});
  Attempt a;
  a.state = r.elements.at(0).as_string();
  a.token = r.elements.at(1).as_string();
  a.worker = r.elements.at(2).as_string();
  a.worker_key = r.elements.at(3).as_string();
  a.statement = r.elements.at(4).as_string();
  return a;
}

std::string FarmStore::Attempt::refusal(const Sender& from) const {
  if (token != from.token) return "stale token";
  if (worker != from.worker || worker_key != from.key) return "not from the worker the lease names";
  return "";
}

FarmStore::ProveDone FarmStore::prove_done(const PartRef& ref, const Sender& from, const std::string& proof_json,
                                           uint64_t now_ms) {
  return prove_done(std::vector<ProveRecord>{{ref, from, proof_json, {}}}, now_ms).at(0);
}

std::vector<FarmStore::ProveDone> FarmStore::prove_done(const std::vector<ProveRecord>& batch, uint64_t now_ms) {
  if (batch.empty()) return {};
  std::vector<std::string> args{num(batch.size()), num(now_ms)};
  for (const auto& b : batch) {
    args.insert(args.end(),
                {b.ref.member(), b.from.token, b.from.worker, b.from.key, b.proof_json, num(b.fields.size())});
    for (const auto& [name, value] : b.fields) args.insert(args.end(), {name, value});
  }
  auto r = fenced(lua::kProveDone, std::move(args));
  if (r.elements.size() != batch.size())
    throw RedisReplyError("redis: the prove_done script answered " + std::to_string(r.elements.size()) +
                          " outcomes for a batch of " + std::to_string(batch.size()));
  std::vector<ProveDone> out;
  for (const auto& e : r.elements) {
    ProveDone d;
    d.recorded = e.elements.at(0).as_int() == 1;
    if (!d.recorded) {
      d.reason = e.elements.at(1).as_string();
    } else {
      d.verified = uint64_t(e.elements.at(1).as_int());
      d.total = uint64_t(e.elements.at(2).as_int());
      d.synth_worker = e.elements.at(3).as_string();
      d.bundle_key = e.elements.at(4).as_string();
    }
    out.push_back(std::move(d));
  }
  return out;
}

FarmStore::Failed FarmStore::fail(const PartRef& ref, const Sender& from, const std::string& error, bool permanent,
                                  uint64_t now_ms, const CoordinatorConfig& cc, bool returned) {
  auto r = fenced(lua::kFail, {ref.member(), from.token, from.worker, from.key, error.substr(0, 1000), num(now_ms),
                               num(cc.max_attempts), num(cc.backoff_ms), num(cc.backoff_max_ms), permanent ? "1" : "0",
                               returned ? "1" : "0"});
  Failed f;
  f.outcome = int(r.elements.at(0).as_int());
  if (f.outcome) {
    f.attempts = uint64_t(r.elements.at(1).as_int());
    f.delay_ms = uint64_t(r.elements.at(2).as_int());
    f.permanent_ignored = r.elements.at(3).as_int() == 1;
  } else {
    f.reason = r.elements.at(1).as_string();
  }
  return f;
}

uint64_t FarmStore::promote_delayed(uint64_t now_ms) { return uint64_t(fenced(lua::kPromote, {num(now_ms)}).as_int()); }

std::vector<std::string> FarmStore::expired_leases(uint64_t now_ms, size_t limit) {
  std::vector<std::string> out;
  for (auto& e :
       r_.command({"ZRANGEBYSCORE", "zk:leases", "-inf", num(now_ms), "LIMIT", "0", std::to_string(limit)}).elements)
    out.push_back(e.as_string());
  return out;
}

void FarmStore::renew_lease(const std::string& member, uint64_t until_ms) {
  fenced(lua::kRenewLease, {member, num(until_ms)});
}

void FarmStore::drop_lease(const std::string& member) { fenced(lua::kDropLease, {member}); }

bool FarmStore::finish(const std::string& job, const std::string& state, const std::string& error, uint64_t now_ms) {
  return fenced(lua::kFinish, {job, state, error, num(now_ms)}).as_int() == 1;
}

FarmStore::Fields FarmStore::telemetry(std::initializer_list<std::pair<const char*, std::optional<double>>> fields) {
  Fields out;
  for (const auto& [name, value] : fields) {
    if (!value) continue;
    char buf[32];
    // Whole numbers (bundle_bytes, counts) stay exact integers; times keep 3 decimals.
    if (*value == std::floor(*value) && std::fabs(*value) < 9007199254740992.0)
      std::snprintf(buf, sizeof buf, "%.0f", *value);
    else
      std::snprintf(buf, sizeof buf, "%.3f", *value);
    out.emplace_back(name, buf);
  }
  return out;
}

void FarmStore::record_timings(const PartRef& ref,
                               std::initializer_list<std::pair<const char*, std::optional<double>>> fields) {
  std::vector<std::string> args{ref.member()};
  for (const auto& [name, value] : telemetry(fields)) args.insert(args.end(), {name, value});
  if (args.size() > 1) fenced(lua::kSetFields, std::move(args));
}

std::vector<std::string> FarmStore::expire_ended(uint64_t cutoff_ms, uint64_t budget_parts) {
  std::vector<std::string> out;
  for (auto& e : fenced(lua::kExpireEnded, {num(cutoff_ms), num(std::max<uint64_t>(budget_parts, 1))}).elements)
    out.push_back(e.as_string());
  return out;
}

uint64_t FarmStore::index_ended(uint64_t start, uint64_t count) {
  return uint64_t(fenced(lua::kIndexEnded, {num(start), num(count)}).elements.at(0).as_int());
}

uint64_t FarmStore::synth_ahead() { return uint64_t(r_.command({"ZCARD", "zk:q:prove"}).as_int()); }

std::vector<std::string> FarmStore::unneeded_bundles(const std::vector<std::string>& bundle_keys) {
  std::vector<std::string> out, asked;
  std::vector<std::vector<std::string>> cmds;
  for (const auto& key : bundle_keys) {
    const size_t a = key.find('/'), b = a == std::string::npos ? a : key.find('/', a + 1);
    if (b == std::string::npos) {
      out.push_back(key);  // not a key this farm makes: no partition can need it
      continue;
    }
    const std::string job = key.substr(0, a), part = key.substr(a + 1, b - a - 1);
    cmds.push_back({"HMGET", "zk:part:" + job + ":" + part, "state", "bundle_key"});
    cmds.push_back({"HGET", "zk:job:" + job, "state"});
    asked.push_back(key);
  }
  if (cmds.empty()) return out;
  auto replies = r_.pipeline(cmds);
  for (size_t i = 0; i < asked.size(); ++i) {
    const auto& part = replies[2 * i].elements;
    const std::string job_state = replies[2 * i + 1].as_string();
    const bool job_live = job_state == "queued" || job_state == "running";
    const bool waiting = part.size() == 2 &&
                         (part[0].as_string() == "synthesized" || part[0].as_string() == "proving") &&
                         part[1].as_string() == asked[i];
    if (!job_live || !waiting) out.push_back(asked[i]);
  }
  return out;
}

}  // namespace zkmill::farm
