// SPDX-License-Identifier: MIT
// FarmOverview: the farm-wide counts, read with a handful of round trips (see the header for
// what each costs and how partition states are derived).
#include "farm/farm_overview.hpp"

#include <set>

#include "farm/farm_store.hpp"
#include "farm/worker_registry.hpp"

namespace zkmill::farm {

namespace {

constexpr size_t kPipelineChunk = 1000;  // bounds one pipeline's reply size

uint64_t to_u64(const std::string& s) {
  uint64_t x = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
    x = x * 10 + uint64_t(c - '0');
  }
  return x;
}

}  // namespace

const std::vector<std::string>& FarmOverview::job_states() {
  static const std::vector<std::string> s{"queued", "running", "done", "failed", "cancelled"};
  return s;
}

const std::vector<std::string>& FarmOverview::partition_states() {
  static const std::vector<std::string> s{"queued", "synthesizing", "synthesized", "proving", "verified"};
  return s;
}

FarmOverview::Snapshot FarmOverview::take() {
  Snapshot s;
  for (const auto& st : job_states()) s.jobs[st] = 0;
  for (const auto& st : partition_states()) s.partitions[st] = 0;

  auto sizes = r_.pipeline({{"ZCARD", "zk:q:synth"},
                            {"ZCARD", "zk:q:prove"},
                            {"ZCARD", "zk:q:delayed"},
                            {"ZCARD", "zk:leases"},
                            {"GET", WorkerRegistry::kCoordinatorKey}});
  s.queues["synth"] = uint64_t(sizes[0].as_int());
  s.queues["prove"] = uint64_t(sizes[1].as_int());
  s.queues["delayed"] = uint64_t(sizes[2].as_int());
  s.leases = uint64_t(sizes[3].as_int());
  if (!sizes[4].is_nil()) s.coordinator = nlohmann::json::parse(sizes[4].str, nullptr, false);
  if (s.coordinator.is_discarded()) s.coordinator = nullptr;

  // Job states, over every job kept in Redis.
  std::vector<std::string> ids, unfinished_ids;
  for (auto& e : r_.command({"ZRANGE", "zk:jobs", "0", "-1"}).elements) ids.push_back(e.as_string());
  for (size_t at = 0; at < ids.size(); at += kPipelineChunk) {
    std::vector<std::vector<std::string>> cmds;
    for (size_t i = at; i < std::min(ids.size(), at + kPipelineChunk); ++i)
      cmds.push_back({"HGET", "zk:job:" + ids[i], "state"});
    const auto replies = r_.pipeline(cmds);
    for (size_t i = 0; i < replies.size(); ++i) {
      if (replies[i].is_nil()) continue;
      const std::string st = replies[i].as_string();
      ++s.jobs[st];
      if (st == "queued" || st == "running") unfinished_ids.push_back(ids[at + i]);
    }
  }

  s.active_jobs = uint64_t(r_.command({"SCARD", "zk:active"}).as_int());
  // Unfinished jobs: totals and verified counts, of the jobs the scan above counted queued or
  // running. The reads are not one snapshot: a job that ends meanwhile still has its
  // partitions counted (as verified, or queued), so the states always add up to the jobs'
  // partitions the job counts promise.
  uint64_t total = 0;
  std::set<std::string> unfinished;
  if (!unfinished_ids.empty()) {
    std::vector<std::vector<std::string>> cmds;
    for (const auto& id : unfinished_ids)
      cmds.push_back({"HMGET", "zk:job:" + id, "state", "partitions", "n_verified"});
    auto replies = r_.pipeline(cmds);
    for (size_t i = 0; i < unfinished_ids.size(); ++i) {
      const auto& e = replies[i].elements;
      if (e.size() != 3 || e[1].is_nil()) continue;  // deleted meanwhile
      unfinished.insert(unfinished_ids[i]);
      total += to_u64(e[1].as_string());
      s.partitions["verified"] += to_u64(e[2].as_string());
    }
  }
  // ... and their in-flight partitions, from the leases (a partition is in flight exactly
  // while it holds one; leases of jobs that already ended wait for the reaper and are skipped).
  uint64_t in_flight = 0;
  if (s.leases && !unfinished.empty()) {
    std::vector<std::vector<std::string>> cmds;
    for (auto& e : r_.command({"ZRANGE", "zk:leases", "0", "-1"}).elements) {
      auto ref = PartRef::parse(e.as_string());
      if (ref && unfinished.count(ref->job))
        cmds.push_back({"HGET", "zk:part:" + ref->job + ":" + std::to_string(ref->part), "state"});
    }
    for (size_t at = 0; at < cmds.size(); at += kPipelineChunk) {
      std::vector<std::vector<std::string>> chunk(cmds.begin() + long(at),
                                                  cmds.begin() + long(std::min(cmds.size(), at + kPipelineChunk)));
      for (auto& r : r_.pipeline(chunk)) {
        const std::string st = r.as_string();
        if (st == "synthesizing" || st == "synthesized" || st == "proving") {
          ++s.partitions[st];
          ++in_flight;
        }
      }
    }
  }
  const uint64_t accounted = s.partitions["verified"] + in_flight;
  s.partitions["queued"] = total > accounted ? total - accounted : 0;
  return s;
}

nlohmann::json FarmOverview::to_json(const Snapshot& s) {
  // Proofs verified per 10 s over the last 15 min, as the coordinator published it (null when
  // no coordinator is alive); "last_minute" is the farm's current throughput.
  nlohmann::json throughput = nullptr;
  if (s.coordinator.is_object() && s.coordinator.contains("throughput")) throughput = s.coordinator["throughput"];
  return {{"jobs", s.jobs},     {"active_jobs", s.active_jobs}, {"partitions", s.partitions}, {"queues", s.queues},
          {"leases", s.leases}, {"coordinator", s.coordinator}, {"throughput", throughput}};
}

}  // namespace zkmill::farm
