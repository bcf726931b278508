// SPDX-License-Identifier: MIT
// The witness bundle: synthesis's hand-off to the prover and, byte for byte, its wire format.
// One owned, 64-byte-aligned buffer holds the exact serialized image, so sending is
// zero-copy (bytes()), a receiver streams straight into the final buffer (BundleReceiver,
// bundle_receiver.hpp),
// and the typed views (a<F>() ...) point into it.
//
// Layout, versions 1 to 3. All integers little-endian; offsets in bytes.
//   header (96 bytes)
//     0   4  magic "ZKWB"
//     4   4  u32 format version: 1, 2 when byte 10 is used, 3 for kind 2 (a writer emits the
//            lowest version that expresses the bundle, so native bundles stay readable by v1
//            builds)
//     8   1  u8 curve id (1 = bn254, 2 = bls12-381; CurveId)
//     9   1  u8 field element size in bytes = 32 (Fr of both curves)
//     10  1  u8 kind (BundleKind; version 2): 0 = native R1CS (zkmill proving key),
//            1 = snarkjs .zkey (rows = the key's domain, c = a o b, proved by prove_zkey),
//            2 = witness only (version 3; layout below). Version 1 has 0 here (it was reserved).
//     11  5  kind 2: u40 n_full, the aux values stored whole (see below); else reserved, zero
//     16  32 circuit id (content hash of the proving key; opaque bytes here)
//     48  8  u64 partition index
//     56  8  u64 n_inputs  (public inputs including input 0 = ONE)
//     64  8  u64 n_aux     (private variables)
//     72  8  u64 n_rows    (constraints + n_inputs: the "input rows", see proving_cs.hpp)
//     80  8  u64 domain size (smallest power of two >= n_rows; <= 2^two-adicity of Fr)
//     88  8  u64 header checksum: checksum64 of bytes [0, 88), so a streaming receiver can
//            trust the counts before allocating total_size bytes
//   payload, field elements as 32-byte Montgomery-form little-endian limbs (a*R mod p, < p)
//     inputs     n_inputs elements (inputs[0] = 1)
//     aux        n_aux elements
//     a, b, c    n_rows elements each: a_i = <A_i, z>, b_i = <B_i, z>, c_i = <C_i, z>
//     density bitmaps, u64 words, bit j of word k = variable 64k + j; unused high bits zero
//       aux_in_a   ceil(n_aux / 64) words    (aux j appears in A: A-query MSM)
//       aux_in_b   ceil(n_aux / 64) words    (aux j appears in B: B_G1 / B_G2 MSMs)
//       input_in_b ceil(n_inputs / 64) words (input j appears in B)
//   trailer
//     u64 checksum64 of bytes [0, total - 8)
// total = 96 + 32 (n_inputs + n_aux + 3 n_rows) + 8 (2 ceil(n_aux/64) + ceil(n_inputs/64)) + 8.
//
// Kind 2, witness only (version 3): what a synth worker ships when the prove worker computes
// a, b, c itself from the circuit's precompiled constraint matrices (PCE): the inputs, and the
// aux values bit-packed, since nearly every aux value of a SHA-256-heavy circuit is 0 or 1.
// n_rows and domain size are the circuit's (checked against the PCE), and
//   payload
//     inputs     n_inputs elements (inputs[0] = 1)
//     aux_full   n_full elements: the aux values that are neither 0 nor 1, in aux order
//     pce id     32 bytes: the content id of the constraint matrices the witness is for
//     full map   ceil(n_aux / 64) words when 0 < n_full < n_aux, else none (all aux are
//                whole, or none is): bit j set = aux j is the next aux_full element
//     bits       ceil((n_aux - n_full) / 64) words: bit i = the value (0 or 1) of the i-th aux
//                value not stored whole, in aux order
//   trailer      u64 checksum64 of bytes [0, total - 8)
// total = 96 + 32 (n_inputs + n_full) + 32 + 8 (map words + bit words) + 8: about 32 bytes per
// whole value and 2 bits per bit, and nothing more when no value is a bit (a hash chain).
// A writer stores every 0 and 1 as a bit (pack_witness); a reader checks popcount(full map)
// = n_full and zero padding bits. Elements still run in one block from byte 96 (inputs, then
// aux_full), so streaming receivers check them unchanged.
// Every section starts 8-aligned. The checksum (checksum.hpp) catches corruption, not forgery.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cs/checksum.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "common/util/curve_id.hpp"

namespace zkmill::util {
class ThreadPool;
}

