// SPDX-License-Identifier: MIT
// BinWriter (bin_writer.hpp): the streaming, atomic writer of iden3 binary containers.
#include "common/formats/bin_writer.hpp"

#include <stdexcept>

namespace zkmill::formats {

namespace {
constexpr size_t kBuf = size_t(4) << 20;
void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
}  // namespace

BinWriter::BinWriter(const std::string& path, std::string_view magic, uint32_t version, uint32_t n_sections)
    : file_(path), announced_(n_sections) {
  buf_.reserve(kBuf);
  buf_.insert(buf_.end(), magic.begin(), magic.end());
  put_u32(buf_, version);
  put_u32(buf_, n_sections);
}

void BinWriter::flush() {
  if (buf_.empty()) return;
  file_.write(buf_.data(), buf_.size());
  pos_ += buf_.size();
  buf_.clear();
}

void BinWriter::begin(uint32_t type) {
  if (open_) throw std::logic_error("BinWriter: section already open");
  put_u32(buf_, type);
  for (int i = 0; i < 8; ++i) buf_.push_back(0);  // size, patched by end()
  section_start_ = pos_ + buf_.size();
  open_ = true;
}

void BinWriter::write(std::span<const uint8_t> bytes) {
  if (buf_.size() + bytes.size() > kBuf) flush();
  if (bytes.size() >= kBuf) {
    file_.write(bytes.data(), bytes.size());
    pos_ += bytes.size();
    return;
  }
  buf_.insert(buf_.end(), bytes.begin(), bytes.end());
}

void BinWriter::u32(uint32_t v) {
  uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  write(b, 4);
}

void BinWriter::end() {
  if (!open_) throw std::logic_error("BinWriter: no open section");
  const uint64_t size = pos_ + buf_.size() - section_start_;
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = uint8_t(size >> (8 * i));
  const uint64_t at = section_start_ - 8;
  if (at >= pos_) {
    std::copy(b, b + 8, buf_.begin() + ptrdiff_t(at - pos_));
  } else {
    flush();
    file_.write_at(at, b, 8);
  }
  open_ = false;
  ++written_;
}

void BinWriter::commit() {
  if (open_) throw std::logic_error("BinWriter: section still open at commit");
  if (written_ != announced_)
    throw std::logic_error("BinWriter: wrote " + std::to_string(written_) + " sections, announced " +
                           std::to_string(announced_));
  flush();
  file_.commit();
}

}  // namespace zkmill::formats
