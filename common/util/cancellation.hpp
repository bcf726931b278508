// SPDX-License-Identifier: MIT
// Cooperative cancellation of long computations: a farm worker's synthesis or CPU proof of a
// partition whose job was cancelled (or ended otherwise) stops at its next cancellation point
// instead of running to the end only for its result to be refused. The request is a
// std::stop_token (the task's std::stop_source is the worker's); the computation checks it
// between phases and between the parts of a circuit, never inside a kernel, so a check costs
// one atomic load and a stopped computation leaves nothing half-written that anyone reads.
#pragma once

#include <stdexcept>
#include <stop_token>
#include <string>

namespace zkmill::util {

// Thrown at a cancellation point once a stop was requested; `what` names the computation.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A cancellation point: throws Cancelled when `stop` has been requested (a default-constructed
// token never is).
inline void throw_if_cancelled(const std::stop_token& stop, const char* what) {
  if (stop.stop_requested()) [[unlikely]]
    throw Cancelled(std::string(what) + " cancelled");
}

}  // namespace zkmill::util
