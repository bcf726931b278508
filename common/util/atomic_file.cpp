// SPDX-License-Identifier: MIT
// AtomicFile, AtomicFileSet: temporary beside the target, write fully, fsync, rename, fsync
// the directory (atomic_file.hpp says why each step).
#include "common/util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace zkmill::util {

namespace {

std::string parent_dir(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

void fsync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw AtomicFileError(dir + ": cannot open the directory to sync it: " + std::strerror(errno));
  const int rc = ::fsync(fd), err = errno;
  ::close(fd);
  // Some file systems (e.g. certain FUSE mounts) do not support fsync on directories; the
  // rename itself has happened, so only a real I/O error is reported.
  if (rc != 0 && err != EINVAL && err != ENOTSUP)
    throw AtomicFileError(dir + ": cannot sync the directory: " + std::strerror(err));
}

AtomicFile::AtomicFile(std::string path, AtomicWriteOptions opts) : path_(std::move(path)), opts_(opts) {
  if (path_.empty()) throw AtomicFileError("cannot write a file with an empty name");
  if (!opts_.overwrite && ::access(path_.c_str(), F_OK) == 0)
    throw AtomicFileError(path_ + ": already exists; refusing to overwrite it");
  std::filesystem::path p(path_);
  if (p.filename().empty()) throw AtomicFileError(path_ + ": names a directory, not a file");
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "." + std::string&&.
  std::string base(".");
  base += p.filename().string();
  base += ".zkmill-tmp-XXXXXX";
  tmp_ = (p.parent_path() / base).string();
  std::vector<char> name(tmp_.begin(), tmp_.end());
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    tmp_.clear();
    throw AtomicFileError(path_ + ": cannot create a temporary file in " + parent_dir(path_) + ": " +
                          std::strerror(err));
  }
  tmp_.assign(name.data());
  // mkstemp makes 0600; the final mode is set exactly, whatever the umask.
  if (::fchmod(fd_, opts_.mode) != 0) fail("cannot set the file mode", errno);
}

AtomicFile::~AtomicFile() { abort(); }

void AtomicFile::release_temporary() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  tmp_.clear();  // the caller owns the temporary now
}

void AtomicFile::abort() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!done_ && !tmp_.empty()) ::unlink(tmp_.c_str());
  tmp_.clear();
}

void AtomicFile::fail(const std::string& what, int err) {
  abort();
  // EFBIG is what a write past RLIMIT_FSIZE returns (with SIGXFSZ ignored), ENOSPC a full disk.
  throw AtomicFileError(path_ + ": " + what + ": " + std::strerror(err) + " (nothing written; an existing " + path_ +
                        " is unchanged)");
}

void AtomicFile::write(const void* data, size_t size) {
  if (fd_ < 0) throw AtomicFileError(path_ + ": write after the file was closed");
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed", n < 0 ? errno : EIO);
    p += n;
    size -= size_t(n);
  }
}

void AtomicFile::write_at(uint64_t offset, const void* data, size_t size) {
  if (fd_ < 0) throw AtomicFileError(path_ + ": write after the file was closed");
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, p, size, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed", n < 0 ? errno : EIO);
    p += n;
    size -= size_t(n);
    offset += uint64_t(n);
  }
}

void AtomicFile::flush_to_disk() {
  if (fd_ < 0) throw AtomicFileError(path_ + ": flushed after the file was closed");
  if (::fsync(fd_) != 0) fail("cannot flush to disk", errno);
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) fail("cannot close", errno);
}

void AtomicFile::rename_into_place() {
  if (opts_.overwrite) {
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) fail("cannot rename the temporary into place", errno);
  } else {
    // link() fails with EEXIST when the target appeared meanwhile: never replaces it.
    if (::link(tmp_.c_str(), path_.c_str()) != 0) fail("cannot create", errno);
    ::unlink(tmp_.c_str());
  }
  done_ = true;
  tmp_.clear();
  fsync_directory(parent_dir(path_));
}

void AtomicFile::commit() {
  flush_to_disk();
  rename_into_place();
}

std::string make_temporary_beside(const std::string& path) {
  AtomicFile f(path, {.mode = 0600});
  std::string tmp = f.temp_path();
  f.flush_to_disk();
  f.release_temporary();
  return tmp;
}

void commit_temporary(const std::string& tmp, const std::string& path, mode_t mode) {
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  const bool ok = fd >= 0 && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = ok ? errno : err;
    ::unlink(tmp.c_str());
    throw AtomicFileError(path + ": cannot put the written file in place: " + std::strerror(e) +
                          " (nothing written; an existing " + path + " is unchanged)");
  }
  fsync_directory(parent_dir(path));
}

void write_file_atomic(const std::string& path, std::string_view bytes, AtomicWriteOptions opts) {
  AtomicFile f(path, opts);
  f.write(bytes);
  f.commit();
}

void AtomicFileSet::add(const std::string& path, std::string_view bytes, AtomicWriteOptions opts) {
  files_.push_back(std::make_unique<AtomicFile>(path, opts));
  files_.back()->write(bytes);
}

void AtomicFileSet::commit() {
  // Phase 1: every file on disk under its temporary name; a failure here removes them all
  // (the destructors of files_ when the exception leaves the caller's scope).
  for (auto& f : files_) f->flush_to_disk();
  // Phase 2: the renames.
  size_t renamed = 0;
  try {
    for (; renamed < files_.size(); ++renamed) files_[renamed]->rename_into_place();
  } catch (...) {
    for (size_t i = 0; i < renamed; ++i) ::unlink(files_[i]->path().c_str());
    throw;
  }
  files_.clear();
}

}  // namespace zkmill::util
