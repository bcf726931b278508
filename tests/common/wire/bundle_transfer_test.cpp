// SPDX-License-Identifier: MIT
// BundleServer + fetch_bundle over real tcp://127.0.0.1: round trips, errors, timeouts, hostile peers.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <iostream>
#include <thread>
#include <zmq_addon.hpp>

#include "common/wire/bundle_fetch.hpp"
#include "common/wire/bundle_server.hpp"
#include "tests/common/wire/bundle_maker.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::wire;
using namespace std::chrono_literals;

namespace {

constexpr size_t kSmallChunk = 64 << 10;  // small chunks so modest bundles span many

BundleServer::Options small_chunks() {
  BundleServer::Options o;
  o.chunk_bytes = kSmallChunk;
  return o;
}

FetchOptions quick(std::chrono::milliseconds timeout = 5000ms) {
  FetchOptions o;
  o.timeout = timeout;
  return o;
}

ErrorCode fetch_error(zmq::context_t& ctx, const std::string& ep, const std::string& key, const FetchOptions& o,
                      std::string* what = nullptr) {
  try {
    fetch_bundle(ctx, ep, key, o);
  } catch (const TransferError& e) {
    if (what) *what = e.what();
    return e.code();
  }
  ADD_FAILURE() << "fetch of '" << key << "' succeeded";
  return ErrorCode::Internal;
}

// Built by appending: GCC 12 raises a false -Wrestrict on `"b" + std::to_string(i)`.
std::string key_of(const char* prefix, size_t i) {
  std::string k = prefix;
  k += std::to_string(i);
  return k;
}

bool same_bytes(const cs::WitnessBundle& a, const cs::WitnessBundle& b) {
  return std::ranges::equal(a.bytes(), b.bytes());
}

// Waits (bounded) until pred holds.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 5000ms) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

// A hand-driven DEALER, to play a misbehaving fetcher.
struct RawPeer {
  zmq::socket_t sock;
  RawPeer(zmq::context_t& ctx, const std::string& ep) : sock(ctx, zmq::socket_type::dealer) {
    sock.set(zmq::sockopt::linger, 0);
    sock.connect(ep);
  }
  void send(std::vector<zmq::message_t> frames) { zmq::send_multipart(sock, frames); }
  // Returns the next message, or an empty vector after `limit`.
  std::vector<zmq::message_t> recv(std::chrono::milliseconds limit = 3000ms) {
    std::vector<zmq::message_t> frames;
    zmq::pollitem_t item{sock.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, limit) > 0 && !zmq::recv_multipart(sock, std::back_inserter(frames))) frames.clear();
    return frames;
  }
};

}  // namespace

TEST(BundleTransfer, RoundTripsBundlesOfSeveralSizes) {
  zmq::context_t ctx;
  BundleServer server(ctx, "tcp://127.0.0.1:0", small_chunks());
  ASSERT_NE(server.endpoint().find("tcp://127.0.0.1:"), std::string::npos);
  ASSERT_EQ(server.endpoint().find(":0"), std::string::npos) << server.endpoint();
  std::vector<std::shared_ptr<const cs::WitnessBundle>> bundles = {
      std::make_shared<const cs::WitnessBundle>(make_test_bundle(1, 4, 1)),  // one short chunk
      make_shared_bundle_of_size(kSmallChunk, 2),                            // about one chunk
      make_shared_bundle_of_size(5 * kSmallChunk + 12345, 3),                // several, ragged end
      make_shared_bundle_of_size(3 << 20, 4),                                // many
  };
  for (size_t i = 0; i < bundles.size(); ++i) server.publish(key_of("b", i), bundles[i]);
  // The chunking must not depend on an exact multiple: the sizes above are deliberately odd.
  EXPECT_NE((bundles[2]->bytes().size() - 96) % kSmallChunk, 0u);
  for (uint32_t window : {1u, 4u, kMaxWindow}) {
    for (size_t i = 0; i < bundles.size(); ++i) {
      FetchOptions o = quick();
      o.window = window;
      cs::WitnessBundle got = fetch_bundle(ctx, server.endpoint(), key_of("b", i), o);
      EXPECT_TRUE(same_bytes(got, *bundles[i])) << "bundle " << i << " window " << window;
      EXPECT_EQ(got.header().partition, bundles[i]->header().partition);
    }
  }
  // Into a buffer advised for transparent huge pages (the 3 MiB bundle spans a 2 MiB page).
  FetchOptions huge = quick();
  huge.huge_pages = true;
  EXPECT_TRUE(same_bytes(fetch_bundle(ctx, server.endpoint(), key_of("b", 3), huge), *bundles[3]));
  EXPECT_TRUE(eventually([&] { return server.active_transfers() == 0; }));
  auto st = server.stats();
  EXPECT_EQ(st.transfers_started, 13u);
  EXPECT_EQ(st.transfers_completed, 13u);
}

