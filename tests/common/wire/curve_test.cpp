// SPDX-License-Identifier: MIT
// CURVE on the bundle transfer: an allow-listed client fetches, an unknown key is refused by ZAP.
#include <gtest/gtest.h>

#include "common/wire/bundle_fetch.hpp"
#include "common/wire/bundle_server.hpp"
#include "tests/common/wire/bundle_maker.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::wire;
using namespace std::chrono_literals;

namespace {

struct CurveSetup {
  CurveKeyPair server = CurveKeyPair::generate();
  CurveKeyPair good = CurveKeyPair::generate();
  CurveKeyPair bad = CurveKeyPair::generate();

  BundleServer::Options server_options() const {
    BundleServer::Options o;
    o.chunk_bytes = 64 << 10;
    o.curve = server;
    o.allowed_client_keys = {good.public_key};
    return o;
  }
  FetchOptions client(const CurveKeyPair& me) const {
    FetchOptions o;
    o.timeout = 2000ms;
    o.curve = CurveClientKeys{me, server.public_key};
    return o;
  }
};

}  // namespace

TEST(BundleCurve, KeysAreZ85) {
  CurveKeyPair k = CurveKeyPair::generate();
  EXPECT_EQ(k.public_key.size(), 40u);
  EXPECT_EQ(k.secret_key.size(), 40u);
  EXPECT_NE(k.public_key, CurveKeyPair::generate().public_key);
}

TEST(BundleCurve, AllowListedClientFetchesRejectedClientIsRefused) {
  if (!zmq_has("curve")) GTEST_SKIP() << "libzmq without CURVE";
  zmq::context_t ctx;
  CurveSetup keys;
  BundleServer server(ctx, "tcp://127.0.0.1:0", keys.server_options());
  auto b = make_shared_bundle_of_size(500000);
  server.publish("k", b);

  cs::WitnessBundle got = fetch_bundle(ctx, server.endpoint(), "k", keys.client(keys.good));
  EXPECT_TRUE(std::ranges::equal(got.bytes(), b->bytes()));

  try {
    fetch_bundle(ctx, server.endpoint(), "k", keys.client(keys.bad));
    ADD_FAILURE() << "a client key off the allow-list fetched the bundle";
  } catch (const TransferError& e) {
    EXPECT_EQ(e.code(), ErrorCode::Auth) << e.what();
  }
  EXPECT_EQ(server.stats().transfers_started, 1u);

  // A plaintext client cannot talk to a CURVE server at all.
  FetchOptions plain;
  plain.timeout = 500ms;
  try {
    fetch_bundle(ctx, server.endpoint(), "k", plain);
    ADD_FAILURE() << "a plaintext client fetched from a CURVE server";
  } catch (const TransferError& e) {
    EXPECT_TRUE(e.code() == ErrorCode::Auth || e.code() == ErrorCode::Timeout) << e.what();
  }
}

TEST(BundleCurve, SharedZapHandlerServesSeveralServers) {
  if (!zmq_has("curve")) GTEST_SKIP() << "libzmq without CURVE";
  zmq::context_t ctx;
  CurveSetup keys;
  auto zap = std::make_shared<ZapHandler>(ctx);
  EXPECT_THROW(ZapHandler second(ctx), TransferError);  // one per context
  auto o = keys.server_options();
  o.zap = zap;
  BundleServer s1(ctx, "tcp://127.0.0.1:0", o);
  BundleServer s2(ctx, "tcp://127.0.0.1:0", o);
  auto b = make_shared_bundle_of_size(100000);
  s1.publish("k", b);
  s2.publish("k", b);
  EXPECT_NO_THROW(fetch_bundle(ctx, s1.endpoint(), "k", keys.client(keys.good)));
  EXPECT_NO_THROW(fetch_bundle(ctx, s2.endpoint(), "k", keys.client(keys.good)));
  EXPECT_GE(zap->accepted(), 2u);
}

// The scenario a prove worker met: refused fetches in a row on its one context (one I/O thread).
// A refused fetch's teardown could wedge that thread (fetch_teardown_test.cpp has the
// deterministic reproduction); here it would show as a Timeout instead of Auth, or as a failed
// fetch with the right key afterwards. The wedge needed a reconnect inside the socket's linger,
// a race, hence the loop.
TEST(BundleCurve, RefusedFetchesLeaveTheClientContextWorking) {
  if (!zmq_has("curve")) GTEST_SKIP() << "libzmq without CURVE";
  zmq::context_t server_ctx;
  CurveSetup keys;
  BundleServer server(server_ctx, "tcp://127.0.0.1:0", keys.server_options());
  auto b = make_shared_bundle_of_size(100000);
  server.publish("k", b);

  zmq::context_t ctx(1);  // one I/O thread, as in a worker
  for (int i = 0; i < 40; ++i) {
    try {
      fetch_bundle(ctx, server.endpoint(), "k", keys.client(keys.bad));
      FAIL() << "a client key off the allow-list fetched the bundle";
    } catch (const TransferError& e) {
      ASSERT_EQ(e.code(), ErrorCode::Auth) << "refused fetch " << i << ": " << e.what();
    }
  }
  cs::WitnessBundle got = fetch_bundle(ctx, server.endpoint(), "k", keys.client(keys.good));
  EXPECT_TRUE(std::ranges::equal(got.bytes(), b->bytes()));
}

}  // namespace zkmill::test
