// SPDX-License-Identifier: MIT
// A fetch's socket is torn down while libzmq may still report events about it (during its
// linger, the session keeps its connection and reports drops and reconnects). Those reports are
// made on the context's I/O thread; one sent to a monitor whose reading end is already closed
// blocked that thread for good, and with it every socket of the context (in a prove worker:
// its control link to the coordinator, silent both ways). The peer here holds each connection
// without a word and drops it inside the fetch socket's linger, so such a report certainly
// follows the teardown; a fetch from a real server on the same context must still work.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "common/wire/bundle_fetch.hpp"
#include "common/wire/bundle_server.hpp"
#include "tests/common/wire/bundle_maker.hpp"

namespace zkmill::test {

using namespace zkmill;
using namespace zkmill::wire;
using namespace std::chrono_literals;

namespace {

// A TCP listener on loopback that accepts each connection, says nothing, and closes it after
// `hold`: to a ZeroMQ client, a peer that goes away in the middle of the ZMTP handshake.
class SilentDroppingPeer {
 public:
  explicit SilentDroppingPeer(std::chrono::milliseconds hold) : hold_(hold) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("SilentDroppingPeer: cannot listen on loopback");
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    thread_ = std::thread([this] { serve(); });
  }
  ~SilentDroppingPeer() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  const std::string& endpoint() const { return endpoint_; }
  int accepted() const { return accepted_.load(); }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++accepted_;
      std::this_thread::sleep_for(hold_);
      close(c);
    }
  }

  std::chrono::milliseconds hold_;
  int fd_ = -1;
  std::string endpoint_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
};

}  // namespace

TEST(BundleFetchTeardown, APeerDroppingDuringTheLingerDoesNotWedgeTheContext) {
  zmq::context_t server_ctx;
  BundleServer server(server_ctx, "tcp://127.0.0.1:0");
  auto b = make_shared_bundle_of_size(100000);
  server.publish("k", b);
  // Held 60 ms: the fetch below gives up after 30 ms, and the fetch socket lingers 100 ms.
  SilentDroppingPeer peer(60ms);

  zmq::context_t ctx(1);  // one I/O thread, as in a worker
  for (int i = 0; i < 3; ++i) {
    FetchOptions silent;
    silent.timeout = 30ms;
    try {
      fetch_bundle(ctx, peer.endpoint(), "k", silent);
      FAIL() << "a peer that never answered produced a bundle";
    } catch (const TransferError& e) {
      EXPECT_EQ(e.code(), ErrorCode::Timeout) << e.what();
    }
    std::this_thread::sleep_for(150ms);  // the drop, inside the linger, has been reported
    FetchOptions real;
    real.timeout = 3000ms;
    try {
      cs::WitnessBundle got = fetch_bundle(ctx, server.endpoint(), "k", real);
      EXPECT_TRUE(std::ranges::equal(got.bytes(), b->bytes()));
    } catch (const TransferError& e) {
      FAIL() << "round " << i << ": the context no longer passes traffic after a fetch teardown: " << e.what();
    }
  }
  EXPECT_GE(peer.accepted(), 1);
}

}  // namespace zkmill::test
