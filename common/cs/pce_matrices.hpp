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

namespace pce_detail {
template <class F>
struct Coefficients;
}

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
  // write_file() for an image encode() made in this process, then the matrices mapped from the
  // very file written, without reading it back in full (the .cpp says why that is sound). What
  // a synth worker that has just recorded a key's matrices uses. Throws PceError.
  static PceMatrices write_and_open(const std::string& path, std::span<const uint8_t> image, const PceShape& expected);

  // Maps `path` and validates it against `expected`; throws PceError naming the file and the
  // reason (missing, truncated, corrupted, another version, another circuit or curve).
  static PceMatrices open(const std::string& path, const PceShape& expected);
  // The same checks over an image held in memory.
  static PceMatrices from_image(std::vector<uint8_t> image, const PceShape& expected, const std::string& name);
  // An image encode() made in this process, held in memory (where no file can be written): its
  // header is checked against `expected`, its body is not read again (encode() made it whole).
  static PceMatrices from_encoded(std::vector<uint8_t> image, const PceShape& expected, const std::string& name);
  // How many images this process has checked in full (checksum and structure, a pass over every
  // byte): one per open() and from_image(), none for write_and_open() and from_encoded(). Tests
  // count them: a file just written must not be read back.
  static uint64_t full_checks();
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
  // The file image the matrices are read from (the mapping, or the image held in memory).
  std::span<const uint8_t> image() const { return bytes_; }
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
    return table<F>().table;
  }

  // a = A z, b = B z, c = C z for z = (inputs || aux), rows split across the pool. F must be
  // the scalar field of the file's curve (checked).
  template <class F>
  void multiply(std::span<const F> inputs, std::span<const F> aux, std::span<F> a, std::span<F> b, std::span<F> c,
                util::ThreadPool& pool) const;

 private:
  PceMatrices() = default;
  // kHeader: the header's checks only, for an image this process encoded (write_and_open,
  // from_encoded); kAll adds the checksum and the structure, a pass over every byte.
  enum class Check : uint8_t { kHeader, kAll };
  static PceMatrices validate(std::span<const uint8_t> bytes, const PceShape& expected, const std::string& name,
                              Check check);
  template <class T>
  std::span<const T> words_at(uint64_t offset, uint64_t count) const {
    return {reinterpret_cast<const T*>(bytes_.data() + offset), size_t(count)};
  }
  template <class F>
  const pce_detail::Coefficients<F>& table() const;

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
// The decoded coefficient table (Montgomery form) and the multiples k * 1 for |k| <= kSmall,
// which settle a row's count of +-1 entries on variables equal to one in one lookup.
template <class F>
struct Coefficients {
  static constexpr int64_t kSmall = 255;
  std::vector<F> table;
  std::vector<F> small;  // small[k + kSmall] = k
  Coefficients() : small(2 * kSmall + 1) {
    for (int64_t k = -kSmall; k <= kSmall; ++k) small[size_t(k + kSmall)] = F::from_i64(k);
  }
  F multiple_of_one(int64_t k) const {
    return k >= -kSmall && k <= kSmall ? small[size_t(k + kSmall)] : F::from_i64(k);
  }
};

// A sum of many field elements without reduction (lazy addition): limb i of every term is
// added into its own 128-bit lane, so the lanes carry no dependency on one another and a long
// row's additions are not one serial chain of add-and-reduce. value() reduces once.
template <class F>
struct WideSum {
  static constexpr size_t N = F::N;
  unsigned __int128 lane[N] = {};

  ZKMILL_FORCE_INLINE void add(const F& t) {
    for (size_t i = 0; i < N; ++i) lane[i] += t.v[i];
  }
  // t if mask is all ones, nothing if it is zero.
  ZKMILL_FORCE_INLINE void add_masked(const F& t, uint64_t mask) {
    for (size_t i = 0; i < N; ++i) lane[i] += t.v[i] & mask;
  }
  // -t, as p - t (t < p; p - 0 = p is congruent to 0, harmless in a lazy sum).
  ZKMILL_FORCE_INLINE void sub(const F& t) {
    ff::Limbs<N> d;
    ff::sub_to(d, F::modulus(), t.v);
    for (size_t i = 0; i < N; ++i) lane[i] += d[i];
  }
  // The sum mod p. X = sum of lanes << 64 i < 2^(64 N + 64) for fewer than 2^64 terms. The part
  // above 2^(64 N) is folded down as h 2^(64 N) = h R = h r1 (mod p) (each fold divides h by
  // at least two), then q = floor(x_top / (p_top + 1)) <= floor(X / p) falls at most 2 short,
  // so at most two conditional subtractions remain (the divisor is a constant: a multiply).
  F value() const {
    uint64_t x[N + 1];
    unsigned __int128 c = 0;
    for (size_t i = 0; i < N; ++i) {
      c += lane[i];
      x[i] = uint64_t(c);
      c >>= 64;
    }
    x[N] = uint64_t(c);
    const ff::Limbs<N>& p = F::modulus();
    constexpr ff::Limbs<N> r1 = F::one().v;
    while (x[N] != 0) {
      const uint64_t h = x[N];
      unsigned __int128 t = 0;
      for (size_t i = 0; i < N; ++i) {
        t += (unsigned __int128)h * r1[i] + x[i];
        x[i] = uint64_t(t);
        t >>= 64;
      }
      x[N] = uint64_t(t);
    }
    const uint64_t q = x[N - 1] / (p[N - 1] + 1);
    ff::Limbs<N> r;
    if (q != 0) {
      unsigned __int128 t = 0;
      uint64_t borrow = 0;
      for (size_t i = 0; i < N; ++i) {
        t += (unsigned __int128)q * p[i];
        const uint64_t m = uint64_t(t);
        t >>= 64;
        const unsigned __int128 d = (unsigned __int128)x[i] - m - borrow;
        r[i] = uint64_t(d);
        borrow = uint64_t(d >> 64) & 1;
      }
    } else {
      for (size_t i = 0; i < N; ++i) r[i] = x[i];
    }
    while (ff::cmp(r, p) >= 0) ff::sub_to(r, r, p);
    return F::from_raw_mont(r);
  }
};

