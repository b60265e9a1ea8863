// Appending protobuf fields to a std::string, for the RPC messages this
// server writes field by field (the order and layout its clients read
// are part of the protocol: query_result_writer.h).

#ifndef ZT_SRC_PROCESSOR_RPC_WIRE_WRITER_H_
#define ZT_SRC_PROCESSOR_RPC_WIRE_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zt {
namespace processor {
namespace rpc {
namespace wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

inline void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

inline size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    size++;
  }
  return size;
}

inline void AppendTag(uint32_t field, WireType type, std::string* out) {
  AppendVarint(uint64_t{field} << 3 | type, out);
}

inline void AppendVarintField(uint32_t field, uint64_t value, std::string* out) {
  AppendTag(field, kVarint, out);
  AppendVarint(value, out);
}

inline void AppendBytesField(uint32_t field, std::string_view bytes, std::string* out) {
  AppendTag(field, kLengthDelimited, out);
  AppendVarint(bytes.size(), out);
  out->append(bytes.data(), bytes.size());
}

}  // namespace wire
}  // namespace rpc
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_RPC_WIRE_WRITER_H_
