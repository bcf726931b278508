// SPDX-License-Identifier: MIT
// zkmill's configuration file (YAML): one schema for every command, documented key by key in
// docs/config.md. Strict on purpose: an unknown key, a wrong type or an unreadable file is an
// error naming the file and the key, because a silently ignored typo ("log.levle") on a
// proving farm shows up hours later as a worker doing the wrong thing.
//
// Adding a section (coordinator, worker, redis, zmq, ...) follows the `log` pattern:
//   1. a struct below with every field defaulted in place (the default IS the documented one),
//   2. a member of Config,
//   3. a parse_<section> function in config.cpp, called from parse_config,
//   4. its keys, types and defaults in docs/config.md.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace YAML {
class Node;
}

namespace zkmill::util {

// Any problem with a configuration file. what() is "<file>: <problem>", the problem naming
// the dotted key (e.g. "config.yaml: unknown key 'log.levle'").
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// log: where and how much to log (see log.hpp).
struct LogConfig {
  std::string level = "info";  // trace|debug|info|warn|error|off; --log-level overrides it
  std::string file;            // empty: stderr only; else also append to this file
};

struct Config {
  LogConfig log;
  // Size of the process-wide ThreadPool (ThreadPool::global()); 0 means one per core.
  size_t threads = 0;
};

// The most threads `threads` accepts; beyond this it is surely a typo, not a machine.
inline constexpr size_t kMaxConfigThreads = 4096;

// Reads and validates the file at `path`. Throws ConfigError. An empty file gives defaults.
Config load_config(const std::string& path);

// Same, from text; `source` stands in for the file name in error messages.
Config parse_config(const std::string& yaml_text, const std::string& source);

// The two steps every config file of ours goes through (this one and the farm's): the whole
// file as text (a directory or unreadable file is a ConfigError naming it), and the YAML parse,
// whose errors name source:line:column. Callers include <yaml-cpp/yaml.h>.
std::string read_config_file(const std::string& path);
YAML::Node load_yaml(const std::string& yaml_text, const std::string& source);

}  // namespace zkmill::util