namespace zkmill::cs {

static_assert(std::endian::native == std::endian::little, "the bundle's typed views assume a little-endian host");

class BundleError : public std::runtime_error {
 public:
  explicit BundleError(const std::string& what) : std::runtime_error("witness bundle: " + what) {}
};

using CircuitId = std::array<uint8_t, 32>;

// The curve whose scalar field F is; the bundle checks it on every typed access.
template <class F>
constexpr CurveId curve_of_scalar_field() {
  if constexpr (std::is_same_v<F, ff::Bn254Fr>) {
    return CurveId::Bn254;
  } else {
    static_assert(std::is_same_v<F, ff::Bls12381Fr>, "not the scalar field of a supported curve");
    return CurveId::Bls12_381;
  }
}

enum class Section : uint8_t { Inputs, Aux, A, B, C };
// Which prover a bundle is for: the same layout serves both, but the rows mean different
// things (native: constraints then input rows; zkey: snarkjs's coefficient rows), so a
// prover must refuse the other kind's bundle. Witness bundles carry no rows at all: a prover
// expands them into a Native bundle first (witness_expand.hpp).
enum class BundleKind : uint8_t { Native = 0, Zkey = 1, Witness = 2 };
const char* bundle_kind_name(BundleKind k);  // "native", "zkey", "witness"
// The two bitmaps of a witness bundle (see the layout above).
enum class PackedMap : uint8_t { Full, Bits };
enum class DensityMap : uint8_t { AuxInA, AuxInB, InputInB };
const char* section_name(Section s);     // "inputs", "aux", "a", "b", "c"
const char* density_name(DensityMap d);  // "aux_in_a", ...

struct BundleHeader {
  uint32_t version = 1;  // set by allocate(): 1 for Native, 2 otherwise
  CurveId curve = CurveId::Bn254;
  BundleKind kind = BundleKind::Native;
  CircuitId circuit_id{};
  uint64_t partition = 0;
  uint64_t n_inputs = 0;
  uint64_t n_aux = 0;
  uint64_t n_rows = 0;
  uint64_t domain_size = 0;  // 0 in WitnessBundle::allocate means "the smallest that fits"
  uint64_t n_full = 0;       // kind Witness: aux values stored whole (< 2^40); else 0
};

// Where everything lies for given counts (see the table above).
struct BundleLayout {
  uint64_t section_offset[5] = {};
  uint64_t section_count[5] = {};
  uint64_t density_offset[3] = {};
  uint64_t density_words[3] = {};  // 0 for kind Witness
  uint64_t pce_offset = 0;         // kind Witness: the 32-byte PCE id; else 0
  uint64_t packed_offset[2] = {};  // kind Witness: PackedMap::Full, PackedMap::Bits
  uint64_t packed_words[2] = {};   // their lengths in u64 words (see the layout); else 0
  uint64_t checksum_offset = 0;
  uint64_t total_size = 0;
  static BundleLayout of(const BundleHeader& h);
};

class WitnessBundle {
 public:
  static constexpr uint32_t kVersion = 3;  // the newest version this build reads and writes
  static constexpr size_t kHeaderSize = 96;
  static constexpr size_t kElementSize = 32;
  static constexpr uint64_t kMaxCount = uint64_t(1) << 40;  // keeps every size computation far from overflow

  // The image's storage: from aligned_alloc, so freed with free().
  struct FreeBuffer {
    void operator()(uint8_t* p) const;
  };
  using Buffer = std::unique_ptr<uint8_t[], FreeBuffer>;
  // Uninitialised storage for `size` bytes, 64-byte aligned. huge_pages: 2 MiB aligned and
  // madvise(MADV_HUGEPAGE)d, so first touch faults once per 2 MiB instead of once per 4 KiB
  // where the kernel's transparent huge pages allow it (see BundleReceiver).
  static Buffer allocate_buffer(uint64_t size, bool huge_pages = false);

  WitnessBundle() = default;
  WitnessBundle(WitnessBundle&&) noexcept = default;
  WitnessBundle& operator=(WitnessBundle&&) noexcept = default;
  // Bundles run to gigabytes: copies are explicit.
  WitnessBundle(const WitnessBundle&) = delete;
  WitnessBundle& operator=(const WitnessBundle&) = delete;
  WitnessBundle clone() const;

  static constexpr size_t header_size() { return kHeaderSize; }
  // Decodes and checks the first header_size() bytes (magic, version, header checksum,
  // counts, domain); the receiver can then allocate layout.total_size bytes safely.
  static BundleHeader parse_header(std::span<const uint8_t> bytes);
  static uint64_t total_size(const BundleHeader& h) { return BundleLayout::of(h).total_size; }

  // Copies and fully validates a complete image. Throws BundleError.
  static WitnessBundle parse(std::span<const uint8_t> bytes);

  // A bundle with the header set and the payload uninitialised, for builders that write
  // sections in place (ProvingCS, BundleReceiver); call seal() when done.
  static WitnessBundle allocate(const BundleHeader& h);

  bool empty() const { return !buf_; }
  const BundleHeader& header() const { return header_; }
  const BundleLayout& layout() const { return layout_; }
  CurveId curve() const { return header_.curve; }
  BundleKind kind() const { return header_.kind; }
  uint64_t n_inputs() const { return header_.n_inputs; }
  uint64_t n_aux() const { return header_.n_aux; }
  uint64_t n_rows() const { return header_.n_rows; }

