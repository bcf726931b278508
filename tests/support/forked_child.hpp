// SPDX-License-Identifier: MIT
// A forked child of the test process, for tests of code that judges whether a process still runs
// (common/util/process_state.hpp, farm/coordinator_lease.cpp): a live one pauses until killed; the
// other exits at once and stays a zombie (it answers kill(pid, 0)) until reap().
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/util/process_state.hpp"

namespace zkmill::test {

class ForkedChild {
 public:
  explicit ForkedChild(bool live) : pid_(fork()) {
    if (pid_ == 0) {
      if (live)
        for (;;) pause();
      _exit(0);
    }
  }
  ~ForkedChild() { reap(); }
  ForkedChild(const ForkedChild&) = delete;
  ForkedChild& operator=(const ForkedChild&) = delete;

  pid_t pid() const { return pid_; }

  // Kills (if live) and reaps the child; its pid is then free for the system to reuse.
  void reap() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  // Waits (up to 2 s) until the child's state letter is `want`; returns the letter seen last.
  char wait_for_state(char want) const {
    char s = util::process_state(pid_);
    for (int i = 0; i < 400 && s != want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      s = util::process_state(pid_);
    }
    return s;
  }

 private:
  pid_t pid_;
};

}  // namespace zkmill::test
