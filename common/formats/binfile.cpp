// SPDX-License-Identifier: MIT
// The iden3 binary container (binfile.hpp): header and section-table parsing, and recognising
// a curve from the prime written in a file.
#include "common/formats/binfile.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ff/bigint.hpp"

namespace zkmill::formats {

BinFile BinFile::open(const std::string& path, std::string_view magic, uint32_t min_version, uint32_t max_version) {
  BinFile f;
  f.name_ = path;
  try {
    f.map_ = std::make_shared<util::MappedFile>(path);
  } catch (const std::exception& e) {
    throw FormatError(std::string(e.what()));
  }
  f.bytes_ = f.map_->bytes();
  f.parse_table(magic, min_version, max_version);
  return f;
}

BinFile BinFile::parse(std::span<const uint8_t> bytes, std::string name, std::string_view magic, uint32_t min_version,
                       uint32_t max_version) {
  BinFile f;
  f.name_ = std::move(name);
  f.bytes_ = bytes;
  f.parse_table(magic, min_version, max_version);
  return f;
}

void BinFile::parse_table(std::string_view magic, uint32_t min_version, uint32_t max_version) {
  const std::string kind(magic);
  if (bytes_.size() < 12) fail("too short for a ." + kind + " file (" + std::to_string(bytes_.size()) + " bytes)");
  if (!std::equal(magic.begin(), magic.end(), bytes_.begin()))
    fail("not a ." + kind + " file (magic is not \"" + kind + "\")");
  version_ = load_u32_le(bytes_.data() + 4);
  if (version_ < min_version || version_ > max_version)
    fail("unsupported ." + kind + " version " + std::to_string(version_) + " (supported: " +
         std::to_string(min_version) + (min_version == max_version ? "" : " to " + std::to_string(max_version)) + ")");
  const uint32_t n = load_u32_le(bytes_.data() + 8);
  // Each section costs at least its 12-byte header, so a larger count is corrupt; checking
  // before reserving keeps a hostile count from allocating.
  if (uint64_t(n) * 12 > bytes_.size() - 12) fail("section count " + std::to_string(n) + " exceeds the file size");
  sections_.reserve(n);
  uint64_t pos = 12;
  for (uint32_t i = 0; i < n; ++i) {
    if (bytes_.size() - pos < 12) fail("truncated in the header of section " + std::to_string(i));
    BinSection s;
    s.type = load_u32_le(bytes_.data() + pos);
    uint64_t size = uint64_t(load_u32_le(bytes_.data() + pos + 4)) | uint64_t(load_u32_le(bytes_.data() + pos + 8))
                                                                         << 32;
    pos += 12;
    if (size > bytes_.size() - pos)
      fail("truncated: section " + std::to_string(i) + " (type " + std::to_string(s.type) + ") claims " +
           std::to_string(size) + " bytes, " + std::to_string(bytes_.size() - pos) + " remain");
    s.bytes = bytes_.subspan(size_t(pos), size_t(size));
    pos += size;
    sections_.push_back(s);
  }
  if (pos != bytes_.size()) fail(std::to_string(bytes_.size() - pos) + " bytes after the last section (corrupt)");
}

void BinFile::release(std::span<const uint8_t> range) const {
  if (!map_ || range.empty()) return;
  const auto lo = reinterpret_cast<uintptr_t>(range.data()), hi = lo + range.size();
  const auto base = reinterpret_cast<uintptr_t>(bytes_.data());
  if (lo < base || hi > base + bytes_.size()) return;  // not ours: leave it alone
  static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t first = (lo + page - 1) / page * page, last = hi / page * page;
  // MADV_DONTNEED on a read-only private file mapping only drops this process's reference to
  // the pages; failure merely keeps them resident, so it is not an error.
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

bool BinFile::has(uint32_t type) const {
  return std::any_of(sections_.begin(), sections_.end(), [&](const BinSection& s) { return s.type == type; });
}

std::span<const uint8_t> BinFile::section(uint32_t type, const char* what) const {
  const BinSection* found = nullptr;
  for (const auto& s : sections_)
    if (s.type == type) {
      if (found) fail(std::string(what) + " section (type " + std::to_string(type) + ") appears more than once");
      found = &s;
    }
  if (!found) fail(std::string("missing ") + what + " section (type " + std::to_string(type) + ")");
  return found->bytes;
}

namespace {

template <size_t N>
bool prime_equals(std::span<const uint8_t> le, const ff::Limbs<N>& p) {
  if (le.size() != 8 * N) return false;
  for (size_t i = 0; i < 8 * N; ++i)
    if (le[i] != uint8_t(p[i / 8] >> (8 * (i % 8)))) return false;
  return true;
}

}  // namespace

std::optional<CurveId> curve_from_base_prime(std::span<const uint8_t> q_le) {
  if (prime_equals(q_le, curves::Bn254::Fq::modulus())) return CurveId::Bn254;
  if (prime_equals(q_le, curves::Bls12381::Fq::modulus())) return CurveId::Bls12_381;
  return std::nullopt;
}

std::optional<CurveId> curve_from_scalar_prime(std::span<const uint8_t> r_le) {
  if (prime_equals(r_le, curves::Bn254::Fr::modulus())) return CurveId::Bn254;
  if (prime_equals(r_le, curves::Bls12381::Fr::modulus())) return CurveId::Bls12_381;
  return std::nullopt;
}

std::string prime_to_dec(std::span<const uint8_t> le) {
  ff::Limbs<8> v{};
  for (size_t i = 0; i < le.size() && i < 64; ++i) v[i / 8] |= uint64_t(le[i]) << (8 * (i % 8));
  return ff::to_decimal(v);
}

}  // namespace zkmill::formats
