// SPDX-License-Identifier: MIT
// process_state, process_exited: /proc/PID/stat's state field (process_state.hpp says why).
#include "common/util/process_state.hpp"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace zkmill::util {

char process_state(pid_t pid) {
  if (pid <= 0) return '\0';
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return '\0';
  // "pid (comm) S ...": comm may hold spaces and ')', so the state follows the last ')'.
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() ? line[close + 2] : '\0';
}

bool process_exited(pid_t pid) {
  if (pid <= 0) return true;
  if (kill(pid, 0) != 0) return errno == ESRCH;  // EPERM: it exists, someone else's
  const char state = process_state(pid);
  return state == '\0' || state == 'Z';  // '\0': it exited between the two calls
}

}  // namespace zkmill::util
