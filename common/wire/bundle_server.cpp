// SPDX-License-Identifier: MIT
// BundleServer's serving loop: FETCH / CREDIT / CANCEL handling, credit-paced zero-copy chunks, timeouts.
#include "common/wire/bundle_server.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <zmq_addon.hpp>

#include "common/wire/message.hpp"

namespace zkmill::wire {

namespace {

using Clock = std::chrono::steady_clock;

// What a zero-copy chunk message owns: a reference to its bundle, so the bytes outlive
// both a retract() and the transfer itself for as long as libzmq still holds the message.
struct ChunkKeepAlive {
  std::shared_ptr<const cs::WitnessBundle> bundle;
};

// libzmq's free callback (C signature, so the hint is necessarily untyped); it runs on
// whichever thread drops the message, and only destroys the keep-alive it was given.
void release_chunk(void* /*data*/, void* hint) {
  std::unique_ptr<ChunkKeepAlive> owned(static_cast<ChunkKeepAlive*>(hint));
}

std::atomic<uint64_t> g_domain_counter{0};

}  // namespace

class BundleServer::Impl {
 public:
  Impl(zmq::context_t& ctx, const std::string& bind_endpoint, Options opts)
      : opts_(std::move(opts)), router_(ctx, zmq::socket_type::router) {
    if (opts_.chunk_bytes == 0 || opts_.chunk_bytes > kMaxChunkBytes)
      throw TransferError(ErrorCode::Internal, "chunk_bytes must be 1.." + std::to_string(kMaxChunkBytes) + ", got " +
                                                   std::to_string(opts_.chunk_bytes));
    if (opts_.max_concurrent_transfers == 0)
      throw TransferError(ErrorCode::Internal, "max_concurrent_transfers must be >= 1");
    // Queued chunks belong to transfers nobody will finish once we stop: drop them at close
    // instead of blocking context termination on a peer that may be dead.
    router_.set(zmq::sockopt::linger, 0);
    // Credit bounds what a transfer has queued to kMaxWindow chunks; the slack covers
    // HEADER / ERROR replies. HWMs count messages, not bytes.
    router_.set(zmq::sockopt::sndhwm, int(kMaxWindow) + 16);
    router_.set(zmq::sockopt::rcvhwm, 1024);
    // Without this, ROUTER silently drops messages to vanished or full peers; with it we
    // learn of both (EHOSTUNREACH / EAGAIN) and can drop or retry the transfer.
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.set(zmq::sockopt::maxmsgsize, kMaxRequestFrame);
    if (opts_.curve) {
      router_.set(zmq::sockopt::curve_server, 1);
      router_.set(zmq::sockopt::curve_secretkey, opts_.curve->secret_key);
      if (!opts_.allowed_client_keys.empty()) {
        zap_ = opts_.zap ? opts_.zap : std::make_shared<ZapHandler>(ctx);
        zap_domain_ = "zkmill.bundle." + std::to_string(++g_domain_counter);
        zap_->allow(zap_domain_, opts_.allowed_client_keys);
        router_.set(zmq::sockopt::zap_domain, zap_domain_);
      }
    }
    router_.bind(bind_endpoint);
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
    thread_ = std::thread([this] { run(); });
  }

  ~Impl() {
    stop();
    if (zap_) zap_->remove(zap_domain_);
  }

  void set_allowed_client_keys(const std::vector<std::string>& keys) {
    if (zap_) zap_->allow(zap_domain_, keys);
  }

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  const std::string& endpoint() const { return endpoint_; }

  void publish(const std::string& key, std::shared_ptr<const cs::WitnessBundle> bundle) {
    if (key.empty() || key.size() > kMaxKeyBytes)
      throw TransferError(ErrorCode::Internal, "bundle key of " + std::to_string(key.size()) + " bytes");
    if (!bundle || bundle->empty() || bundle->bytes().size() <= cs::WitnessBundle::kHeaderSize)
      throw TransferError(ErrorCode::Internal, "publish('" + key + "'): empty or unsealed bundle");
    std::lock_guard lock(mu_);
    bundles_[key] = std::move(bundle);
  }

