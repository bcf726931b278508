// SPDX-License-Identifier: MIT
// Phase-2 contributions to a snarkjs .zkey and their verification, with snarkjs's transcript
// (src/zkey_contribute.js, zkey_beacon.js, zkey_verify_frominit.js, zkey_utils.js), so chains
// mixing snarkjs and zkmill contributions verify under either tool.
//
// Section 10 (MPC parameters): csHash (64 bytes), u32 count, then per contribution deltaAfter,
// g1_s, g1_sx (G1 LEM), g2_spx (G2 LEM), transcript (64 bytes), u32 type (0 contribution, 1
// beacon), u32 parameter bytes, parameters sorted by type: 1 name (u8 length, UTF-8, at most 64
// characters), 2 numIterationsExp (u8), 3 beacon hash (u8 length, bytes).
//
// A contribution with secret d: transcript = BLAKE2b-512(csHash || for each earlier
// contribution U(deltaAfter) U(g1_s) U(g1_sx) U(g2_spx) transcript || U(g1_s) U(g1_sx)) with
// g1_sx = d g1_s; g2_sp = hashToG2(transcript), g2_spx = d g2_sp; delta1, delta2 *= d; the L
// (section 8) and H (section 9) points are multiplied by 1/d. d and g1_s come from a ChaCha
// stream (setup/snarkjs_rng.hpp) seeded from OS randomness and the entropy text, or, for a
// beacon, from the beacon hash iterated 2^exp times with SHA-256 (so anyone can recompute it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/formats/zkey.hpp"
#include "common/setup/hash.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::setup {

struct Contribution {
  std::vector<uint8_t> delta_after, g1_s, g1_sx, g2_spx;  // LEM bytes as in the file
  Hash64 transcript{};
  uint32_t type = 0;
  std::optional<std::string> name;
  uint8_t num_iterations_exp = 0;
  std::vector<uint8_t> beacon_hash;
};

struct MpcParams {
  Hash64 cs_hash{};
  std::vector<Contribution> contributions;
};

// Section 10 of `f`; throws formats::FormatError naming the file on a malformed section.
MpcParams read_mpc_params(const formats::ZkeyFile& f);
std::vector<uint8_t> encode_mpc_params(const MpcParams& p);

struct ContributeResult {
  Hash64 cs_hash{}, contribution_hash{};
  size_t index = 0;  // 1-based number of the new contribution
};

// A contribution from OS randomness mixed with `entropy` (snarkjs getRandomRng).
ContributeResult zkey_contribute(const std::string& in, const std::string& out, const std::string& name,
                                 const std::string& entropy, util::ThreadPool& pool = util::ThreadPool::global());
// A beacon contribution: beacon_hex is the hash in hex (1 to 255 bytes), 10 <= exp <= 63.
ContributeResult zkey_beacon(const std::string& in, const std::string& out, const std::string& name,
                             const std::string& beacon_hex, unsigned num_iterations_exp,
                             util::ThreadPool& pool = util::ThreadPool::global());

struct VerifyReport {
  bool ok = false;
  std::string reason;            // why not, when !ok
  std::vector<std::string> log;  // circuit hash and contribution hashes, as snarkjs prints them
};

// `zkey verify`: rebuilds the initial key from the circuit and ceremony and checks `zkey`
// against it and its contribution chain. Throws (FormatError, runtime_error) when an input
// cannot be read or the circuit and ceremony do not fit together; returns !ok when the key
// does not verify.
VerifyReport zkey_verify(const std::string& r1cs, const std::string& ptau, const std::string& zkey,
                         util::ThreadPool& pool = util::ThreadPool::global());

}  // namespace zkmill::setup
