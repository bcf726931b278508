// SPDX-License-Identifier: MIT
// Files zkmill writes for a user (proofs, public inputs, keys, vk.json, result folders) appear
// whole or not at all: the bytes go to a temporary file in the target's directory (same file
// system, so the final rename is atomic), are written fully and fsync'ed, then the temporary is
// renamed over the target and the directory is fsync'ed so the rename survives a crash. On any
// failure (disk full, RLIMIT_FSIZE, permissions) the temporary is removed, an existing target
// is untouched, and AtomicFileError names the file and the cause.
//
// Temporaries are named ".<target name>.zkmill-tmp-XXXXXX" (mkstemp) beside the target.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace zkmill::util {

class AtomicFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct AtomicWriteOptions {
  mode_t mode = 0644;     // applied exactly (not narrowed by the umask): 0600 for secret keys
  bool overwrite = true;  // false: refuse (and leave it) when the target already exists
};

// A file being written: write()/write_at() into the temporary, commit() puts it in place.
// Destroyed without commit() (an exception on the way), the temporary is removed.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path, AtomicWriteOptions opts = {});
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size);
  void write(std::string_view s) { write(s.data(), s.size()); }
  // Overwrites bytes already written (e.g. a header patched after its sections).
  void write_at(uint64_t offset, const void* data, size_t size);
  // Flushes to disk (fsync), renames over the target, fsyncs the directory.
  void commit();
  // Removes the temporary now (commit() not called); idempotent.
  void abort() noexcept;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_; }

  // Stages the file (written and fsync'ed, not yet renamed): AtomicFileSet's first phase.
  void flush_to_disk();
  // Renames a flushed file into place and fsyncs its directory (second phase).
  void rename_into_place();
  // Gives up ownership of the temporary (make_temporary_beside): it is no longer removed.
  void release_temporary() noexcept;

 private:
  [[noreturn]] void fail(const std::string& what, int err);
  std::string path_, tmp_;
  AtomicWriteOptions opts_;
  int fd_ = -1;
  bool done_ = false;
};

// Writes `bytes` to `path` atomically (the whole of AtomicFile in one call).
void write_file_atomic(const std::string& path, std::string_view bytes, AtomicWriteOptions opts = {});

// Several files that appear together or not at all (a `zkmill result` folder, a key pair).
// add() writes each one's temporary in full; commit() then fsyncs them all and renames them
// into place. A failure before commit() leaves nothing; the renames themselves cannot run out
// of space, and if one still fails, the files of this set already renamed are removed again
// (a target that existed before is then gone rather than mixed with this set's files: the
// caller's message says so).
class AtomicFileSet {
 public:
  void add(const std::string& path, std::string_view bytes, AtomicWriteOptions opts = {});
  void commit();

 private:
  std::vector<std::unique_ptr<AtomicFile>> files_;
};

// fsyncs a directory (after a rename into it), so the new name survives a power loss.
void fsync_directory(const std::string& dir);

// The two halves of AtomicFile for writers that stream through their own file object (the
// proving-key writer): a fresh temporary beside `path` (created empty, mode 0600), and putting
// a fully written temporary in place (fsync, rename over `path`, fsync the directory). On a
// failure commit_temporary removes the temporary and throws AtomicFileError naming `path`.
std::string make_temporary_beside(const std::string& path);
void commit_temporary(const std::string& tmp, const std::string& path, mode_t mode = 0644);

}  // namespace zkmill::util
