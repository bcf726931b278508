// SPDX-License-Identifier: MIT
// Precompiled constraint evaluation (PCE): a circuit shape's A, B, C recorded once into CSR
// matrices, stored in a versioned, checksummed file beside the proving key and memory-mapped,
// so each partition's synthesis only computes the witness (witness_cs.hpp) and then
// a = A z, b = B z, c = C z by a multi-threaded sparse mat-vec.
//
// Compact coefficients: an entry is a 32-bit column and a 32-bit code: 0 is +1, 1 is -1, and
// k >= 2 names entry k - 2 of the file's table of distinct coefficients (deduplicated, so the
// powers of two of packed bit sums and a circuit's constants are stored once). 8 bytes an
// entry against the recorder's 36, and the common +-1 entries cost an addition, no product.
// Entries on column 0 (the constant ONE) add their coefficient without a product.
//
// Field addition is exact, so a, b, c equal ProvingCS's evaluation bit for bit whatever the
// order of the terms; the density bitmaps are the recorder's, which follows the same rule as
// ProvingCS (constraint_system.hpp). The file layout is in docs/formats.md; open() refuses
// (PceError) a file that is truncated, corrupted (checksum, or a structure that does not
// hold), of another version, or recorded for another circuit shape or curve.
//
// The same file serves both ends of the data plane: synth workers compute a, b, c with it (or
// ship the witness alone, stamped with id()), and prove workers expand witness-only bundles
// with it (witness_expand.hpp). id() is a content digest of the whole file (its header carries
// the body checksum), and encoding is deterministic, so two workers that record the same
// circuit get the same id, and a worker running another circuit version gets another one.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/cs/recording_cs.hpp"
#include "common/cs/witness_bundle.hpp"
#include "common/util/curve_id.hpp"
#include "common/util/mapped_file.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::cs {

class PceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a witness-only bundle names the matrices it was packed for by (PceMatrices::id()).
using PceId = CircuitId;

// "1f2e…" (the first 8 bytes in hex), for messages.
std::string short_hex(const PceId& id);

// What a PCE file was recorded for; a file is used only when all of it matches.
struct PceShape {
  CurveId curve = CurveId::Bn254;
  std::string circuit;    // circuit name, at most 47 bytes ("chain", "merkle", ...)
  uint64_t size = 0;      // the size parameter the circuit was built with
  uint64_t n_inputs = 0;  // ONE included
  uint64_t n_aux = 0;
  uint64_t n_constraints = 0;  // the circuit's own, without the input rows
  bool operator==(const PceShape&) const = default;
  std::string describe() const;
};

// The fixed-size header at the start of the file (little-endian, see docs/formats.md).
struct PceHeader {
  static constexpr size_t kSize = 192;
  static constexpr char kMagic[8] = {'Z', 'K', 'M', 'P', 'C', 'E', '\r', '\n'};
  uint32_t version = 0;
  PceShape shape;
  uint64_t n_coeffs = 0;    // entries of the coefficient table
  uint64_t nnz[3] = {};     // entries of A, B, C
  uint32_t elem_bytes = 0;  // bytes of one field element (32)
  uint64_t file_size = 0;
  uint64_t checksum = 0;  // cs::checksum64 of the header (this field zero) then of the body
};

// Byte offsets of every section for given counts; all 8-byte aligned.
struct PceLayout {
  uint64_t coeffs = 0;
  uint64_t row_ptr[3] = {}, cols[3] = {}, codes[3] = {};
  uint64_t density[3] = {};  // aux_in_a, aux_in_b, input_in_b
  uint64_t density_words[3] = {};
  uint64_t total = 0;
  static PceLayout of(const PceHeader& h);  // throws PceError on absurd counts
};

class PceMatrices {
 public:
  static constexpr uint32_t kVersion = 1;

  // Encodes a recorded R1CS (field F) as a file image for `shape`.
  template <class F>
  static std::vector<uint8_t> encode(const R1CS<F>& r1cs, const PceShape& shape);

  // Writes an image atomically (temporary file, fsync, rename). Throws PceError.
  static void write_file(const std::string& path, std::span<const uint8_t> image);

  // Maps `path` and validates it against `expected`; throws PceError naming the file and the
  // reason (missing, truncated, corrupted, another version, another circuit or curve).
  static PceMatrices open(const std::string& path, const PceShape& expected);
  // The same checks over an image held in memory (used when the file cannot be written).
  static PceMatrices from_image(std::vector<uint8_t> image, const PceShape& expected, const std::string& name);
  // encode() then from_image(): the matrices of a recording held in memory (tests, benches).
  template <class F>
  static PceMatrices from_r1cs(const R1CS<F>& r1cs, const PceShape& shape) {
    return from_image(encode(r1cs, shape), shape, shape.circuit + " (in memory)");
  }