  bool retract(const std::string& key) {
    std::lock_guard lock(mu_);
    return bundles_.erase(key) > 0;
  }

  bool has(const std::string& key) const {
    std::lock_guard lock(mu_);
    return bundles_.count(key) > 0;
  }

  std::shared_ptr<const cs::WitnessBundle> find(const std::string& key) const {
    std::lock_guard lock(mu_);
    const auto it = bundles_.find(key);
    return it == bundles_.end() ? nullptr : it->second;
  }

  size_t active_transfers() const { return active_.load(); }

  Stats stats() const {
    std::lock_guard lock(mu_);
    return stats_;
  }

 private:
  struct Transfer {
    std::string key;
    std::shared_ptr<const cs::WitnessBundle> bundle;
    uint64_t next_offset = cs::WitnessBundle::kHeaderSize;  // the header went in HEADER
    uint32_t credit = 0;
    Clock::time_point last_heard;
    std::vector<zmq::message_t> pending;  // a reply that met a full pipe (EAGAIN), retried first
  };
  using TransferKey = std::pair<std::string, uint64_t>;  // (routing id, transfer id)

  enum class SendResult { Sent, Blocked, PeerGone };

  // Sends [routing id][frames...]; never blocks.
  SendResult send_to(const std::string& peer, std::vector<zmq::message_t>& frames) {
    std::vector<zmq::message_t> msg;
    msg.reserve(frames.size() + 1);
    msg.emplace_back(peer.data(), peer.size());
    for (auto& f : frames) msg.push_back(std::move(f));
    try {
      if (zmq::send_multipart(router_, msg, zmq::send_flags::dontwait)) return SendResult::Sent;
    } catch (const zmq::error_t& e) {
      if (e.num() == EHOSTUNREACH) return SendResult::PeerGone;
      throw;
    }
    // Nothing was sent (libzmq delivers multipart messages atomically): keep them for a retry.
    frames.clear();
    for (size_t i = 1; i < msg.size(); ++i) frames.push_back(std::move(msg[i]));
    return SendResult::Blocked;
  }

  void send_error(const std::string& peer, uint64_t tid, ErrorCode code, const std::string& text) {
    auto frames = encode_error(tid, code, text);
    send_to(peer, frames);  // best effort: a peer that cannot take an ERROR will time out
    std::lock_guard lock(mu_);
    ++stats_.errors_sent;
  }

  void count_malformed() {
    std::lock_guard lock(mu_);
    ++stats_.malformed_received;
  }

