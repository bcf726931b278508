// SPDX-License-Identifier: MIT
// MappedFile: InputFile (regular files only, see input_file.hpp) + mmap(PROT_READ,
// MAP_PRIVATE); empty files map to an empty span.
#include "common/util/mapped_file.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "common/util/input_file.hpp"

namespace zkmill::util {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  InputFile f(path);  // throws for a missing file, a FIFO, a device, a directory
  size_ = size_t(f.size());
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, f.fd(), 0);
    if (p == MAP_FAILED) throw std::runtime_error(path + ": cannot mmap: " + std::strerror(errno));
    data_ = static_cast<const uint8_t*>(p);
  }
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace zkmill::util
