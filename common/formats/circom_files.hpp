// SPDX-License-Identifier: MIT
// circom's outputs, read in place over a memory mapping (or a byte span, for fuzzing):
//   .wtns (versions 1-2, also snarkjs wtns calculate): header section 1 (u32 n8, the scalar
//     prime r in n8 bytes, u32 nWitness), section 2: nWitness canonical little-endian values;
//   .r1cs (version 1): header (section 1), constraints (section 2: per constraint three
//     linear combinations A, B, C, each a u32 term count then (u32 wire, n8-byte canonical LE
//     coefficient) terms) and the wire-to-label map (section 3, u64 per wire). Files using
//     PLONK custom gates (sections 4/5) are refused: they are not R1CS.
// Values are decoded (and checked < r) only when asked for, into the field the caller names.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/cs/witness_bundle.hpp"
#include "common/formats/binfile.hpp"

namespace zkmill::formats {

class WtnsFile {
 public:
  static WtnsFile open(const std::string& path);
  static WtnsFile parse(std::span<const uint8_t> bytes, std::string name);

  const std::string& name() const { return file_.name(); }
  CurveId curve() const { return curve_; }
  uint32_t n8() const { return n8_; }
  uint64_t size() const { return n_; }
  // The raw section-2 bytes, size() * n8() of them.
  std::span<const uint8_t> raw() const { return values_; }

  // All values in Montgomery form; throws FormatError (naming the index) for a value >= r
  // and when F is not the file's scalar field.
  template <class F>
  std::vector<F> values() const {
    if (cs::curve_of_scalar_field<F>() != curve_)
      file_.fail(std::string("witness is for ") + curve_name(curve_) + ", not " +
                 curve_name(cs::curve_of_scalar_field<F>()));
    std::vector<F> out(static_cast<size_t>(n_));
    for (size_t i = 0; i < out.size(); ++i) {
      auto v = F::from_bytes_le(values_.data() + i * n8_);
      if (!v) file_.fail("witness value " + std::to_string(i) + " is not canonical (>= r)");
      out[i] = *v;
    }
    return out;
  }

 private:
  explicit WtnsFile(BinFile f);

  BinFile file_;
  CurveId curve_{};
  uint32_t n8_ = 0;
  uint64_t n_ = 0;
  std::span<const uint8_t> values_;
};

struct R1csHeader {
  CurveId curve{};
  uint32_t n8 = 0;
  uint32_t n_wires = 0;  // including wire 0 = ONE
  uint32_t n_pub_out = 0, n_pub_in = 0, n_prv_in = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  uint32_t n_public() const { return n_pub_out + n_pub_in; }
};

// One matrix (A, B or C) in compressed sparse rows: row i's terms are
// [row_start[i], row_start[i + 1]) of wire / coeff.
template <class F>
struct SparseMatrix {
  std::vector<uint64_t> row_start;
  std::vector<uint32_t> wire;
  std::vector<F> coeff;
  F eval_row(size_t i, std::span<const F> z) const {
    F acc = F::zero();
    for (uint64_t k = row_start[i]; k < row_start[i + 1]; ++k) acc += coeff[k] * z[wire[k]];
    return acc;
  }
};

template <class F>
struct R1cs {
  R1csHeader header;
  SparseMatrix<F> m[3];  // A, B, C
  // The first constraint i with <A_i, z> <B_i, z> != <C_i, z>, or -1 when z satisfies all.
  int64_t first_unsatisfied(std::span<const F> z) const {
    for (size_t i = 0; i < header.n_constraints; ++i)
      if (m[0].eval_row(i, z) * m[1].eval_row(i, z) != m[2].eval_row(i, z)) return int64_t(i);
    return -1;
  }
};

class R1csFile {
 public:
  static R1csFile open(const std::string& path);
  static R1csFile parse(std::span<const uint8_t> bytes, std::string name);

  const std::string& name() const { return file_.name(); }
  const R1csHeader& header() const { return header_; }

  // Decodes and checks every constraint: wire < n_wires, coefficient < r, exact section
  // length. F must be the file's scalar field. Throws FormatError.
  template <class F>
  R1cs<F> constraints() const;
  // The same walk and checks without materialising the matrices (zkey new streams a circuit
  // several times over rather than holding it): term(constraint, matrix 0 A / 1 B / 2 C, wire,
  // coefficient) for every term in file order, row_end(constraint, matrix) after each row.
  template <class F, class Term, class RowEnd>
  void for_each_term(Term&& term, RowEnd&& row_end) const;
  const BinFile& file() const { return file_; }
  // Section 3: the label of each wire (n_wires entries). Throws FormatError.
  std::vector<uint64_t> wire_to_label() const;

 private:
  explicit R1csFile(BinFile f);
  BinFile file_;
  R1csHeader header_;
};

template <class F, class Term, class RowEnd>
void R1csFile::for_each_term(Term&& term, RowEnd&& row_end) const {
  if (cs::curve_of_scalar_field<F>() != header_.curve)
    file_.fail(std::string("constraints are over the ") + curve_name(header_.curve) + " scalar field, not " +
               curve_name(cs::curve_of_scalar_field<F>()) + "'s");
  SectionReader rd(file_, file_.section(2, "constraints"), "constraints");
  for (uint32_t i = 0; i < header_.n_constraints; ++i) {
    for (uint32_t mat = 0; mat < 3; ++mat) {
      uint32_t terms = rd.u32();
      // Bound the count by the bytes left before anything trusts it (hostile counts).
      if (uint64_t(terms) * (4 + header_.n8) > rd.remaining())
        rd.fail("constraint " + std::to_string(i) + " claims " + std::to_string(terms) + " terms, truncated");
      for (uint32_t t = 0; t < terms; ++t) {
        uint32_t w = rd.u32();
        if (w >= header_.n_wires)
          rd.fail("constraint " + std::to_string(i) + " uses wire " + std::to_string(w) + " >= nWires " +
                  std::to_string(header_.n_wires));
        auto c = F::from_bytes_le(rd.take(header_.n8).data());
        if (!c) rd.fail("constraint " + std::to_string(i) + " has a non-canonical coefficient (>= r)");
        term(i, mat, w, *c);
      }
      row_end(i, mat);
    }
  }
  rd.expect_end();
}

template <class F>
R1cs<F> R1csFile::constraints() const {
  R1cs<F> out;
  out.header = header_;
  for (auto& m : out.m) m.row_start.reserve(size_t(header_.n_constraints) + 1);
  for (auto& m : out.m) m.row_start.push_back(0);
  for_each_term<F>(
      [&](uint32_t, uint32_t mat, uint32_t w, const F& c) {
        out.m[mat].wire.push_back(w);
        out.m[mat].coeff.push_back(c);
      },
      [&](uint32_t, uint32_t mat) { out.m[mat].row_start.push_back(out.m[mat].wire.size()); });
  return out;
}

}  // namespace zkmill::formats
