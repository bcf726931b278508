// SPDX-License-Identifier: MIT
// The iden3 binary container shared by snarkjs/circom's .zkey, .wtns and .r1cs files: a 4-byte
// magic, a u32 version, a u32 section count, then sections (u32 type, u64 size, payload), all
// little-endian. Parsed in place over a memory mapping (or any byte span, for fuzzing), with
// every section bounds-checked before anything reads it.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/curve_id.hpp"
#include "common/util/mapped_file.hpp"

namespace zkmill::formats {

// Any malformed, truncated, unsupported or mismatched snarkjs/circom file. what() always
// starts with the file's name, so the CLI can print it as is.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One section: its type id and its payload, pointing into the file's bytes.
struct BinSection {
  uint32_t type = 0;
  std::span<const uint8_t> bytes;
};

class BinFile {
 public:
  // Maps `path`; checks the magic ("zkey", "wtns", "r1cs"), the version range and that the
  // section table tiles the file exactly. Throws FormatError.
  static BinFile open(const std::string& path, std::string_view magic, uint32_t min_version, uint32_t max_version);
  // The same over bytes the caller keeps alive (fuzzing, tests); `name` stands in for a path.
  static BinFile parse(std::span<const uint8_t> bytes, std::string name, std::string_view magic, uint32_t min_version,
                       uint32_t max_version);

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::vector<BinSection>& sections() const { return sections_; }
  bool has(uint32_t type) const;
  // The one section of `type`; throws FormatError when it is missing or repeated.
  std::span<const uint8_t> section(uint32_t type, const char* what) const;

  // "<file>: <msg>" as a FormatError.
  [[noreturn]] void fail(const std::string& msg) const { throw FormatError(name_ + ": " + msg); }

  // Drops the resident pages wholly inside `range` (a span of bytes()) from this process: the
  // page cache keeps them and a later read faults them back in. Streaming readers call it on
  // what they are done with, so their RSS follows the data in use, not the size of the file.
  // A no-op for caller-owned bytes (parse()), which must never be discarded.
  void release(std::span<const uint8_t> range) const;

 private:
  void parse_table(std::string_view magic, uint32_t min_version, uint32_t max_version);

  std::shared_ptr<util::MappedFile> map_;  // null when parsing caller-owned bytes
  std::span<const uint8_t> bytes_;
  std::string name_;
  uint32_t version_ = 0;
  std::vector<BinSection> sections_;
};

// A bounds-checked little-endian cursor over one section; errors name the file and section.
class SectionReader {
 public:
  SectionReader(const BinFile& file, std::span<const uint8_t> bytes, const char* section)
      : file_(&file), bytes_(bytes), section_(section) {}

  size_t remaining() const { return bytes_.size() - pos_; }
  size_t position() const { return pos_; }
  uint32_t u32() { return load<uint32_t>(); }
  uint64_t u64() { return load<uint64_t>(); }
  std::span<const uint8_t> take(uint64_t n) {
    need(n);
    auto s = bytes_.subspan(pos_, size_t(n));
    pos_ += size_t(n);
    return s;
  }
  // The section must be fully consumed: trailing bytes mean a layout we do not understand.
  void expect_end() const {
    if (pos_ != bytes_.size()) fail(std::to_string(bytes_.size() - pos_) + " unexpected trailing bytes");
  }
  [[noreturn]] void fail(const std::string& msg) const { file_->fail(std::string(section_) + " section: " + msg); }

 private:
  void need(uint64_t n) const {
    if (n > remaining())
      fail("truncated (needs " + std::to_string(n) + " more bytes at offset " + std::to_string(pos_) + ", has " +
           std::to_string(remaining()) + ")");
  }
  template <class T>
  T load() {
    need(sizeof(T));
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= T(bytes_[pos_ + i]) << (8 * i);
    pos_ += sizeof(T);
    return v;
  }
  const BinFile* file_;
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  const char* section_;
};

inline uint32_t load_u32_le(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Which curve a prime written in a file (n8 bytes, little-endian) belongs to: q (base field)
// for .zkey, r (scalar field) for .wtns and .r1cs. nullopt for any other prime (e.g. a
// goldilocks or pallas circuit), which the caller reports by name.
std::optional<CurveId> curve_from_base_prime(std::span<const uint8_t> q_le);
std::optional<CurveId> curve_from_scalar_prime(std::span<const uint8_t> r_le);
// The prime as decimal, for error messages (at most 64 bytes are read).
std::string prime_to_dec(std::span<const uint8_t> le);

}  // namespace zkmill::formats
