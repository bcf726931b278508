// SPDX-License-Identifier: MIT
// The coordinator's HTTP JSON API (docs/api.md) against a real local farm: every endpoint, its
// JSON checked against what `zkmill status --json` prints (one producer), cancel and drain
// through the API acting on the farm, the bearer token enforced when configured, and slow
// clients holding every API thread while a job is dispatched and proved on time.
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <set>

#include "tests/support/loopback.hpp"
#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

struct Http {
  int port;
  std::string token;
  httplib::Result get(const std::string& path) const {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(5);
    c.set_read_timeout(15);
    if (!token.empty()) c.set_bearer_token_auth(token.c_str());
    return c.Get(path.c_str());
  }
  httplib::Result post(const std::string& path) const {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(5);
    c.set_read_timeout(15);
    if (!token.empty()) c.set_bearer_token_auth(token.c_str());
    return c.Post(path.c_str());
  }
  // GET that must answer `status` with a JSON body; the parsed body (null on failure).
  json get_json(const std::string& path, int status = 200) const {
    auto r = get(path);
    if (!r) {
      ADD_FAILURE() << "GET " << path << ": no answer";
      return nullptr;
    }
    EXPECT_EQ(r->status, status) << path << ": " << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << path;
    return json::parse(r->body, nullptr, false);
  }
};

class HttpApiTest : public ::testing::Test {
 protected:
  HttpApiTest() : farm_(scratch_dir()) {}
  void start(int synth = 1, int prove = 1) {
    auto r = farm_.start(synth, prove);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    http_.port = farm_.metrics_port();
  }
  // The keys of `j` and their JSON types, for comparing the shape of two answers whose
  // values may legitimately differ (timestamps taken a heartbeat apart).
  static std::set<std::string> shape(const json& j) {
    std::set<std::string> out;
    for (const auto& [k, v] : j.items()) out.insert(k + ":" + v.type_name());
    return out;
  }
  LocalFarm farm_;
  Http http_{0, ""};
};

TEST_F(HttpApiTest, EveryReadEndpointAnswersTheSameJsonAsTheCli) {
  start();
  auto h = http_.get_json("/healthz");
  EXPECT_EQ(h["status"], "ok");
  ASSERT_TRUE(LocalFarm::eventually([&] {
    auto r = http_.get("/readyz");
    return r && r->status == 200;
  })) << "readyz never became ready";
  auto ready = json::parse(http_.get("/readyz")->body);
  EXPECT_EQ(ready["redis"], true);
  EXPECT_EQ(ready["coordinator_active"], true);

  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(farm_.submit(2));
  for (const auto& id : ids) ASSERT_EQ(farm_.wait(id), 0);

  // One job: identical to `zkmill status JOB --json` (the job is final, nothing changes).
  for (const auto& id : ids) {
    auto api = http_.get_json("/api/v1/jobs/" + id);
    EXPECT_EQ(api, farm_.status(id)) << id;
    EXPECT_EQ(api["state"], "done");
    ASSERT_EQ(api["partition_states"].size(), 2u);
    EXPECT_EQ(api["partition_states"][0]["state"], "done");
    EXPECT_TRUE(api["partition_states"][0].contains("prove_ms")) << api.dump();
  }
  EXPECT_EQ(http_.get_json("/api/v1/jobs/j999999", 404)["error"], "no job 'j999999'");

  // The farm: the same object as `zkmill status --json` (shape; values such as heartbeat
  // times move between the two reads), with jobs, workers and throughput that match the run.
  auto farm = http_.get_json("/api/v1/farm");
  auto cli = farm_.status();
  EXPECT_EQ(shape(farm), shape(cli));
  EXPECT_EQ(farm["jobs"]["done"], 3);
  EXPECT_EQ(farm["jobs"], cli["jobs"]);
  EXPECT_EQ(farm["recent_jobs"], cli["recent_jobs"]);
  ASSERT_TRUE(farm["throughput"].is_object()) << farm.dump();
  EXPECT_EQ(farm["throughput"]["verified"].size(), 90u);
  EXPECT_EQ(farm["throughput"]["bucket_s"], 10);
  // Published every heartbeat: the six proofs show within a few.
  EXPECT_TRUE(LocalFarm::eventually([&] { return http_.get_json("/api/v1/farm")["throughput"]["last_minute"] == 6; }))
      << http_.get_json("/api/v1/farm")["throughput"].dump();
  ASSERT_EQ(farm["workers"].size(), 2u);
  const std::string circuit = farm_.status(ids[0])["circuit"];
  std::set<std::string> roles;
  for (const auto& w : farm["workers"]) {
    roles.insert(w["role"].get<std::string>());
    EXPECT_EQ(w["circuits"], json::array({circuit})) << w.dump();
    EXPECT_TRUE(w.contains("last_seen_ms") && w.contains("draining") && w.contains("gpus")) << w.dump();
  }
  EXPECT_EQ(roles, (std::set<std::string>{"synth", "prove"}));

  // Workers: the same records as `zkmill status --workers --json`.
  auto workers = http_.get_json("/api/v1/workers");
  auto cli_workers = json::parse(run_zkmill({"status", "--config", farm_.client(), "--workers", "--json"}).out);
  ASSERT_EQ(workers.size(), cli_workers.size());
  for (size_t i = 0; i < workers.size(); ++i) {
    EXPECT_EQ(workers[i]["worker"], cli_workers[i]["worker"]);
    EXPECT_EQ(shape(workers[i]), shape(cli_workers[i]));
  }
  // `status --workers` names the circuits each worker serves.
  auto text = run_zkmill({"status", "--config", farm_.client(), "--workers"});
  EXPECT_TRUE(contains(text.out, "circuits [" + circuit.substr(0, 12) + "]")) << text.out;

  // Job pages: newest first, a cursor to continue, a state filter, bad parameters refused.
  auto page = http_.get_json("/api/v1/jobs?limit=2");
  ASSERT_EQ(page["jobs"].size(), 2u);
  EXPECT_EQ(page["jobs"][0]["job"], ids[2]);
  EXPECT_EQ(page["jobs"][1]["job"], ids[1]);
  ASSERT_EQ(page["next_cursor"], ids[1]);
  auto rest = http_.get_json("/api/v1/jobs?limit=2&cursor=" + ids[1]);
  ASSERT_EQ(rest["jobs"].size(), 1u);
  EXPECT_EQ(rest["jobs"][0]["job"], ids[0]);
  EXPECT_TRUE(rest["next_cursor"].is_null());
  EXPECT_EQ(http_.get_json("/api/v1/jobs?state=done")["jobs"].size(), 3u);
  EXPECT_EQ(http_.get_json("/api/v1/jobs?state=running")["jobs"].size(), 0u);
  EXPECT_TRUE(contains(http_.get_json("/api/v1/jobs?state=bogus", 400)["error"], "unknown job state 'bogus'"));
  EXPECT_TRUE(contains(http_.get_json("/api/v1/jobs?limit=0", 400)["error"], "limit must be an integer"));
  EXPECT_TRUE(contains(http_.get_json("/api/v1/jobs?cursor=j424242", 400)["error"], "names no job"));
  EXPECT_TRUE(contains(http_.get_json("/api/v1/nothing", 404)["error"], "no route"));

  // The same listener still serves Prometheus and the dashboard.
  auto metrics = http_.get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  EXPECT_TRUE(contains(metrics->body, "zkmill_redis_up 1")) << metrics->body;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(metrics->body, m, std::regex("\nzkmill_proofs_verified_total ([0-9.e+]+)\n")))
      << metrics->body;
  EXPECT_EQ(std::stod(m[1]), 6.0);
  auto page_html = http_.get("/");
  ASSERT_TRUE(page_html && page_html->status == 200);
  EXPECT_TRUE(contains(page_html->body, "<title>zkmill farm</title>"));
  EXPECT_FALSE(contains(page_html->body, "http://")) << "the page must load nothing from elsewhere";
  EXPECT_FALSE(contains(page_html->body, "https://")) << "the page must load nothing from elsewhere";
}

