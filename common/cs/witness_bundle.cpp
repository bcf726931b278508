// SPDX-License-Identifier: MIT
// Witness bundle encoding, validation and streaming reception (layout in witness_bundle.hpp).
#include "common/cs/witness_bundle.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "common/util/thread_pool.hpp"

namespace zkmill::cs {

namespace {

constexpr uint8_t kMagic[4] = {'Z', 'K', 'W', 'B'};
constexpr size_t kHeaderChecksumOffset = 88;

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string hex64(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 15; i >= 0; --i) s.push_back(digits[(v >> (4 * i)) & 15]);
  return s;
}

std::string printable(std::span<const uint8_t> b) {
  std::string s;
  for (uint8_t c : b) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      s.push_back(char(c));
    } else {
      static const char* digits = "0123456789abcdef";
      s += "\\x";
      s.push_back(digits[c >> 4]);
      s.push_back(digits[c & 15]);
    }
  }
  return s;
}

void encode_header(const BundleHeader& h, uint8_t* out) {
  std::memset(out, 0, WitnessBundle::kHeaderSize);
  std::memcpy(out, kMagic, 4);
  put_u32(out + 4, h.version);
  out[8] = uint8_t(h.curve);
  out[9] = uint8_t(WitnessBundle::kElementSize);
  out[10] = uint8_t(h.kind);
  for (int i = 0; i < 5; ++i) out[11 + i] = uint8_t(h.n_full >> (8 * i));  // zero unless kind Witness
  std::memcpy(out + 16, h.circuit_id.data(), 32);
  put_u64(out + 48, h.partition);
  put_u64(out + 56, h.n_inputs);
  put_u64(out + 64, h.n_aux);
  put_u64(out + 72, h.n_rows);
  put_u64(out + 80, h.domain_size);
  put_u64(out + kHeaderChecksumOffset, checksum64({out, kHeaderChecksumOffset}));
}

size_t two_adicity(CurveId c) { return c == CurveId::Bn254 ? ff::Bn254Fr::kTwoAdicity : ff::Bls12381Fr::kTwoAdicity; }

// The checks shared by parse_header and allocate: counts a prover could actually have made.
void check_counts(const BundleHeader& h) {
  if (h.curve != CurveId::Bn254 && h.curve != CurveId::Bls12_381)
    throw BundleError("unknown curve id " + std::to_string(unsigned(h.curve)));
  auto limit = [](const char* what, uint64_t v) {
    if (v > WitnessBundle::kMaxCount)
      throw BundleError(std::string(what) + " = " + std::to_string(v) + " exceeds the limit 2^40");
  };
  limit("n_inputs", h.n_inputs);
  limit("n_aux", h.n_aux);
  limit("n_rows", h.n_rows);
  if (h.kind == BundleKind::Witness) {
    if (h.n_full > h.n_aux)
      throw BundleError("n_full = " + std::to_string(h.n_full) + " exceeds n_aux = " + std::to_string(h.n_aux));
    if (h.n_full >= WitnessBundle::kMaxCount) throw BundleError("n_full must be below 2^40 (a 40-bit field)");
  } else if (h.n_full != 0) {
    throw BundleError("n_full is set on a bundle of kind " + std::string(bundle_kind_name(h.kind)));
  }
  if (h.n_inputs == 0) throw BundleError("n_inputs = 0, but input 0 (ONE) always exists");
  if (h.n_rows < h.n_inputs)
    throw BundleError("n_rows = " + std::to_string(h.n_rows) +
                      " is less than n_inputs = " + std::to_string(h.n_inputs) + " (every input has its own row)");
  uint64_t d = h.domain_size;
  if (!std::has_single_bit(d) || d < h.n_rows)
    throw BundleError("domain size " + std::to_string(d) +
                      " is not a power of two >= n_rows = " + std::to_string(h.n_rows));
  if (std::countr_zero(d) > int(two_adicity(h.curve)))
    throw BundleError("domain size 2^" + std::to_string(std::countr_zero(d)) + " exceeds the 2-adicity of " +
                      curve_name(h.curve) + " Fr");
}