TEST(BundleTransfer, UnknownAndRetractedKeysAreClearErrors) {
  zmq::context_t ctx;
  BundleServer server(ctx, "tcp://127.0.0.1:0", small_chunks());
  std::string what;
  EXPECT_EQ(fetch_error(ctx, server.endpoint(), "nope", quick(), &what), ErrorCode::UnknownKey);
  EXPECT_NE(what.find("nope"), std::string::npos) << what;

  server.publish("k", make_shared_bundle_of_size(10000));
  EXPECT_TRUE(server.has("k"));
  EXPECT_NO_THROW(fetch_bundle(ctx, server.endpoint(), "k", quick()));
  EXPECT_TRUE(server.retract("k"));
  EXPECT_FALSE(server.has("k"));
  EXPECT_FALSE(server.retract("k"));
  EXPECT_EQ(fetch_error(ctx, server.endpoint(), "k", quick()), ErrorCode::UnknownKey);
}

TEST(BundleTransfer, CorruptChunkIsCaughtAndServerKeepsServing) {
  zmq::context_t ctx;
  auto o = small_chunks();
  o.corrupt_chunk_for_test = [](const std::string& key, uint64_t offset) {
    return key == "bad" && offset == 96 + 2 * kSmallChunk;
  };
  BundleServer server(ctx, "tcp://127.0.0.1:0", o);
  auto b = make_shared_bundle_of_size(1 << 20);
  server.publish("bad", b);
  server.publish("good", b);
  std::string what;
  EXPECT_EQ(fetch_error(ctx, server.endpoint(), "bad", quick(), &what), ErrorCode::Checksum);
  EXPECT_NE(what.find("offset " + std::to_string(96 + 2 * kSmallChunk)), std::string::npos) << what;
  EXPECT_TRUE(same_bytes(fetch_bundle(ctx, server.endpoint(), "good", quick()), *b));
  // The failed fetcher cancelled; nothing stays pinned on the server.
  EXPECT_TRUE(eventually([&] { return server.active_transfers() == 0; }));
  EXPECT_EQ(server.stats().transfers_cancelled, 1u);
}

