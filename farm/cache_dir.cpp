// SPDX-License-Identifier: MIT
// default_cache_dir: the XDG base directory rule, with systemd's CacheDirectory= first.
#include "farm/cache_dir.hpp"

#include <cstdlib>
#include <cstring>

namespace zkmill::farm {

std::string default_cache_dir() {
  if (const char* c = std::getenv("CACHE_DIRECTORY"); c && *c) return std::string(c, std::strcspn(c, ":"));
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/zkmill";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/zkmill";
  return {};
}

}  // namespace zkmill::farm