template <class F>
uint64_t first_non_canonical_in(const uint8_t* p, uint64_t count) {
  const auto& mod = F::modulus();
  for (uint64_t i = 0; i < count; ++i, p += WitnessBundle::kElementSize) {
    // Nearly every element is decided by its top limb alone.
    uint64_t top;
    std::memcpy(&top, p + 8 * (F::N - 1), 8);
    if (top < mod[F::N - 1]) continue;
    ff::Limbs<F::N> v;
    std::memcpy(v.data(), p, sizeof v);
    if (ff::cmp(v, mod) >= 0) return i;
  }
  return count;
}

}  // namespace

const char* section_name(Section s) {
  static const char* names[] = {"inputs", "aux", "a", "b", "c"};
  return names[size_t(s)];
}
const char* bundle_kind_name(BundleKind k) {
  return k == BundleKind::Zkey ? "zkey" : k == BundleKind::Witness ? "witness" : "native";
}
const char* density_name(DensityMap d) {
  static const char* names[] = {"aux_in_a", "aux_in_b", "input_in_b"};
  return names[size_t(d)];
}

BundleLayout BundleLayout::of(const BundleHeader& h) {
  BundleLayout l;
  if (h.kind == BundleKind::Witness) {
    // inputs, aux_full, (no rows), pce id, full map, bit map; no density bitmaps.
    const uint64_t counts[5] = {h.n_inputs, h.n_full, 0, 0, 0};
    uint64_t off = WitnessBundle::kHeaderSize;
    for (size_t i = 0; i < 5; ++i) {
      l.section_offset[i] = off;
      l.section_count[i] = counts[i];
      off += counts[i] * WitnessBundle::kElementSize;
    }
    l.pce_offset = off;
    off += 32;
    // The full map is implied when every aux value is whole or none is.
    l.packed_words[0] = h.n_full > 0 && h.n_full < h.n_aux ? (h.n_aux + 63) / 64 : 0;
    l.packed_words[1] = (h.n_aux - h.n_full + 63) / 64;
    for (size_t i = 0; i < 2; ++i) {
      l.packed_offset[i] = off;
      off += 8 * l.packed_words[i];
    }
    for (size_t i = 0; i < 3; ++i) l.density_offset[i] = off;
    l.checksum_offset = off;
    l.total_size = off + 8;
    return l;
  }
  const uint64_t counts[5] = {h.n_inputs, h.n_aux, h.n_rows, h.n_rows, h.n_rows};
  uint64_t off = WitnessBundle::kHeaderSize;
  for (size_t i = 0; i < 5; ++i) {
    l.section_offset[i] = off;
    l.section_count[i] = counts[i];
    off += counts[i] * WitnessBundle::kElementSize;
  }
  const uint64_t bits[3] = {h.n_aux, h.n_aux, h.n_inputs};
  for (size_t i = 0; i < 3; ++i) {
    l.density_offset[i] = off;
    l.density_words[i] = (bits[i] + 63) / 64;
    off += 8 * l.density_words[i];
  }
  l.checksum_offset = off;
  l.total_size = off + 8;
  return l;
}

BundleHeader WitnessBundle::parse_header(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderSize)
    throw BundleError("truncated: need " + std::to_string(kHeaderSize) + " bytes for the header, have " +
                      std::to_string(bytes.size()));
  const uint8_t* p = bytes.data();
  if (std::memcmp(p, kMagic, 4) != 0)
    throw BundleError("bad magic \"" + printable(bytes.first(4)) + "\" (expected \"ZKWB\")");
  BundleHeader h;
  h.version = get_u32(p + 4);
  // Version before the header checksum: a newer layout may place its checksum elsewhere.
  if (h.version < 1 || h.version > kVersion)
    throw BundleError("unsupported version " + std::to_string(h.version) + " (this build reads versions 1 to " +
                      std::to_string(kVersion) + ")");
  uint64_t stored = get_u64(p + kHeaderChecksumOffset), computed = checksum64(bytes.first(kHeaderChecksumOffset));
  if (stored != computed)
    throw BundleError("header checksum mismatch (stored " + hex64(stored) + ", computed " + hex64(computed) + ")");
  h.curve = CurveId(p[8]);
  if (p[9] != kElementSize) throw BundleError("field element size " + std::to_string(p[9]) + ", expected 32");
  if (h.version >= 2) {
    if (p[10] > uint8_t(BundleKind::Witness)) throw BundleError("unknown bundle kind " + std::to_string(p[10]));
    h.kind = BundleKind(p[10]);
    if (h.kind == BundleKind::Witness && h.version < 3)
      throw BundleError("bundle kind 2 (witness) needs format version 3, the header says " + std::to_string(h.version));
  }
  if (h.kind == BundleKind::Witness) {
    for (int i = 4; i >= 0; --i) h.n_full = (h.n_full << 8) | p[11 + i];
  } else {
    for (size_t i = h.version >= 2 ? 11 : 10; i < 16; ++i)
      if (p[i] != 0) throw BundleError("reserved header byte " + std::to_string(i) + " is not zero");
  }
  std::memcpy(h.circuit_id.data(), p + 16, 32);
  h.partition = get_u64(p + 48);
  h.n_inputs = get_u64(p + 56);
  h.n_aux = get_u64(p + 64);
  h.n_rows = get_u64(p + 72);
  h.domain_size = get_u64(p + 80);
  check_counts(h);
  return h;
}

