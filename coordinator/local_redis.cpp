// SPDX-License-Identifier: MIT
// LocalRedis: fork/exec of redis-server, readiness by PING, SIGTERM then SIGKILL on the way out.
#include "coordinator/local_redis.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "farm/redis_client.hpp"

namespace zkmill::farm {

namespace {

const char* kInstallHint =
    "redis-server was not found on PATH; the embedded farm needs it. Install Redis (Debian/Ubuntu: "
    "`apt-get install redis-server`; Fedora: `dnf install redis`; macOS: `brew install redis`), or run "
    "`zkmill demo --no-farm` for the in-process pipeline without the farm";

std::string tail_of(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  return s.size() > 600 ? s.substr(s.size() - 600) : s;
}

}  // namespace

bool LocalRedis::available() {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string d;
  while (std::getline(ss, d, ':'))
    if (!d.empty() && access((d + "/redis-server").c_str(), X_OK) == 0) return true;
  return false;
}

LocalRedis::LocalRedis(const std::string& dir, const std::vector<std::string>& extra) : log_(dir + "/redis.log") {
  if (!available()) throw std::runtime_error(kInstallHint);
  cfg_.unix_socket = dir + "/redis.sock";
  cfg_.connect_timeout_ms = 500;
  // Everything the child needs is prepared before fork: between fork and exec only
  // async-signal-safe calls are allowed (we are multithreaded).
  std::vector<std::string> args{"redis-server",
                                "--port",
                                "0",
                                "--unixsocket",
                                cfg_.unix_socket,
                                "--unixsocketperm",
                                "700",
                                "--dir",
                                dir,
                                "--save",
                                "",
                                "--appendonly",
                                "no",
                                "--daemonize",
                                "no",
                                "--logfile",
                                log_};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("cannot fork for redis-server");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, 0);
      dup2(devnull, 1);
      dup2(devnull, 2);
    }
    execvp("redis-server", argv.data());
    _exit(127);
  }
  RedisClient probe(cfg_);
  for (int i = 0; i < 200; ++i) {  // up to ~10 s on a loaded box
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("redis-server exited at start: " + tail_of(log_));
    }
    try {
      if (probe.command({"PING"}).as_string() == "PONG") return;
    } catch (const RedisError&) {
      probe.disconnect();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop();
  throw std::runtime_error("redis-server did not answer within 10 s: " + tail_of(log_));
}

LocalRedis::~LocalRedis() { stop(); }

void LocalRedis::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {  // redis exits on SIGTERM at once (nothing to save)
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace zkmill::farm