// The fetcher's chunk pipeline (several workers placing chunks out of order) makes every
// check: chunks of an odd size cut elements in two, a non-canonical element is named wherever
// it lies (the last chunk included), and a corrupt chunk is caught whichever worker has it.
TEST(BundleTransfer, ParallelFetchChecksEveryChunk) {
  zmq::context_t ctx;
  auto o = small_chunks();
  o.chunk_bytes = 1003;  // not a multiple of the 32-byte element
  const uint64_t last_chunk_offset = [] {
    auto b = make_shared_bundle_of_size(64 << 10, 9);
    return 96 + (b->bytes().size() - 96 - 1) / 1003 * 1003;
  }();
  o.corrupt_chunk_for_test = [&](const std::string& key, uint64_t offset) {
    return key == "corrupt" && offset == last_chunk_offset;
  };
  BundleServer server(ctx, "tcp://127.0.0.1:0", o);
  auto good = make_shared_bundle_of_size(64 << 10, 9);
  // Non-canonical (all ones, >= p) elements, properly sealed: a sender bug, not corruption.
  auto with_bad_element = [&](cs::Section s, uint64_t i) {
    cs::WitnessBundle b = good->clone();
    auto sec = b.section_mut<ff::Bn254Fr>(s);
    sec[i].v.fill(~uint64_t(0));
    b.seal();
    return std::make_shared<const cs::WitnessBundle>(std::move(b));
  };
  const uint64_t rows = good->n_rows();
  server.publish("good", good);
  server.publish("corrupt", good);
  server.publish("bad_last", with_bad_element(cs::Section::C, rows - 1));
  server.publish("bad_mid", with_bad_element(cs::Section::A, rows / 2));
  for (uint32_t threads : {1u, 4u}) {
    for (uint32_t window : {1u, 8u}) {
      FetchOptions f = quick();
      f.threads = threads;
      f.window = window;
      std::string ctx_msg = "threads " + std::to_string(threads) + " window " + std::to_string(window);
      EXPECT_TRUE(same_bytes(fetch_bundle(ctx, server.endpoint(), "good", f), *good)) << ctx_msg;
      std::string what;
      EXPECT_EQ(fetch_error(ctx, server.endpoint(), "bad_last", f, &what), ErrorCode::Bundle) << ctx_msg;
      EXPECT_NE(what.find("field element not canonical at c[" + std::to_string(rows - 1) + "]"), std::string::npos)
          << what;
      EXPECT_EQ(fetch_error(ctx, server.endpoint(), "bad_mid", f, &what), ErrorCode::Bundle) << ctx_msg;
      EXPECT_NE(what.find("field element not canonical at a[" + std::to_string(rows / 2) + "]"), std::string::npos)
          << what;
      EXPECT_EQ(fetch_error(ctx, server.endpoint(), "corrupt", f, &what), ErrorCode::Checksum) << ctx_msg;
      EXPECT_NE(what.find("chunk at offset " + std::to_string(last_chunk_offset)), std::string::npos) << what;
    }
  }
  EXPECT_TRUE(eventually([&] { return server.active_transfers() == 0; }));
}

TEST(BundleTransfer, StalledFetcherIsDroppedAfterIdleTimeout) {
  zmq::context_t ctx;
  auto o = small_chunks();
  o.idle_timeout = 300ms;
  BundleServer server(ctx, "tcp://127.0.0.1:0", o);
  auto b = make_shared_bundle_of_size(1 << 20);
  server.publish("k", b);

  RawPeer stalled(ctx, server.endpoint());
  stalled.send(encode_fetch(42, "k"));
  auto h = stalled.recv();
  ASSERT_EQ(decode(h).type, MsgType::Header);
  stalled.send(encode_credit(42, 1));
  auto c = stalled.recv();
  ASSERT_EQ(decode(c).type, MsgType::Chunk);
  EXPECT_EQ(server.active_transfers(), 1u);
  // ... and never grants another credit. The server gives up and says so.
  auto e = stalled.recv(3000ms);
  ASSERT_FALSE(e.empty());
  Message m = decode(e);
  EXPECT_EQ(m.type, MsgType::Error);
  EXPECT_EQ(m.code, ErrorCode::Timeout);
  EXPECT_EQ(server.active_transfers(), 0u);
  EXPECT_EQ(server.stats().transfers_timed_out, 1u);
  EXPECT_TRUE(same_bytes(fetch_bundle(ctx, server.endpoint(), "k", quick()), *b));
}

