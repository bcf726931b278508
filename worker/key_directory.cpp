// KeyDirectory: one pass over the key directory at worker start (keys are immutable content).
#include "worker/key_directory.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

#include "common/groth16/key_file.hpp"
#include "coordinator/common/sha256.hpp"

namespace zkmill::farm {

KeyDirectory::KeyDirectory(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw std::runtime_error("worker.key_dir '" + dir + "' is not a directory");
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string path = e.path().string();
    if (e.path().extension() == ".json") continue;
    Key k;
    k.path = path;
    try {
      k.curve = groth16::peek_key_file_curve(path);
    } catch (const std::exception& ex) {
      spdlog::debug("worker: {} is not a key file ({}); skipped", path, ex.what());
      continue;
    }
    k.digest = Sha256::file(path);
    const std::string id = Sha256::hex(k.digest);
    spdlog::info("worker: serving circuit {} ({}, {})", id.substr(0, 16), curve_name(k.curve), path);
    keys_.emplace(id, std::move(k));
  }
}

const KeyDirectory::Key* KeyDirectory::find(const std::string& circuit_id) const {
  auto it = keys_.find(circuit_id);
  return it == keys_.end() ? nullptr : &it->second;
}

std::vector<std::string> KeyDirectory::circuit_ids() const {
  std::vector<std::string> out;
  for (const auto& [id, k] : keys_) out.push_back(id);
  return out;
}

}  // namespace zkmill::farm
