// SPDX-License-Identifier: MIT
// SIGPIPE held back on the calling thread for a scope, so that a write to a connection the peer
// has reset fails with EPIPE instead of ending the process. OpenSSL writes with write(2), which
// has no MSG_NOSIGNAL, and zkmill is a library as well as a program (tests and embedders keep
// SIGPIPE's default action), so the TLS tunnel's writes are wrapped in this rather than the
// process ignoring the signal. On Linux the first write after a reset fails with ECONNRESET
// without a signal and the tunnel stops at the first failure, so this is a guard for what the
// kernel or OpenSSL might do otherwise, not a path the tests reach. A SIGPIPE raised in the
// scope is taken off the thread before the old mask comes back.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <ctime>

namespace zkmill::farm {

class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
};

}  // namespace zkmill::farm