  void handle(std::vector<zmq::message_t>& frames) {
    if (frames.size() < 2) return;  // ROUTER always prefixes the routing id; nothing to answer
    std::string peer = frames[0].to_string();
    std::span<const zmq::message_t> body(frames.data() + 1, frames.size() - 1);
    Message m;
    try {
      m = decode(body);
    } catch (const TransferError& e) {
      count_malformed();
      send_error(peer, peek_transfer_id(body[0]), ErrorCode::Malformed, e.what());
      return;
    }
    TransferKey tk{peer, m.transfer_id};
    auto it = transfers_.find(tk);
    switch (m.type) {
      case MsgType::Fetch: {
        if (it != transfers_.end())
          return send_error(peer, m.transfer_id, ErrorCode::Malformed, "duplicate FETCH for a running transfer");
        std::string key(m.key);
        std::shared_ptr<const cs::WitnessBundle> bundle;
        {
          std::lock_guard lock(mu_);
          if (auto b = bundles_.find(key); b != bundles_.end()) bundle = b->second;
        }
        if (!bundle)
          return send_error(peer, m.transfer_id, ErrorCode::UnknownKey, "no bundle published under '" + key + "'");
        if (transfers_.size() >= opts_.max_concurrent_transfers)
          return send_error(peer, m.transfer_id, ErrorCode::Busy,
                            std::to_string(transfers_.size()) + " transfers running; retry later");
        Transfer t;
        t.key = std::move(key);
        t.bundle = std::move(bundle);
        t.last_heard = Clock::now();
        auto bytes = t.bundle->bytes();
        t.pending = encode_header(m.transfer_id, bytes.size(), uint32_t(opts_.chunk_bytes),
                                  bytes.first(cs::WitnessBundle::kHeaderSize));
        auto& slot = transfers_[tk] = std::move(t);
        active_ = transfers_.size();
        {
          std::lock_guard lock(mu_);
          ++stats_.transfers_started;
        }
        if (send_to(peer, slot.pending) == SendResult::Sent) slot.pending.clear();
        return;
      }
      case MsgType::Credit:
        if (it == transfers_.end()) return;  // a late credit for a finished transfer is normal
        it->second.credit = std::min<uint32_t>(it->second.credit + m.grant, kMaxWindow);
        it->second.last_heard = Clock::now();
        return;
      case MsgType::Cancel:
        if (it == transfers_.end()) return;
        finish(it, &Stats::transfers_cancelled);
        return;
      default:
        count_malformed();
        send_error(peer, m.transfer_id, ErrorCode::Malformed,
                   std::string(msg_type_name(m.type)) + " is a server-to-fetcher message");
        return;
    }
  }

  using TransferMap = std::map<TransferKey, Transfer>;

  TransferMap::iterator finish(TransferMap::iterator it, uint64_t Stats::*counter) {
    {
      std::lock_guard lock(mu_);
      ++(stats_.*counter);
    }
    it = transfers_.erase(it);
    active_ = transfers_.size();
    return it;
  }

  enum class Pump { Idle, Sent, Blocked };

  // Sends at most one message of one transfer: the reply stuck on a full pipe, else the
  // next chunk if the fetcher has granted credit. Advances `it` (erasing finished transfers).
  Pump pump(TransferMap::iterator& it) {
    const std::string& peer = it->first.first;
    Transfer& t = it->second;
    auto bytes = t.bundle->bytes();
    Pump result = Pump::Idle;
    if (!t.pending.empty()) {
      auto r = send_to(peer, t.pending);
      if (r == SendResult::Blocked) return (++it, Pump::Blocked);
      if (r == SendResult::PeerGone) return (it = finish(it, &Stats::transfers_peer_gone), Pump::Idle);
      t.pending.clear();
      result = Pump::Sent;
    }
    if (result == Pump::Idle && t.credit > 0 && t.next_offset < bytes.size()) {
      size_t len = size_t(std::min<uint64_t>(opts_.chunk_bytes, bytes.size() - t.next_offset));
      auto piece = bytes.subspan(size_t(t.next_offset), len);
      uint64_t sum = cs::checksum64(piece);
      zmq::message_t data;
      if (opts_.corrupt_chunk_for_test && opts_.corrupt_chunk_for_test(t.key, t.next_offset)) {
        data.rebuild(piece.data(), piece.size());
        data.data<uint8_t>()[len / 2] ^= 0x01;
      } else {
        auto keep = std::make_unique<ChunkKeepAlive>(ChunkKeepAlive{t.bundle});
        // libzmq's API takes a mutable pointer but never writes through it.
        data = zmq::message_t(const_cast<uint8_t*>(piece.data()), piece.size(), &release_chunk, keep.get());
        keep.release();  // owned by the message now; release_chunk frees it
      }
      auto frames = encode_chunk(it->first.second, t.next_offset, sum, std::move(data));
      auto r = send_to(peer, frames);
      if (r == SendResult::PeerGone) return (it = finish(it, &Stats::transfers_peer_gone), Pump::Idle);
      // A chunk that met a full pipe is built and paid for; it goes out before anything else.
      if (r == SendResult::Blocked) t.pending = std::move(frames);
      t.next_offset += len;
      --t.credit;
      {
        std::lock_guard lock(mu_);
        stats_.bytes_sent += len;
      }
      result = r == SendResult::Sent ? Pump::Sent : Pump::Blocked;
    }
    if (t.next_offset >= bytes.size() && t.pending.empty()) {
      it = finish(it, &Stats::transfers_completed);
      return result;
    }
    ++it;
    return result;
  }

