// SPDX-License-Identifier: MIT
// BundleServer: serves published witness bundles to prove workers, in credit-paced chunks.
//
// Runs on the synth worker. One ROUTER socket and one thread serve every transfer; a
// transfer sends a chunk only against a credit from its fetcher, so the bytes queued in
// libzmq per transfer are at most window x chunk_bytes, and those bytes are the bundle's
// own memory: chunks are zero-copy messages whose free callback holds a reference to the
// bundle, so a retracted bundle stays alive until libzmq has let go of its last chunk.
// Protocol: message.hpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "common/cs/witness_bundle.hpp"
#include "common/wire/zap_handler.hpp"

namespace zkmill::wire {

struct BundleServerOptions {
  size_t chunk_bytes = size_t(16) << 20;  // 1 .. kMaxChunkBytes (64 MiB)
  size_t max_concurrent_transfers = 16;   // beyond this a FETCH gets ERROR(Busy)
  // A transfer waiting for credit is dropped (and its fetcher told, best effort) after
  // this long without any message from the fetcher: a dead or wedged prove worker must
  // not pin a transfer slot forever.
  std::chrono::milliseconds idle_timeout{30000};
  // CURVE: with a keypair the socket is a CURVE server (encrypted; clients must know the
  // public key). With allowed_client_keys (Z85) non-empty, a ZAP handler also admits only
  // those clients: `zap` if given (shared per context), else one this server creates.
  std::optional<CurveKeyPair> curve;
  std::vector<std::string> allowed_client_keys;
  std::shared_ptr<ZapHandler> zap;
  // Test hook: return true to send the chunk at (key, offset) with one byte flipped (the
  // checksum is of the original bytes), to exercise the fetcher's checksum check.
  std::function<bool(const std::string& key, uint64_t offset)> corrupt_chunk_for_test;
};

class BundleServer {
 public:
  using Options = BundleServerOptions;
  struct Stats {
    uint64_t transfers_started = 0;
    uint64_t transfers_completed = 0;  // last chunk handed to libzmq
    uint64_t transfers_cancelled = 0;  // fetcher sent CANCEL
    uint64_t transfers_timed_out = 0;  // idle_timeout without credit
    uint64_t transfers_peer_gone = 0;  // the fetcher's connection disappeared
    uint64_t errors_sent = 0;          // ERROR replies (unknown key, busy, malformed ...)
    uint64_t malformed_received = 0;
    uint64_t bytes_sent = 0;  // chunk payload bytes
  };

  // Binds `bind_endpoint` (e.g. "tcp://127.0.0.1:0" for an ephemeral port) and starts the
  // serving thread. `ctx` must outlive the server. Throws TransferError / zmq::error_t.
  BundleServer(zmq::context_t& ctx, const std::string& bind_endpoint, Options opts = {});
  ~BundleServer();  // stop()
  BundleServer(const BundleServer&) = delete;
  BundleServer& operator=(const BundleServer&) = delete;

  // The resolved endpoint (ephemeral port filled in), for the coordinator to hand out.
  const std::string& endpoint() const;

  // Makes `bundle` fetchable under `bundle_key` (replacing an earlier one). The bundle must
  // be sealed; the server keeps a reference until retracted and its transfers are done.
  void publish(const std::string& bundle_key, std::shared_ptr<const cs::WitnessBundle> bundle);
  // Refuses new fetches of the key; transfers in flight finish. Returns whether it existed.
  bool retract(const std::string& bundle_key);
  bool has(const std::string& bundle_key) const;
  // The published bundle itself (null if none): a worker that proves a partition it synthesized
  // takes it from here instead of fetching it from itself over the network.
  std::shared_ptr<const cs::WitnessBundle> find(const std::string& bundle_key) const;

  size_t active_transfers() const;
  Stats stats() const;
  // Replaces the CURVE client keys admitted (a server made with allowed_client_keys; no-op
  // otherwise): new connections are checked against the new list, open ones stay.
  void set_allowed_client_keys(const std::vector<std::string>& keys_z85);

  // Stops serving, closes the socket (linger 0: queued chunks are dropped, their fetchers
  // time out) and joins the thread. Idempotent.
  void stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zkmill::wire
