// SPDX-License-Identifier: MIT
// Encoding and strict decoding of the bundle-transfer messages (layouts in message.hpp).
#include "common/wire/message.hpp"

#include <cstring>

#include "common/cs/witness_bundle.hpp"

namespace zkmill::wire {

namespace {

constexpr uint8_t kMagic[4] = {'Z', 'K', 'W', 'T'};

void put_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
void put_u64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint32_t get_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

const uint8_t* bytes_of(const zmq::message_t& m) { return m.data<uint8_t>(); }

[[noreturn]] void malformed(const std::string& why) { throw TransferError(ErrorCode::Malformed, why); }

zmq::message_t header_frame(MsgType t, uint64_t transfer_id) {
  zmq::message_t m(kFrameHeaderSize);
  auto* p = m.data<uint8_t>();
  std::memcpy(p, kMagic, 4);
  p[4] = kProtocolVersion;
  p[5] = uint8_t(t);
  p[6] = p[7] = 0;
  put_u64(p + 8, transfer_id);
  return m;
}

zmq::message_t meta_frame(uint64_t a, uint64_t b) {
  zmq::message_t m(kMetaFrameSize);
  put_u64(m.data<uint8_t>(), a);
  put_u64(m.data<uint8_t>() + 8, b);
  return m;
}

bool known_type(uint8_t t) {
  switch (MsgType(t)) {
    case MsgType::Fetch:
    case MsgType::Credit:
    case MsgType::Cancel:
    case MsgType::Header:
    case MsgType::Chunk:
    case MsgType::Error:
      return true;
  }
  return false;
}

void expect_frames(std::span<const zmq::message_t> frames, size_t n, MsgType t) {
  if (frames.size() != n)
    malformed(std::string(msg_type_name(t)) + " needs " + std::to_string(n) + " frames, got " +
              std::to_string(frames.size()));
}

void expect_size(const zmq::message_t& m, size_t n, const char* what) {
  if (m.size() != n)
    malformed(std::string(what) + " frame is " + std::to_string(m.size()) + " bytes, expected " + std::to_string(n));
}

}  // namespace

const char* msg_type_name(MsgType t) {
  switch (t) {
    case MsgType::Fetch:
      return "FETCH";
    case MsgType::Credit:
      return "CREDIT";
    case MsgType::Cancel:
      return "CANCEL";
    case MsgType::Header:
      return "HEADER";
    case MsgType::Chunk:
      return "CHUNK";
    case MsgType::Error:
      return "ERROR";
  }
  return "?";
}

const char* error_code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::UnknownKey:
      return "unknown key";
    case ErrorCode::Busy:
      return "server busy";
    case ErrorCode::Malformed:
      return "malformed message";
    case ErrorCode::Timeout:
      return "timeout";
    case ErrorCode::Retracted:
      return "retracted";
    case ErrorCode::Internal:
      return "internal error";
    case ErrorCode::TooLarge:
      return "bundle too large";
    case ErrorCode::Checksum:
      return "checksum mismatch";
    case ErrorCode::Bundle:
      return "invalid bundle";
    case ErrorCode::Auth:
      return "authentication";
    case ErrorCode::PeerGone:
      return "peer gone";
  }
  return "unknown error code";
}

