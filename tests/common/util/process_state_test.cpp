// SPDX-License-Identifier: MIT
// process_state / process_exited on real processes: this one, a forked child that runs, one that
// has died but is not reaped (a zombie, which kill(pid, 0) still answers), and one reaped.
#include "common/util/process_state.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "tests/support/forked_child.hpp"

namespace zkmill::test {

using zkmill::util::process_exited;
using zkmill::util::process_state;

TEST(ProcessState, ThisProcessRuns) {
  const char s = process_state(getpid());
  EXPECT_TRUE(s == 'R' || s == 'S') << "state '" << s << "'";
  EXPECT_FALSE(process_exited(getpid()));
}

TEST(ProcessState, ALiveChildRuns) {
  ForkedChild child(true);
  ASSERT_GT(child.pid(), 0);
  EXPECT_NE(process_state(child.pid()), '\0');
  EXPECT_NE(process_state(child.pid()), 'Z');
  EXPECT_FALSE(process_exited(child.pid()));
}

TEST(ProcessState, AZombieHasExitedThoughKillStillAnswers) {
  ForkedChild child(false);
  ASSERT_GT(child.pid(), 0);
  ASSERT_EQ(child.wait_for_state('Z'), 'Z');
  EXPECT_EQ(kill(child.pid(), 0), 0) << "a zombie answers kill(pid, 0): the reason for this helper";
  EXPECT_TRUE(process_exited(child.pid()));
}

TEST(ProcessState, AReapedChildIsGone) {
  ForkedChild child(false);
  const pid_t pid = child.pid();
  ASSERT_GT(pid, 0);
  child.reap();
  EXPECT_EQ(process_state(pid), '\0');
  EXPECT_TRUE(process_exited(pid));
}

TEST(ProcessState, NonPositivePidsAreNotProcesses) {
  EXPECT_EQ(process_state(0), '\0');
  EXPECT_EQ(process_state(-1), '\0');
  EXPECT_TRUE(process_exited(0));  // kill(0, 0) would signal our own process group
  EXPECT_TRUE(process_exited(-1));
}

}  // namespace zkmill::test