WitnessBundle WitnessBundle::allocate(const BundleHeader& header) {
  BundleHeader h = header;
  h.version = h.kind == BundleKind::Native ? 1 : h.kind == BundleKind::Zkey ? 2 : 3;
  if (h.domain_size == 0) h.domain_size = std::bit_ceil(std::max<uint64_t>(h.n_rows, 1));
  check_counts(h);
  WitnessBundle b;
  b.header_ = h;
  b.layout_ = BundleLayout::of(h);
  // Uninitialised: the builder writes every byte, so zero-filling gigabytes
  // first would only cost time and commit pages early.
  b.buf_ = allocate_buffer(b.layout_.total_size);
  encode_header(h, b.buf_.get());
  // Bitmaps are filled word by word by the builder; start them clean so padding is zero.
  std::memset(b.buf_.get() + b.layout_.density_offset[0], 0, b.layout_.checksum_offset - b.layout_.density_offset[0]);
  return b;
}

void WitnessBundle::FreeBuffer::operator()(uint8_t* p) const { std::free(p); }

WitnessBundle::Buffer WitnessBundle::allocate_buffer(uint64_t size, bool huge_pages) {
  constexpr uint64_t kHuge = uint64_t(2) << 20;
  const uint64_t align = huge_pages && size >= kHuge ? kHuge : 64;
  const uint64_t rounded = (size + align - 1) / align * align;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(size_t(align), size_t(rounded));
  if (!p) throw std::bad_alloc();
  // Advice only: a kernel without THP (or with it off) ignores it, and the bytes are the same.
  if (align == kHuge) madvise(p, size_t(rounded), MADV_HUGEPAGE);
  return Buffer(static_cast<uint8_t*>(p));
}

WitnessBundle WitnessBundle::clone() const {
  WitnessBundle b;
  b.header_ = header_;
  b.layout_ = layout_;
  if (buf_) {
    b.buf_ = allocate_buffer(layout_.total_size);
    std::memcpy(b.buf_.get(), buf_.get(), layout_.total_size);
  }
  return b;
}

std::span<const uint64_t> WitnessBundle::density(DensityMap d) const {
  if (!buf_) throw BundleError("empty bundle accessed");
  auto i = size_t(d);
  return {std::launder(reinterpret_cast<const uint64_t*>(buf_.get() + layout_.density_offset[i])),
          layout_.density_words[i]};
}
std::span<uint64_t> WitnessBundle::density_mut(DensityMap d) {
  if (!buf_) throw BundleError("empty bundle accessed");
  auto i = size_t(d);
  return {std::launder(reinterpret_cast<uint64_t*>(buf_.get() + layout_.density_offset[i])), layout_.density_words[i]};
}

void WitnessBundle::seal() {
  if (!buf_) throw BundleError("cannot seal an empty bundle");
  encode_header(header_, buf_.get());
  put_u64(buf_.get() + layout_.checksum_offset, checksum64({buf_.get(), layout_.checksum_offset}));
}

