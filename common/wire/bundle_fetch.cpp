// SPDX-License-Identifier: MIT
// fetch_bundle: request, admission check, credit-paced chunk reception through a ChunkPipeline.
#include "common/wire/bundle_fetch.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <optional>
#include <random>
#include <thread>
#include <zmq_addon.hpp>

#include "common/wire/chunk_pipeline.hpp"

namespace zkmill::wire {

namespace {

std::atomic<uint64_t> g_fetch_counter{0};

uint64_t new_transfer_id() {
  // Random so that ids from restarted processes do not repeat; never 0 (reserved).
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32)};
  uint64_t id;
  do id = rng();
  while (id == 0);
  return id;
}

// One fetch: its DEALER, a monitor on it (to tell "refused our CURVE key" and "connection
// dropped" from a silent timeout) and the progress a timeout message should report.
struct Session {
  zmq::socket_t sock;
  zmq::socket_t monitor;
  std::string endpoint;
  std::string key;
  uint64_t tid = 0;
  std::chrono::milliseconds timeout{0};
  bool connected = false;
  uint64_t received = 0, total = 0;

  // The monitor is stopped before either socket closes. libzmq reports events on `sock` until
  // the socket is destroyed, after its linger (during which its session keeps reconnecting and
  // dropping), and it makes each report on the context's I/O thread with a *blocking* send to
  // the monitor's PAIR. Once our end of that pair is closed, the next report blocks the I/O
  // thread for good, and with it every socket of the context (a prove worker's control link).
  // zmq_socket_monitor(NULL) closes libzmq's end under the lock those reports take.
  ~Session() { zmq_socket_monitor(sock.handle(), nullptr, 0); }

  std::string progress() const {
    if (!total) return "before the server answered the request";
    return "after " + std::to_string(received) + " of " + std::to_string(total) + " bytes";
  }

  // Queues frames for the server. A refused CURVE handshake can tear the connection's pipe down
  // between connect() and the request's send on a loaded host (the I/O thread outran us), and
  // the send then finds no pipe (EAGAIN): the monitor then says why, so wait for either (the
  // pipe back, or the monitor's event) instead of calling a refusal a full queue.
  void send(std::vector<zmq::message_t> frames) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (zmq::send_multipart(sock, frames, zmq::send_flags::dontwait)) return;
      check_monitor();  // throws Auth for a refused handshake
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline)
        throw TransferError(ErrorCode::Timeout, "could not queue a request to " + endpoint + " for " +
                                                    std::to_string(timeout.count()) + " ms " + progress() +
                                                    " (no connection, or its send queue is full)");
      zmq::pollitem_t items[2] = {{sock.handle(), 0, ZMQ_POLLOUT, 0}, {monitor.handle(), 0, ZMQ_POLLIN, 0}};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
      zmq::poll(items, 2, std::min(left, std::chrono::milliseconds(50)) + std::chrono::milliseconds(1));
    }
  }

  void cancel() noexcept {
    try {
      auto frames = encode_cancel(tid);
      zmq::send_multipart(sock, frames, zmq::send_flags::dontwait);
    } catch (...) {
      // Best effort: the server's idle timeout reclaims the transfer anyway.
    }
  }

  void check_monitor() {
    std::vector<zmq::message_t> ev;
    while (zmq::recv_multipart(monitor, std::back_inserter(ev), zmq::recv_flags::dontwait)) {
      if (ev.size() >= 1 && ev[0].size() >= 6) {
        uint16_t event;
        std::memcpy(&event, ev[0].data(), 2);
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED || event == ZMQ_EVENT_CONNECTED) connected = true;
        if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH || event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
          throw TransferError(
              ErrorCode::Auth,
              endpoint +
                  " refused the handshake (is our CURVE public key on its allow-list, and is the server key right?)");
        if (event == ZMQ_EVENT_DISCONNECTED && connected)
          throw TransferError(ErrorCode::PeerGone,
                              "connection to " + endpoint + " dropped " + progress() + " of '" + key + "'");
      }
      ev.clear();
    }
  }

  // The next message of this transfer; ERROR replies become TransferErrors. With a
  // wake_fd, returns nullopt as soon as that fd is readable (the caller drains it); the
  // timeout counts only time spent waiting for the server.
  std::optional<Message> next(std::vector<zmq::message_t>& frames, int wake_fd = -1) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      check_monitor();
      frames.clear();
      if (zmq::recv_multipart(sock, std::back_inserter(frames), zmq::recv_flags::dontwait)) {
        Message m = decode(frames);
        if (m.transfer_id != tid && !(m.type == MsgType::Error && m.transfer_id == 0)) continue;  // not ours
        if (m.type == MsgType::Error) {
          ErrorCode c = m.code;
          if (c < ErrorCode::UnknownKey || c > ErrorCode::Internal) c = ErrorCode::Internal;
          throw TransferError(c, endpoint + " answered for '" + key + "' " + progress() + ": " + std::string(m.text));
        }
        return m;
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline)
        throw TransferError(ErrorCode::Timeout, "no message from " + endpoint + " for " +
                                                    std::to_string(timeout.count()) + " ms " + progress() + " of '" +
                                                    key + "' (server gone, stalled or unreachable)");
      zmq::pollitem_t items[3] = {
          {sock.handle(), 0, ZMQ_POLLIN, 0}, {monitor.handle(), 0, ZMQ_POLLIN, 0}, {nullptr, wake_fd, ZMQ_POLLIN, 0}};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + std::chrono::milliseconds(1);
      zmq::poll(items, wake_fd >= 0 ? 3 : 2, left);
      if (wake_fd >= 0 && (items[2].revents & ZMQ_POLLIN)) return std::nullopt;
    }
  }

  Message next_message(std::vector<zmq::message_t>& frames) { return *next(frames); }
};

}  // namespace

