// SPDX-License-Identifier: MIT
// The native proving-key container: a sectioned binary file (magic, version, curve id,
// section table, 64-byte-aligned sections) that is memory-mapped and read in place.
// Curve-agnostic: it knows sections and byte ranges; proving_key.hpp gives them types.
// Layout documented in docs/formats.md.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/util/curve_id.hpp"
#include "common/util/mapped_file.hpp"

namespace zkmill::groth16 {

inline constexpr char kKeyFileMagic[8] = {'Z', 'K', 'M', 'I', 'L', 'L', 'P', 'K'};
inline constexpr uint32_t kKeyFileVersion = 1;

enum class SectionId : uint32_t {
  Meta = 1,  // JSON: circuit name, size, counts, domain, provenance
  Vk = 2,    // alpha_g1, beta_g1, delta_g1 (G1); beta_g2, gamma_g2, delta_g2 (G2)
  Ic = 3,    // G1 per public input (incl. ONE): (beta u_j + alpha v_j + w_j) / gamma
  A = 4,     // G1 per variable: u_j(tau)
  BG1 = 5,   // G1 per variable: v_j(tau)
  BG2 = 6,   // G2 per variable: v_j(tau)
  L = 7,     // G1 per aux variable: (beta u_j + alpha v_j + w_j) / delta
  H = 8,     // G1 per domain point i: tau^i Z(tau) / delta (Meta's h_basis "monomial")
  // G1 per coset point x_i = g w^i: L_i(tau) Z(tau) / (delta Z(x_i)), L_i the coset's Lagrange
  // basis (Meta's h_basis "coset_lagrange"). Its own id, so that a build older than the basis
  // field, which reads section 8, refuses such a key ("missing section 8") instead of proving
  // against points of the wrong basis.
  HCosetLagrange = 9,
};

// The error for any malformed, truncated or mismatched key file; what() names the file.
class KeyFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

#pragma pack(push, 1)
struct KeyFileHeader {
  char magic[8];
  uint32_t version;
  uint32_t curve;  // CurveId
  uint32_t section_count;
  uint32_t table_offset;  // byte offset of the section table
  uint64_t file_size;     // the whole file; a shorter file is truncated
  uint8_t reserved[32];
};
struct SectionEntry {
  uint32_t id;
  uint32_t elem_size;  // bytes per element (1 for opaque sections)
  uint64_t offset;     // from the start of the file, 64-byte aligned
  uint64_t count;      // elements; size = count * elem_size
  uint64_t reserved;
};
#pragma pack(pop)
static_assert(sizeof(KeyFileHeader) == 64 && sizeof(SectionEntry) == 32);

// Writes sections in order to a temporary file, then the table and header, then renames
// into place, so a crash never leaves a half-written key under the final name.
class KeyFileWriter {
 public:
  KeyFileWriter(const std::string& path, CurveId curve);
  ~KeyFileWriter();
  void add_section(SectionId id, uint32_t elem_size, uint64_t count, std::span<const uint8_t> bytes);
  void finish();

 private:
  std::string path_, tmp_path_;
  CurveId curve_;
  std::ofstream out_;
  std::vector<SectionEntry> table_;
  uint64_t pos_ = 0;
  bool finished_ = false;
};

class KeyFileReader {
 public:
  // Validates magic, version, curve (when expected is given), size and the section table.
  explicit KeyFileReader(const std::string& path, std::optional<CurveId> expected = std::nullopt);

  CurveId curve() const { return curve_; }
  const std::string& path() const { return file_.path(); }
  bool has(SectionId id) const { return find(id) != nullptr; }
  // The section's bytes; throws KeyFileError if missing or its element size differs.
  std::span<const uint8_t> section(SectionId id, uint32_t elem_size, uint64_t* count) const;
  std::span<const uint8_t> whole_file() const { return file_.bytes(); }

 private:
  const SectionEntry* find(SectionId id) const;
  util::MappedFile file_;
  CurveId curve_{};
  std::vector<SectionEntry> table_;
};

// Reads only the header's curve id (for dispatch at the CLI edge).
CurveId peek_key_file_curve(const std::string& path);

}  // namespace zkmill::groth16
