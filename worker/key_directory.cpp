// SPDX-License-Identifier: MIT
// KeyDirectory: one pass over the key directory (at worker start, then on each rescan; a key's
// content is immutable per circuit id, so an unchanged file is not read again).
#include "worker/key_directory.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "common/formats/circom_files.hpp"
#include "common/formats/zkey.hpp"
#include "common/groth16/key_file.hpp"
#include "farm/key_id.hpp"
#include "farm/sha256.hpp"

namespace zkmill::farm {

namespace {

// Keys larger than this get a line before they are hashed (a PoRep key takes about a minute).
constexpr uint64_t kAnnounceHashBytes = uint64_t(1) << 30;

// The .r1cs beside a .zkey, if it describes the same circuit (curve and wire count); a
// mismatched one is ignored with a warning rather than used to judge witnesses.
std::string matching_r1cs(const std::filesystem::path& zkey_path, const formats::ZkeyFile& z) {
  auto p = zkey_path;
  p.replace_extension(".r1cs");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return {};
  try {
    auto r = formats::R1csFile::open(p.string());
    if (r.header().curve != z.curve() || r.header().n_wires != z.n_vars()) {
      spdlog::warn(
          "worker: {} does not match {} ({} wires, the key has nVars {}); witnesses are not checked against it",
          p.string(), zkey_path.string(), r.header().n_wires, z.n_vars());
      return {};
    }
  } catch (const std::exception& ex) {
    spdlog::warn("worker: {} is unreadable ({}); witnesses are not checked against it", p.string(), ex.what());
    return {};
  }
  return p.string();
}

}  // namespace

KeyDirectory::KeyDirectory(const std::string& dir, const KeyDirectory* previous) {
  if (dir.empty()) return;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw std::runtime_error("worker.key_dir '" + dir + "' is not a directory");
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string path = e.path().string();
    const auto ext = e.path().extension();
    if (ext == ".json" || ext == ".r1cs" || ext == ".wtns" || ext == ".pce")
      continue;  // .pce: PCE matrices; .json: vk, id memo
    std::error_code sec;
    const uint64_t size = e.file_size(sec);
    const int64_t mtime = int64_t(e.last_write_time(sec).time_since_epoch().count());
    if (previous) {
      auto same = std::find_if(previous->keys_.begin(), previous->keys_.end(), [&](const auto& kv) {
        return kv.second.path == path && kv.second.size == size && kv.second.mtime_ns == mtime;
      });
      if (same != previous->keys_.end()) {
        keys_.emplace(same->first, same->second);
        continue;
      }
    }
    Key k;
    k.path = path;
    k.size = size;
    k.mtime_ns = mtime;
    try {
      if (ext == ".zkey") {
        auto z = formats::ZkeyFile::open(path);  // header and section sizes: cheap, fails early
        k.format = Format::Zkey;
        k.curve = z.curve();
        k.r1cs_path = matching_r1cs(e.path(), z);
      } else {
        k.curve = groth16::peek_key_file_curve(path);
      }
    } catch (const std::exception& ex) {
      spdlog::debug("worker: {} is not a key file ({}); skipped", path, ex.what());
      continue;
    }
    KeyIdSource source{};
    KeyIdOptions id_opts;
    id_opts.before_hash = [&](const std::string& why) {
      if (size > kAnnounceHashBytes)
        spdlog::info("worker: hashing {} ({:.1f} GiB) for its circuit id ({}; kept in {} for the next start)", path,
                     double(size) / double(uint64_t(1) << 30), why, key_id_memo_path(path));
    };
    k.digest = key_file_digest(path, id_opts, &source);
    const std::string id = Sha256::hex(k.digest);
    spdlog::info("worker: serving circuit {} ({}, {}{}{})", id.substr(0, 16), curve_name(k.curve), path,
                 k.format == Format::Zkey ? (k.r1cs_path.empty() ? ", zkey without .r1cs" : ", zkey + .r1cs") : "",
                 source == KeyIdSource::Memo ? ", id from its .id.json" : "");
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
