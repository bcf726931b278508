// SPDX-License-Identifier: MIT
// fetch_bundle: the prove worker's side of a bundle transfer, straight into its final buffer.
//
// Connects a DEALER to the synth worker's BundleServer, asks for the key, checks the
// announced size against max_total_bytes *before* allocating, then grants `window` chunk
// credits. Each CHUNK is offset- and size-checked on the receiving thread, then handed to a
// ChunkPipeline whose `threads` workers copy it into the bundle (cs::BundleReceiver::place),
// verify its checksum in the same pass and check its field elements, while one more thread
// runs the bundle's trailing hash in order. A credit is re-granted per chunk released by the
// pipeline, so extra memory beyond the bundle stays at (window + 1) x chunk bytes whatever
// `threads` is. At the end cs::BundleReceiver::finish() makes parse()'s checks in O(chunks).
// Protocol: message.hpp.
//
// Usage on the prove worker, with the endpoint and key the coordinator handed out:
//   zmq::context_t ctx;                       // one per process, shared by all fetches
//   wire::FetchOptions o;
//   o.max_total_bytes = free_host_memory_budget;
//   cs::WitnessBundle b = wire::fetch_bundle(ctx, "tcp://10.0.0.7:40123", "job42/part3", o);
// Each call opens (and closes) its own socket and threads, so concurrent fetches from several
// threads are fine; a failed fetch leaves nothing behind (the server is told CANCEL, best effort).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "common/cs/witness_bundle.hpp"
#include "common/wire/message.hpp"
#include "common/wire/zap_handler.hpp"

namespace zkmill::wire {

struct CurveClientKeys {
  CurveKeyPair client;            // this worker's keypair (its public key is on the server's allow-list)
  std::string server_public_key;  // Z85, from the coordinator
};

inline constexpr uint32_t kMaxFetchThreads = 8;

struct FetchOptions {
  uint32_t window = 4;  // chunks in flight, 1 .. kMaxWindow
  // Chunk workers (copy + chunk checksum + element checks), 0 = one per hardware thread up
  // to kMaxFetchThreads; one hashing thread comes on top. Workers beyond window + 1 idle.
  uint32_t threads = 0;
  // madvise(MADV_HUGEPAGE) the bundle's buffer: page faults once per 2 MiB instead of per
  // 4 KiB, if the kernel's THP setting is "madvise" or "always" and free huge pages exist;
  // on a fragmented host the kernel compacts memory on each fault and it is far slower.
  bool huge_pages = false;
  std::chrono::milliseconds timeout{30000};  // longest wait for any one message from the server
  uint64_t max_total_bytes = UINT64_MAX;     // admission limit, checked before allocating
  std::optional<CurveClientKeys> curve;      // set: CURVE-encrypted, authenticated to the server
};

// The chunk workers a fetch with these options runs (threads, or the automatic choice for 0).
uint32_t fetch_threads(const FetchOptions& opts);

// Fetches `bundle_key` from the BundleServer at `endpoint`. Throws TransferError: UnknownKey,
// Busy, Timeout (server gone or stalled: says how far the transfer got), TooLarge, Checksum,
// Malformed, Bundle (validation), Auth (CURVE handshake refused).
cs::WitnessBundle fetch_bundle(zmq::context_t& ctx, const std::string& endpoint, const std::string& bundle_key,
                               const FetchOptions& opts = {});

}  // namespace zkmill::wire
