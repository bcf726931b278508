// SPDX-License-Identifier: MIT
// The bundle-transfer wire protocol: frame layouts, codecs and the error every wire call throws.
//
// Every message is multi-part. Frame 0 is a fixed 16-byte header; the frames after it
// depend on the type and are size- and schema-checked by decode() before anything reads
// them, so a wrong-sized, unknown-type or wrong-version message is a TransferError
// (Malformed), never undefined behaviour. All integers little-endian.
//
//   header frame (16 bytes)
//     0  4  magic "ZKWT"
//     4  1  u8 protocol version = 1
//     5  1  u8 message type (MsgType)
//     6  2  reserved, zero
//     8  8  u64 transfer id, chosen by the fetcher, non-zero; echoed on every reply so a
//           late message of an earlier transfer can never be taken for this one (0 only
//           in an ERROR answering a message whose header could not be read)
//
//   fetcher -> server (DEALER -> ROUTER)
//     FETCH   [hdr][key: 1..kMaxKeyBytes bytes]
//     CREDIT  [hdr][u32 chunks granted (1..kMaxWindow), u32 zero]
//     CANCEL  [hdr]
//   server -> fetcher (ROUTER -> DEALER)
//     HEADER  [hdr][u64 bundle total size, u32 chunk bytes, u32 zero][the bundle's 96-byte header]
//     CHUNK   [hdr][u64 offset, u64 checksum64(data)][data: 1..chunk bytes]
//     ERROR   [hdr][u32 ErrorCode, u32 zero][UTF-8 text, <= kMaxErrorText bytes]
//
// Flow: FETCH -> HEADER (or ERROR); the fetcher checks the size against its admission
// limit, allocates, and sends CREDIT(window); the server sends one CHUNK per credit, in
// order, covering [96, total) of the bundle image; the fetcher grants CREDIT(1) per chunk
// as it takes it off the socket (so at most window + 1 chunks are ever buffered there).
// After the last chunk the server forgets the transfer.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include <zmq.hpp>

namespace zkmill::wire {

static_assert(std::endian::native == std::endian::little, "the wire codecs assume a little-endian host");

inline constexpr uint8_t kProtocolVersion = 1;
inline constexpr size_t kFrameHeaderSize = 16;
inline constexpr size_t kMetaFrameSize = 16;  // the fixed second frame of HEADER and CHUNK
inline constexpr size_t kMaxKeyBytes = 1024;
inline constexpr size_t kMaxErrorText = 1024;
inline constexpr size_t kMaxChunkBytes = size_t(64) << 20;  // far below libzmq's 2 GB message limit
inline constexpr uint32_t kMaxWindow = 64;
// What the server accepts per inbound frame (ZMQ_MAXMSGSIZE): requests are tiny, so a
// larger frame is hostile and libzmq drops the connection before buffering it.
inline constexpr int64_t kMaxRequestFrame = 4096;

enum class MsgType : uint8_t { Fetch = 1, Credit = 2, Cancel = 3, Header = 16, Chunk = 17, Error = 18 };
const char* msg_type_name(MsgType t);

// Why a transfer failed; ERROR messages carry the server-side subset (UnknownKey .. Internal).
enum class ErrorCode : uint32_t {
  UnknownKey = 1,  // no bundle published under that key
  Busy = 2,        // the server is at max_concurrent_transfers
  Malformed = 3,   // a message failed size / schema checks
  Timeout = 4,     // no message from the peer within the timeout
  Retracted = 5,   // reserved: the key was retracted (in-flight transfers still finish today)
  Internal = 6,    // the server hit an unexpected error
  TooLarge = 7,    // (fetcher side) the bundle exceeds max_total_bytes
  Checksum = 8,    // (fetcher side) a chunk or the bundle's own checksum did not match
  Bundle = 9,      // (fetcher side) the received bundle failed parse-time validation
  Auth = 10,       // (fetcher side) the server rejected our CURVE key / handshake
  PeerGone = 11,   // (fetcher side) the connection to the server dropped mid-transfer
};
const char* error_code_name(ErrorCode c);

class TransferError : public std::runtime_error {
 public:
  TransferError(ErrorCode code, const std::string& what)
      : std::runtime_error("bundle transfer: " + std::string(error_code_name(code)) + ": " + what), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// One decoded message; the spans point into the frames it was decoded from.
struct Message {
  MsgType type = MsgType::Fetch;
  uint64_t transfer_id = 0;
  std::string_view key;                    // FETCH
  uint32_t grant = 0;                      // CREDIT
  uint64_t total_size = 0;                 // HEADER
  uint32_t chunk_bytes = 0;                // HEADER
  std::span<const uint8_t> bundle_header;  // HEADER (96 bytes)
  uint64_t offset = 0;                     // CHUNK
  uint64_t checksum = 0;                   // CHUNK
  std::span<const uint8_t> data;           // CHUNK
  ErrorCode code = ErrorCode::Internal;    // ERROR
  std::string_view text;                   // ERROR
};

// Checks frame count, frame sizes, magic, version, type and reserved fields; throws
// TransferError(Malformed). `frames` excludes the ROUTER routing-id frame.
Message decode(std::span<const zmq::message_t> frames);

// The transfer id of a header frame that may be malformed otherwise (0 if unreadable), so an
// ERROR reply can still name the transfer it answers.
uint64_t peek_transfer_id(const zmq::message_t& header_frame);

std::vector<zmq::message_t> encode_fetch(uint64_t transfer_id, std::string_view key);
std::vector<zmq::message_t> encode_credit(uint64_t transfer_id, uint32_t grant);
std::vector<zmq::message_t> encode_cancel(uint64_t transfer_id);
std::vector<zmq::message_t> encode_header(uint64_t transfer_id, uint64_t total_size, uint32_t chunk_bytes,
                                          std::span<const uint8_t> bundle_header);
// `data` is moved in, so a zero-copy message stays zero-copy.
std::vector<zmq::message_t> encode_chunk(uint64_t transfer_id, uint64_t offset, uint64_t checksum, zmq::message_t data);
std::vector<zmq::message_t> encode_error(uint64_t transfer_id, ErrorCode code, std::string_view text);

}  // namespace zkmill::wire