  const PceHeader& header() const { return header_; }
  const PceShape& shape() const { return header_.shape; }
  uint64_t n_rows() const { return header_.shape.n_constraints + header_.shape.n_inputs; }
  uint64_t nnz() const { return header_.nnz[0] + header_.nnz[1] + header_.nnz[2]; }
  size_t image_bytes() const { return bytes_.size(); }
  // Content id of the image (four checksum64 lanes over the header, whose checksum field
  // covers the body): stamped into witness-only bundles and checked by the prove side.
  const PceId& id() const { return id_; }
  // Density words in the witness bundle's layout (cs::DensityMap order).
  std::span<const uint64_t> density(size_t which) const {
    return words_at<uint64_t>(layout_.density[which], layout_.density_words[which]);
  }

  // The stored CSR of A (0), B (1) or C (2): n_rows() + 1 row offsets, then per entry its
  // column in z = (inputs || aux) and its code (see the top of this file). For evaluators
  // elsewhere: the GPU's copy of the matrices (cuda/cs/pce_spmv.cuh) is uploaded from these.
  struct Csr {
    std::span<const uint64_t> row_ptr;
    std::span<const uint32_t> cols, codes;
  };
  Csr csr(size_t m) const {
    if (m > 2) throw PceError("PCE: matrix " + std::to_string(m) + " (0, 1, 2 are A, B, C)");
    return {words_at<uint64_t>(layout_.row_ptr[m], n_rows() + 1), words_at<uint32_t>(layout_.cols[m], header_.nnz[m]),
            words_at<uint32_t>(layout_.codes[m], header_.nnz[m])};
  }
  // The coefficient table decoded (Montgomery form): entry k is the coefficient of code k + 2.
  // F must be the scalar field of the file's curve (PceError otherwise).
  template <class F>
  std::span<const F> coefficients() const {
    return table<F>();
  }

  // a = A z, b = B z, c = C z for z = (inputs || aux), rows split across the pool. F must be
  // the scalar field of the file's curve (checked).
  template <class F>
  void multiply(std::span<const F> inputs, std::span<const F> aux, std::span<F> a, std::span<F> b, std::span<F> c,
                util::ThreadPool& pool) const;

 private:
  PceMatrices() = default;
  static PceMatrices validate(std::span<const uint8_t> bytes, const PceShape& expected, const std::string& name);
  template <class T>
  std::span<const T> words_at(uint64_t offset, uint64_t count) const {
    return {reinterpret_cast<const T*>(bytes_.data() + offset), size_t(count)};
  }
  template <class F>
  const std::vector<F>& table() const;

  std::shared_ptr<const util::MappedFile> map_;        // the mapping, when opened from a file
  std::shared_ptr<const std::vector<uint8_t>> owned_;  // the image, when held in memory
  std::span<const uint8_t> bytes_;
  PceHeader header_;
  PceLayout layout_;
  std::string name_;
  PceId id_{};
  // The coefficient table decoded once (Montgomery form) for the mat-vec; type-erased so the
  // class itself is not a template (one file format, whichever curve).
  std::shared_ptr<const void> table_;
};

namespace pce_detail {
void encode_header(const PceHeader& h, uint8_t* out);
uint64_t image_checksum(std::span<const uint8_t> image);
template <class F>
struct FieldHash {
  size_t operator()(const F& x) const {
    uint64_t h = 0;
    for (size_t i = 0; i < F::N; ++i) h = (h ^ x.v[i]) * 0x9e3779b97f4a7c15ull;
    return size_t(h ^ (h >> 29));
  }
};
}  // namespace pce_detail

