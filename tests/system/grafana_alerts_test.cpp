// SPDX-License-Identifier: MIT
// deploy/grafana/zkmill.json and deploy/prometheus/alerts.yml, loaded and checked against what
// a real coordinator exports: both files parse and have the shape Grafana and Prometheus
// expect, every metric an expression names is a family the coordinator's /metrics serves (a
// renamed metric breaks this test, not a dashboard in production), every `label="value"`
// matcher matches a served sample, and the four alerts the farm needs exist. When promtool
// is installed, `promtool check rules` must accept the rules too.
#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <regex>
#include <set>

#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

struct Exported {
  std::map<std::string, std::string> families;  // name -> type
  std::set<std::string> samples;                // every sample line's name{labels}
};

Exported scrape(int port) {
  httplib::Client http("127.0.0.1", port);
  http.set_read_timeout(10);
  auto res = http.Get("/metrics");
  Exported e;
  if (!res || res->status != 200) {
    ADD_FAILURE() << "no /metrics";
    return e;
  }
  std::istringstream in(res->body);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, std::regex("# TYPE (\\S+) (\\S+)")))
      e.families[m[1]] = m[2];
    else if (!line.empty() && line[0] != '#')
      e.samples.insert(line.substr(0, line.rfind(' ')));
  }
  return e;
}

// Checks one PromQL expression against the exported metrics; `where` names it in failures.
void check_expr(const std::string& expr, const Exported& e, const std::string& where) {
  int depth = 0;
  for (char c : expr) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    ASSERT_GE(depth, 0) << where << ": unbalanced parentheses in " << expr;
  }
  EXPECT_EQ(depth, 0) << where << ": unbalanced parentheses in " << expr;
  const std::regex metric("(zkmill_[a-z0-9_]+)(\\{([^}]*)\\})?");
  int found = 0;
  for (std::sregex_iterator it(expr.begin(), expr.end(), metric), end; it != end; ++it, ++found) {
    std::string name = (*it)[1];
    std::string family = name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s = suffix;
      if (name.size() > s.size() && name.ends_with(s) && e.families.count(name.substr(0, name.size() - s.size())) &&
          e.families.at(name.substr(0, name.size() - s.size())) == "histogram")
        family = name.substr(0, name.size() - s.size());
    }
    EXPECT_TRUE(e.families.count(family)) << where << ": " << name << " is not exported by the coordinator";
    // Exact matchers (label="value") must match some served sample of that metric.
    const std::string labels = (*it)[3];
    const std::regex eq("([a-z_]+)=\"([^\"]*)\"");
    for (std::sregex_iterator m(labels.begin(), labels.end(), eq), mend; m != mend; ++m) {
      const std::string pair = (*m)[1].str() + "=\"" + (*m)[2].str() + "\"";
      bool any = false;
      for (const auto& s : e.samples) any |= s.rfind(name + "{", 0) == 0 && contains(s, pair);
      EXPECT_TRUE(any) << where << ": no sample " << name << " with " << pair;
    }
  }
  EXPECT_GT(found, 0) << where << ": names no zkmill metric: " << expr;
}

class GrafanaAlertsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = farm_.start(1, 1);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    ASSERT_EQ(farm_.wait(farm_.submit(2)), 0);  // so every labelled family has samples
    ASSERT_TRUE(LocalFarm::eventually([&] {
      exported_ = scrape(farm_.metrics_port());
      return exported_.families.count("zkmill_workers") && exported_.families.count("zkmill_queue_depth");
    }));
  }
  LocalFarm farm_{scratch_dir()};
  Exported exported_;
};

