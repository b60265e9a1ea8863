#include "zt/protozero/message.h"

#include <cstdio>
#include <cstdlib>

#include "zt/base/logging.h"

namespace zt {
namespace protozero {

using proto_utils::kMaxSimpleFieldEncodedSize;

uint32_t Message::FinalizeSlowPath() {
  if (finalized_)
    return size_;
  if (nested_message_ != nullptr)
    EndNestedMessage();
  const uint64_t size =
      stream_writer_ ? stream_writer_->written() - payload_start_ : 0;
  size_ = static_cast<uint32_t>(size);
  if (size_field_ != nullptr) {
    // A nested message this large cannot be described by its 4-byte size
    // field; writing a truncated size would silently corrupt everything
    // after it, so we stop instead (a documented precondition).
    if (ZT_UNLIKELY(size > proto_utils::kMaxMessageLength))
      FatalMessageTooLarge(size);
    proto_utils::WriteRedundantVarInt4(size_, size_field_);
    size_field_ = nullptr;
  }
  finalized_ = true;
  return size_;
}

void Message::FatalMessageTooLarge(uint64_t size) {
  ZT_FATAL("protozero: nested message of %llu bytes exceeds the maximum of "
           "%zu bytes (proto_utils::kMaxMessageLength)",
           static_cast<unsigned long long>(size), proto_utils::kMaxMessageLength);
}

void Message::EndNestedMessage() {
  nested_message_->Finalize();
  arena_->DeleteLastMessage();
  nested_message_ = nullptr;
}

void Message::AppendRawProtoBytes(const void* data, size_t size) {
  if (nested_message_ != nullptr)
    EndNestedMessage();
  stream_writer_->WriteBytes(static_cast<const uint8_t*>(data), size);
}

void Message::AppendVarIntSlowPath(uint32_t tag, uint64_t payload) {
  uint8_t buf[kMaxSimpleFieldEncodedSize];
  uint8_t* ptr = proto_utils::WriteVarInt(tag, buf);
  ptr = proto_utils::WriteVarInt(payload, ptr);
  stream_writer_->WriteBytes(buf, static_cast<size_t>(ptr - buf));
}

void Message::AppendFixedSlowPath(uint32_t tag, const void* value,
                                  size_t size) {
  uint8_t buf[kMaxSimpleFieldEncodedSize];
  uint8_t* ptr = proto_utils::WriteVarInt(tag, buf);
  memcpy(ptr, value, size);
  stream_writer_->WriteBytes(buf, static_cast<size_t>(ptr - buf) + size);
}

void Message::AppendBytesSlowPath(uint32_t field_id, const void* data,
                                  size_t size) {
  uint8_t buf[kMaxSimpleFieldEncodedSize];
  uint8_t* ptr =
      proto_utils::WriteVarInt(proto_utils::MakeTagLengthDelimited(field_id), buf);
  ptr = proto_utils::WriteVarInt(size, ptr);
  stream_writer_->WriteBytes(buf, static_cast<size_t>(ptr - buf));
  stream_writer_->WriteBytes(static_cast<const uint8_t*>(data), size);
}

uint8_t* Message::BeginNestedMessageSlowPath(uint32_t field_id) {
  uint8_t buf[proto_utils::kMaxTagEncodedSize];
  uint8_t* ptr =
      proto_utils::WriteVarInt(proto_utils::MakeTagLengthDelimited(field_id), buf);
  stream_writer_->WriteBytes(buf, static_cast<size_t>(ptr - buf));
  // The size field itself must be contiguous: it is patched in place later.
  return stream_writer_->ReserveBytes(proto_utils::kMessageLengthFieldSize);
}

void* MessageArena::OverflowSlot() {
  const size_t overflow_index = depth_ - kInlineDepth;
  const size_t block = overflow_index / kBlockSize;
  while (overflow_blocks_.size() <= block)
    overflow_blocks_.emplace_back(new Slot[kBlockSize]);
  return &overflow_blocks_[block][overflow_index % kBlockSize];
}

}  // namespace protozero
}  // namespace zt
