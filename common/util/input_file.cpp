// SPDX-License-Identifier: MIT
// InputFile: open(O_NONBLOCK) + fstat + S_ISREG, then blocking reads (input_file.hpp).
#include "common/util/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace zkmill::util {

namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO without a writer would otherwise block before fstat can refuse it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_ < 0) throw InputFileError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    throw InputFileError(path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw InputFileError(path + ": is " + std::string(kind_of(st.st_mode)) +
                         "; zkmill reads its input files only from regular files");
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  size_ = uint64_t(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::read_all(uint64_t max_bytes) {
  if (size_ > max_bytes)
    throw InputFileError(path_ + ": " + std::to_string(size_) + " bytes exceeds the limit of " +
                         std::to_string(max_bytes) + " bytes");
  std::string out;
  out.resize(size_t(size_));
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      // The file may have grown since fstat; read on, within the limit.
      if (out.size() >= max_bytes) {
        char probe;
        const ssize_t n = ::read(fd_, &probe, 1);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw InputFileError(path_ + ": read failed: " + std::strerror(errno));
        throw InputFileError(path_ + ": exceeds the limit of " + std::to_string(max_bytes) + " bytes");
      }
      out.resize(std::min<uint64_t>(max_bytes, out.size() + 65536));
    }
    const ssize_t n = ::read(fd_, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputFileError(path_ + ": read failed: " + std::strerror(errno));
    if (n == 0) break;
    got += size_t(n);
  }
  out.resize(got);
  return out;
}

void check_input_file(const std::string& path) { InputFile f(path); }

std::string read_input_file(const std::string& path, uint64_t max_bytes) {
  InputFile f(path);
  return f.read_all(max_bytes);
}

}  // namespace zkmill::util
