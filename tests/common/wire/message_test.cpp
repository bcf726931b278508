// SPDX-License-Identifier: MIT
// The wire codec: every message type round-trips, and every malformed shape is a clean Malformed error.
#include "common/wire/message.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>

namespace zkmill::test {

using namespace zkmill::wire;

namespace {

ErrorCode code_of(std::span<const zmq::message_t> frames) {
  try {
    decode(frames);
  } catch (const TransferError& e) {
    return e.code();
  }
  return ErrorCode::Internal;  // "no error" for these tests
}

}  // namespace

TEST(WireMessage, RoundTripsEveryType) {
  auto f = encode_fetch(7, "job/part-1");
  Message m = decode(f);
  EXPECT_EQ(m.type, MsgType::Fetch);
  EXPECT_EQ(m.transfer_id, 7u);
  EXPECT_EQ(m.key, "job/part-1");

  auto c = encode_credit(9, 4);
  m = decode(c);
  EXPECT_EQ(m.type, MsgType::Credit);
  EXPECT_EQ(m.grant, 4u);

  m = decode(encode_cancel(11));
  EXPECT_EQ(m.type, MsgType::Cancel);
  EXPECT_EQ(m.transfer_id, 11u);

  std::array<uint8_t, 96> hdr{};
  hdr[5] = 42;
  auto h = encode_header(12, 1000, 256, hdr);
  m = decode(h);
  EXPECT_EQ(m.type, MsgType::Header);
  EXPECT_EQ(m.total_size, 1000u);
  EXPECT_EQ(m.chunk_bytes, 256u);
  ASSERT_EQ(m.bundle_header.size(), 96u);
  EXPECT_EQ(m.bundle_header[5], 42);

  std::string payload = "some chunk bytes";
  auto ch = encode_chunk(13, 96, 0x1234, zmq::message_t(payload.data(), payload.size()));
  m = decode(ch);
  EXPECT_EQ(m.type, MsgType::Chunk);
  EXPECT_EQ(m.offset, 96u);
  EXPECT_EQ(m.checksum, 0x1234u);
  EXPECT_EQ(std::string(m.data.begin(), m.data.end()), payload);

  auto e = encode_error(14, ErrorCode::UnknownKey, "nope");
  m = decode(e);
  EXPECT_EQ(m.type, MsgType::Error);
  EXPECT_EQ(m.code, ErrorCode::UnknownKey);
  EXPECT_EQ(m.text, "nope");
}

TEST(WireMessage, RejectsMalformedShapes) {
  std::vector<zmq::message_t> none;
  EXPECT_EQ(code_of(none), ErrorCode::Malformed);

  auto f = encode_fetch(7, "k");
  f[0].rebuild(15);  // short header frame
  EXPECT_EQ(code_of(f), ErrorCode::Malformed);

  auto bad_magic = encode_fetch(7, "k");
  bad_magic[0].data<uint8_t>()[0] = 'X';
  EXPECT_EQ(code_of(bad_magic), ErrorCode::Malformed);

  auto bad_version = encode_fetch(7, "k");
  bad_version[0].data<uint8_t>()[4] = 2;
  EXPECT_EQ(code_of(bad_version), ErrorCode::Malformed);

  auto bad_type = encode_fetch(7, "k");
  bad_type[0].data<uint8_t>()[5] = 99;
  EXPECT_EQ(code_of(bad_type), ErrorCode::Malformed);

  auto reserved = encode_fetch(7, "k");
  reserved[0].data<uint8_t>()[6] = 1;
  EXPECT_EQ(code_of(reserved), ErrorCode::Malformed);

  EXPECT_EQ(code_of(encode_fetch(0, "k")), ErrorCode::Malformed);  // transfer id 0
  EXPECT_EQ(code_of(encode_fetch(7, "")), ErrorCode::Malformed);
  EXPECT_EQ(code_of(encode_fetch(7, std::string(kMaxKeyBytes + 1, 'k'))), ErrorCode::Malformed);

  auto extra = encode_fetch(7, "k");
  extra.emplace_back(3);
  EXPECT_EQ(code_of(extra), ErrorCode::Malformed);

  EXPECT_EQ(code_of(encode_credit(7, 0)), ErrorCode::Malformed);
  EXPECT_EQ(code_of(encode_credit(7, kMaxWindow + 1)), ErrorCode::Malformed);
  auto short_credit = encode_credit(7, 1);
  short_credit[1].rebuild(4);
  EXPECT_EQ(code_of(short_credit), ErrorCode::Malformed);

  std::array<uint8_t, 95> short_hdr{};
  EXPECT_EQ(code_of(encode_header(7, 1000, 256, short_hdr)), ErrorCode::Malformed);
  std::array<uint8_t, 96> hdr{};
  EXPECT_EQ(code_of(encode_header(7, 1000, 0, hdr)), ErrorCode::Malformed);
  EXPECT_EQ(code_of(encode_header(7, 1000, uint32_t(kMaxChunkBytes) + 1, hdr)), ErrorCode::Malformed);
  EXPECT_EQ(code_of(encode_header(7, 96, 256, hdr)), ErrorCode::Malformed);  // no payload at all

  EXPECT_EQ(code_of(encode_chunk(7, 96, 0, zmq::message_t())), ErrorCode::Malformed);  // empty chunk
  auto short_meta = encode_chunk(7, 96, 0, zmq::message_t(4));
  short_meta[1].rebuild(8);
  EXPECT_EQ(code_of(short_meta), ErrorCode::Malformed);

  auto long_error = encode_error(7, ErrorCode::Busy, "x");
  long_error[2].rebuild(kMaxErrorText + 1);
  EXPECT_EQ(code_of(long_error), ErrorCode::Malformed);
}

TEST(WireMessage, ErrorMayAnswerAnUnreadableHeader) {
  // The server answers garbage with transfer id 0; the fetcher must be able to read that.
  auto e = encode_error(0, ErrorCode::Malformed, "bad magic");
  EXPECT_EQ(decode(e).transfer_id, 0u);
  zmq::message_t junk(3);
  EXPECT_EQ(peek_transfer_id(junk), 0u);
  EXPECT_EQ(peek_transfer_id(encode_cancel(77)[0]), 77u);
}

TEST(WireMessage, ErrorTextIsTruncatedNotRejected) {
  auto e = encode_error(5, ErrorCode::Internal, std::string(5000, 'e'));
  EXPECT_EQ(decode(e).text.size(), kMaxErrorText);
}

}  // namespace zkmill::test
