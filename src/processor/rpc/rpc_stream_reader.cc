#include "src/processor/rpc/rpc_stream_reader.h"


namespace zt {
namespace processor {
namespace rpc {

namespace {

constexpr uint64_t kWireTypeLengthDelimited = 2;
constexpr int kMaxVarintBytes = 10;

enum class Varint { kRead, kNeedMore, kTooLong };

Varint ReadVarint(const uint8_t* p, const uint8_t* end, uint64_t* value, size_t* size) {
  uint64_t result = 0;
  for (int i = 0; i < kMaxVarintBytes; i++) {
    if (p + i >= end)
      return Varint::kNeedMore;
    const uint8_t byte = p[i];
    result |= uint64_t{byte & 0x7fu} << (7 * i);
    if (byte < 0x80) {
      *value = result;
      *size = static_cast<size_t>(i) + 1;
      return Varint::kRead;
    }
  }
  return Varint::kTooLong;
}

}  // namespace

RpcStreamReader::Parse RpcStreamReader::ParseOne(const uint8_t* p, const uint8_t* end,
                                                 std::string_view* message, size_t* consumed,
                                                 std::string* error) const {
  uint64_t tag = 0, length = 0;
  size_t tag_size = 0, length_size = 0;
  switch (ReadVarint(p, end, &tag, &tag_size)) {
    case Varint::kNeedMore:
      return Parse::kNeedMore;
    case Varint::kTooLong:
      *error = "RPC framing error: a field key longer than 10 bytes";
      return Parse::kError;
    case Varint::kRead:
      break;
  }
  if ((tag & 7) != kWireTypeLengthDelimited) {
    *error = "RPC framing error: a field of wire type " + std::to_string(tag & 7) +
             " where a message (wire type 2) was expected";
    return Parse::kError;
  }
  switch (ReadVarint(p + tag_size, end, &length, &length_size)) {
    case Varint::kNeedMore:
      return Parse::kNeedMore;
    case Varint::kTooLong:
      *error = "RPC framing error: a message length longer than 10 bytes";
      return Parse::kError;
    case Varint::kRead:
      break;
  }
  if (length > kMaxMessageBytes) {
    *error = "RPC framing error: a message of " + std::to_string(length) +
             " bytes, more than the " + std::to_string(kMaxMessageBytes) + " allowed";
    return Parse::kError;
  }
  const size_t header = tag_size + length_size;
  if (static_cast<size_t>(end - p) - header < length)
    return Parse::kNeedMore;
  *message = std::string_view(reinterpret_cast<const char*>(p + header),
                              static_cast<size_t>(length));
  *consumed = header + static_cast<size_t>(length);
  return Parse::kMessage;
}

bool RpcStreamReader::Append(const uint8_t* data, size_t size, const MessageFn& on_message,
                             std::string* error) {
  if (failed_) {
    *error = "RPC framing error: the stream failed earlier";
    return false;
  }
  // A message begun earlier: the new bytes join it (the rare case; a
  // message that arrives whole is read where it lies).
  std::string held;
  if (!partial_.empty()) {
    held.swap(partial_);
    held.append(reinterpret_cast<const char*>(data), size);
    data = reinterpret_cast<const uint8_t*>(held.data());
    size = held.size();
  }
  const uint8_t* p = data;
  const uint8_t* const end = data + size;
  while (p < end) {
    std::string_view message;
    size_t consumed = 0;
    switch (ParseOne(p, end, &message, &consumed, error)) {
      case Parse::kError:
        failed_ = true;
        return false;
      case Parse::kNeedMore:
        if (!held.empty() && p == reinterpret_cast<const uint8_t*>(held.data())) {
          // Still the same message: kept without a copy, so that one sent
          // in many small pieces costs linear time, not quadratic.
          partial_.swap(held);
        } else {
          partial_.assign(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p));
        }
        return true;
      case Parse::kMessage:
        on_message(message);
        p += consumed;
        break;
    }
  }
  return true;
}

}  // namespace rpc
}  // namespace processor
}  // namespace zt