Message decode(std::span<const zmq::message_t> frames) {
  if (frames.empty()) malformed("empty message");
  const auto& h = frames[0];
  expect_size(h, kFrameHeaderSize, "header");
  const uint8_t* p = bytes_of(h);
  if (std::memcmp(p, kMagic, 4) != 0) malformed("bad magic");
  if (p[4] != kProtocolVersion)
    malformed("protocol version " + std::to_string(p[4]) + ", this build speaks " + std::to_string(kProtocolVersion));
  if (!known_type(p[5])) malformed("unknown message type " + std::to_string(p[5]));
  if (p[6] || p[7]) malformed("reserved header bytes are not zero");
  Message m;
  m.type = MsgType(p[5]);
  m.transfer_id = get_u64(p + 8);
  if (m.transfer_id == 0 && m.type != MsgType::Error) malformed("transfer id 0");

  switch (m.type) {
    case MsgType::Fetch: {
      expect_frames(frames, 2, m.type);
      const auto& k = frames[1];
      if (k.size() == 0 || k.size() > kMaxKeyBytes) malformed("key of " + std::to_string(k.size()) + " bytes");
      m.key = std::string_view(k.data<char>(), k.size());
      break;
    }
    case MsgType::Credit: {
      expect_frames(frames, 2, m.type);
      expect_size(frames[1], 8, "CREDIT");
      m.grant = get_u32(bytes_of(frames[1]));
      if (m.grant == 0 || m.grant > kMaxWindow || get_u32(bytes_of(frames[1]) + 4) != 0)
        malformed("credit grant " + std::to_string(m.grant));
      break;
    }
    case MsgType::Cancel:
      expect_frames(frames, 1, m.type);
      break;
    case MsgType::Header: {
      expect_frames(frames, 3, m.type);
      expect_size(frames[1], kMetaFrameSize, "HEADER meta");
      expect_size(frames[2], cs::WitnessBundle::kHeaderSize, "HEADER bundle header");
      const uint8_t* q = bytes_of(frames[1]);
      m.total_size = get_u64(q);
      m.chunk_bytes = get_u32(q + 8);
      if (get_u32(q + 12) != 0) malformed("reserved HEADER bytes are not zero");
      if (m.chunk_bytes == 0 || m.chunk_bytes > kMaxChunkBytes)
        malformed("chunk size " + std::to_string(m.chunk_bytes));
      if (m.total_size <= cs::WitnessBundle::kHeaderSize) malformed("bundle size " + std::to_string(m.total_size));
      m.bundle_header = {bytes_of(frames[2]), frames[2].size()};
      break;
    }
    case MsgType::Chunk: {
      expect_frames(frames, 3, m.type);
      expect_size(frames[1], kMetaFrameSize, "CHUNK meta");
      m.offset = get_u64(bytes_of(frames[1]));
      m.checksum = get_u64(bytes_of(frames[1]) + 8);
      if (frames[2].size() == 0 || frames[2].size() > kMaxChunkBytes)
        malformed("chunk of " + std::to_string(frames[2].size()) + " bytes");
      m.data = {bytes_of(frames[2]), frames[2].size()};
      break;
    }
    case MsgType::Error: {
      expect_frames(frames, 3, m.type);
      expect_size(frames[1], 8, "ERROR meta");
      m.code = ErrorCode(get_u32(bytes_of(frames[1])));
      if (get_u32(bytes_of(frames[1]) + 4) != 0) malformed("reserved ERROR bytes are not zero");
      if (frames[2].size() > kMaxErrorText) malformed("error text of " + std::to_string(frames[2].size()) + " bytes");
      m.text = std::string_view(frames[2].data<char>(), frames[2].size());
      break;
    }
  }
  return m;
}

uint64_t peek_transfer_id(const zmq::message_t& header_frame) {
  return header_frame.size() == kFrameHeaderSize ? get_u64(bytes_of(header_frame) + 8) : 0;
}

std::vector<zmq::message_t> encode_fetch(uint64_t transfer_id, std::string_view key) {
  std::vector<zmq::message_t> v;
  v.push_back(header_frame(MsgType::Fetch, transfer_id));
  v.emplace_back(key.data(), key.size());
  return v;
}

std::vector<zmq::message_t> encode_credit(uint64_t transfer_id, uint32_t grant) {
  std::vector<zmq::message_t> v;
  v.push_back(header_frame(MsgType::Credit, transfer_id));
  zmq::message_t c(8);
  put_u32(c.data<uint8_t>(), grant);
  put_u32(c.data<uint8_t>() + 4, 0);
  v.push_back(std::move(c));
  return v;
}

std::vector<zmq::message_t> encode_cancel(uint64_t transfer_id) {
  std::vector<zmq::message_t> v;
  v.push_back(header_frame(MsgType::Cancel, transfer_id));
  return v;
}

std::vector<zmq::message_t> encode_header(uint64_t transfer_id, uint64_t total_size, uint32_t chunk_bytes,
                                          std::span<const uint8_t> bundle_header) {
  std::vector<zmq::message_t> v;
  v.push_back(header_frame(MsgType::Header, transfer_id));
  v.push_back(meta_frame(total_size, chunk_bytes));  // the u32 chunk size and zero u32 share the second u64
  v.emplace_back(bundle_header.data(), bundle_header.size());
  return v;
}

std::vector<zmq::message_t> encode_chunk(uint64_t transfer_id, uint64_t offset, uint64_t checksum,
                                         zmq::message_t data) {
  std::vector<zmq::message_t> v;
  v.push_back(header_frame(MsgType::Chunk, transfer_id));
  v.push_back(meta_frame(offset, checksum));
  v.push_back(std::move(data));
  return v;
}

std::vector<zmq::message_t> encode_error(uint64_t transfer_id, ErrorCode code, std::string_view text) {
  if (text.size() > kMaxErrorText) text = text.substr(0, kMaxErrorText);
  std::vector<zmq::message_t> v;
  v.push_back(header_frame(MsgType::Error, transfer_id));
  zmq::message_t c(8);
  put_u32(c.data<uint8_t>(), uint32_t(code));
  put_u32(c.data<uint8_t>() + 4, 0);
  v.push_back(std::move(c));
  v.emplace_back(text.data(), text.size());
  return v;
}

}  // namespace zkmill::wire