// A short row's accumulator: a field element, reduced at every addition (WideSum's
// interface; for a few terms one final reduction would cost more than their additions).
template <class F>
struct FieldSum {
  F acc = F::zero();
  ZKMILL_FORCE_INLINE void add(const F& t) { acc += t; }
  ZKMILL_FORCE_INLINE void add_masked(const F& t, uint64_t mask) {
    F m;
    for (size_t i = 0; i < F::N; ++i) m.v[i] = t.v[i] & mask;
    acc += m;
  }
  ZKMILL_FORCE_INLINE void sub(const F& t) { acc -= t; }
  F value() const { return acc; }
};

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
const pce_detail::Coefficients<F>& PceMatrices::table() const {
  if (curve_of_scalar_field<F>() != header_.shape.curve || !table_)
    throw PceError("PCE: " + name_ + " was recorded for " + curve_name(header_.shape.curve) + ", not this field");
  return *static_cast<const pce_detail::Coefficients<F>*>(table_.get());
}

// The mat-vec exploits a mostly-bit witness. Each variable is first classified (0, 1, or
// other: one byte each, in parallel); then a row's terms cost, by class of variable and code:
//   other:  the value is read and added (+1), subtracted (-1) or multiplied by its table entry;
//   0 / 1:  the value is never read: a +-1 entry adds +-class to an integer count, a table
//           entry adds (coefficient AND mask(class)), branch-free; the count is turned into a
//           field element once per row (count * 1, a lookup for |count| <= 255).
// So a packed bit sum (SHA-256's additions, bit decompositions: most of PoRep's entries)
// costs additions of coefficients and no Montgomery product, and a booleanity row two integer
// increments. ONE (column 0) is class 1 whatever inputs[0] holds. Field addition is exact, so
// the result equals the term-by-term sum bit for bit.
template <class F>
void PceMatrices::multiply(std::span<const F> inputs, std::span<const F> aux, std::span<F> a, std::span<F> b,
                           std::span<F> c, util::ThreadPool& pool) const {
  const pce_detail::Coefficients<F>& coeff = table<F>();
  const uint64_t n_in = header_.shape.n_inputs, n_aux = header_.shape.n_aux, rows = n_rows();
  if (inputs.size() != n_in || aux.size() != n_aux || a.size() < rows || b.size() < rows || c.size() < rows)
    throw PceError("PCE: the assignment or the output vectors do not have the shape of " + name_);
  enum : uint8_t { kZero = 0, kOne = 1, kOther = 2 };
  std::vector<uint8_t> cls(n_in + n_aux);
  const F one = F::one();
  auto classify = [&](const F& z) -> uint8_t { return z.is_zero() ? kZero : z == one ? kOne : kOther; };
  cls[0] = kOne;
  for (uint64_t i = 1; i < n_in; ++i) cls[i] = classify(inputs[i]);
  pool.parallel_for(
      n_aux,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) cls[n_in + i] = classify(aux[i]);
      },
      size_t(1) << 16);
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
  const F* ax = aux.data() - n_in;        // ax[col] is aux[col - n_in] for col >= n_in
  const F* tab = coeff.table.data() - 2;  // tab[code] for code >= 2
  const uint8_t* kind = cls.data();
  // A row of more than kWide entries (packed sums: 30 to 250 of them) accumulates lazily;
  // a short one (most rows: booleanity, xor, and, ch) in a field element, where one final
  // reduction would cost more than its few additions.
  constexpr uint64_t kWide = 8;
  // One row's dot product into Acc (WideSum or FieldSum).
  auto dot = [&]<class Acc>(const Matrix& m, uint64_t k0, uint64_t e, Acc acc) -> F {
    int64_t ones = 0;  // sum of the +-1 entries on variables equal to one
    for (uint64_t k = k0; k < e; ++k) {
      const uint32_t col = m.cols[k], code = m.codes[k];
      const uint8_t cl = kind[col];
      if (cl == kOther) {
        const F& z = col < n_in ? in[col] : ax[col];
        if (code == 0)
          acc.add(z);
        else if (code == 1)
          acc.sub(z);
        else
          acc.add(tab[code] * z);
      } else if (code < 2) {
        ones += code == 0 ? int64_t(cl) : -int64_t(cl);
      } else {
        acc.add_masked(tab[code], uint64_t(0) - cl);
      }
    }
    if (ones != 0) acc.add(coeff.multiple_of_one(ones));
    return acc.value();
  };
  pool.parallel_for(
      rows,
      [&](size_t lo, size_t hi) {
        for (const Matrix& m : ms)
          for (size_t r = lo; r < hi; ++r) {
            const uint64_t k0 = m.row_ptr[r], e = m.row_ptr[r + 1];
            m.out[r] =
                e - k0 > kWide ? dot(m, k0, e, pce_detail::WideSum<F>{}) : dot(m, k0, e, pce_detail::FieldSum<F>{});
          }
      },
      4096);
}

}  // namespace zkmill::cs
