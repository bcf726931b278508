// SPDX-License-Identifier: MIT
// Writes an iden3 binary container (binfile.hpp: magic, u32 version, u32 section count, then
// u32 type, u64 size, payload per section) through util::AtomicFile, so a .ptau or .zkey
// appears whole or not at all. Sections stream: begin() writes the section header with a
// placeholder size, payload bytes go through a 4 MiB buffer, end() patches the size in place.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/atomic_file.hpp"

namespace zkmill::formats {

class BinWriter {
 public:
  BinWriter(const std::string& path, std::string_view magic, uint32_t version, uint32_t n_sections);

  void begin(uint32_t type);
  void write(std::span<const uint8_t> bytes);
  void write(const void* p, size_t n) { write(std::span<const uint8_t>(static_cast<const uint8_t*>(p), n)); }
  void u32(uint32_t v);
  void end();
  // A whole section at once.
  void section(uint32_t type, std::span<const uint8_t> bytes) {
    begin(type);
    write(bytes);
    end();
  }
  // Flushes, checks that every announced section was written, and renames into place.
  void commit();

  const std::string& path() const { return file_.path(); }

 private:
  void flush();
  util::AtomicFile file_;
  std::vector<uint8_t> buf_;
  uint64_t pos_ = 0;            // bytes handed to the file so far (flushed)
  uint64_t section_start_ = 0;  // offset of the open section's payload
  bool open_ = false;
  uint32_t announced_ = 0, written_ = 0;
};

}  // namespace zkmill::formats
