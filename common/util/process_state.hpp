// SPDX-License-Identifier: MIT
// Whether a process of this machine is still running, as the farm's restart logic needs it.
//
// kill(pid, 0) is not enough: a process that has died stays a zombie, and answers kill(pid, 0),
// until its parent reaps it. Farm processes outlive the script that started them, so their
// parent becomes init, which on some machines reaps only every few seconds. A coordinator
// restarted right after a kill -9, or a script stopping a farm, must count such a zombie as gone
// (farm/coordinator_lease.cpp, deploy/local-farm.sh's `running`).
#pragma once

#include <sys/types.h>

namespace zkmill::util {

// The state letter of process `pid` in this pid namespace, from /proc/PID/stat ('R', 'S', 'D',
// 'T', 'Z' for a zombie, ...), or '\0' when there is no such process.
char process_state(pid_t pid);

// True when `pid` has exited: there is no such process, or it is a zombie. A process that exists
// but belongs to another user (kill answers EPERM) is running.
bool process_exited(pid_t pid);

}  // namespace zkmill::util
