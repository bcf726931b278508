// SPDX-License-Identifier: MIT
// PCE file I/O: the header codec, the layout, the checksum, atomic writing, and the checks that
// make open() refuse anything but an intact file of this version for the expected shape.
#include "common/cs/pce_matrices.hpp"

#include <atomic>
#include <filesystem>

#include "common/cs/checksum.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "common/util/atomic_file.hpp"
#include "common/util/hex.hpp"

namespace zkmill::cs {

namespace {

constexpr size_t kNameBytes = 48;
constexpr size_t kChecksumAt = 144;

uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}
void put64(uint8_t* p, uint64_t v) {
  for (size_t i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
void put32(uint8_t* p, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint64_t align8(uint64_t x) { return (x + 7) & ~uint64_t(7); }

std::atomic<uint64_t> g_full_checks{0};  // PceMatrices::full_checks()

PceHeader decode_header(const uint8_t* p) {
  PceHeader h;
  h.version = get32(p + 8);
  h.shape.curve = CurveId(get32(p + 12));
  const char* name = reinterpret_cast<const char*>(p + 16);
  h.shape.circuit.assign(name, strnlen(name, kNameBytes));
  h.shape.size = get64(p + 64);
  h.shape.n_inputs = get64(p + 72);
  h.shape.n_aux = get64(p + 80);
  h.shape.n_constraints = get64(p + 88);
  h.n_coeffs = get64(p + 96);
  for (size_t m = 0; m < 3; ++m) h.nnz[m] = get64(p + 104 + 8 * m);
  h.elem_bytes = get32(p + 128);
  h.file_size = get64(p + 136);
  h.checksum = get64(p + kChecksumAt);
  return h;
}

// The coefficient table, decoded and checked canonical, as the curve's scalar field.
template <class F>
std::shared_ptr<const void> decode_table(std::span<const uint8_t> bytes, uint64_t n, const std::string& name) {
  auto t = std::make_shared<pce_detail::Coefficients<F>>();
  t->table.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    auto v = F::from_bytes_le(bytes.data() + i * F::kBytes);
    if (!v) throw PceError(name + ": corrupted: coefficient " + std::to_string(i) + " is not a field element");
    t->table[i] = *v;
  }
  return t;
}

}  // namespace

std::string short_hex(const PceId& id) { return util::to_hex(std::span(id).first(8)) + "…"; }

std::string PceShape::describe() const {
  return "circuit '" + circuit + "' size " + std::to_string(size) + " on " + curve_name(curve) + " (" +
         std::to_string(n_inputs) + " inputs, " + std::to_string(n_aux) + " aux, " + std::to_string(n_constraints) +
         " constraints)";
}

PceLayout PceLayout::of(const PceHeader& h) {
  constexpr uint64_t kMax = uint64_t(1) << 40;
  const PceShape& s = h.shape;
  if (s.n_inputs == 0 || s.n_inputs > kMax || s.n_aux > kMax || s.n_constraints > kMax || h.n_coeffs > UINT32_MAX ||
      h.nnz[0] > kMax || h.nnz[1] > kMax || h.nnz[2] > kMax || s.n_inputs + s.n_aux > UINT32_MAX)
    throw PceError("PCE: counts out of range");
  const uint64_t rows = s.n_constraints + s.n_inputs;
  PceLayout l;
  uint64_t at = PceHeader::kSize;
  l.coeffs = at;
  at += h.n_coeffs * 32;
  for (size_t m = 0; m < 3; ++m) {
    l.row_ptr[m] = at;
    at += (rows + 1) * 8;
    l.cols[m] = at;
    at = align8(at + h.nnz[m] * 4);
    l.codes[m] = at;
    at = align8(at + h.nnz[m] * 4);
  }
  l.density_words[0] = l.density_words[1] = (s.n_aux + 63) / 64;
  l.density_words[2] = (s.n_inputs + 63) / 64;
  for (size_t d = 0; d < 3; ++d) {
    l.density[d] = at;
    at += l.density_words[d] * 8;
  }
  l.total = at;
  return l;
}

namespace pce_detail {

void encode_header(const PceHeader& h, uint8_t* p) {
  std::memset(p, 0, PceHeader::kSize);
  std::memcpy(p, PceHeader::kMagic, 8);
  put32(p + 8, h.version);
  put32(p + 12, uint32_t(h.shape.curve));
  if (h.shape.circuit.size() >= kNameBytes) throw PceError("PCE: circuit name '" + h.shape.circuit + "' too long");
  std::memcpy(p + 16, h.shape.circuit.data(), h.shape.circuit.size());
  put64(p + 64, h.shape.size);
  put64(p + 72, h.shape.n_inputs);
  put64(p + 80, h.shape.n_aux);
  put64(p + 88, h.shape.n_constraints);
  put64(p + 96, h.n_coeffs);
  for (size_t m = 0; m < 3; ++m) put64(p + 104 + 8 * m, h.nnz[m]);
  put32(p + 128, h.elem_bytes);
  put64(p + 136, h.file_size);
  put64(p + kChecksumAt, h.checksum);
}

uint64_t image_checksum(std::span<const uint8_t> image) {
  uint8_t head[PceHeader::kSize];
  std::memcpy(head, image.data(), PceHeader::kSize);
  std::memset(head + kChecksumAt, 0, 8);
  return Checksum64(0x70636531).update({head, sizeof head}).update(image.subspan(PceHeader::kSize)).digest();
}

}  // namespace pce_detail

void PceMatrices::write_file(const std::string& path, std::span<const uint8_t> image) {
  // A unique temporary per writer (mkstemp), renamed into place: workers of an embedded farm
  // (`zkmill demo`, bench-farm) share one process and may record the same file at once; a
  // temporary named by the pid alone was written by all of them together.
  try {
    util::AtomicFile f(path);
    f.write(image.data(), image.size());
    f.commit();
  } catch (const util::AtomicFileError& e) {
    throw PceError(e.what());
  }
}

// The file just written is trusted, not checked again (at the 130M PoRep size the check read
// and checksummed all 8.7 GiB once more, seconds to minutes after the recording). Sound because:
// - the bytes are encode()'s, made in this process from a recording: the checksum is the one
//   encode() computed over them, and the structure holds by construction (the recorder refuses
//   a variable it did not allocate). The checks would test our own encoder, not the file;
// - the mapping is taken of the temporary this writer filled and fsync'ed, before it is renamed
//   into place, so it is that inode whatever another writer (an embedded farm's workers record
//   the same file at once) renames over `path` afterwards; the header read back (192 bytes,
//   carrying the body's checksum) and the size are compared with the image's;
// - what open()'s checks guard against is a file from elsewhere or from before: truncated by a
//   crash or a copy, damaged, of another version or circuit. A later media error is no more
//   caught by a check at open (pages are evicted and read again at any time after it) than here,
//   and the next process to open the file (a restarted worker) checks it in full.
PceMatrices PceMatrices::write_and_open(const std::string& path, std::span<const uint8_t> image,
                                        const PceShape& expected) {
  std::shared_ptr<util::MappedFile> map;
  try {
    util::AtomicFile f(path);
    f.write(image.data(), image.size());
    f.flush_to_disk();
    map = std::make_shared<util::MappedFile>(f.temp_path());
    f.rename_into_place();
  } catch (const std::exception& e) {  // AtomicFileError, or the mapping's (the temporary is removed)
    throw PceError(e.what());
  }
  if (map->size() != image.size() || image.size() < PceHeader::kSize ||
      std::memcmp(map->data(), image.data(), PceHeader::kSize) != 0)
    throw PceError(path + ": the file written does not read back as the image it was written from");
  PceMatrices m = validate(map->bytes(), expected, path, Check::kHeader);
  m.map_ = std::move(map);
  return m;
}

PceMatrices PceMatrices::open(const std::string& path, const PceShape& expected) {
  std::shared_ptr<util::MappedFile> map;
  try {
    map = std::make_shared<util::MappedFile>(path);
  } catch (const std::exception& e) {
    throw PceError(e.what());
  }
  PceMatrices m = validate(map->bytes(), expected, path, Check::kAll);
  m.map_ = std::move(map);
  return m;
}

PceMatrices PceMatrices::from_image(std::vector<uint8_t> image, const PceShape& expected, const std::string& name) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(image));
  PceMatrices m = validate(*owned, expected, name, Check::kAll);
  m.owned_ = std::move(owned);
  return m;
}

