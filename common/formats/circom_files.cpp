// SPDX-License-Identifier: MIT
// Parsing of the .wtns and .r1cs headers (circom_files.hpp); the typed decoding of values
// and constraints is in the headers, templated on the field.
#include "common/formats/circom_files.hpp"

namespace zkmill::formats {

namespace {

// n8 and the prime at the start of a header section; the prime names the curve.
CurveId read_scalar_prime(SectionReader& rd, uint32_t* n8, const char* kind) {
  *n8 = rd.u32();
  if (*n8 != 32)
    rd.fail("field element size " + std::to_string(*n8) +
            " bytes: only 32-byte scalar fields (bn128, bls12381) are supported");
  auto prime = rd.take(*n8);
  auto curve = curve_from_scalar_prime(prime);
  if (!curve)
    rd.fail(std::string(kind) + " is over the prime " + prime_to_dec(prime) +
            ", which is neither bn128's nor bls12381's scalar field");
  return *curve;
}

}  // namespace

WtnsFile WtnsFile::open(const std::string& path) { return WtnsFile(BinFile::open(path, "wtns", 1, 2)); }
WtnsFile WtnsFile::parse(std::span<const uint8_t> bytes, std::string name) {
  return WtnsFile(BinFile::parse(bytes, std::move(name), "wtns", 1, 2));
}

WtnsFile::WtnsFile(BinFile f) : file_(std::move(f)) {
  SectionReader rd(file_, file_.section(1, "header"), "header");
  curve_ = read_scalar_prime(rd, &n8_, "witness");
  n_ = rd.u32();
  rd.expect_end();
  values_ = file_.section(2, "witness values");
  if (values_.size() != n_ * n8_)
    file_.fail("witness values section has " + std::to_string(values_.size()) + " bytes, the header promises " +
               std::to_string(n_) + " values of " + std::to_string(n8_) + " bytes (truncated or corrupt)");
  if (n_ == 0) file_.fail("empty witness (no ONE wire)");
}

R1csFile R1csFile::open(const std::string& path) { return R1csFile(BinFile::open(path, "r1cs", 1, 1)); }
R1csFile R1csFile::parse(std::span<const uint8_t> bytes, std::string name) {
  return R1csFile(BinFile::parse(bytes, std::move(name), "r1cs", 1, 1));
}

R1csFile::R1csFile(BinFile f) : file_(std::move(f)) {
  if (file_.has(4) || file_.has(5))
    file_.fail(
        "uses PLONK custom gates (sections 4/5, circom --O2 with custom templates); only plain R1CS is supported");
  SectionReader rd(file_, file_.section(1, "header"), "header");
  header_.curve = read_scalar_prime(rd, &header_.n8, "the circuit");
  header_.n_wires = rd.u32();
  header_.n_pub_out = rd.u32();
  header_.n_pub_in = rd.u32();
  header_.n_prv_in = rd.u32();
  header_.n_labels = rd.u64();
  header_.n_constraints = rd.u32();
  rd.expect_end();
  if (header_.n_wires == 0) file_.fail("header: no wires (wire 0 is ONE)");
  if (uint64_t(header_.n_pub_out) + header_.n_pub_in + header_.n_prv_in >= header_.n_wires)
    file_.fail("header: more inputs and outputs than wires");
  // Every constraint takes at least 12 bytes (three term counts): a cheap sanity bound that
  // rejects absurd counts before anything is allocated for them.
  if (uint64_t(header_.n_constraints) * 12 > file_.section(2, "constraints").size())
    file_.fail("header: " + std::to_string(header_.n_constraints) + " constraints cannot fit the constraints section");
}

std::vector<uint64_t> R1csFile::wire_to_label() const {
  SectionReader rd(file_, file_.section(3, "wire-to-label map"), "wire-to-label map");
  if (rd.remaining() != uint64_t(header_.n_wires) * 8)
    rd.fail("has " + std::to_string(rd.remaining()) + " bytes, expected 8 per wire (" +
            std::to_string(header_.n_wires) + " wires)");
  std::vector<uint64_t> out(header_.n_wires);
  for (auto& l : out) {
    l = rd.u64();
    if (l >= header_.n_labels && header_.n_labels != 0)
      rd.fail("label " + std::to_string(l) + " >= nLabels " + std::to_string(header_.n_labels));
  }
  return out;
}

}  // namespace zkmill::formats
