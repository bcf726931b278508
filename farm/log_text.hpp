// SPDX-License-Identifier: MIT
// Peer-supplied text made safe for a log line: a worker's id, a job id from a message, the
// error of a task_failed. Control characters (a newline would forge a whole log line, an
// escape sequence would drive the operator's terminal), backslashes and bytes outside
// printable ASCII are written as \n, \t, \\ or \xNN, and the text is cut at `max` bytes with
// a note of the original length, so one message cannot flood the log either.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zkmill::farm {

std::string printable(std::string_view s, size_t max = 200);

}  // namespace zkmill::farm