TEST_F(HttpApiTest, CancelAndDrainThroughTheApiAct) {
  start();
  const std::string id = farm_.submit(2000);
  auto c = http_.post("/api/v1/jobs/" + id + "/cancel");
  ASSERT_TRUE(c);
  ASSERT_EQ(c->status, 200) << c->body;
  EXPECT_EQ(json::parse(c->body), (json{{"job", id}, {"state", "cancelled"}}));
  EXPECT_EQ(farm_.status(id)["state"], "cancelled");
  EXPECT_LT(farm_.status(id)["verified"].get<uint64_t>(), 2000u);
  // Idempotent: cancelling a cancelled job answers the same; a finished job cannot be.
  auto again = http_.post("/api/v1/jobs/" + id + "/cancel");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
  const std::string done = farm_.submit(1);
  ASSERT_EQ(farm_.wait(done), 0);
  auto late = http_.post("/api/v1/jobs/" + done + "/cancel");
  ASSERT_TRUE(late);
  EXPECT_EQ(late->status, 409);
  EXPECT_EQ(json::parse(late->body), (json{{"error", "job " + done + " is already done"}, {"state", "done"}}));
  auto missing = http_.post("/api/v1/jobs/j777777/cancel");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);

  // Drain: the coordinator forwards it, the worker finishes and exits.
  auto d = http_.post("/api/v1/workers/prove-1/drain");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->status, 202) << d->body;
  EXPECT_EQ(json::parse(d->body)["drain"], "requested");
  const pid_t pid = std::stoi(slurp(farm_.farm_dir() / "prove-1.pid"));
  bool exited = false;
  for (int i = 0; i < 300 && !exited; ++i) {
    exited = process_exited(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(exited) << "prove-1 did not drain and exit\n" << farm_.log("prove-1");
  EXPECT_TRUE(contains(farm_.log("coordinator"), "draining worker prove-1")) << farm_.log("coordinator");
  auto nobody = http_.post("/api/v1/workers/nobody/drain");
  ASSERT_TRUE(nobody);
  EXPECT_EQ(nobody->status, 404);
  // GET on a control route is not a control request.
  auto wrong_method = http_.get("/api/v1/workers/synth-1/drain");
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 404);
}

