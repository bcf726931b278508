// SPDX-License-Identifier: MIT
// Entry point of the one zkmill binary: global flags (--log-level, --config), the registered
// subcommands (command.hpp), config loading and logging setup, and uniform error reporting:
// "zkmill: error: ..." on stderr and exit status 1, whether the command line, the config file
// or the command itself was at fault (the message says which).
#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "app/command.hpp"
#include "common/util/config.hpp"
#include "common/util/log.hpp"
#include "common/util/thread_pool.hpp"
#include "zkmill/build_info.hpp"

namespace zkmill::cli {
namespace {

constexpr int kExitFailure = 1;

void print_error(const std::string& msg) { std::cerr << "zkmill: error: " << msg << "\n"; }

int run_main(int argc, char** argv) {
  CLI::App app{"zkmill: a Groth16 proving farm (coordinator + synth/prove workers, CPU and CUDA provers).", "zkmill"};
  app.set_version_flag("--version", std::string("zkmill ") + build::kVersion + " (commit " + build::kGitCommit + ")");
  app.set_help_all_flag("--help-all", "Print help for zkmill and every subcommand, then exit");
  // Global flags are accepted after the subcommand too ("zkmill info --log-level debug").
  app.fallthrough();
  app.require_subcommand(0, 1);

  std::string log_level;
  std::string config_path;
  app.add_option("--log-level", log_level,
                 std::string("Logging level: ") + util::kLogLevelNames + " (overrides log.level from --config)")
      ->type_name("LEVEL")
      ->check(CLI::Validator(
          [](std::string& v) {
            return util::is_log_level(v)
                       ? std::string()
                       : "invalid log level '" + v + "' (expected one of " + util::kLogLevelNames + ")";
          },
          "", "log level"));
  app.add_option("--config", config_path, "YAML configuration file (keys: docs/config.md)")->type_name("FILE");

  // Sorted so that --help lists commands alphabetically whatever the static-init order.
  auto specs = command_registry();
  std::sort(specs.begin(), specs.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return std::strcmp(a.name, b.name) < 0; });
  std::map<const CLI::App*, RunFn> runners;
  std::map<const CLI::App*, int> usage_exit;
  for (const auto& spec : specs) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.description);  // throws on a duplicate name
    // CLI11 shows a subcommand's own options only; point at the global ones.
    sub->footer("Global options (--log-level, --config) work here too; see 'zkmill --help'.");
    runners[sub] = spec.setup(*sub);
    usage_exit[sub] = spec.usage_error_exit;
  }
  // The exit status of a usage error: the chosen command's (verify: 2), else 1. CLI11 lists a
  // subcommand as chosen as soon as it starts parsing it, so this holds for its own errors too.
  auto usage_error = [&] {
    const auto chosen = app.get_subcommands();
    return chosen.empty() ? kExitFailure : usage_exit.at(chosen.front());
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";  // CLI11 prints it without a newline
    return 0;
  } catch (const CLI::ExtrasError& e) {
    // "zkmill frob": CLI11 only says the argument was not expected.
    const auto rest = app.remaining();
    if (app.get_subcommands().empty() && !rest.empty() && !rest.front().empty() && rest.front()[0] != '-') {
      print_error("unknown command '" + rest.front() + "'");
    } else {
      print_error(e.what());
    }
    std::cerr << "Run 'zkmill --help' for usage.\n";
    return usage_error();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --help-all
    print_error(e.what());
    std::cerr << "Run 'zkmill --help' for usage.\n";
    return usage_error();
  }

  const auto chosen = app.get_subcommands();
  if (chosen.empty()) {
    std::cerr << app.help();
    print_error("no command given");
    return kExitFailure;
  }

  Context ctx;
  ctx.config_path = config_path;
  // A ConfigError's message already names the file and the key.
  if (!config_path.empty()) {
    try {
      ctx.config = util::load_config(config_path);
    } catch (const std::exception& e) {
      print_error(e.what());
      return usage_error();
    }
  }
  ctx.log_level = log_level.empty() ? ctx.config.log.level : log_level;
  util::init_logging(ctx.log_level, ctx.config.log.file);
  // Before any command can touch the global pool, which fixes its size on first use.
  util::ThreadPool::set_global_threads(ctx.config.threads);
  spdlog::debug("zkmill {} ({}), command '{}', config '{}'", build::kVersion, build::kGitCommit,
                chosen.front()->get_name(), config_path.empty() ? "(defaults)" : config_path);

  const int rc = runners.at(chosen.front())(ctx);
  spdlog::default_logger()->flush();  // the file sink flushes by itself only from warn up
  return rc;
}

}  // namespace
}  // namespace zkmill::cli

int main(int argc, char** argv) {
  try {
    return zkmill::cli::run_main(argc, argv);
  } catch (const std::exception& e) {
    zkmill::cli::print_error(e.what());
  } catch (...) {
    zkmill::cli::print_error("unknown exception");
  }
  return zkmill::cli::kExitFailure;
}
