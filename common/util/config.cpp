// SPDX-License-Identifier: MIT
// YAML -> Config with strict checking. Each mapping is read through a Section, which
// remembers which keys were consumed so that anything left over is reported as unknown,
// with its full dotted path.
#include "common/util/config.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "common/util/input_file.hpp"
#include "common/util/log.hpp"

namespace zkmill::util {

namespace {

// One YAML mapping at a dotted path ("" for the top level) in one source file.
class Section {
 public:
  Section(const YAML::Node& node, std::string path, std::string source)
      : node_(or_empty_map(node)), path_(std::move(path)), source_(std::move(source)) {
    if (!node_.IsMap()) {
      fail(path_.empty() ? std::string("the top level must be a mapping of keys to values")
                         : "key '" + path_ + "' must be a mapping (a section of keys)");
    }
  }

  // A section left out, or written with nothing under it ("log:"), reads as an empty one.
  // Decided before node_ is bound: assigning to a yaml-cpp Node writes through to the node it
  // refers to (and throws for a missing key's placeholder) instead of rebinding it.
  static YAML::Node or_empty_map(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return YAML::Node(YAML::NodeType::Map);
    return n;
  }

  [[noreturn]] void fail(const std::string& what) const { throw ConfigError(source_ + ": " + what); }

  std::string key(const std::string& name) const { return path_.empty() ? name : path_ + "." + name; }

  // The value under `name`, marked as consumed; undefined when absent. Looked up through a
  // const node: yaml-cpp's non-const operator[] inserts missing keys into the mapping.
  YAML::Node take(const std::string& name) {
    seen_.insert(name);
    const YAML::Node& map = node_;
    return map[name];
  }

  Section section(const std::string& name) { return Section(take(name), key(name), source_); }

  // Leaves `out` as is when the key is absent.
  void get_string(const std::string& name, std::string& out, bool allow_null = false) {
    YAML::Node v = take(name);
    if (!v.IsDefined()) return;
    if (v.IsNull() && allow_null) {
      out.clear();
      return;
    }
    if (!v.IsScalar()) fail("key '" + key(name) + "' must be a string");
    out = v.Scalar();
  }

  void get_size(const std::string& name, size_t& out, size_t max) {
    YAML::Node v = take(name);
    if (!v.IsDefined()) return;
    const std::string bad = "key '" + key(name) + "' must be a non-negative integer";
    if (!v.IsScalar()) fail(bad);
    const std::string& s = v.Scalar();
    size_t x = 0;
    // from_chars rejects signs, blanks and exponents; requiring it to consume the whole
    // scalar rejects "4 cores" and "1.5" too.
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (s.empty() || ec == std::errc::invalid_argument || end != s.data() + s.size()) fail(bad);
    if (ec == std::errc::result_out_of_range || x > max) {
      fail("key '" + key(name) + "' must be at most " + std::to_string(max) + " (got " + s + ")");
    }
    out = x;
  }

  // Call after reading every known key: anything else in the mapping is a mistake.
  void reject_unknown() const {
    for (const auto& kv : node_) {
      const std::string name = kv.first.Scalar();
      if (seen_.count(name)) continue;
      std::string msg = "unknown key '" + key(name) + "'";
      // "log.level: debug" at the top level is a common slip for a nested section.
      if (name.find('.') != std::string::npos) {
        msg +=
            " (nested keys are written as sections: '" + name.substr(0, name.find('.')) + ":' then the rest indented)";
      }
      fail(msg);
    }
  }

 private:
  YAML::Node node_;
  std::string path_;
  std::string source_;
  std::set<std::string> seen_;
};

void parse_log(Section s, LogConfig& out) {
  s.get_string("level", out.level);
  if (!is_log_level(out.level)) {
    s.fail("key '" + s.key("level") + "' must be one of " + kLogLevelNames + " (got '" + out.level + "')");
  }
  s.get_string("file", out.file, /*allow_null=*/true);
  s.reject_unknown();
}

}  // namespace

YAML::Node load_yaml(const std::string& yaml_text, const std::string& source) {
  try {
    return YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's mark is 0-based; editors count from 1.
    std::string where = source;
    if (!e.mark.is_null()) where += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    throw ConfigError(where + ": invalid YAML: " + e.msg);
  }
}

std::string read_config_file(const std::string& path) {
  // Regular files only (a directory, FIFO or device is refused by name), and a config is
  // small: 16 MiB bounds a wrong path pointing at something huge.
  try {
    return read_input_file(path, uint64_t(16) << 20);
  } catch (const InputFileError& e) {
    // "<path>: cannot read file: <why>", the documented form (docs/config.md).
    std::string why = e.what();
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    if (why.rfind("cannot open: ", 0) == 0) why.erase(0, 13);
    throw ConfigError(path + ": cannot read file: " + why);
  }
}

Config parse_config(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_yaml(yaml_text, source);
  Config cfg;
  Section top(root, "", source);
  parse_log(top.section("log"), cfg.log);
  top.get_size("threads", cfg.threads, kMaxConfigThreads);
  // The farm's sections belong to the farm layer, which validates them just as strictly
  // (farm/farm_config.cpp); here they are only passed over, so one file can
  // configure every command and `zkmill --config FILE worker` works like `worker --config FILE`.
  for (const char* farm_section : {"redis", "coordinator", "worker", "zmq"}) top.take(farm_section);
  top.reject_unknown();
  return cfg;
}

Config load_config(const std::string& path) { return parse_config(read_config_file(path), path); }

}  // namespace zkmill::util