  void expire() {
    auto now = Clock::now();
    for (auto it = transfers_.begin(); it != transfers_.end();) {
      if (now - it->second.last_heard < opts_.idle_timeout) {
        ++it;
        continue;
      }
      // Drop the transfer (and count it) before telling the fetcher, so anyone who has seen
      // the error also sees the server's state after it.
      auto peer = it->first;
      std::string msg = "no credit from the fetcher for " + std::to_string(opts_.idle_timeout.count()) +
                        " ms; transfer dropped at offset " + std::to_string(it->second.next_offset);
      it = finish(it, &Stats::transfers_timed_out);
      send_error(peer.first, peer.second, ErrorCode::Timeout, msg);
    }
  }

  void run() {
    std::vector<zmq::message_t> frames;
    bool sent = false, blocked = false;
    while (!stop_) {
      // Just sent: only look for new credits. Blocked on full pipes: back off 1 ms rather
      // than spin. Idle: wake every 20 ms for timeouts and stop().
      auto wait = std::chrono::milliseconds(sent ? 0 : blocked ? 1 : 20);
      zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, wait);
      for (int i = 0; i < 256; ++i) {  // bounded, so a flood of requests cannot starve sending
        frames.clear();
        if (!zmq::recv_multipart(router_, std::back_inserter(frames), zmq::recv_flags::dontwait)) break;
        handle(frames);
      }
      sent = blocked = false;
      for (auto it = transfers_.begin(); it != transfers_.end();) {
        Pump p = pump(it);
        sent |= p == Pump::Sent;
        blocked |= p == Pump::Blocked;
      }
      expire();
    }
    transfers_.clear();
    active_ = 0;
    router_.close();
  }

  Options opts_;
  zmq::socket_t router_;  // used only by the serving thread after construction
  std::string endpoint_;
  std::shared_ptr<ZapHandler> zap_;
  std::string zap_domain_;
  mutable std::mutex mu_;  // guards bundles_ and stats_
  std::map<std::string, std::shared_ptr<const cs::WitnessBundle>> bundles_;
  Stats stats_;
  TransferMap transfers_;  // serving thread only
  std::atomic<size_t> active_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

BundleServer::BundleServer(zmq::context_t& ctx, const std::string& bind_endpoint, Options opts)
    : impl_(std::make_unique<Impl>(ctx, bind_endpoint, std::move(opts))) {}
BundleServer::~BundleServer() { stop(); }
const std::string& BundleServer::endpoint() const { return impl_->endpoint(); }
void BundleServer::publish(const std::string& key, std::shared_ptr<const cs::WitnessBundle> bundle) {
  impl_->publish(key, std::move(bundle));
}
bool BundleServer::retract(const std::string& key) { return impl_->retract(key); }
bool BundleServer::has(const std::string& key) const { return impl_->has(key); }
std::shared_ptr<const cs::WitnessBundle> BundleServer::find(const std::string& key) const { return impl_->find(key); }
size_t BundleServer::active_transfers() const { return impl_->active_transfers(); }
BundleServer::Stats BundleServer::stats() const { return impl_->stats(); }
void BundleServer::stop() { impl_->stop(); }
void BundleServer::set_allowed_client_keys(const std::vector<std::string>& keys_z85) {
  impl_->set_allowed_client_keys(keys_z85);
}

}  // namespace zkmill::wire