uint32_t fetch_threads(const FetchOptions& o) {
  if (o.threads) return o.threads;
  return std::clamp<uint32_t>(std::thread::hardware_concurrency(), 1, kMaxFetchThreads);
}

cs::WitnessBundle fetch_bundle(zmq::context_t& ctx, const std::string& endpoint, const std::string& bundle_key,
                               const FetchOptions& opts) {
  if (opts.window == 0 || opts.window > kMaxWindow)
    throw TransferError(ErrorCode::Internal,
                        "window must be 1.." + std::to_string(kMaxWindow) + ", got " + std::to_string(opts.window));
  if (bundle_key.empty() || bundle_key.size() > kMaxKeyBytes)
    throw TransferError(ErrorCode::Internal, "bundle key of " + std::to_string(bundle_key.size()) + " bytes");
  if (opts.timeout.count() <= 0) throw TransferError(ErrorCode::Internal, "timeout must be positive");
  if (opts.threads > 64)
    throw TransferError(ErrorCode::Internal, "threads must be 0 (auto) or 1..64, got " + std::to_string(opts.threads));

  Session s{zmq::socket_t(ctx, zmq::socket_type::dealer),
            zmq::socket_t(ctx, zmq::socket_type::pair),
            endpoint,
            bundle_key,
            new_transfer_id(),
            opts.timeout};
  // Long enough for a CANCEL to leave, short enough that a dead server never holds up
  // context termination.
  s.sock.set(zmq::sockopt::linger, 100);
  // At most `window` chunks plus a HEADER / ERROR are ever in flight to us.
  s.sock.set(zmq::sockopt::rcvhwm, int(opts.window) + 8);
  s.sock.set(zmq::sockopt::sndhwm, int(kMaxWindow) + 8);
  // The largest legitimate frame is one chunk; anything bigger is a broken or hostile peer.
  s.sock.set(zmq::sockopt::maxmsgsize, int64_t(kMaxChunkBytes) + 4096);
  if (opts.curve) {
    s.sock.set(zmq::sockopt::curve_serverkey, opts.curve->server_public_key);
    s.sock.set(zmq::sockopt::curve_publickey, opts.curve->client.public_key);
    s.sock.set(zmq::sockopt::curve_secretkey, opts.curve->client.secret_key);
  }
  std::string mon_ep = "inproc://zkmill.wire.fetch-monitor." + std::to_string(++g_fetch_counter);
  if (zmq_socket_monitor(s.sock.handle(), mon_ep.c_str(),
                         ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                             ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) != 0)
    throw zmq::error_t();
  s.monitor.set(zmq::sockopt::linger, 0);
  s.monitor.connect(mon_ep);
  s.sock.connect(endpoint);

  std::vector<zmq::message_t> frames;
  try {
    s.send(encode_fetch(s.tid, bundle_key));
    Message h = s.next_message(frames);
    if (h.type != MsgType::Header)
      throw TransferError(ErrorCode::Malformed, std::string("expected HEADER, got ") + msg_type_name(h.type));
    // Admission before allocation: the announced size, then the header's own (checksummed) counts.
    if (h.total_size > opts.max_total_bytes)
      throw TransferError(ErrorCode::TooLarge, "'" + bundle_key + "' is " + std::to_string(h.total_size) +
                                                   " bytes, over the limit of " + std::to_string(opts.max_total_bytes));
    std::optional<cs::BundleReceiver> rx;
    try {
      rx.emplace(h.bundle_header, opts.max_total_bytes, opts.huge_pages);
    } catch (const cs::BundleError& e) {
      throw TransferError(ErrorCode::Bundle, e.what());
    }
    if (rx->total_size() != h.total_size)
      throw TransferError(ErrorCode::Malformed, "HEADER announces " + std::to_string(h.total_size) +
                                                    " bytes, the bundle header describes " +
                                                    std::to_string(rx->total_size()));
    s.total = rx->total_size();
    s.received = rx->received();
    const uint64_t chunk = h.chunk_bytes;
    const uint64_t n_chunks = (rx->remaining() + chunk - 1) / chunk;
    ChunkPipeline pipeline(*rx, fetch_threads(opts));
    uint64_t granted = 0, taken = 0;  // chunks credited / taken off the socket
    auto corrupt_error = [&](uint64_t offset) {
      return TransferError(ErrorCode::Checksum, "chunk at offset " + std::to_string(offset) + " of '" + bundle_key +
                                                    "' from " + endpoint + " is corrupt");
    };
    for (;;) {
      // Credit: at most `window` chunks on their way to us, and at most window + 1 held
      // anywhere here (libzmq's buffers or the pipeline) until the pipeline releases them.
      uint64_t target = std::min({n_chunks, taken + opts.window, pipeline.released() + opts.window + 1});
      if (target > granted) {
        s.send(encode_credit(s.tid, uint32_t(target - granted)));
        granted = target;
      }
      if (rx->complete()) break;
      std::optional<Message> c = s.next(frames, pipeline.wake_fd());
      if (auto bad = pipeline.corrupt_offset()) throw corrupt_error(*bad);
      pipeline.rethrow_worker_error();
      if (!c) {
        pipeline.clear_wake();
        continue;
      }
      if (c->type != MsgType::Chunk)
        throw TransferError(ErrorCode::Malformed, std::string("expected CHUNK, got ") + msg_type_name(c->type));
      // One TCP connection keeps order, so every chunk must continue exactly where we are.
      if (c->offset != rx->received())
        throw TransferError(ErrorCode::Malformed, "chunk at offset " + std::to_string(c->offset) + ", expected " +
                                                      std::to_string(rx->received()));
      uint64_t expect = std::min<uint64_t>(chunk, rx->remaining());
      if (c->data.size() != expect)
        throw TransferError(ErrorCode::Malformed, "chunk at offset " + std::to_string(c->offset) + " is " +
                                                      std::to_string(c->data.size()) + " bytes, expected " +
                                                      std::to_string(expect));
      // The data is frame 2 (decode() checked the layout); the pipeline owns that message now.
      pipeline.submit(rx->reserve(c->data.size()), std::move(frames[2]), c->checksum);
      ++taken;
      s.received = rx->received();
    }
    pipeline.drain();
    if (auto bad = pipeline.corrupt_offset()) throw corrupt_error(*bad);
    try {
      return rx->finish();
    } catch (const cs::BundleError& e) {
      bool checksum = std::string_view(e.what()).find("checksum") != std::string_view::npos;
      throw TransferError(checksum ? ErrorCode::Checksum : ErrorCode::Bundle,
                          "'" + bundle_key + "' from " + endpoint + ": " + e.what());
    }
  } catch (...) {
    s.cancel();
    throw;
  }
}

}  // namespace zkmill::wire