void WitnessBundle::validate(bool check_checksum) const {
  if (!buf_) throw BundleError("empty bundle");
  if (check_checksum) check_trailer(checksum64({buf_.get(), layout_.checksum_offset}));
  uint64_t bad = first_non_canonical(header_.curve, buf_.get() + kHeaderSize, n_elements());
  if (bad != n_elements()) throw BundleError("field element not canonical at " + element_name(bad));
  check_constant_and_padding();
}

void WitnessBundle::check_trailer(uint64_t computed) const {
  uint64_t stored = get_u64(buf_.get() + layout_.checksum_offset);
  if (stored != computed)
    throw BundleError("checksum mismatch (stored " + hex64(stored) + ", computed " + hex64(computed) +
                      "): the payload was corrupted");
}

uint64_t WitnessBundle::first_non_canonical(CurveId curve, const uint8_t* p, uint64_t count) {
  return curve == CurveId::Bn254 ? first_non_canonical_in<ff::Bn254Fr>(p, count)
                                 : first_non_canonical_in<ff::Bls12381Fr>(p, count);
}

std::string WitnessBundle::element_name(uint64_t k) const {
  for (size_t s = 0; s < 5; ++s) {
    if (k < layout_.section_count[s])
      return std::string(header_.kind == BundleKind::Witness && Section(s) == Section::Aux ? "aux_full"
                                                                                           : section_name(Section(s))) +
             "[" + std::to_string(k) + "]";
    k -= layout_.section_count[s];
  }
  return "element " + std::to_string(k) + " past the payload";
}

void WitnessBundle::check_constant_and_padding() const {
  bool one = header_.curve == CurveId::Bn254 ? inputs<ff::Bn254Fr>()[0] == ff::Bn254Fr::one()
                                             : inputs<ff::Bls12381Fr>()[0] == ff::Bls12381Fr::one();
  if (!one) throw BundleError("inputs[0] (the constant ONE) is not 1");
  if (header_.kind == BundleKind::Witness) {
    auto full = packed(PackedMap::Full), bits = packed(PackedMap::Bits);
    if (!full.empty()) {
      uint64_t n_full = 0;
      for (uint64_t w : full) n_full += uint64_t(std::popcount(w));
      const uint64_t tail = header_.n_aux % 64;
      if (tail && (full.back() >> tail) != 0)
        throw BundleError("full map has bits set past the " + std::to_string(header_.n_aux) + " aux variables");
      if (n_full != header_.n_full)
        throw BundleError("full map marks " + std::to_string(n_full) +
                          " aux values, the header says n_full = " + std::to_string(header_.n_full));
    }
    const uint64_t n_bits = header_.n_aux - header_.n_full;
    if (n_bits % 64 && (bits.back() >> (n_bits % 64)) != 0)
      throw BundleError("bit values have bits set past the " + std::to_string(n_bits) + " aux values stored as bits");
    return;
  }
  const uint64_t bits[3] = {header_.n_aux, header_.n_aux, header_.n_inputs};
  for (size_t i = 0; i < 3; ++i) {
    auto w = density(DensityMap(i));
    if (bits[i] % 64 && (w.back() >> (bits[i] % 64)) != 0)
      throw BundleError(std::string("density bitmap ") + density_name(DensityMap(i)) + " has bits set past its " +
                        std::to_string(bits[i]) + " variables");
  }
}

WitnessBundle WitnessBundle::parse(std::span<const uint8_t> bytes) {
  BundleHeader h = parse_header(bytes);
  BundleLayout l = BundleLayout::of(h);
  if (bytes.size() < l.total_size)
    throw BundleError("truncated: need " + std::to_string(l.total_size) + " bytes, have " +
                      std::to_string(bytes.size()));
  if (bytes.size() > l.total_size)
    throw BundleError("trailing data: the header describes " + std::to_string(l.total_size) + " bytes, have " +
                      std::to_string(bytes.size()));
  WitnessBundle b;
  b.header_ = h;
  b.layout_ = l;
  b.buf_ = allocate_buffer(l.total_size);
  std::memcpy(b.buf_.get(), bytes.data(), l.total_size);
  b.validate(true);
  return b;
}

