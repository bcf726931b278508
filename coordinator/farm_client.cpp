// SPDX-License-Identifier: MIT
// FarmClient: reads and writes the store the way the coordinator expects (see farm_store.cpp).
#include "coordinator/farm_client.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <thread>

#include "common/curves/dispatch.hpp"
#include "common/formats/circom_files.hpp"
#include "common/formats/zkey.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/serde/evm.hpp"
#include "common/serde/zcash.hpp"
#include "common/util/atomic_file.hpp"
#include "common/util/hex.hpp"
#include "common/util/input_file.hpp"
#include "coordinator/coordinator.hpp"
#include "coordinator/job_progress.hpp"
#include "farm/farm_overview.hpp"
#include "farm/key_id.hpp"
#include "farm/sha256.hpp"
#include "farm/worker_registry.hpp"

namespace zkmill::farm {

namespace {

uint64_t to_u64(const std::string& s) { return s.empty() ? 0 : std::stoull(s); }

// A proof in the curve's usual binary form: BLS12-381 as zcash/bellman compressed points
// (A 48, B 96, C 48 bytes), BN254 as EVM uncompressed big-endian points (64, 128, 64).
std::vector<uint8_t> proof_bytes(CurveId curve, const nlohmann::json& proof) {
  return curves::with_curve(curve, [&]<class E>(E) {
    auto p = groth16::snarkjs::proof_from_json<E>(proof);
    std::vector<uint8_t> out;
    auto put = [&](const auto& a) { out.insert(out.end(), a.begin(), a.end()); };
    if constexpr (E::kId == CurveId::Bls12_381) {
      put(serde::encode<serde::zcash::Compressed, typename E::G1Params>(p.a));
      put(serde::encode<serde::zcash::Compressed, typename E::G2Params>(p.b));
      put(serde::encode<serde::zcash::Compressed, typename E::G1Params>(p.c));
    } else {
      put(serde::encode<serde::evm::Uncompressed, typename E::G1Params>(p.a));
      put(serde::encode<serde::evm::Uncompressed, typename E::G2Params>(p.b));
      put(serde::encode<serde::evm::Uncompressed, typename E::G1Params>(p.c));
    }
    return out;
  });
}

// 128 random bits as hex: names one submit's staging keys, so concurrent submits never meet.
std::string random_nonce() {
  std::random_device rd;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

// One partition's witness for the zkey `z`, checked as the synth worker will parse it.
template <class E>
std::string checked_witness(const std::string& path, const formats::ZkeyFile& z, const std::string& zkey_path,
                            uint64_t max_bytes) {
  std::string bytes;
  try {
    util::InputFile in(path);  // regular files only: a FIFO is refused, not read forever
    if (in.size() > max_bytes)
      throw std::invalid_argument(path + ": witness of " + std::to_string(in.size()) + " bytes exceeds the limit of " +
                                  std::to_string(max_bytes >> 20) + " MiB (coordinator.max_witness_mb)");
    bytes = in.read_all(max_bytes);
  } catch (const util::InputFileError& e) {
    throw std::invalid_argument(std::string("cannot read the witness: ") + e.what());
  }
  const std::span<const uint8_t> view(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  try {
    auto w = formats::WtnsFile::parse(view, path);
    if (w.curve() != z.curve())
      throw std::invalid_argument(path + ": is a " + curve_name(w.curve()) + " witness, but the zkey " + zkey_path +
                                  " is for " + curve_name(z.curve()));
    if (w.size() != z.n_vars())
      throw std::invalid_argument(path + ": has " + std::to_string(w.size()) + " values, but the zkey " + zkey_path +
                                  " expects nVars = " + std::to_string(z.n_vars()) +
                                  " (a witness of another circuit?)");
    if (!w.template values<typename E::Fr>()[0].is_one())
      throw std::invalid_argument(path + ": value 0 (the ONE wire) is not 1");
  } catch (const formats::FormatError& e) {
    throw std::invalid_argument(std::string("bad witness: ") + e.what());
  }
  return bytes;
}

}  // namespace

std::string FarmClient::registered_native_curve(const std::string& id) {
  if (!util::is_lower_hex(id, 64))
    throw std::invalid_argument(
        "--circuit '" + id +
        "': a circuit id is the key file's SHA-256, 64 lowercase hex digits (sha256sum KEYFILE, "
        "or the circuit field of `zkmill status JOB --json`)");
  const auto c = store_.circuit(id);
  if (c.empty() || !c.contains("curve") || !c.contains("meta"))
    throw std::invalid_argument("--circuit " + id +
                                ": this farm has no such circuit; submit once with --key KEYFILE, which registers it");
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(c.at("meta"));
  } catch (const std::exception& e) {
    throw std::runtime_error("--circuit " + id + ": its registration in Redis is unreadable (" + e.what() +
                             "); submit once with --key KEYFILE to register it again");
  }
  if (meta.is_object() && meta.value("kind", std::string()) == "zkey")
    throw std::invalid_argument("--circuit " + id +
                                ": a .zkey circuit, whose partitions are witnesses: submit it with --zkey FILE "
                                "--witness W.wtns");
  return c.at("curve");
}

std::pair<std::string, bool> FarmClient::submit_zkey(const SubmitRequest& req, JobSpec spec) {
  if (req.witness_paths.empty()) throw std::invalid_argument("--zkey needs at least one --witness");
  if (req.witness_paths.size() > FarmStore::kMaxPartitions)
    throw std::invalid_argument("at most " + std::to_string(FarmStore::kMaxPartitions) + " witnesses per job");
  auto z = formats::ZkeyFile::open(req.zkey_path);
  std::vector<std::string> inputs;
  curves::with_curve(z.curve(), [&]<class E>(E) {
    for (const auto& p : req.witness_paths)
      inputs.push_back(checked_witness<E>(p, z, req.zkey_path, req.max_witness_bytes));
    const nlohmann::json meta = {{"kind", "zkey"},
                                 {"file", std::filesystem::path(req.zkey_path).filename().string()},
                                 {"n_vars", z.n_vars()},
                                 {"n_public", z.n_public()},
                                 {"domain_size", z.domain_size()}};
    store_.put_circuit(spec.circuit, curve_name(z.curve()),
                       groth16::snarkjs::vk_to_json<E>(formats::load_zkey_vk<E>(z)).dump(), meta.dump());
  });
  spec.curve = curve_name(z.curve());
  spec.kind = "zkey";
  spec.partitions = inputs.size();
  spec.seed = 0;
  // The witnesses, in order, decide the proofs: a digest of their digests binds the key to them.
  Sha256 all;
  for (const auto& in : inputs)
    all.update(
        Sha256::hex(Sha256::hash(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(in.data()), in.size()))));
  spec.params = "zkey circuit " + spec.circuit + ", " + std::to_string(inputs.size()) + " witnesses sha256 " +
                Sha256::hex(all.finish());
  // Staged one by one (each a Redis request of one witness), claimed atomically by submit.
  spec.stage = random_nonce();
  for (size_t i = 0; i < inputs.size(); ++i) {
    store_.stage_input(spec.stage, i, inputs[i]);
    inputs[i] = {};
  }
  return store_.submit(spec, redis_.server_time_ms());
}

std::pair<std::string, bool> FarmClient::submit(const SubmitRequest& req) {
  std::pair<std::string, bool> created;
  try {
    created = create(req);
  } catch (const RedisReplyError& e) {
    // A primary with min-replicas-to-write refuses the creation script at its first write, so
    // this submit wrote no job (witnesses staged before that expire by themselves).
    if (std::string_view(redis_error_kind(e)) != "noreplicas") throw;
    throw std::runtime_error(std::string("submit refused, no job created: ") + e.what() +
                             "; submitting again (with the same --idempotency-key, if given) is safe");
  }
  // With a replicated Redis (redis.min_replicas), a job is accepted only once a replica has it:
  // a failover right after an unreplicated submit would lose it while the client thinks it is
  // in. The job stays on the primary either way; resubmitting with the same idempotency key
  // is safe.
  if (!redis_.wait_replicas())
    throw std::runtime_error("job " + created.first + " was created on the primary, but fewer than " +
                             std::to_string(redis_.config().min_replicas) + " replica(s) confirmed it within " +
                             std::to_string(redis_.config().wait_timeout_ms) +
                             " ms (redis.min_replicas, redis.wait_timeout_ms): it may be lost in a failover; "
                             "submit again with the same --idempotency-key");
  return created;
}

std::pair<std::string, bool> FarmClient::create(const SubmitRequest& req) {
  if (req.priority < -FarmStore::kMaxPriority || req.priority > FarmStore::kMaxPriority)
    throw std::invalid_argument("--priority must be within +-" + std::to_string(FarmStore::kMaxPriority));
  if (req.idempotency_key.size() > 256) throw std::invalid_argument("--idempotency-key must be at most 256 characters");
  if (int(!req.key_path.empty()) + int(!req.zkey_path.empty()) + int(!req.circuit_id.empty()) != 1)
    throw std::invalid_argument("give exactly one of --key, --circuit and --zkey");
  if (!req.zkey_path.empty()) {
    JobSpec spec;
    spec.circuit = key_file_circuit_id(req.zkey_path);
    spec.priority = req.priority;
    spec.idempotency_key = req.idempotency_key;
    const uint64_t now = redis_.server_time_ms();
    spec.deadline_ms = req.deadline_s ? now + req.deadline_s * 1000 : 0;
    return submit_zkey(req, std::move(spec));
  }
  if (req.partitions == 0 || req.partitions > FarmStore::kMaxPartitions)
    throw std::invalid_argument("--partitions must be 1.." + std::to_string(FarmStore::kMaxPartitions));
  std::string circuit, curve;
  if (!req.circuit_id.empty()) {
    curve = registered_native_curve(req.circuit_id);
    circuit = req.circuit_id;
  } else {
    const CurveId c = groth16::peek_key_file_curve(req.key_path);
    circuit = key_file_circuit_id(req.key_path);
    curves::with_curve(c, [&]<class E>(E) {
      auto pk = groth16::ProvingKey<E>::open(req.key_path);
      store_.put_circuit(circuit, curve_name(c), groth16::snarkjs::vk_to_json<E>(pk.vk).dump(),
                         pk.meta.to_json().dump());
    });
    curve = curve_name(c);
  }
  JobSpec spec;
  spec.circuit = circuit;
  spec.curve = curve;
  spec.partitions = req.partitions;
  spec.seed = req.seed;
  spec.priority = req.priority;
  spec.idempotency_key = req.idempotency_key;
  spec.params = "builtin circuit " + circuit + ", " + std::to_string(req.partitions) + " partitions, seed " +
                std::to_string(req.seed);
  const uint64_t now = redis_.server_time_ms();
  spec.deadline_ms = req.deadline_s ? now + req.deadline_s * 1000 : 0;
  return store_.submit(spec, now);
}

nlohmann::json FarmClient::status(const std::string& job) {
  auto j = store_.job(job);
  if (j.empty()) return nullptr;
  const uint64_t n = to_u64(j["partitions"]);
  nlohmann::json out = {{"job", job},
                        {"state", j["state"]},
                        {"circuit", j["circuit"]},
                        {"curve", j["curve"]},
                        {"kind", j["kind"].empty() ? std::string("builtin") : j["kind"]},
                        {"partitions", n},
                        {"seed", to_u64(j["seed"])},
                        {"priority", std::stoll(j["priority"])},
                        {"idempotency_key", j["idempotency_key"]},
                        {"verified", to_u64(j["n_verified"])},
                        {"error", j["error"]},
                        {"created_ms", to_u64(j["created_ms"])},
                        {"updated_ms", to_u64(j["updated_ms"])}};
  // Only a job that still needs workers can be stuck for want of them.
  if (j["state"] == "queued" || j["state"] == "running") {
    out["workers_serving"] = coverage(j["circuit"]);
    out["warning"] = coverage_warning(j["circuit"], out["workers_serving"]);
  } else {
    // When it ended, and when the result retention deletes it (the running coordinator's
    // coordinator.retention_s; absent while none runs, or with 0: kept).
    const auto ended = redis_.command({"ZSCORE", "zk:ended", job});
    const uint64_t ended_ms = ended.is_nil() ? to_u64(j["updated_ms"]) : to_u64(ended.as_string());
    out["ended_ms"] = ended_ms;
    if (const uint64_t keep_s = retention_s(); keep_s) out["deleted_after_ms"] = ended_ms + keep_s * 1000;
  }
  nlohmann::json parts = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::object();
  auto ps = store_.partitions(job, n);
  for (uint64_t i = 0; i < ps.size(); ++i) {
    auto& p = ps[i];
    parts.push_back({{"partition", i},
                     {"state", p["state"]},
                     {"attempts", to_u64(p["attempts"])},
                     {"worker", p["worker"]},
                     {"synth_worker", p["synth_worker"]},
                     {"recorded", to_u64(p["recorded"])},
                     {"error", p["error"]}});
    // Worker-reported timings (ms), when the worker sent them.
    for (const char* f : {"synth_ms", "fetch_ms", "expand_ms", "prove_ms", "slot_wait_ms"})
      if (!p[f].empty()) parts.back()[f] = std::stod(p[f]);
    // The bytes its prove worker fetched for the partition (the bundle on the wire).
    if (!p["bundle_bytes"].empty()) parts.back()["bundle_bytes"] = to_u64(p["bundle_bytes"]);
    counts[p["state"]] = counts.value(p["state"], 0) + 1;
  }
  out["counts"] = counts;
  out["partition_states"] = parts;
  return out;
}

nlohmann::json FarmClient::list(size_t limit) {
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, std::string> warnings;  // per circuit, computed once
  for (const auto& id : store_.list_jobs(limit)) {
    auto j = store_.job(id);
    out.push_back({{"job", id},
                   {"state", j["state"]},
                   {"partitions", to_u64(j["partitions"])},
                   {"verified", to_u64(j["n_verified"])},
                   {"priority", j["priority"].empty() ? 0 : std::stoll(j["priority"])},
                   {"error", j["error"]}});
    if (j["state"] == "queued" || j["state"] == "running") {
      auto it = warnings.find(j["circuit"]);
      if (it == warnings.end()) it = warnings.emplace(j["circuit"], coverage_warning(j["circuit"])).first;
      if (!it->second.empty()) out.back()["warning"] = it->second;
    }
  }
  return out;
}

nlohmann::json FarmClient::jobs_page(const std::string& state, size_t limit, const std::string& cursor) {
  const auto& states = FarmOverview::job_states();
  if (!state.empty() && std::find(states.begin(), states.end(), state) == states.end())
    throw std::invalid_argument("unknown job state '" + state + "' (queued, running, done, failed, cancelled)");
  long start = 0;
  if (!cursor.empty()) {
    auto rank = redis_.command({"ZREVRANK", "zk:jobs", cursor});
    if (rank.is_nil()) throw std::invalid_argument("cursor '" + cursor + "' names no job (any more)");
    start = long(rank.as_int()) + 1;
  }
  constexpr long kScanMax = 10000, kChunk = 500;
  nlohmann::json jobs = nlohmann::json::array();
  std::string last;
  bool more = true;
  for (long scanned = 0; jobs.size() < limit && scanned < kScanMax && more; scanned += kChunk) {
    auto ids = redis_.command(
        {"ZREVRANGE", "zk:jobs", std::to_string(start + scanned), std::to_string(start + scanned + kChunk - 1)});
    more = long(ids.elements.size()) == kChunk;
    std::vector<std::vector<std::string>> cmds;
    for (const auto& e : ids.elements)
      cmds.push_back({"HMGET", "zk:job:" + e.as_string(), "state", "partitions", "n_verified", "priority", "error"});
    auto replies = redis_.pipeline(cmds);
    for (size_t i = 0; i < replies.size(); ++i) {
      const std::string id = ids.elements[i].as_string();
      last = id;
      const auto& f = replies[i].elements;
      if (f.size() != 5 || f[0].is_nil()) continue;
      if (!state.empty() && f[0].as_string() != state) continue;
      jobs.push_back({{"job", id},
                      {"state", f[0].as_string()},
                      {"partitions", to_u64(f[1].as_string())},
                      {"verified", to_u64(f[2].as_string())},
                      {"priority", f[3].as_string().empty() ? 0 : std::stoll(f[3].as_string())},
                      {"error", f[4].as_string()}});
      if (jobs.size() == limit) {
        more = i + 1 < replies.size() || more;
        break;
      }
    }
  }
  return {{"jobs", jobs}, {"next_cursor", more && !last.empty() ? nlohmann::json(last) : nlohmann::json(nullptr)}};
}

nlohmann::json FarmClient::workers() {
  // Who works on what: each lease names a partition, whose hash names its worker.
  std::map<std::string, nlohmann::json> current;
  std::vector<std::vector<std::string>> cmds;
  std::vector<PartRef> refs;
  for (auto& e : redis_.command({"ZRANGE", "zk:leases", "0", "-1"}).elements)
    if (auto ref = PartRef::parse(e.as_string())) {
      refs.push_back(*ref);
      cmds.push_back({"HMGET", "zk:part:" + ref->job + ":" + std::to_string(ref->part), "worker", "state"});
    }
  if (!cmds.empty()) {
    auto replies = redis_.pipeline(cmds);
    for (size_t i = 0; i < replies.size(); ++i) {
      const auto& f = replies[i].elements;
      if (f.size() != 2 || f[0].as_string().empty()) continue;
      current[f[0].as_string()] = {{"job", refs[i].job}, {"partition", refs[i].part}, {"state", f[1].as_string()}};
    }
  }
  WorkerRegistry registry(redis_);
  auto workers = registry.list();
  // Quarantined workers are listed even when not connected: they stay quarantined until cleared.
  for (const auto& [id, q] : registry.quarantined()) {
    auto& w = workers[id];
    if (w.empty()) w = {{"role", "?"}, {"connected", false}};
    w["quarantined"] = q;
  }
  // So are workers paused for failing (zk:pauses) while their pause runs: one that left is
  // paused again when it comes back, and `zkmill worker clear` lifts that. A connected worker's
  // pause is in its published record already.
  const auto pauses = registry.pauses();
  const uint64_t now = pauses.empty() ? 0 : redis_.server_time_ms();  // no extra round trip without pauses
  for (const auto& [id, p] : pauses) {
    if (!p.is_object() || p.value("until_ms", uint64_t(0)) <= now) continue;
    auto& w = workers[id];
    if (w.empty()) w = {{"role", "?"}, {"connected", false}};
    if (!w.contains("paused")) w["paused"] = p;
  }
  nlohmann::json out = nlohmann::json::array();
  for (auto& [id, w] : workers) {
    w["worker"] = id;
    auto it = current.find(id);
    w["partition"] = it == current.end() ? nlohmann::json(nullptr) : it->second;
    out.push_back(std::move(w));
  }
  return out;
}

nlohmann::json FarmClient::overview(size_t recent) {
  nlohmann::json out = FarmOverview::to_json(FarmOverview(redis_).take());
  out["workers"] = workers();
  out["recent_jobs"] = recent ? list(recent) : nlohmann::json::array();
  return out;
}

bool FarmClient::drain(const std::string& worker) {
  return WorkerRegistry(redis_).request_drain(worker, redis_.server_time_ms());
}

void FarmClient::ping() { redis_.command({"PING"}); }

nlohmann::json FarmClient::coordinator() {
  auto r = redis_.command({"GET", WorkerRegistry::kCoordinatorKey});
  if (r.is_nil()) return nullptr;
  auto j = nlohmann::json::parse(r.str, nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

int FarmClient::wait(const std::string& job, uint64_t timeout_s, bool quiet) {
  auto t0 = std::chrono::steady_clock::now();
  JobProgress progress(stderr, isatty(STDERR_FILENO) == 1);
  for (;;) {
    nlohmann::json s;
    try {
      s = status(job);
    } catch (const RedisError& e) {
      // Redis restarting: keep waiting (the deadline below still applies).
      redis_.disconnect();
      progress.finish();
      if (!quiet) std::fprintf(stderr, "wait: redis unavailable (%s); retrying\n", e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      s = nlohmann::json::object({{"state", "?"}});
    }
    if (s.is_null()) {
      std::fprintf(stderr, "wait: %s\n", no_job(job).c_str());
      return 3;
    }
    const std::string state = s["state"];
    if (state != "?") {
      if (!quiet) progress.update(s);
      if (state == "done") return 0;
      if (state == "failed" || state == "cancelled") {
        progress.finish();
        std::fprintf(stderr, "job %s %s%s\n", job.c_str(), state.c_str(),
                     s["error"].get<std::string>().empty() ? "" : (": " + s["error"].get<std::string>()).c_str());
        return 1;
      }
    }
    if (timeout_s && std::chrono::steady_clock::now() - t0 > std::chrono::seconds(timeout_s)) {
      progress.finish();
      std::fprintf(stderr, "wait: timed out after %llu s\n", (unsigned long long)timeout_s);
      return 2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

std::string FarmClient::cancel(const std::string& job) { return store_.cancel(job, redis_.server_time_ms()); }

nlohmann::json FarmClient::coverage(const std::string& circuit) {
  nlohmann::json out = {{"coordinator", false}, {"synth", 0}, {"prove", 0}};
  if (redis_.command({"EXISTS", WorkerRegistry::kCoordinatorKey}).as_int() == 0) return out;
  out["coordinator"] = true;
  uint64_t synth = 0, prove = 0;
  for (const auto& [id, w] : WorkerRegistry(redis_).list()) {
    if (w.value("draining", false) || !w.contains("circuits") || !w["circuits"].is_array()) continue;
    bool serves = false;
    for (const auto& c : w["circuits"]) serves = serves || (c.is_string() && c.get<std::string>() == circuit);
    if (!serves) continue;
    const std::string role = w.value("role", std::string());
    if (role == "synth" || role == "both") ++synth;
    if (role == "prove" || role == "both") ++prove;
  }
  out["synth"] = synth;
  out["prove"] = prove;
  return out;
}

std::string FarmClient::coverage_warning(const std::string& circuit, const nlohmann::json& c) {
  const std::string id = circuit.substr(0, 16);
  if (!c["coordinator"].get<bool>())
    return "no coordinator is running (none has reported in the last few seconds); the job waits until one starts";
  std::string missing;
  if (c["synth"].get<uint64_t>() == 0) missing = "synth";
  if (c["prove"].get<uint64_t>() == 0) missing += missing.empty() ? "prove" : " or prove";
  if (missing.empty()) return {};
  return "no live " + missing + " worker serves circuit " + id +
         "; the job waits until one does (put its key in a worker's worker.key_dir and start or restart that "
         "worker; `zkmill status --workers` lists them)";
}

uint64_t FarmClient::retention_s() {
  const auto c = coordinator();
  return c.is_object() && c.contains("retention_s") && c["retention_s"].is_number_unsigned()
             ? c["retention_s"].get<uint64_t>()
             : 0;
}

std::string FarmClient::no_job(const std::string& job) {
  if (is_job_id(job)) {  // at most 18 digits: fits
    const uint64_t seq = std::stoull(job.substr(1));
    const auto last = redis_.command({"GET", "zk:seq:job"});
    if (seq > 0 && !last.is_nil() && seq <= to_u64(last.as_string())) {
      const uint64_t keep_s = retention_s();
      return "job '" + job +
             "' no longer exists: the farm deletes a job with its proofs coordinator.retention_s after it ended (" +
             (keep_s ? "here " + std::to_string(keep_s) + " s" : std::string("7 days unless configured otherwise")) +
             ")";
    }
  }
  return "no job '" + job + "'";
}

void FarmClient::write_result(const std::string& job, const std::string& dir) {
  auto j = store_.job(job);
  if (j.empty()) throw std::runtime_error(no_job(job));
  if (j["state"] != "done") throw std::runtime_error("job " + job + " is " + j["state"] + ", not done");
  auto curve = parse_curve(j["curve"]);
  if (!curve) throw std::runtime_error("job " + job + " has an unknown curve");
  const uint64_t n = to_u64(j["partitions"]);
  auto ps = store_.partitions(job, n);
  // The folder's files appear together or not at all: each is written in full to a temporary
  // beside its final name, and only when all are on disk are they renamed into place
  // (util::AtomicFileSet). A folder this call created is removed again on failure.
  std::error_code ec;
  const bool existed = std::filesystem::exists(dir, ec);
  if (existed && !std::filesystem::is_directory(dir, ec))
    throw std::runtime_error(dir + ": exists and is not a directory");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create the directory: " + ec.message());
  try {
    util::AtomicFileSet files;
    std::string bin;
    for (uint64_t i = 0; i < n; ++i) {
      auto proof = nlohmann::json::parse(ps[i]["proof"]);
      auto pub = nlohmann::json::parse(ps[i]["public"]);
      const auto base = std::filesystem::path(dir) / ("partition-" + std::to_string(i));
      files.add(base.string() + ".proof.json", groth16::snarkjs::json_file_text(proof));
      files.add(base.string() + ".public.json", groth16::snarkjs::json_file_text(pub));
      auto bytes = proof_bytes(*curve, proof);
      bin.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    files.add((std::filesystem::path(dir) / "proofs.bin").string(), bin);
    files.commit();
  } catch (...) {
    if (!existed) std::filesystem::remove(dir, ec);  // only if still empty
    throw;
  }
}

}  // namespace zkmill::farm
