// SPDX-License-Identifier: MIT
// Process-wide logging setup on top of spdlog: one named level vocabulary shared by the CLI
// flag --log-level and the config key log.level, logs to stderr (stdout is kept for command
// output such as `zkmill info --json`) and optionally to a file as well.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

namespace zkmill::util {

// The accepted level names, in order of verbosity; for help texts and error messages.
inline constexpr const char* kLogLevelNames = "trace|debug|info|warn|error|off";

// True when `name` is one of kLogLevelNames.
bool is_log_level(std::string_view name);

// Maps a level name to spdlog's level. Throws std::invalid_argument naming the bad value and
// the accepted ones. spdlog's own from_str is not used: it maps any typo to "off", which
// would silently disable logging.
spdlog::level::level_enum parse_log_level(std::string_view name);

// Installs the default logger: stderr, plus `file` (appended to) when non-empty, at `level`.
// Safe to call again (tests, a CLI that reconfigures after reading its config file). Throws
// std::invalid_argument for a bad level and std::runtime_error naming the file when it
// cannot be opened.
void init_logging(std::string_view level, const std::string& file = "");

}  // namespace zkmill::util