void WitnessBundle::require_kind(BundleKind k, const char* what) const {
  if (!buf_) throw BundleError("empty bundle accessed");
  if (header_.kind != k)
    throw BundleError(std::string(what) + " of a bundle of kind " + bundle_kind_name(header_.kind) + " (needs kind " +
                      bundle_kind_name(k) + ")");
}

CircuitId WitnessBundle::pce_id() const {
  require_kind(BundleKind::Witness, "pce_id()");
  CircuitId id;
  std::memcpy(id.data(), buf_.get() + layout_.pce_offset, id.size());
  return id;
}

std::span<const uint64_t> WitnessBundle::packed(PackedMap m) const {
  require_kind(BundleKind::Witness, "packed map");
  return {std::launder(reinterpret_cast<const uint64_t*>(buf_.get() + layout_.packed_offset[size_t(m)])),
          layout_.packed_words[size_t(m)]};
}

template <class F>
WitnessBundle WitnessBundle::pack_witness(const BundleHeader& shape, const CircuitId& pce_id, std::span<const F> inputs,
                                          std::span<const F> aux, util::ThreadPool* pool) {
  BundleHeader h = shape;
  h.kind = BundleKind::Witness;
  h.curve = curve_of_scalar_field<F>();
  if (inputs.size() != h.n_inputs || aux.size() != h.n_aux)
    throw BundleError("pack_witness: " + std::to_string(inputs.size()) + " inputs and " + std::to_string(aux.size()) +
                      " aux for a shape of " + std::to_string(h.n_inputs) + " and " + std::to_string(h.n_aux));
  const F zero = F::zero(), one = F::one();
  util::ThreadPool& tp = pool ? *pool : util::ThreadPool::global();
  // Blocks of 64-aligned aux ranges, as unpack_aux's: a first pass counts each block's whole
  // values, whose prefix sums give every block its first index among the whole values and
  // among the bits, so the second pass packs the blocks independently. (At PoRep scale this was
  // ~8% of a partition's synthesis on one thread, the witness pass now runs on every core.)
  constexpr uint64_t kBlock = uint64_t(1) << 16;
  const uint64_t n_aux = aux.size(), blocks = (n_aux + kBlock - 1) / kBlock;
  std::vector<uint64_t> start(blocks + 1, 0);
  tp.parallel_for(blocks, [&](size_t k0, size_t k1) {
    for (size_t k = k0; k < k1; ++k) {
      uint64_t n = 0;
      for (uint64_t j = k * kBlock; j < std::min(n_aux, (k + 1) * kBlock); ++j) n += !(aux[j] == zero || aux[j] == one);
      start[k + 1] = n;
    }
  });
  for (size_t k = 0; k < blocks; ++k) start[k + 1] += start[k];
  h.n_full = start[blocks];
  WitnessBundle b = allocate(h);
  std::memcpy(b.buf_.get() + b.layout_.section_offset[size_t(Section::Inputs)], inputs.data(), inputs.size_bytes());
  std::memcpy(b.buf_.get() + b.layout_.pce_offset, pce_id.data(), pce_id.size());
  F* const full = b.section_mut<F>(Section::Aux).data();
  uint64_t* fm = reinterpret_cast<uint64_t*>(b.buf_.get() + b.layout_.packed_offset[0]);
  uint64_t* bm = reinterpret_cast<uint64_t*>(b.buf_.get() + b.layout_.packed_offset[1]);
  const bool with_map = b.layout_.packed_words[0] != 0;
  // Both regions are contiguous: clear them, so padding bits stay zero.
  std::memset(fm, 0, 8 * (b.layout_.packed_words[0] + b.layout_.packed_words[1]));
  tp.parallel_for(blocks, [&](size_t k0, size_t k1) {
    for (size_t k = k0; k < k1; ++k) {
      F* next = full + start[k];
      uint64_t i = k * kBlock - start[k];  // index among the values stored as bits
      // A block's bits start mid-word: its first and last words may be shared with the
      // neighbouring blocks, so each word is OR-ed in atomically, once, when the block leaves it.
      uint64_t word = 0, at = i >> 6;
      auto flush = [&] {
        if (word) std::atomic_ref<uint64_t>(bm[at]).fetch_or(word, std::memory_order_relaxed);
        word = 0;
      };
      for (uint64_t j = k * kBlock; j < std::min(n_aux, (k + 1) * kBlock); ++j) {
        if (aux[j] == zero || aux[j] == one) {
          if ((i >> 6) != at) {
            flush();
            at = i >> 6;
          }
          if (aux[j] == one) word |= uint64_t(1) << (i & 63);
          ++i;
        } else {
          if (with_map) fm[j >> 6] |= uint64_t(1) << (j & 63);  // blocks are 64-aligned: never shared
          *next++ = aux[j];
        }
      }
      flush();
    }
  });
  b.seal();
  return b;
}

