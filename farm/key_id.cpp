// SPDX-License-Identifier: MIT
// key_file_digest: the key's SHA-256 from its KEY.id.json memo while the memo still describes
// the file (key_id.hpp says what "describes" means), otherwise hashed and memoized.
#include "farm/key_id.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "common/util/atomic_file.hpp"
#include "common/util/hex.hpp"
#include "farm/cache_dir.hpp"

namespace zkmill::farm {

namespace {

constexpr const char* kMemoFormat = "zkmill-key-id/1";
// A memo is a few hundred bytes; anything much larger is not ours and is not read whole.
constexpr std::streamsize kMaxMemoBytes = 4096;

// What must be unchanged for a memo to stand for the file.
struct FileIdentity {
  uint64_t size = 0, inode = 0, device = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

int64_t ns_of(const timespec& t) { return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; }

FileIdentity identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw std::runtime_error(path + ": cannot stat: " + std::strerror(errno));
  return {uint64_t(st.st_size), uint64_t(st.st_ino), uint64_t(st.st_dev), ns_of(st.st_mtim), ns_of(st.st_ctim)};
}

// The memo's id if it is well-formed, of this version and describes `now`; nullopt otherwise
// (why: for the debug log).
std::optional<Sha256::Digest> read_memo(const std::string& memo, const FileIdentity& now, std::string& why) {
  std::ifstream in(memo, std::ios::binary);
  if (!in) {
    why = "no memo";
    return std::nullopt;
  }
  std::string text(size_t(kMaxMemoBytes) + 1, '\0');
  in.read(text.data(), kMaxMemoBytes + 1);
  text.resize(size_t(in.gcount()));
  if (std::streamsize(text.size()) > kMaxMemoBytes) {
    why = "memo too large";
    return std::nullopt;
  }
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object() || !j.contains("format") || j.at("format") != kMemoFormat) {
      why = "memo of another format or version";
      return std::nullopt;
    }
    const FileIdentity then{j.at("size").get<uint64_t>(), j.at("inode").get<uint64_t>(), j.at("device").get<uint64_t>(),
                            j.at("mtime_ns").get<int64_t>(), j.at("ctime_ns").get<int64_t>()};
    if (!(then == now)) {
      why = "the key changed since its memo";
      return std::nullopt;
    }
    auto d = util::from_hex_exact<std::tuple_size_v<Sha256::Digest>>(j.at("sha256").get<std::string>());
    if (!d) why = "memo's sha256 malformed";
    return d;
  } catch (const nlohmann::json::exception&) {  // not JSON, a field missing or of another type
    why = "memo malformed";
    return std::nullopt;
  }
}

// Writes the memo; false (logged at debug level) when it cannot be written.
bool write_memo(const std::string& memo, const FileIdentity& id, const Sha256::Digest& d) {
  const nlohmann::json j = {{"format", kMemoFormat},   {"sha256", Sha256::hex(d)}, {"size", id.size},
                            {"mtime_ns", id.mtime_ns}, {"ctime_ns", id.ctime_ns},  {"inode", id.inode},
                            {"device", id.device}};
  try {
    util::write_file_atomic(memo, j.dump(2) + "\n");
    return true;
  } catch (const std::exception& e) {
    spdlog::debug("key id: no memo at {} ({})", memo, e.what());
    return false;
  }
}

// The fallback memo of a file: named by its device and inode, which the memo then checks.
std::string cache_memo_path(const std::string& cache_dir, const FileIdentity& id) {
  return cache_dir + "/" + std::to_string(id.device) + "-" + std::to_string(id.inode) + ".json";
}

}  // namespace

std::string key_id_memo_path(const std::string& key_path) { return key_path + ".id.json"; }

std::string default_key_id_cache_dir() {
  const std::string base = default_cache_dir();
  return base.empty() ? base : base + "/key-ids";
}

Sha256::Digest key_file_digest(const std::string& key_path, KeyIdOptions opts, KeyIdSource* source) {
  const std::string beside = key_id_memo_path(key_path);
  const std::string cache_dir = opts.cache_dir ? *opts.cache_dir : default_key_id_cache_dir();
  const FileIdentity before = identity_of(key_path);
  const std::string cached = cache_dir.empty() ? std::string() : cache_memo_path(cache_dir, before);
  std::string why = "memo not used";
  if (opts.use_memo) {
    std::optional<Sha256::Digest> d = read_memo(beside, before, why);
    std::string why_cached;
    if (!d && !cached.empty()) d = read_memo(cached, before, why_cached);
    if (d) {
      if (source) *source = KeyIdSource::Memo;
      return *d;
    }
  }
  spdlog::debug("key id: hashing {} ({})", key_path, why);
  if (opts.before_hash) opts.before_hash(why);
  const Sha256::Digest d = Sha256::file(key_path);
  if (source) *source = KeyIdSource::Hashed;
  // Memoize only what was hashed from an unchanged file: a key rewritten while it was read
  // gives this call a digest of mixed bytes, which must not outlive the call.
  if (!opts.write_memo || !(identity_of(key_path) == before)) return d;
  if (write_memo(beside, before, d) || cached.empty()) return d;
  std::error_code ec;
  std::filesystem::create_directories(cache_dir, ec);
  write_memo(cached, before, d);
  return d;
}

}  // namespace zkmill::farm
