// SPDX-License-Identifier: MIT
// printable(): escape, then cut.
#include "farm/log_text.hpp"

#include <cstdio>

namespace zkmill::farm {

std::string printable(std::string_view s, size_t max) {
  std::string out;
  const size_t n = s.size() < max ? s.size() : max;
  out.reserve(n + 16);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\\')
      out += "\\\\";
    else if (c < 0x20 || c >= 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  if (s.size() > max) out += "...(" + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace zkmill::farm