template <class F>
void WitnessBundle::unpack_aux(std::span<F> out, util::ThreadPool* pool) const {
  require_kind(BundleKind::Witness, "unpack_aux()");
  if (out.size() != header_.n_aux)
    throw BundleError("unpack_aux: output of " + std::to_string(out.size()) + " elements for " +
                      std::to_string(header_.n_aux) + " aux values");
  const auto full_map = packed(PackedMap::Full), bits = packed(PackedMap::Bits);
  const F* full = section<F>(Section::Aux).data();
  const F zero = F::zero(), one = F::one();
  const uint64_t n_aux = header_.n_aux;
  util::ThreadPool& tp = pool ? *pool : util::ThreadPool::global();
  if (full_map.empty()) {  // all whole, or all bits
    if (header_.n_full == n_aux) {
      tp.parallel_for(
          n_aux, [&](size_t b, size_t e) { std::copy(full + b, full + e, out.data() + b); }, 1 << 14);
    } else {
      tp.parallel_for(
          n_aux,
          [&](size_t b, size_t e) {
            for (size_t j = b; j < e; ++j) out[j] = (bits[j >> 6] >> (j & 63)) & 1 ? one : zero;
          },
          1 << 14);
    }
    return;
  }
  // Blocks of map words; a block's first aux_full index is the popcount of the full map
  // before it (a prefix sum), and its first bit index is the rest, so blocks unpack
  // independently.
  constexpr size_t kBlockWords = 1024;
  const size_t words = full_map.size(), blocks = (words + kBlockWords - 1) / kBlockWords;
  std::vector<uint64_t> start(blocks + 1, 0);
  for (size_t k = 0; k < blocks; ++k) {
    uint64_t n = 0;
    for (size_t w = k * kBlockWords; w < std::min(words, (k + 1) * kBlockWords); ++w) n += std::popcount(full_map[w]);
    start[k + 1] = start[k] + n;
  }
  auto run = [&](size_t k0, size_t k1) {
    for (size_t k = k0; k < k1; ++k) {
      const F* next = full + start[k];
      uint64_t bit = 64 * kBlockWords * k - start[k];  // next index among the bit values
      for (size_t w = k * kBlockWords; w < std::min(words, (k + 1) * kBlockWords); ++w) {
        const uint64_t fw = full_map[w];
        const size_t n = std::min<uint64_t>(64, n_aux - 64 * w);
        F* dst = out.data() + 64 * w;
        for (size_t j = 0; j < n; ++j) {
          if ((fw >> j) & 1) {
            dst[j] = *next++;
          } else {
            dst[j] = (bits[bit >> 6] >> (bit & 63)) & 1 ? one : zero;
            ++bit;
          }
        }
      }
    }
  };
  tp.parallel_for(blocks, run, 1);
}

template WitnessBundle WitnessBundle::pack_witness<ff::Bn254Fr>(const BundleHeader&, const CircuitId&,
                                                                std::span<const ff::Bn254Fr>,
                                                                std::span<const ff::Bn254Fr>, util::ThreadPool*);
template WitnessBundle WitnessBundle::pack_witness<ff::Bls12381Fr>(const BundleHeader&, const CircuitId&,
                                                                   std::span<const ff::Bls12381Fr>,
                                                                   std::span<const ff::Bls12381Fr>, util::ThreadPool*);
template void WitnessBundle::unpack_aux<ff::Bn254Fr>(std::span<ff::Bn254Fr>, util::ThreadPool*) const;
template void WitnessBundle::unpack_aux<ff::Bls12381Fr>(std::span<ff::Bls12381Fr>, util::ThreadPool*) const;

}  // namespace zkmill::cs
