// SPDX-License-Identifier: MIT
// zmq::poll for loops that are stopped by a signal handler setting a flag (SIGTERM drains a
// worker, stops the coordinator): poll(2) fails with EINTR when the signal lands during the
// wait, whatever SA_RESTART says, and cppzmq turns that into an exception that would end the
// process with "Interrupted system call" instead of the orderly drain. Here an interrupted
// wait is just a wait that returned early; the caller's loop then sees the flag.
#pragma once

#include <cerrno>
#include <chrono>
#include <zmq.hpp>

namespace zkmill::farm {

inline size_t signal_safe_poll(zmq::pollitem_t* items, size_t n, std::chrono::milliseconds timeout) {
  try {
    return size_t(zmq::poll(items, n, timeout));
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) throw;
    for (size_t i = 0; i < n; ++i) items[i].revents = 0;
    return 0;
  }
}

}  // namespace zkmill::farm
