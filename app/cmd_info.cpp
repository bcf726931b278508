// SPDX-License-Identifier: MIT
// `zkmill info`: what this binary is (version, commit, build type, compiler, backends) and what
// it can use here (CPU cores, the global thread pool, CUDA devices). First thing to paste into
// a bug report or a benchmark table; --json for scripts and tests.
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/command.hpp"
#include "common/util/thread_pool.hpp"
#include "zkmill/build_info.hpp"

#if defined(ZKMILL_HAVE_CUDA)
#include "cuda/runtime/device_query.hpp"
#endif

namespace zkmill::cli {
namespace {

struct Gpu {
  int index = 0;
  std::string name;
  size_t total_mem = 0;
  int sm_count = 0;
  int cc_major = 0;
  int cc_minor = 0;
};

struct InfoReport {
  std::vector<std::string> backends;
  std::string device_code;  // the CUDA backend's device code (SASS/PTX), empty without CUDA
  unsigned cpu_cores = 0;
  size_t threads = 0;
  std::vector<Gpu> gpus;
  std::string gpus_reason;  // why `gpus` is empty; empty when it is not
};

InfoReport gather() {
  InfoReport r;
  r.backends.push_back("cpu");
#if defined(ZKMILL_HAVE_CUDA)
  r.backends.push_back("cuda");
#if defined(ZKMILL_CUDA_DEVICE_CODE)
  // PTX only (a build on a machine without a GPU) means the driver compiles the kernels on
  // first use: worth seeing before the first proof takes minutes longer than the next.
  r.device_code = ZKMILL_CUDA_DEVICE_CODE;
#endif
  std::string err;
  for (const auto& g : cuda::query_gpus(&err)) {
    r.gpus.push_back(Gpu{g.index, g.name, g.total_mem, g.sm_count, g.cc_major, g.cc_minor});
  }
  if (r.gpus.empty()) r.gpus_reason = err.empty() ? "no CUDA device" : err;
#else
  r.gpus_reason = "CUDA backend not compiled";
#endif
  r.cpu_cores = std::thread::hardware_concurrency();
  // Creates the global pool, sized from the config's `threads`: reporting its real size
  // shows that setting took effect.
  r.threads = util::ThreadPool::global().size();
  return r;
}

std::string gib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

void print_text(const InfoReport& r) {
  std::string backends;
  for (const auto& b : r.backends) backends += (backends.empty() ? "" : ", ") + b;
  std::cout << "zkmill " << build::kVersion << "\n"
            << "  commit:     " << build::kGitCommit << "\n"
            << "  build type: " << build::kBuildType << "\n"
            << "  compiler:   " << build::kCompiler << "\n"
            << "  backends:   " << backends << "\n";
  if (!r.device_code.empty()) std::cout << "  device code: " << r.device_code << "\n";
  std::cout << "  CPU cores:  " << r.cpu_cores << "\n"
            << "  threads:    " << r.threads << " (global pool)\n";
  if (r.gpus.empty()) {
    std::cout << "  GPUs:       none (" << r.gpus_reason << ")\n";
    return;
  }
  std::cout << "  GPUs:       " << r.gpus.size() << "\n";
  for (const auto& g : r.gpus) {
    std::cout << "    [" << g.index << "] " << g.name << ", " << gib(g.total_mem) << ", " << g.sm_count
              << " SMs, compute capability " << g.cc_major << "." << g.cc_minor << "\n";
  }
}

void print_json(const InfoReport& r) {
  nlohmann::ordered_json j;
  j["version"] = build::kVersion;
  j["git_commit"] = build::kGitCommit;
  j["build_type"] = build::kBuildType;
  j["compiler"] = build::kCompiler;
  j["backends"] = r.backends;
  j["cuda_device_code"] = r.device_code.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.device_code);
  j["cpu_cores"] = r.cpu_cores;
  j["threads"] = r.threads;
  j["gpus"] = nlohmann::ordered_json::array();
  for (const auto& g : r.gpus) {
    j["gpus"].push_back({{"index", g.index},
                         {"name", g.name},
                         {"total_mem_bytes", g.total_mem},
                         {"sm_count", g.sm_count},
                         {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)}});
  }
  // null when GPUs were found, else the reason there are none.
  j["gpus_unavailable_reason"] = r.gpus.empty() ? nlohmann::ordered_json(r.gpus_reason) : nlohmann::ordered_json();
  std::cout << j.dump(2) << "\n";
}

struct InfoOptions {
  bool json = false;
};

RunFn setup_info(CLI::App& sub) {
  auto opts = std::make_shared<InfoOptions>();
  sub.add_flag("--json", opts->json, "Print the report as one JSON object");
  return [opts](const Context&) {
    const InfoReport r = gather();
    if (opts->json) {
      print_json(r);
    } else {
      print_text(r);
    }
    return 0;
  };
}

const RegisterCommand kInfo{"info", "Show version, build, backends and the CPUs/GPUs this machine offers", setup_info};

}  // namespace
}  // namespace zkmill::cli