  // The wire image (valid after seal() or parse); serialize() is the same as a copy.
  std::span<const uint8_t> bytes() const { return {buf_.get(), layout_.total_size}; }
  std::vector<uint8_t> serialize() const { return {bytes().begin(), bytes().end()}; }

  template <class F>
  std::span<const F> inputs() const {
    return section<F>(Section::Inputs);
  }
  template <class F>
  std::span<const F> aux() const {
    return section<F>(Section::Aux);
  }
  template <class F>
  std::span<const F> a() const {
    return section<F>(Section::A);
  }
  template <class F>
  std::span<const F> b() const {
    return section<F>(Section::B);
  }
  template <class F>
  std::span<const F> c() const {
    return section<F>(Section::C);
  }

  template <class F>
  std::span<const F> section(Section s) const {
    check_field<F>();
    auto i = size_t(s);
    return {std::launder(reinterpret_cast<const F*>(buf_.get() + layout_.section_offset[i])), layout_.section_count[i]};
  }
  template <class F>
  std::span<F> section_mut(Section s) {
    check_field<F>();
    auto i = size_t(s);
    return {std::launder(reinterpret_cast<F*>(buf_.get() + layout_.section_offset[i])), layout_.section_count[i]};
  }

  std::span<const uint64_t> density(DensityMap d) const;
  std::span<uint64_t> density_mut(DensityMap d);
  bool aux_in_a(uint64_t j) const { return test(DensityMap::AuxInA, j); }
  bool aux_in_b(uint64_t j) const { return test(DensityMap::AuxInB, j); }
  bool input_in_b(uint64_t j) const { return test(DensityMap::InputInB, j); }

  void set_circuit_id(const CircuitId& id) { header_.circuit_id = id; }
  void set_partition(uint64_t p) { header_.partition = p; }
  // Writes the header (with its checksum) and the trailing checksum over everything.
  void seal();
  // Everything parse() checks after the header: the trailing checksum (optional, for a
  // receiver that hashed while streaming), canonical field elements, inputs[0] = 1, and
  // zero padding bits in the density bitmaps.
  void validate(bool check_checksum = true) const;

  // The payload's field elements form one run (inputs, aux, a, b, c; a witness bundle: inputs,
  // aux_full) of 32-byte elements starting at header_size(); element k is bytes
  // [96 + 32k, 128 + 32k).
  uint64_t n_elements() const {
    uint64_t n = 0;
    for (uint64_t c : layout_.section_count) n += c;
    return n;
  }

  // Witness bundles (kind Witness). pack_witness stores inputs and aux, every aux value that
  // is 0 or 1 as one bit; `shape` gives curve (must be F's), circuit id, partition, n_rows and
  // domain size (0: the smallest), its counts must match the spans. The result is sealed.
  // Packed in parallel on `pool` (nullptr: the global pool).
  template <class F>
  static WitnessBundle pack_witness(const BundleHeader& shape, const CircuitId& pce_id, std::span<const F> inputs,
                                    std::span<const F> aux, util::ThreadPool* pool = nullptr);
  CircuitId pce_id() const;                             // kind Witness only
  std::span<const uint64_t> packed(PackedMap m) const;  // kind Witness only
  // The whole aux vector of a witness bundle, written to `out` (n_aux elements), in parallel
  // on `pool` (nullptr: the global pool).
  template <class F>
  void unpack_aux(std::span<F> out, util::ThreadPool* pool = nullptr) const;
  // "a[17]" for the element's run index: names it in errors.
  std::string element_name(uint64_t k) const;

 private:
  template <class F>
  void check_field() const {
    static_assert(sizeof(F) == kElementSize, "bundle elements are 32 bytes");
    static_assert(std::is_trivially_copyable_v<F> && std::is_standard_layout_v<F>);
    if (!buf_) throw BundleError("empty bundle accessed");
    if (header_.curve != curve_of_scalar_field<F>())
      throw BundleError(std::string("holds ") + curve_name(header_.curve) + " field elements, accessed as " +
                        F::Params::kName);
  }
  bool test(DensityMap d, uint64_t j) const {
    auto w = density(d);
    return (w[j >> 6] >> (j & 63)) & 1;
  }
  uint8_t* data() { return buf_.get(); }
  // Index (from 0) of the first of `count` elements at `p` that is not canonical (>= p),
  // or `count` if all are: the per-element check of validate(), usable on any sub-range.
  static uint64_t first_non_canonical(CurveId curve, const uint8_t* p, uint64_t count);
  // Throws the "checksum mismatch" BundleError unless the trailer holds `computed`.
  void check_trailer(uint64_t computed) const;
  // validate()'s checks after the elements: inputs[0] = 1, zero density padding; for kind
  // Witness the packed maps (O(n_aux / 64)).
  void check_constant_and_padding() const;
  void require_kind(BundleKind k, const char* what) const;
  friend class BundleReceiver;

  BundleHeader header_;
  BundleLayout layout_;
  Buffer buf_;
};

}  // namespace zkmill::cs
