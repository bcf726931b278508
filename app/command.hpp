// SPDX-License-Identifier: MIT
// The zkmill subcommand registry. A subcommand is one file, app/cmd_<name>.cpp, holding
// a setup function and a static RegisterCommand object; main.cpp adds every registered command
// to the CLI11 app. No list of commands exists anywhere else, so engineers adding commands in
// parallel never edit the same file.
//
// Pattern for a new command (see cmd_info.cpp for a complete one):
//
//   // cmd_frob.cpp: `zkmill frob`, frobnicates the widgets.
//   // zkmill-cli-links: zk_groth16 zk_formats      <- libraries beyond zk_util/zk_cuda, if any
//   #include "app/command.hpp"
//   namespace zkmill::cli {
//   namespace {
//   RunFn setup_frob(CLI::App& sub) {
//     auto opts = std::make_shared<FrobOptions>();           // outlives setup: the RunFn owns it
//     sub.add_option("--count", opts->count, "How many");
//     return [opts](const Context& ctx) { return frob(ctx, *opts); };
//   }
//   const RegisterCommand kFrob{"frob", "Frobnicate the widgets", setup_frob};
//   }  // namespace
//   }  // namespace zkmill::cli
//
// The "zkmill-cli-links:" line is read by zkmill_cli_commands() in the top-level CMakeLists:
// the binary links zk_util, CLI11, nlohmann_json, spdlog, yaml-cpp (and zk_cuda when built)
// plus exactly what command files list there.
//
// All command files link into one executable: keep every helper, and any extern "C" signal
// handler, inside the anonymous namespace or `static`, or two commands' `on_signal`s collide.
//
// The RunFn runs after parsing, once the config file is loaded, logging is set up and the
// global ThreadPool is sized; it returns the process exit code and may throw (the message is
// printed as "zkmill: error: ...", exit code 1, or the command's usage_error_exit).
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <functional>
#include <string>
#include <vector>

#include "common/util/config.hpp"

namespace zkmill::cli {

// What every command gets from the global flags.
struct Context {
  util::Config config;      // from --config, or all defaults
  std::string config_path;  // empty when no --config was given
  std::string log_level;    // the effective level (--log-level, else config log.level)
};

using RunFn = std::function<int(const Context&)>;
// Adds the command's options to `sub` and returns what to run if the command is chosen.
using SetupFn = RunFn (*)(CLI::App& sub);

struct CommandSpec {
  const char* name;
  const char* description;
  SetupFn setup;
  // Exit status for a command-line or config error of this command. 1 for most; 2 for
  // commands whose 1 means something else (`verify`: 1 is "the proof does not verify").
  int usage_error_exit = 1;
};

// A validator for unsigned 64-bit options (--seed, --partition, ...): plain decimal digits
// that fit in 64 bits; use with ->transform() (it normalises the text CLI11 then converts).
// CLI11 alone converts with strtoull, which wraps "-1" to 2^64 - 1,
// saturates values beyond 2^64 - 1 and reads "010" as octal; each would silently prove another
// statement than the one asked for.
inline CLI::Validator decimal_u64(const std::string& what) {
  return CLI::Validator(
      [what](std::string& v) -> std::string {
        uint64_t x = 0;
        const char* end = v.data() + v.size();
        const bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
        const auto r = std::from_chars(v.data(), end, x);
        if (!digits || r.ec != std::errc() || r.ptr != end)
          return what + " must be a decimal integer from 0 to 18446744073709551615 (2^64 - 1), not '" + v + "'";
        v = std::to_string(x);  // "010" is ten here; CLI11's own conversion would read octal
        return {};
      },
      "UINT64", "decimal_u64");
}

// Every registered command, in registration (i.e. unspecified static-init) order; main sorts
// them by name. A function-local static, so registrars in any translation unit may run before
// main's and still find it constructed.
inline std::vector<CommandSpec>& command_registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}

// Constructing one at namespace scope registers a command before main runs.
struct RegisterCommand {
  RegisterCommand(const char* name, const char* description, SetupFn setup, int usage_error_exit = 1) {
    command_registry().push_back(CommandSpec{name, description, setup, usage_error_exit});
  }
};

}  // namespace zkmill::cli
