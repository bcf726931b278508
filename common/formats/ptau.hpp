// SPDX-License-Identifier: MIT
// snarkjs powers-of-tau files (.ptau, version 1), read in place over a memory mapping.
//
// Layout (snarkjs src/powersoftau_new.js, powersoftau_utils.js, powersoftau_preparephase2.js):
//   1 header: u32 n8 (bytes of the base field q), q (n8 bytes LE), u32 power, u32 ceremonyPower;
//   2 tauG1      2^(power+1) - 1 G1 points tau^i G1;
//   3 tauG2      2^power G2 points tau^i G2;
//   4 alphaTauG1 2^power G1 points alpha tau^i G1;
//   5 betaTauG1  2^power G1 points beta tau^i G1;
//   6 betaG2     one G2 point;
//   7 contributions (kept as opaque bytes: prepare phase2 copies them);
// and, once prepared for phase 2, the same four series in the Lagrange basis: for each
// p = 0..power (and p = power + 1 for tauG1) the 2^p points L_i(tau) X of the 2^p-element
// domain of snarkjs's root of unity, back to back:
//   12 tauG1 (2^(power+2) - 1 points), 13 tauG2, 14 alphaTauG1, 15 betaTauG1 (2^(power+1) - 1 each).
// Points are affine LEM (x || y, little-endian Montgomery; serde/snarkjs_binary.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/formats/binfile.hpp"

namespace zkmill::formats {

class PtauFile {
 public:
  static PtauFile open(const std::string& path);
  static PtauFile parse(std::span<const uint8_t> bytes, std::string name);

  const BinFile& file() const { return file_; }
  const std::string& name() const { return file_.name(); }
  CurveId curve() const { return curve_; }
  uint32_t n8q() const { return n8q_; }
  uint32_t power() const { return power_; }
  uint32_t ceremony_power() const { return ceremony_power_; }
  size_t g1_size() const { return 2 * size_t(n8q_); }
  size_t g2_size() const { return 4 * size_t(n8q_); }

  // The raw sections (sizes checked against the header).
  std::span<const uint8_t> header() const { return header_; }
  std::span<const uint8_t> tau_g1() const { return sec_[0]; }
  std::span<const uint8_t> tau_g2() const { return sec_[1]; }
  std::span<const uint8_t> alpha_tau_g1() const { return sec_[2]; }
  std::span<const uint8_t> beta_tau_g1() const { return sec_[3]; }
  std::span<const uint8_t> beta_g2() const { return sec_[4]; }
  std::span<const uint8_t> contributions() const { return sec_[5]; }

  // Phase-2 sections 12..15 (Lagrange tauG1, tauG2, alphaTauG1, betaTauG1).
  bool prepared() const { return prepared_; }
  std::span<const uint8_t> lagrange(int k) const { return lag_[k]; }
  // Where the 2^p Lagrange points of power p start inside a Lagrange section (in points).
  static uint64_t lagrange_offset(uint32_t p) { return (uint64_t(1) << p) - 1; }

  // Offset of section 2 (tauG1) from the start of the file; zkey new's circuit hash reads
  // past its end exactly as snarkjs does (see setup/zkey_new.cpp).
  size_t tau_g1_file_offset() const { return size_t(sec_[0].data() - file_.bytes().data()); }

  [[noreturn]] void fail(const std::string& msg) const { file_.fail(msg); }

 private:
  explicit PtauFile(BinFile f);

  BinFile file_;
  CurveId curve_{};
  uint32_t n8q_ = 0, power_ = 0, ceremony_power_ = 0;
  bool prepared_ = false;
  std::span<const uint8_t> header_;
  std::span<const uint8_t> sec_[6];
  std::span<const uint8_t> lag_[4];
};

}  // namespace zkmill::formats
