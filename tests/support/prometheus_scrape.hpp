// SPDX-License-Identifier: MIT
// Test support: the coordinator's Prometheus endpoint read over HTTP, as a scraper would.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <sstream>
#include <string>

namespace zkmill::test {

// GET /metrics, parsed into "name{labels}" -> value (the Prometheus text format: one sample a
// line, "#" lines are help and type).
inline std::map<std::string, double> scrape(int port) {
  httplib::Client http("127.0.0.1", port);
  http.set_connection_timeout(5);
  http.set_read_timeout(10);
  auto res = http.Get("/metrics");
  std::map<std::string, double> out;
  if (!res || res->status != 200) {
    ADD_FAILURE() << "scrape of 127.0.0.1:" << port << "/metrics failed";
    return out;
  }
  std::istringstream in(res->body);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

// A sample that must exist (a missing one fails the test rather than reading as 0).
inline double sample(const std::map<std::string, double>& m, const std::string& key) {
  auto it = m.find(key);
  if (it == m.end()) {
    ADD_FAILURE() << "no sample " << key;
    return -1;
  }
  return it->second;
}

}  // namespace zkmill::test