PceMatrices PceMatrices::from_encoded(std::vector<uint8_t> image, const PceShape& expected, const std::string& name) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(image));
  PceMatrices m = validate(*owned, expected, name, Check::kHeader);
  m.owned_ = std::move(owned);
  return m;
}

uint64_t PceMatrices::full_checks() { return g_full_checks.load(std::memory_order_relaxed); }

PceMatrices PceMatrices::validate(std::span<const uint8_t> bytes, const PceShape& expected, const std::string& name,
                                  Check check) {
  if (bytes.size() < PceHeader::kSize)
    throw PceError(name + ": truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the PCE header");
  if (std::memcmp(bytes.data(), PceHeader::kMagic, 8) != 0) throw PceError(name + ": not a zkmill PCE file");
  PceMatrices m;
  m.name_ = name;
  m.header_ = decode_header(bytes.data());
  const PceHeader& h = m.header_;
  if (h.version != kVersion)
    throw PceError(name + ": PCE version " + std::to_string(h.version) + ", this build reads version " +
                   std::to_string(kVersion));
  if (h.file_size != bytes.size())
    throw PceError(name + ": truncated or extended: the header says " + std::to_string(h.file_size) +
                   " bytes, the file has " + std::to_string(bytes.size()));
  if (!(h.shape == expected))
    throw PceError(name + ": recorded for " + h.shape.describe() + ", expected " + expected.describe());
  if (h.elem_bytes != 32) throw PceError(name + ": corrupted: element size " + std::to_string(h.elem_bytes));
  try {
    m.layout_ = PceLayout::of(h);
  } catch (const PceError& e) {
    throw PceError(name + ": corrupted: " + e.what());
  }
  if (m.layout_.total != bytes.size()) throw PceError(name + ": corrupted: the section sizes do not add up");
  const bool all = check == Check::kAll;
  if (all) g_full_checks.fetch_add(1, std::memory_order_relaxed);
  if (all && pce_detail::image_checksum(bytes) != h.checksum) throw PceError(name + ": corrupted: checksum mismatch");
  m.bytes_ = bytes;
  for (uint64_t lane = 0; lane < 4; ++lane) {
    const uint64_t d = Checksum64(0x70636569 + lane).update(bytes.first(PceHeader::kSize)).digest();
    std::memcpy(m.id_.data() + 8 * lane, &d, 8);
  }
  // Structure, so that the mat-vec's loads stay in bounds even for a file whose checksum was
  // forged: rows nondecreasing and ending at nnz, columns < variables, codes < table + 2.
  const uint64_t rows = m.n_rows(), n_vars = h.shape.n_inputs + h.shape.n_aux, max_code = h.n_coeffs + 2;
  for (size_t k = 0; all && k < 3; ++k) {
    auto rp = m.words_at<uint64_t>(m.layout_.row_ptr[k], rows + 1);
    if (rp[0] != 0 || rp[rows] != h.nnz[k]) throw PceError(name + ": corrupted: row pointers of matrix " + "ABC"[k]);
    for (uint64_t r = 0; r < rows; ++r)
      if (rp[r + 1] < rp[r]) throw PceError(name + ": corrupted: row pointers of matrix " + "ABC"[k]);
    auto cols = m.words_at<uint32_t>(m.layout_.cols[k], h.nnz[k]);
    auto codes = m.words_at<uint32_t>(m.layout_.codes[k], h.nnz[k]);
    for (uint64_t i = 0; i < h.nnz[k]; ++i)
      if (cols[i] >= n_vars || codes[i] >= max_code)
        throw PceError(name + ": corrupted: entry " + std::to_string(i) + " of matrix " + "ABC"[k]);
  }
  auto coeffs = bytes.subspan(m.layout_.coeffs, h.n_coeffs * 32);
  m.table_ = h.shape.curve == CurveId::Bn254 ? decode_table<ff::Bn254Fr>(coeffs, h.n_coeffs, name)
                                             : decode_table<ff::Bls12381Fr>(coeffs, h.n_coeffs, name);
  return m;
}

}  // namespace zkmill::cs
