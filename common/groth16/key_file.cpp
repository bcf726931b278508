// SPDX-License-Identifier: MIT
// KeyFileWriter / KeyFileReader: the sectioned container of native proving keys.
#include "common/groth16/key_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/util/atomic_file.hpp"
#include "common/util/input_file.hpp"

namespace zkmill::groth16 {

namespace {
constexpr uint64_t kAlign = 64;
uint64_t align_up(uint64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
}  // namespace

// Written through out_ to a temporary beside the target (util::make_temporary_beside), put in
// place by util::commit_temporary (fsync, rename, fsync of the directory): the same steps as
// every other output file (common/util/atomic_file.hpp), streamed because keys are large.
KeyFileWriter::KeyFileWriter(const std::string& path, CurveId curve) : path_(path), curve_(curve) {
  try {
    tmp_path_ = util::make_temporary_beside(path);
  } catch (const util::AtomicFileError& e) {
    throw KeyFileError(e.what());
  }
  out_.open(tmp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    std::error_code ec;
    std::filesystem::remove(tmp_path_, ec);
    throw KeyFileError(path_ + ": cannot create a temporary file beside it: " + std::strerror(errno));
  }
  // Header and table are written last; reserve the header now, sections follow it.
  std::vector<char> zeros(kAlign, 0);
  out_.write(zeros.data(), kAlign);
  pos_ = kAlign;
}

KeyFileWriter::~KeyFileWriter() {
  if (!finished_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(tmp_path_, ec);
  }
}

namespace {
// errno still holds the failed write's cause (EFBIG past RLIMIT_FSIZE, ENOSPC on a full disk).
std::string write_failed(const std::string& path) {
  return path + ": write failed: " + std::strerror(errno) + " (nothing written; an existing " + path + " is unchanged)";
}
}  // namespace

void KeyFileWriter::add_section(SectionId id, uint32_t elem_size, uint64_t count, std::span<const uint8_t> bytes) {
  if (bytes.size() != elem_size * count) throw KeyFileError("key file writer: section size mismatch");
  SectionEntry e{};
  e.id = uint32_t(id);
  e.elem_size = elem_size;
  e.offset = pos_;
  e.count = count;
  out_.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  pos_ += bytes.size();
  uint64_t pad = align_up(pos_) - pos_;
  static const char zeros[kAlign] = {};
  out_.write(zeros, std::streamsize(pad));
  pos_ += pad;
  table_.push_back(e);
  if (!out_) throw KeyFileError(write_failed(path_));
}

void KeyFileWriter::finish() {
  KeyFileHeader h{};
  std::memcpy(h.magic, kKeyFileMagic, 8);
  h.version = kKeyFileVersion;
  h.curve = uint32_t(curve_);
  h.section_count = uint32_t(table_.size());
  h.table_offset = 0;  // patched below: the table follows the last section
  uint64_t table_off = pos_;
  out_.write(reinterpret_cast<const char*>(table_.data()), std::streamsize(table_.size() * sizeof(SectionEntry)));
  pos_ += table_.size() * sizeof(SectionEntry);
  if (table_off > UINT32_MAX) {
    // Large keys: the table offset does not fit 32 bits; store it in the reserved bytes.
    std::memcpy(h.reserved, &table_off, 8);
    h.table_offset = UINT32_MAX;
  } else {
    h.table_offset = uint32_t(table_off);
  }
  h.file_size = pos_;
  out_.seekp(0);
  out_.write(reinterpret_cast<const char*>(&h), sizeof h);
  if (!out_) throw KeyFileError(write_failed(path_));
  out_.close();
  if (!out_) throw KeyFileError(write_failed(path_));
  finished_ = true;  // commit_temporary removes the temporary itself on failure
  try {
    util::commit_temporary(tmp_path_, path_);
  } catch (const util::AtomicFileError& e) {
    throw KeyFileError(e.what());
  }
}

namespace {
KeyFileHeader read_header(const uint8_t* data, size_t size, const std::string& path) {
  if (size < sizeof(KeyFileHeader))
    throw KeyFileError(path + ": truncated proving key (" + std::to_string(size) + " bytes, header needs 64)");
  KeyFileHeader h;
  std::memcpy(&h, data, sizeof h);
  if (std::memcmp(h.magic, kKeyFileMagic, 8) != 0)
    throw KeyFileError(path + ": not a zkmill proving key (bad magic; for snarkjs keys use `zkmill groth16 prove`)");
  if (h.version != kKeyFileVersion)
    throw KeyFileError(path + ": unsupported proving-key version " + std::to_string(h.version) +
                       " (this build reads version " + std::to_string(kKeyFileVersion) + ")");
  if (h.curve != uint32_t(CurveId::Bn254) && h.curve != uint32_t(CurveId::Bls12_381))
    throw KeyFileError(path + ": unknown curve id " + std::to_string(h.curve));
  return h;
}
}  // namespace

CurveId peek_key_file_curve(const std::string& path) {
  uint8_t buf[sizeof(KeyFileHeader)] = {};
  size_t got = 0;
  try {
    util::InputFile in(path);  // regular files only
    while (got < sizeof buf) {
      const ssize_t n = ::read(in.fd(), buf + got, sizeof buf - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += size_t(n);
    }
  } catch (const util::InputFileError& e) {
    throw KeyFileError(e.what());
  }
  return CurveId(read_header(buf, got, path).curve);
}

KeyFileReader::KeyFileReader(const std::string& path, std::optional<CurveId> expected) : file_(path) {
  const uint8_t* d = file_.data();
  size_t size = file_.size();
  KeyFileHeader h = read_header(d, size, path);
  curve_ = CurveId(h.curve);
  if (expected && *expected != curve_)
    throw KeyFileError(path + ": proving key is for curve " + curve_name(curve_) + ", expected " +
                       curve_name(*expected));
  if (h.file_size != size)
    throw KeyFileError(path + ": truncated or padded proving key: header says " + std::to_string(h.file_size) +
                       " bytes, file has " + std::to_string(size));
  uint64_t table_off = h.table_offset;
  if (h.table_offset == UINT32_MAX) std::memcpy(&table_off, h.reserved, 8);
  uint64_t table_bytes = uint64_t(h.section_count) * sizeof(SectionEntry);
  if (h.section_count > 1024 || table_off > size || size - table_off < table_bytes)
    throw KeyFileError(path + ": corrupt section table");
  table_.resize(h.section_count);
  std::memcpy(table_.data(), d + table_off, table_bytes);
  for (const auto& e : table_) {
    if (e.elem_size == 0 || e.offset % kAlign != 0 || e.offset > table_off ||
        e.count > (table_off - e.offset) / e.elem_size)
      throw KeyFileError(path + ": section " + std::to_string(e.id) + " lies outside the file");
  }
}

const SectionEntry* KeyFileReader::find(SectionId id) const {
  for (const auto& e : table_)
    if (e.id == uint32_t(id)) return &e;
  return nullptr;
}

std::span<const uint8_t> KeyFileReader::section(SectionId id, uint32_t elem_size, uint64_t* count) const {
  const SectionEntry* e = find(id);
  if (!e) throw KeyFileError(path() + ": missing section " + std::to_string(uint32_t(id)));
  if (e->elem_size != elem_size)
    throw KeyFileError(path() + ": section " + std::to_string(uint32_t(id)) + " has element size " +
                       std::to_string(e->elem_size) + ", expected " + std::to_string(elem_size));
  if (count) *count = e->count;
  return {file_.data() + e->offset, size_t(e->count * e->elem_size)};
}

}  // namespace zkmill::groth16
