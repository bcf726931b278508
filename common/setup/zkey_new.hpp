// SPDX-License-Identifier: MIT
// `zkey new` (snarkjs `groth16 setup` / `zkey new`): the initial Groth16 key of a circuit from
// its .r1cs and a prepared .ptau, byte for byte the file snarkjs writes (src/zkey_new.js):
//
//   domain     2^cirPower, cirPower = floor(log2(nConstraints + nPublic)) + 1 (the rows are the
//              constraints plus one row x_s * 0 = 0 per public signal and ONE);
//   A_s        sum_c A[c][s] L_c(tau) G1  (+ L_(m+s) for s <= nPublic),  L_c from ptau section 12;
//   B1_s, B2_s sum_c B[c][s] L_c(tau) in G1 and G2 (section 13);
//   IC_s / C_s beta A_s(tau) + alpha B_s(tau) + C_s(tau) in G1 (sections 15, 14, 12), IC for
//              s <= nPublic, C (the zkey's "L") for the private signals; delta = gamma = 1;
//   H_i        (tau^n - 1) L_i / ... : the odd-index points of the 2n-point Lagrange tauG1;
//   coefs      the A and B entries in constraint order, then (0, m + s, s, 1) per public s;
//   csHash     BLAKE2b-512 over the U encodings (setup/snarkjs_points.hpp) of alpha1, beta1,
//              beta2, gamma2, delta1, delta2, then per section a big-endian u32 count and the
//              points: IC, H (as tau^(i+n) - tau^i from section 2, see zkey_new.cpp for snarkjs's
//              chunking), C, A, B1, B2.
// Sections are written in snarkjs's order: 1, 2, 4, 3, 9, 8, 5, 6, 7, 10.
//
// Memory: the key streams. The r1cs is read three times from its mapping (counting, filling the
// terms by signal, writing the coefficients), every section is made and handed on in chunks of
// signals or points, and mapped pages are dropped once read (BinFile::release), so the peak is
// the circuit's terms by signal (8 bytes each, plus the coefficients other than +-1), its slices
// of the Lagrange sections (the rows of the domain, at most three G1 series at once), and one
// chunk: neither the key nor the ceremony is ever held whole.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/formats/circom_files.hpp"
#include "common/formats/ptau.hpp"
#include "common/setup/hash.hpp"
#include "common/util/progress.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::setup {

// Receives a key's sections in file order as they are made: begin(type), any number of
// write()s, end(). zkey new writes them to a file; zkey verify compares them with a key's.
// The per-signal sections' write()s come from a thread of make_init_zkey's own (it writes a
// chunk the pool encoded while the pool makes the next), never two calls at once, each before the
// section's end(); an exception a write() throws reaches make_init_zkey's caller.
class SectionSink {
 public:
  virtual ~SectionSink() = default;
  virtual void begin(uint32_t type) = 0;
  virtual void write(std::span<const uint8_t> bytes) = 0;
  virtual void end() = 0;
};

struct InitZkeyInfo {
  CurveId curve{};
  uint32_t n_vars = 0, n_public = 0, domain_size = 0, log_domain = 0, n_constraints = 0;
  Hash64 cs_hash{};
};

// Makes the initial key of `r1cs` from `ptau` into `sink`. Throws formats::FormatError (bad
// file, named) or std::runtime_error naming the file and the problem: r1cs and ptau of different
// curves, a ptau too small for the circuit or not prepared. Every check that does not need the
// points is made before the first section goes to the sink.
InitZkeyInfo make_init_zkey(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, SectionSink& sink,
                            util::Progress* progress, util::ThreadPool& pool = util::ThreadPool::global());

// zkey new: make_init_zkey into `path`, atomically (a temporary renamed into place when
// complete; nothing is left on error).
InitZkeyInfo write_init_zkey(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, const std::string& path,
                             util::Progress* progress, util::ThreadPool& pool = util::ThreadPool::global());

// The circuit hash as snarkjs prints it (4 lines of 4 groups of 8 hex digits), for logs.
std::string format_hash(const Hash64& h, const std::string& indent = "\t\t");

}  // namespace zkmill::setup
