// SPDX-License-Identifier: MIT
// The coordinator's dashboard (GET /) in a real browser: headless Chromium loads the page from
// a running local farm while a job runs, lets it poll the API, and dumps the DOM it built.
// Two loads a few seconds apart must show the job running with its partition strip advancing,
// the workers and the summary, and no console message or script error at all. Skips (with the
// reason) when Chromium is not installed; scripts/setup.sh installs it, so CI runs it.
#include <regex>

#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

std::string chromium_binary() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (fs::exists(p)) return p;
  return "";
}

struct Page {
  std::string dom;
  std::string log;  // Chromium's stderr: console messages appear as "...:CONSOLE..." lines
};

// Loads `url`, lets the page run for `budget_ms` of virtual time (its 1 s polls included),
// returns the serialized DOM.
Page load(const std::string& chromium, const std::string& url, const fs::path& profile, int budget_ms) {
  auto r = run_program(chromium, {"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                  "--user-data-dir=" + profile.string(), "--enable-logging=stderr", "--v=0",
                                  "--virtual-time-budget=" + std::to_string(budget_ms), "--dump-dom", url});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return {r.out, r.err};
}

// The console lines Chromium logged for the page (none expected: the page logs nothing
// unless something is wrong).
std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (contains(line, ":CONSOLE")) out.push_back(line);
  return out;
}

// The partition strip the page drew for `job`: (verified count it shows, cells by state).
struct Strip {
  bool found = false;
  uint64_t verified = 0, partitions = 0, verified_cells = 0, cells = 0;
};
Strip strip_of(const std::string& dom, const std::string& job) {
  Strip s;
  std::smatch m;
  const std::regex head("<div class=\"strip\" data-job=\"" + job +
                        "\" data-verified=\"([0-9]+)\" data-partitions=\"([0-9]+)\">(.*?)</div>");
  if (!std::regex_search(dom, m, head)) return s;
  s.found = true;
  s.verified = std::stoull(m[1]);
  s.partitions = std::stoull(m[2]);
  const std::string cells = m[3];
  for (size_t at = 0; (at = cells.find("<i ", at)) != std::string::npos; ++at) ++s.cells;
  for (size_t at = 0; (at = cells.find("data-state=\"verified\"", at)) != std::string::npos; ++at) ++s.verified_cells;
  return s;
}

TEST(DashboardBrowserTest, ShowsARunningJobWhosePartitionsAdvanceWithoutConsoleErrors) {
  const std::string chromium = chromium_binary();
  if (chromium.empty())
    GTEST_SKIP() << "Chromium is not installed (apt-get install chromium; scripts/setup.sh does): the dashboard's "
                    "browser test cannot run";
  LocalFarm farm(scratch_dir());
  // Keys big enough that a partition takes a noticeable time, so the job outlives two page loads.
  auto r = farm.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string url = "http://127.0.0.1:" + std::to_string(farm.metrics_port()) + "/";
  const std::string job = farm.submit(3000);
  ASSERT_TRUE(LocalFarm::eventually([&] { return farm.status(job)["verified"].get<uint64_t>() > 0; }));

  const fs::path profile = scratch_dir() / "chromium-profile";
  Page first = load(chromium, url, profile, 2500);
  Strip a = strip_of(first.dom, job);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  Page second = load(chromium, url, profile, 2500);
  Strip b = strip_of(second.dom, job);
  auto s = farm.status(job);
  ASSERT_EQ(s["state"], "running") << "the job ended before the page was checked; make it longer";

  for (const Page* p : {&first, &second}) {
    EXPECT_TRUE(std::regex_search(p->dom, std::regex("<body data-ready=\"[1-9][0-9]*\">"))) << p->dom;
    EXPECT_TRUE(contains(p->dom, "<pre id=\"errors\" hidden=\"\" data-count=\"0\"></pre>")) << p->dom;
    EXPECT_TRUE(console_lines(p->log).empty()) << console_lines(p->log).front();
    // The job's row, running, and both workers with their roles.
    EXPECT_TRUE(contains(p->dom, "<tr data-job=\"" + job + "\" data-state=\"running\">")) << p->dom;
    EXPECT_TRUE(contains(p->dom, "<tr data-worker=\"synth-1\"><td>synth-1</td><td>synth</td>")) << p->dom;
    EXPECT_TRUE(contains(p->dom, "<tr data-worker=\"prove-1\"><td>prove-1</td><td>prove</td>")) << p->dom;
    EXPECT_TRUE(contains(p->dom, "<span>running jobs</span>")) << p->dom;
  }
  ASSERT_TRUE(a.found) << first.dom;
  ASSERT_TRUE(b.found) << second.dom;
  EXPECT_EQ(a.partitions, 3000u);
  EXPECT_EQ(a.cells, 375u) << "3000 partitions drawn 8 to a cell (at most 400 cells)";
  EXPECT_GT(a.verified, 0u);
  EXPECT_GT(b.verified, a.verified) << "the strip did not advance between two loads";
  EXPECT_LE(b.verified, s["verified"].get<uint64_t>());
  EXPECT_GE(b.verified_cells, a.verified_cells);
  EXPECT_GT(b.verified_cells, 0u);
}

}  // namespace
}  // namespace zkmill::test
