// SPDX-License-Identifier: MIT
// Opening a file the user named as input (keys, .zkey, .wtns, .r1cs, proofs, configs): only a
// regular file (or a symlink to one) is read. A FIFO, device, socket or directory is refused
// with an error naming the path and what it is, instead of blocking forever on a FIFO with no
// writer or reading /dev/zero until memory runs out. The open itself uses O_NONBLOCK so even
// opening a FIFO cannot block; the descriptor is made blocking again for a regular file.
// Every reader of user-named files goes through here (MappedFile, JSON, YAML, key files).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace zkmill::util {

class InputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An open regular file (RAII descriptor) and its size at open time.
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // The whole file; throws InputFileError beyond `max_bytes`.
  std::string read_all(uint64_t max_bytes = UINT64_MAX);

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Throws InputFileError unless `path` is a regular file that can be opened for reading.
void check_input_file(const std::string& path);
// The whole of a regular file (InputFile::read_all).
std::string read_input_file(const std::string& path, uint64_t max_bytes = UINT64_MAX);

}  // namespace zkmill::util
