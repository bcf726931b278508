// SPDX-License-Identifier: MIT
// Test support: the services a test runs beside it (redis-server, sentinels, the coordinator,
// workers) as child processes, each with its own log file, stopped when the test ends; plus
// what starting them needs: a free loopback port, bounded waits, exit statuses. One copy for
// every test that starts processes (tests/system, tests/coordinator), so a fix to how children
// are stopped or reaped lands everywhere at once. Every wait is bounded.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/process.hpp"

namespace zkmill::test {

// A loopback TCP port the kernel considers free right now (the race until our server binds
// it is harmless on a test box: a clash fails the start loudly).
inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) close(fd);
    ADD_FAILURE() << "no free port";
    return 0;
  }
  close(fd);
  return ntohs(a.sin_port);
}

// A socket listening on a free loopback port that never accepts: the kernel completes each
// client's TCP handshake into its backlog, so a client connects and then waits for an answer
// that never comes (a hung or hostile server). {-1, 0} and a test failure when it cannot.
struct LoopbackListener {
  int fd = -1;
  int port = 0;
};
inline LoopbackListener loopback_listener() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 8) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) close(fd);
    ADD_FAILURE() << "no loopback listener";
    return {};
  }
  return {fd, ntohs(a.sin_port)};
}

// Polls `pred` every `step` until it holds (true) or `limit` has passed (false).
template <class Pred>
bool eventually(std::chrono::milliseconds limit, Pred pred,
                std::chrono::milliseconds step = std::chrono::milliseconds(20)) {
  for (const auto end = std::chrono::steady_clock::now() + limit;; std::this_thread::sleep_for(step)) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
  }
}

inline size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// A waitpid status as a shell reports it: the exit code, or 128 + the signal.
inline int exit_status(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

// Waits up to `limit` for child `p` to exit by itself: its exit status, or -1 while it runs.
inline int wait_exit(pid_t p, std::chrono::milliseconds limit) {
  int result = -1;
  eventually(limit, [&] {
    int st = 0;
    if (waitpid(p, &st, WNOHANG) != p) return false;
    result = exit_status(st);
    return true;
  });
  return result;
}

// SIGTERM (a worker drains, a server shuts down), up to `grace`, then SIGKILL; reaps the child
// and returns its exit status.
inline int stop_process(pid_t p, std::chrono::milliseconds grace = std::chrono::seconds(10)) {
  if (p <= 0) return -1;
  kill(p, SIGTERM);
  if (int st = wait_exit(p, grace); st >= 0) return st;
  kill(p, SIGKILL);
  int st = 0;
  waitpid(p, &st, 0);
  return exit_status(st);
}

// SIGKILL and reap: a crash, or a fast teardown of processes whose exit does not matter.
inline void kill_process(pid_t p) {
  if (p <= 0) return;
  kill(p, SIGKILL);
  waitpid(p, nullptr, 0);
}

// Named child processes with their logs in one directory (NAME.log: stdout and stderr), stopped
// in reverse start order when this goes (workers before the coordinator before Redis).
class ChildProcesses {
 public:
  // How children still running at the end are stopped: SIGTERM first (graceful: workers drain,
  // a graceful exit's status can be checked) or SIGKILL at once (fast).
  enum class Teardown { Terminate, Kill };

  explicit ChildProcesses(fs::path log_dir = {}, Teardown how = Teardown::Terminate)
      : dir_(std::move(log_dir)), how_(how) {}
  ~ChildProcesses() { stop_all(); }
  ChildProcesses(const ChildProcesses&) = delete;
  ChildProcesses& operator=(const ChildProcesses&) = delete;

  void set_log_dir(fs::path dir) { dir_ = std::move(dir); }
  const fs::path& log_dir() const { return dir_; }

  // Starts `args` (args[0] looked up in PATH) with its output appended to NAME.log.
  pid_t spawn(const std::string& name, const std::vector<std::string>& args) {
    const pid_t p = spawn_background(args, log_path(name));
    procs_.emplace_back(name, p);
    return p;
  }
  // The pid of the last child started as `name` that is still ours (0: none).
  pid_t pid(const std::string& name) const {
    for (auto it = procs_.rbegin(); it != procs_.rend(); ++it)
      if (it->first == name) return it->second;
    return 0;
  }

  // stop_process() of a child; it is forgotten, so teardown never signals its (reusable) pid.
  int stop(pid_t p) {
    forget(p);
    return stop_process(p);
  }
  void kill9(pid_t p) {
    forget(p);
    kill_process(p);
  }
  // wait_exit() of a child; forgotten once it has exited.
  int wait_exit(pid_t p, std::chrono::milliseconds limit) {
    const int st = zkmill::test::wait_exit(p, limit);
    if (st >= 0) forget(p);
    return st;
  }
  void stop_all() {
    for (auto it = procs_.rbegin(); it != procs_.rend(); ++it) {
      if (how_ == Teardown::Kill)
        kill_process(it->second);
      else
        stop_process(it->second);
    }
    procs_.clear();
  }

  fs::path log_path(const std::string& name) const { return dir_ / (name + ".log"); }
  std::string log(const std::string& name) const { return slurp(log_path(name)); }
  // Every child's log, each under a "--- NAME" line: the message of a failed assertion.
  std::string all_logs() const {
    std::string s;
    for (const auto& [name, p] : started_names()) s += "--- " + name + "\n" + log(name);
    return s;
  }

 private:
  void forget(pid_t p) {
    for (auto& [name, pid] : procs_)
      if (pid == p) pid = 0;
  }
  std::vector<std::pair<std::string, pid_t>> started_names() const {
    std::vector<std::pair<std::string, pid_t>> seen;
    for (const auto& e : procs_) {
      bool dup = false;
      for (const auto& s : seen) dup = dup || s.first == e.first;
      if (!dup) seen.push_back(e);
    }
    return seen;
  }

  fs::path dir_;
  Teardown how_;
  std::vector<std::pair<std::string, pid_t>> procs_;  // in start order; pid 0: stopped or exited
};

// A private redis-server on a unix socket, LOG_DIR/NAME.sock (no TCP port, nothing saved), as a
// child of `c`. With `user`, the default user is switched off and only `user`/`password` may
// connect (limited to the farm's zk: keys and channels). Returns the socket path; "" and a test
// failure when it did not come up.
inline std::string start_redis(ChildProcesses& c, const std::string& name = "redis", const std::string& user = "",
                               const std::string& password = "") {
  const std::string socket = (c.log_dir() / (name + ".sock")).string();
  std::vector<std::string> args{"redis-server", "--port", "0",     "--unixsocket",      socket, "--save", "",
                                "--appendonly", "no",     "--dir", c.log_dir().string()};
  if (!user.empty())
    args.insert(args.end(),
                {"--user", "default", "off", "--user", user, "on", ">" + password, "~zk:*", "&zk:*", "+@all"});
  c.spawn(name, args);
  // Ready once a connection is accepted: the socket file appears at bind(), a moment before
  // listen(), and a client connecting in between is refused (a flake seen under load).
  auto accepts = [&] {
    if (!fs::exists(socket)) return false;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket.c_str());
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
  };
  if (!eventually(std::chrono::seconds(5), accepts)) {
    ADD_FAILURE() << "redis-server did not start: " << c.log(name);
    return "";
  }
  return socket;
}

}  // namespace zkmill::test