TEST_F(GrafanaAlertsTest, DashboardParsesAndChartsOnlyExportedMetrics) {
  const std::string path = std::string(ZKMILL_SOURCE_DIR) + "/deploy/grafana/zkmill.json";
  auto d = json::parse(slurp(path), nullptr, false);
  ASSERT_FALSE(d.is_discarded()) << path << " is not JSON";
  EXPECT_EQ(d["uid"], "zkmill-farm");
  EXPECT_TRUE(d["title"].is_string());
  EXPECT_TRUE(d["schemaVersion"].is_number_integer());
  ASSERT_TRUE(d["panels"].is_array());
  std::set<int> ids;
  int charts = 0;
  std::set<std::string> families_used;
  for (const auto& p : d["panels"]) {
    ASSERT_TRUE(p["id"].is_number_integer()) << p.dump();
    EXPECT_TRUE(ids.insert(p["id"].get<int>()).second) << "duplicate panel id " << p["id"];
    const auto& g = p["gridPos"];
    ASSERT_TRUE(g.is_object()) << p.dump();
    EXPECT_LE(g["x"].get<int>() + g["w"].get<int>(), 24) << p["title"];
    if (p["type"] == "row") continue;
    EXPECT_TRUE(p["type"] == "timeseries" || p["type"] == "stat") << p["type"];
    ASSERT_TRUE(p["targets"].is_array() && !p["targets"].empty()) << p["title"];
    std::set<std::string> refs;
    for (const auto& t : p["targets"]) {
      EXPECT_TRUE(refs.insert(t["refId"].get<std::string>()).second) << p["title"];
      const std::string expr = t["expr"];
      check_expr(expr, exported_, "panel '" + p["title"].get<std::string>() + "'");
      static const std::regex name("zkmill_[a-z_]+");
      for (std::sregex_iterator it(expr.begin(), expr.end(), name), end; it != end; ++it)
        families_used.insert(it->str());
    }
    ++charts;
  }
  EXPECT_GE(charts, 12);
  // Every family the coordinator exports is on the dashboard somewhere.
  for (const auto& [name, type] : exported_.families) {
    bool used = families_used.count(name) > 0;
    for (const char* s : {"_bucket", "_sum", "_count"}) used |= families_used.count(name + s) > 0;
    EXPECT_TRUE(used) << name << " is exported but on no dashboard panel";
  }
}

TEST_F(GrafanaAlertsTest, AlertRulesParseAndUseOnlyExportedMetrics) {
  const std::string path = std::string(ZKMILL_SOURCE_DIR) + "/deploy/prometheus/alerts.yml";
  YAML::Node doc = YAML::LoadFile(path);
  ASSERT_TRUE(doc["groups"] && doc["groups"].IsSequence()) << path;
  std::set<std::string> alerts;
  for (const auto& g : doc["groups"]) {
    ASSERT_TRUE(g["name"] && g["rules"].IsSequence());
    for (const auto& r : g["rules"]) {
      for (const auto& kv : r) {
        const std::string k = kv.first.as<std::string>();
        EXPECT_TRUE(k == "alert" || k == "expr" || k == "for" || k == "labels" || k == "annotations")
            << "unknown rule key " << k;
      }
      const std::string name = r["alert"].as<std::string>();
      EXPECT_TRUE(std::regex_match(name, std::regex("Zkmill[A-Z][A-Za-z]+"))) << name;
      EXPECT_TRUE(alerts.insert(name).second) << "duplicate alert " << name;
      check_expr(r["expr"].as<std::string>(), exported_, "alert " + name);
      if (r["for"]) {
        EXPECT_TRUE(std::regex_match(r["for"].as<std::string>(), std::regex("[0-9]+[smh]"))) << name;
      }
      const std::string sev = r["labels"]["severity"].as<std::string>();
      EXPECT_TRUE(sev == "warning" || sev == "critical") << name;
      EXPECT_FALSE(r["annotations"]["summary"].as<std::string>().empty()) << name;
      EXPECT_FALSE(r["annotations"]["description"].as<std::string>().empty()) << name;
    }
  }
  for (const char* needed :
       {"ZkmillCoordinatorDown", "ZkmillQueueGrowing", "ZkmillPartitionsFailing", "ZkmillWorkerFlapping"})
    EXPECT_TRUE(alerts.count(needed)) << needed;
  if (std::system("command -v promtool >/dev/null 2>&1") == 0) {
    auto r = run_program("promtool", {"check", "rules", path});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
}

}  // namespace
}  // namespace zkmill::test
