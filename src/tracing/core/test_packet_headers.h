// Test support: every kind of packet header a buggy or hostile writer can
// put in a chunk, with what SharedMemoryABI::ParsePacketHeader must say of
// it. The ABI's, the reassembler's and the TraceBuffer's tests run all of
// them, so the three readers are held to one behaviour.

#ifndef ZT_SRC_TRACING_CORE_TEST_PACKET_HEADERS_H_
#define ZT_SRC_TRACING_CORE_TEST_PACKET_HEADERS_H_

#include <cstdint>
#include <vector>

#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace zt {
namespace test {

struct PacketHeaderCase {
  const char* what;
  // The rest of the chunk from the header on (the chunk ends after it).
  std::vector<uint8_t> bytes;
  SharedMemoryABI::PacketHeaderStatus status;
  uint8_t header_size;
  uint32_t size;
};

inline std::vector<PacketHeaderCase> PacketHeaderCases() {
  using S = SharedMemoryABI::PacketHeaderStatus;
  const uint32_t drop = SharedMemoryABI::kPacketSizeDropPacket;
  return {
      {"nothing left", {}, S::kTruncated, 0, 0},
      {"1 of 4 bytes", {0x80}, S::kTruncated, 0, 0},
      {"3 of 4 bytes", {0x83, 0x80, 0x80}, S::kTruncated, 0, 0},
      {"drop marker cut short", {0xFF, 0xFF, 0xFF}, S::kTruncated, 0, 0},
      {"4 bytes, no end", {0x80, 0x80, 0x80, 0x80}, S::kBadVarint, 0, 0},
      {"5-byte varint", {0x83, 0x80, 0x80, 0x80, 0x00, 'a', 'b', 'c'},
       S::kBadVarint, 0, 0},
      {"all ones", {0xFF, 0xFF, 0xFF, 0xFF, 0x01}, S::kBadVarint, 0, 0},
      {"empty packet", {0x00}, S::kOk, 1, 0},
      {"minimal 1-byte size", {0x03, 'a', 'b', 'c'}, S::kOk, 1, 3},
      {"redundant 2-byte size", {0x83, 0x00, 'a', 'b', 'c'}, S::kOk, 2, 3},
      {"writer's 4-byte size", {0x83, 0x80, 0x80, 0x00, 'a', 'b', 'c'},
       S::kOk, 4, 3},
      {"bytes after the packet", {0x82, 0x80, 0x80, 0x00, 'a', 'b', 'c'},
       S::kOk, 4, 2},
      {"one byte too many", {0x84, 0x80, 0x80, 0x00, 'a', 'b', 'c'},
       S::kPastChunkEnd, 4, 4},
      {"2-byte size past the end", {0x80, 0x20, 'a'}, S::kPastChunkEnd, 2,
       4096},
      {"largest real size", {0xFE, 0xFF, 0xFF, 0x7F, 'a'}, S::kPastChunkEnd,
       4, drop - 1},
      {"drop marker at the end", {0xFF, 0xFF, 0xFF, 0x7F}, S::kDropMarker, 4,
       drop},
      {"drop marker, bytes after", {0xFF, 0xFF, 0xFF, 0x7F, 1, 2, 3},
       S::kDropMarker, 4, drop},
  };
}

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_CORE_TEST_PACKET_HEADERS_H_
