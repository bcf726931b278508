// SPDX-License-Identifier: MIT
// The .ptau reader (ptau.hpp): header, curve and section sizes checked before anything reads
// the points, so a truncated or mislabelled file is refused with its name and the section.
#include "common/formats/ptau.hpp"

namespace zkmill::formats {

PtauFile PtauFile::open(const std::string& path) { return PtauFile(BinFile::open(path, "ptau", 1, 1)); }

PtauFile PtauFile::parse(std::span<const uint8_t> bytes, std::string name) {
  return PtauFile(BinFile::parse(bytes, std::move(name), "ptau", 1, 1));
}

PtauFile::PtauFile(BinFile f) : file_(std::move(f)) {
  header_ = file_.section(1, "header");
  SectionReader hd(file_, header_, "header");
  n8q_ = hd.u32();
  if (n8q_ != 32 && n8q_ != 48) hd.fail("field size n8 = " + std::to_string(n8q_) + " (expected 32 or 48)");
  auto q = hd.take(n8q_);
  auto c = curve_from_base_prime(q);
  if (!c) hd.fail("unsupported curve (base field prime " + prime_to_dec(q) + ")");
  curve_ = *c;
  power_ = hd.u32();
  ceremony_power_ = hd.u32();
  hd.expect_end();
  if (power_ < 1 || power_ > 30) hd.fail("power " + std::to_string(power_) + " out of range (1 to 30)");

  const uint64_t n = uint64_t(1) << power_;
  struct Want {
    uint32_t type;
    const char* what;
    uint64_t points;
    size_t size;
  };
  const Want want[5] = {{2, "tauG1", 2 * n - 1, g1_size()},
                        {3, "tauG2", n, g2_size()},
                        {4, "alphaTauG1", n, g1_size()},
                        {5, "betaTauG1", n, g1_size()},
                        {6, "betaG2", 1, g2_size()}};
  for (int i = 0; i < 5; ++i) {
    sec_[i] = file_.section(want[i].type, want[i].what);
    if (sec_[i].size() != want[i].points * want[i].size)
      fail(std::string(want[i].what) + " section has " + std::to_string(sec_[i].size()) + " bytes, expected " +
           std::to_string(want[i].points) + " points of " + std::to_string(want[i].size) + " bytes (power " +
           std::to_string(power_) + "): truncated or corrupt");
  }
  sec_[5] = file_.section(7, "contributions");

  prepared_ = file_.has(12);
  if (prepared_) {
    const Want lag[4] = {{12, "Lagrange tauG1", 4 * n - 1, g1_size()},
                         {13, "Lagrange tauG2", 2 * n - 1, g2_size()},
                         {14, "Lagrange alphaTauG1", 2 * n - 1, g1_size()},
                         {15, "Lagrange betaTauG1", 2 * n - 1, g1_size()}};
    for (int i = 0; i < 4; ++i) {
      lag_[i] = file_.section(lag[i].type, lag[i].what);
      if (lag_[i].size() != lag[i].points * lag[i].size)
        fail(std::string(lag[i].what) + " section has " + std::to_string(lag_[i].size()) + " bytes, expected " +
             std::to_string(lag[i].points) + " points of " + std::to_string(lag[i].size) +
             " bytes: truncated or corrupt");
    }
  }
}

}  // namespace zkmill::formats