TEST_F(HttpApiTest, BearerTokenIsRequiredWhenConfigured) {
  start();
  // Restart the coordinator with a token file (coordinator: is the last section of farm.yaml).
  const auto dir = farm_.farm_dir();
  const pid_t old = std::stoi(slurp(dir / "coordinator.pid"));
  kill(old, SIGTERM);
  for (int i = 0; i < 100 && !process_exited(old); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(process_exited(old)) << "the coordinator did not stop";
  std::ofstream(dir / "api.token") << "s3cret-token-for-tests\n";
  std::ofstream(dir / "farm.yaml", std::ios::app) << "  api_token_file: " << (dir / "api.token").string() << "\n";
  const pid_t pid = spawn_background({zkmill_binary(), "coordinator", "--config", (dir / "farm.yaml").string()},
                                     dir / "coordinator.log");
  std::ofstream(dir / "coordinator.pid") << pid << "\n";  // so the farm's stop ends it
  ASSERT_TRUE(LocalFarm::eventually([&] {
    auto r = http_.get("/healthz");
    return r && r->status == 200;
  })) << farm_.log("coordinator");

  for (const char* path : {"/api/v1/farm", "/api/v1/workers", "/api/v1/jobs", "/metrics"}) {
    auto r = http_.get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Bearer realm=\"zkmill\"") << path;
  }
  Http wrong{http_.port, "s3cret-token-for-test"};
  EXPECT_EQ(wrong.get("/api/v1/farm")->status, 401);
  const std::string id = farm_.submit(1);
  EXPECT_EQ(http_.post("/api/v1/jobs/" + id + "/cancel")->status, 401);
  EXPECT_EQ(wrong.post("/api/v1/workers/prove-1/drain")->status, 401);

  Http right{http_.port, "s3cret-token-for-tests"};
  EXPECT_EQ(right.get_json("/api/v1/farm")["jobs"].size(), 5u);
  auto m = right.get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  // Probes and the page (which holds no data) stay open.
  EXPECT_EQ(http_.get("/healthz")->status, 200);
  EXPECT_EQ(http_.get("/")->status, 200);
  EXPECT_EQ(farm_.wait(id), 0);  // the farm still works after the restart
  kill(pid, SIGTERM);            // ours to reap (the farm's stop would wait on a zombie)
  waitpid(pid, nullptr, 0);
}

TEST_F(HttpApiTest, SlowClientsCannotDelayDispatchOrHoldTheApi) {
  start();
  // Baseline: a job with every API thread free.
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(farm_.wait(farm_.submit(6)), 0);
  const double baseline_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Slow clients from one host (127.0.0.2): more than the server has threads, each trickling a
  // request header one byte every half second (never finishing it), plus clients that ask for
  // the farm and never read.
  std::atomic<bool> stop{false};
  std::vector<int> fds;
  for (int i = 0; i < 24; ++i) {
    int fd = connect_loopback(http_.port, "127.0.0.2");
    ASSERT_GE(fd, 0);
    fds.push_back(fd);
  }
  for (int i = 0; i < 4; ++i) {
    const std::string req = "GET /api/v1/farm?recent=1000 HTTP/1.1\r\nHost: x\r\n\r\n";
    ASSERT_EQ(send(fds[size_t(i)], req.data(), req.size(), MSG_NOSIGNAL), ssize_t(req.size()));
  }
  std::thread trickle([&] {
    const std::string partial = "GET /api/v1/farm HTTP/1.1\r\nX-Slow: ";
    for (size_t at = 0; !stop.load(); at = (at + 1) % partial.size()) {
      for (size_t i = 4; i < fds.size(); ++i) send(fds[i], &partial[at], 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // The API answers another client (127.0.0.1) at once while they trickle: they hold their
  // host's share of the threads (4 of 8) and of the queue (16), not the listener (before: every
  // thread until their 10 s deadline, http_listener.hpp).
  const auto answered = [&] {
    auto h = http_.get("/healthz");
    return h && h->status == 200;
  };
  EXPECT_TRUE(zkmill::test::eventually(std::chrono::seconds(4), answered, std::chrono::milliseconds(200)))
      << "the API did not answer another client while slow clients trickled";
  // The coordinator's dispatch is unaffected: the same job completes as fast as before.
  t0 = std::chrono::steady_clock::now();
  const std::string id = farm_.submit(6);
  auto r = run_zkmill({"wait", "--config", farm_.client(), id, "--timeout", "60", "--quiet"});
  const double stalled_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stop = true;
  trickle.join();
  for (int fd : fds) close(fd);
  EXPECT_EQ(r.exit_code, 0) << r.err << farm_.log("coordinator");
  // Generous bound (2 cores shared with other tests): a loop blocked by the API would wait
  // for the clients' timeouts or forever, not a few seconds.
  EXPECT_LT(stalled_s, baseline_s * 3 + 10) << "baseline " << baseline_s << " s";
  EXPECT_TRUE(answered());
}

}  // namespace
}  // namespace zkmill::test