template <class F>
std::vector<uint8_t> PceMatrices::encode(const R1CS<F>& r, const PceShape& shape) {
  if (curve_of_scalar_field<F>() != shape.curve) throw PceError("PCE: the R1CS's field is not the shape's curve");
  if (r.n_inputs != shape.n_inputs || r.n_aux != shape.n_aux || r.n_constraints != shape.n_constraints)
    throw PceError("PCE: the recorded R1CS does not have the shape " + shape.describe());
  PceHeader h;
  h.version = kVersion;
  h.shape = shape;
  h.elem_bytes = uint32_t(F::kBytes);
  const CsrMatrix<F>* ms[3] = {&r.A, &r.B, &r.C};
  // The coefficient table in order of first use, so encoding is deterministic.
  std::unordered_map<F, uint32_t, pce_detail::FieldHash<F>> index;
  std::vector<F> table;
  const F one = F::one(), minus_one = -F::one();
  std::vector<uint32_t> codes[3];
  for (size_t m = 0; m < 3; ++m) {
    if (ms[m]->rows() != r.n_rows()) throw PceError("PCE: a recorded matrix has the wrong number of rows");
    h.nnz[m] = ms[m]->nnz();
    codes[m].resize(ms[m]->nnz());
    for (size_t k = 0; k < ms[m]->nnz(); ++k) {
      const F& v = ms[m]->val[k];
      if (v == one) {
        codes[m][k] = 0;
      } else if (v == minus_one) {
        codes[m][k] = 1;
      } else {
        auto [it, fresh] = index.try_emplace(v, uint32_t(table.size()));
        if (fresh) {
          if (table.size() + 2 > UINT32_MAX) throw PceError("PCE: more than 2^32 - 3 distinct coefficients");
          table.push_back(v);
        }
        codes[m][k] = it->second + 2;
      }
    }
  }
  h.n_coeffs = table.size();
  const PceLayout l = PceLayout::of(h);
  h.file_size = l.total;
  std::vector<uint8_t> img(l.total, 0);
  for (size_t i = 0; i < table.size(); ++i) table[i].to_bytes_le(img.data() + l.coeffs + i * F::kBytes);
  for (size_t m = 0; m < 3; ++m) {
    std::memcpy(img.data() + l.row_ptr[m], ms[m]->row_ptr.data(), ms[m]->row_ptr.size() * 8);
    std::memcpy(img.data() + l.cols[m], ms[m]->col.data(), ms[m]->col.size() * 4);
    std::memcpy(img.data() + l.codes[m], codes[m].data(), codes[m].size() * 4);
  }
  const Bitmap* maps[3] = {&r.aux_in_a, &r.aux_in_b, &r.input_in_b};
  for (size_t d = 0; d < 3; ++d) {
    if (maps[d]->words().size() != l.density_words[d]) throw PceError("PCE: a density bitmap has the wrong size");
    std::memcpy(img.data() + l.density[d], maps[d]->words().data(), l.density_words[d] * 8);
  }
  pce_detail::encode_header(h, img.data());
  h.checksum = pce_detail::image_checksum(img);
  pce_detail::encode_header(h, img.data());
  return img;
}

template <class F>
const std::vector<F>& PceMatrices::table() const {
  if (curve_of_scalar_field<F>() != header_.shape.curve || !table_)
    throw PceError("PCE: " + name_ + " was recorded for " + curve_name(header_.shape.curve) + ", not this field");
  return *static_cast<const std::vector<F>*>(table_.get());
}

template <class F>
void PceMatrices::multiply(std::span<const F> inputs, std::span<const F> aux, std::span<F> a, std::span<F> b,
                           std::span<F> c, util::ThreadPool& pool) const {
  const std::vector<F>& coeff = table<F>();
  const uint64_t n_in = header_.shape.n_inputs, rows = n_rows();
  if (inputs.size() != n_in || aux.size() != header_.shape.n_aux || a.size() < rows || b.size() < rows ||
      c.size() < rows)
    throw PceError("PCE: the assignment or the output vectors do not have the shape of " + name_);
  struct Matrix {
    const uint64_t* row_ptr;
    const uint32_t* cols;
    const uint32_t* codes;
    F* out;
  };
  Matrix ms[3];
  std::span<F> outs[3] = {a, b, c};
  for (size_t m = 0; m < 3; ++m)
    ms[m] = {words_at<uint64_t>(layout_.row_ptr[m], rows + 1).data(),
             words_at<uint32_t>(layout_.cols[m], header_.nnz[m]).data(),
             words_at<uint32_t>(layout_.codes[m], header_.nnz[m]).data(), outs[m].data()};
  const F* in = inputs.data();
  const F* ax = aux.data() - n_in;  // ax[col] is aux[col - n_in] for col >= n_in
  const F* tab = coeff.data() - 2;  // tab[code] for code >= 2
  pool.parallel_for(
      rows,
      [&](size_t lo, size_t hi) {
        for (const Matrix& m : ms) {
          for (size_t r = lo; r < hi; ++r) {
            F acc = F::zero();
            for (uint64_t k = m.row_ptr[r], e = m.row_ptr[r + 1]; k < e; ++k) {
              const uint32_t col = m.cols[k], code = m.codes[k];
              if (col == 0) {  // the constant ONE: the term is its coefficient
                acc += code == 0 ? F::one() : code == 1 ? -F::one() : tab[code];
                continue;
              }
              const F& z = col < n_in ? in[col] : ax[col];
              if (code == 0)
                acc += z;
              else if (code == 1)
                acc -= z;
              else
                acc += tab[code] * z;
            }
            m.out[r] = acc;
          }
        }
      },
      4096);
}

}  // namespace zkmill::cs