TEST(BundleTransfer, ServerDyingMidTransferFailsTheFetchClearly) {
  zmq::context_t ctx;
  auto o = small_chunks();
  std::atomic<bool> midway{false};
  // Slow the transfer down past its 10th chunk so the server can be killed mid-way.
  o.corrupt_chunk_for_test = [&](const std::string&, uint64_t offset) {
    if (offset >= 96 + 10 * kSmallChunk) {
      midway = true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  };
  auto server = std::make_unique<BundleServer>(ctx, "tcp://127.0.0.1:0", o);
  server->publish("k", make_shared_bundle_of_size(16 << 20));
  std::string ep = server->endpoint();
  auto fut = std::async(std::launch::async, [&] {
    std::string what;
    ErrorCode c = fetch_error(ctx, ep, "k", quick(1000ms), &what);
    return std::make_pair(c, what);
  });
  ASSERT_TRUE(eventually([&] { return midway.load(); }));
  server.reset();
  ASSERT_EQ(fut.wait_for(5s), std::future_status::ready);
  auto [code, what] = fut.get();
  EXPECT_TRUE(code == ErrorCode::PeerGone || code == ErrorCode::Timeout) << what;
  std::cout << "  fetcher saw: " << what << "\n";
  EXPECT_NE(what.find(" of 16"), std::string::npos) << "should say how far it got: " << what;
}

TEST(BundleTransfer, MalformedMessagesAreAnsweredAndServerSurvives) {
  zmq::context_t ctx;
  BundleServer server(ctx, "tcp://127.0.0.1:0", small_chunks());
  auto b = make_shared_bundle_of_size(300000);
  server.publish("k", b);
  RawPeer raw(ctx, server.endpoint());

  std::vector<std::vector<zmq::message_t>> junk;
  junk.emplace_back();
  junk.back().emplace_back(std::string_view("hello"));
  junk.push_back(encode_fetch(5, "k"));
  junk.back()[0].data<uint8_t>()[0] = 'Q';  // bad magic
  junk.push_back(encode_fetch(6, "k"));
  junk.back()[0].data<uint8_t>()[5] = 200;  // unknown type
  junk.push_back(encode_fetch(7, "k"));
  junk.back().emplace_back(1);  // extra frame
  junk.push_back(encode_credit(8, 1));
  junk.back()[1].rebuild(3);  // wrong-sized body
  std::array<uint8_t, 96> zero{};
  junk.push_back(encode_header(9, 1000, 64, zero));  // a server-to-fetcher message
  junk.push_back(encode_fetch(10, std::string(kMaxKeyBytes + 1, 'x')));
  for (auto& j : junk) {
    size_t n = j.size();
    raw.send(std::move(j));
    auto reply = raw.recv();
    ASSERT_FALSE(reply.empty()) << "no answer to a " << n << "-frame junk message";
    Message m = decode(reply);
    EXPECT_EQ(m.type, MsgType::Error);
    EXPECT_EQ(m.code, ErrorCode::Malformed);
  }
  // Credits and cancels for transfers that do not exist are ignored, not answered.
  raw.send(encode_credit(1234, 4));
  raw.send(encode_cancel(1234));
  EXPECT_TRUE(raw.recv(200ms).empty());

  // A frame over the request size limit: libzmq drops that connection, nothing more.
  RawPeer huge(ctx, server.endpoint());
  std::vector<zmq::message_t> big;
  big.push_back(zmq::message_t(size_t(1) << 20));
  huge.send(std::move(big));

  EXPECT_EQ(server.stats().malformed_received, junk.size());
  EXPECT_TRUE(same_bytes(fetch_bundle(ctx, server.endpoint(), "k", quick()), *b));
}

TEST(BundleTransfer, ConcurrentFetches) {
  zmq::context_t ctx;
  BundleServer server(ctx, "tcp://127.0.0.1:0", small_chunks());
  std::vector<std::shared_ptr<const cs::WitnessBundle>> bundles;
  for (int i = 0; i < 4; ++i) {
    bundles.push_back(make_shared_bundle_of_size((1 << 20) + 1000 * i, 10 + i));
    server.publish(key_of("k", i), bundles.back());
  }
  std::vector<std::future<bool>> futs;
  for (int t = 0; t < 8; ++t) {
    futs.push_back(std::async(std::launch::async, [&, t] {
      int i = t % 4;
      auto got = fetch_bundle(ctx, server.endpoint(), key_of("k", i), quick());
      return same_bytes(got, *bundles[i]);
    }));
  }
  for (auto& f : futs) {
    ASSERT_EQ(f.wait_for(20s), std::future_status::ready);
    EXPECT_TRUE(f.get());
  }
  EXPECT_EQ(server.stats().transfers_completed, 8u);
}

TEST(BundleTransfer, BusyServerRefusesBeyondItsLimit) {
  zmq::context_t ctx;
  auto o = small_chunks();
  o.max_concurrent_transfers = 1;
  BundleServer server(ctx, "tcp://127.0.0.1:0", o);
  server.publish("k", make_shared_bundle_of_size(1 << 20));
  RawPeer holder(ctx, server.endpoint());  // takes the only slot and sits on it
  holder.send(encode_fetch(1, "k"));
  ASSERT_EQ(decode(holder.recv()).type, MsgType::Header);
  EXPECT_EQ(fetch_error(ctx, server.endpoint(), "k", quick()), ErrorCode::Busy);
  holder.send(encode_cancel(1));
  EXPECT_TRUE(eventually([&] { return server.active_transfers() == 0; }));
  EXPECT_NO_THROW(fetch_bundle(ctx, server.endpoint(), "k", quick()));
}

TEST(BundleTransfer, AdmissionLimitRefusesBeforeAllocating) {
  zmq::context_t ctx;
  BundleServer server(ctx, "tcp://127.0.0.1:0", small_chunks());
  auto b = make_shared_bundle_of_size(1 << 20);
  server.publish("k", b);
  FetchOptions o = quick();
  o.max_total_bytes = b->bytes().size() - 1;
  std::string what;
  EXPECT_EQ(fetch_error(ctx, server.endpoint(), "k", o, &what), ErrorCode::TooLarge);
  EXPECT_NE(what.find(std::to_string(b->bytes().size())), std::string::npos) << what;
  // Refused at the HEADER: no chunk was ever granted, let alone sent.
  EXPECT_TRUE(eventually([&] { return server.active_transfers() == 0; }));
  EXPECT_EQ(server.stats().bytes_sent, 0u);
  EXPECT_EQ(server.stats().transfers_cancelled, 1u);
  o.max_total_bytes = b->bytes().size();
  EXPECT_NO_THROW(fetch_bundle(ctx, server.endpoint(), "k", o));
}

TEST(BundleTransfer, RetractedBundleOutlivesItsTransfer) {
  zmq::context_t ctx;
  BundleServer server(ctx, "tcp://127.0.0.1:0", small_chunks());
  auto b = make_shared_bundle_of_size(1 << 20);
  std::weak_ptr<const cs::WitnessBundle> weak = b;
  auto copy = b->clone();
  server.publish("k", std::move(b));
  RawPeer p(ctx, server.endpoint());
  p.send(encode_fetch(3, "k"));
  ASSERT_EQ(decode(p.recv()).type, MsgType::Header);
  EXPECT_TRUE(server.retract("k"));
  EXPECT_FALSE(weak.expired()) << "the running transfer holds the bundle";
  p.send(encode_credit(3, 2));
  auto c = p.recv();
  Message m = decode(c);
  ASSERT_EQ(m.type, MsgType::Chunk);
  EXPECT_TRUE(std::ranges::equal(m.data, copy.bytes().subspan(96, kSmallChunk)));
  p.send(encode_cancel(3));
  EXPECT_TRUE(eventually([&] { return server.active_transfers() == 0; }));
}

}  // namespace zkmill::test
