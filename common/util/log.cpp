// SPDX-License-Identifier: MIT
// init_logging: builds the stderr (+ file) sink set and makes it spdlog's default logger.
#include "common/util/log.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace zkmill::util {

namespace {
constexpr std::array<std::pair<std::string_view, spdlog::level::level_enum>, 6> kLevels{{
    {"trace", spdlog::level::trace},
    {"debug", spdlog::level::debug},
    {"info", spdlog::level::info},
    {"warn", spdlog::level::warn},
    {"error", spdlog::level::err},
    {"off", spdlog::level::off},
}};
}  // namespace

bool is_log_level(std::string_view name) {
  for (const auto& [n, l] : kLevels) {
    if (n == name) return true;
  }
  return false;
}

spdlog::level::level_enum parse_log_level(std::string_view name) {
  for (const auto& [n, l] : kLevels) {
    if (n == name) return l;
  }
  throw std::invalid_argument("invalid log level '" + std::string(name) + "' (expected one of " + kLogLevelNames + ")");
}

void init_logging(std::string_view level, const std::string& file) {
  const auto lvl = parse_log_level(level);
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  if (!file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, /*truncate=*/false));
    } catch (const spdlog::spdlog_ex& e) {
      throw std::runtime_error("cannot open log file '" + file + "': " + e.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>("zkmill", sinks.begin(), sinks.end());
  logger->set_level(lvl);
  // Millisecond timestamps and thread ids: enough to line up a worker's log with the
  // coordinator's without a tracing system.
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%t] %v");
  // Warnings and errors reach the file at once even if the process dies right after.
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace zkmill::util
