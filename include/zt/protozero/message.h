// Message is the append-only protobuf writer that every generated stub class
// derives from. A setter call encodes its field immediately into the
// ScatteredStreamWriter's current range; nothing is buffered, copied or
// allocated. The one value that cannot be known up front, the length of a
// nested message, is reserved as a 4-byte redundant varint and filled in when
// the nested message is finalized: explicitly, or as soon as its parent (or
// any ancestor) writes again, or is finalized itself.
//
// Nested messages are written strictly in stack order, and nothing may be
// written into a message once it is finalized (explicitly, or because its
// parent wrote again): the bytes would land inside the parent's payload.
// Builds with ZT_DCHECK_IS_ON catch writes into finalized messages.
//
// Nested messages are written strictly in stack order. Their objects live in
// a MessageArena owned by the root (RootMessage<T>), so writing never
// touches the heap up to kInlineDepth levels of nesting.
//
// Thread-compatible: a message tree is written by one thread at a time.

#ifndef ZT_PROTOZERO_MESSAGE_H_
#define ZT_PROTOZERO_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_stream_writer.h"

namespace zt {
namespace protozero {

class MessageArena;

class Message {
 public:
  // Leaves the object unset on purpose (generated classes are constructed in
  // arena slots on the hot path): call Reset() before use, or use
  // RootMessage<T> / HeapBuffered<T> / StaticBuffered<T>, which do.
  Message() = default;
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;

  // Starts a new message whose bytes go to |writer| at its current position,
  // nesting children in |arena|. O(1).
  void Reset(ScatteredStreamWriter* writer, MessageArena* arena) {
    stream_writer_ = writer;
    arena_ = arena;
    nested_message_ = nullptr;
    size_field_ = nullptr;
    payload_start_ = writer ? writer->written() : 0;
    size_ = 0;
    finalized_ = false;
  }

  // Finalizes the open nested message (recursively), writes this message's
  // size into its size field if it has one, and returns the size in bytes of
  // its payload. Idempotent. Precondition: a nested message's payload is at
  // most proto_utils::kMaxMessageLength bytes (256 MiB - 1); a larger one
  // cannot be encoded and terminates the process with a message rather than
  // corrupt the stream. Root messages have no size field and no such limit,
  // but the returned size wraps past 4 GiB (use the writer's written()).
  //
  // Inline when there is nothing to patch (a root with no open child, the
  // common end of a trace packet); the rest is out of line.
  uint32_t Finalize() {
    if (ZT_LIKELY(nested_message_ == nullptr && size_field_ == nullptr)) {
      if (!finalized_) {
        size_ = stream_writer_ ? static_cast<uint32_t>(
                                     stream_writer_->written() - payload_start_)
                               : 0;
        finalized_ = true;
      }
      return size_;
    }
    return FinalizeSlowPath();
  }

  // Appends a varint field (int32/64, uint32/64, bool, enum). O(1).
  template <typename T>
  void AppendVarInt(uint32_t field_id, T value) {
    ZT_DCHECK(!finalized_);
    if (ZT_UNLIKELY(nested_message_ != nullptr))
      EndNestedMessage();
    uint8_t* ptr = stream_writer_->write_ptr();
    if (ZT_LIKELY(stream_writer_->end() - ptr >=
                  static_cast<ptrdiff_t>(
                      proto_utils::kMaxSimpleFieldEncodedSize))) {
      ptr = proto_utils::WriteVarInt(proto_utils::MakeTagVarInt(field_id), ptr);
      ptr = proto_utils::WriteVarInt(value, ptr);
      stream_writer_->set_write_ptr(ptr);
      return;
    }
    AppendVarIntSlowPath(proto_utils::MakeTagVarInt(field_id),
                         static_cast<uint64_t>(proto_utils::VarIntPayload(value)));
  }

  // Appends a zigzag-encoded varint field (sint32/sint64). O(1).
  template <typename T>
  void AppendSignedVarInt(uint32_t field_id, T value) {
    AppendVarInt(field_id, proto_utils::ZigZagEncode(value));
  }

  // Appends a fixed-width field: 4 bytes for (s)fixed32/float, 8 bytes for
  // (s)fixed64/double. O(1).
  template <typename T>
  void AppendFixed(uint32_t field_id, T value) {
    ZT_DCHECK(!finalized_);
    if (ZT_UNLIKELY(nested_message_ != nullptr))
      EndNestedMessage();
    uint8_t* ptr = stream_writer_->write_ptr();
    if (ZT_LIKELY(stream_writer_->end() - ptr >=
                  static_cast<ptrdiff_t>(
                      proto_utils::kMaxSimpleFieldEncodedSize))) {
      ptr = proto_utils::WriteVarInt(proto_utils::MakeTagFixed<T>(field_id), ptr);
      proto_utils::WriteFixed(value, ptr);
      stream_writer_->set_write_ptr(ptr + sizeof(T));
      return;
    }
    AppendFixedSlowPath(proto_utils::MakeTagFixed<T>(field_id), &value,
                        sizeof(T));
  }

  // Appends a length-delimited field (string, bytes). O(size).
  void AppendBytes(uint32_t field_id, const void* data, size_t size) {
    ZT_DCHECK(!finalized_);
    if (ZT_UNLIKELY(nested_message_ != nullptr))
      EndNestedMessage();
    uint8_t* ptr = stream_writer_->write_ptr();
    const size_t avail = stream_writer_->bytes_available();
    if (ZT_LIKELY(avail >= proto_utils::kMaxSimpleFieldEncodedSize &&
                  size <= avail - proto_utils::kMaxSimpleFieldEncodedSize)) {
      ptr = proto_utils::WriteVarInt(
          proto_utils::MakeTagLengthDelimited(field_id), ptr);
      ptr = proto_utils::WriteVarInt(size, ptr);
      proto_utils::CopyBytes(ptr, data, size);
      stream_writer_->set_write_ptr(ptr + size);
      return;
    }
    AppendBytesSlowPath(field_id, data, size);
  }
  void AppendString(uint32_t field_id, std::string_view str) {
    AppendBytes(field_id, str.data(), str.size());
  }
  // A null |str| writes an empty string.
  void AppendString(uint32_t field_id, const char* str) {
    AppendBytes(field_id, str, str ? strlen(str) : 0);
  }

  // Appends bytes that already are encoded fields (e.g. a message serialized
  // elsewhere), verbatim. O(size).
  void AppendRawProtoBytes(const void* data, size_t size);

  // Starts nested message |field_id| of type T (a generated class) and
  // returns it. It stays valid until it is finalized: by its Finalize(), or
  // when this message or an ancestor writes again or is finalized. O(1).
  template <typename T>
  T* BeginNestedMessage(uint32_t field_id);

  // The open nested message, or null. Together with size_field() this lets a
  // delegate walk the open messages when it hands a range away.
  Message* nested_message() const { return nested_message_; }

  // Where Finalize() will write this message's 4-byte size: null for a root
  // or once finalized. set_size_field() redirects it, e.g. to a patch slot
  // when the original bytes were already handed off; the new location must
  // stay valid until Finalize().
  uint8_t* size_field() const { return size_field_; }
  void set_size_field(uint8_t* size_field) { size_field_ = size_field; }

  bool is_finalized() const { return finalized_; }
  ScatteredStreamWriter* stream_writer() const { return stream_writer_; }
  MessageArena* arena() const { return arena_; }

 private:
  void BeginNestedMessageInternal(uint32_t field_id, Message* child) {
    uint8_t* ptr = stream_writer_->write_ptr();
    uint8_t* size_field;
    if (ZT_LIKELY(stream_writer_->end() - ptr >=
                  static_cast<ptrdiff_t>(
                      proto_utils::kMaxTagEncodedSize +
                      proto_utils::kMessageLengthFieldSize))) {
      ptr = proto_utils::WriteVarInt(
          proto_utils::MakeTagLengthDelimited(field_id), ptr);
      size_field = ptr;
      stream_writer_->set_write_ptr(ptr + proto_utils::kMessageLengthFieldSize);
    } else {
      size_field = BeginNestedMessageSlowPath(field_id);
    }
    child->Reset(stream_writer_, arena_);
    child->size_field_ = size_field;
    nested_message_ = child;
  }

  // Out of line and never inlined: the setters' fast paths stay small.
  ZT_NOINLINE void EndNestedMessage();
  ZT_NOINLINE uint32_t FinalizeSlowPath();
  [[noreturn]] ZT_NOINLINE static void FatalMessageTooLarge(uint64_t size);
  ZT_NOINLINE void AppendVarIntSlowPath(uint32_t tag, uint64_t payload);
  ZT_NOINLINE void AppendFixedSlowPath(uint32_t tag, const void* value,
                                       size_t size);
  ZT_NOINLINE void AppendBytesSlowPath(uint32_t field_id, const void* data,
                                       size_t size);
  ZT_NOINLINE uint8_t* BeginNestedMessageSlowPath(uint32_t field_id);

  ScatteredStreamWriter* stream_writer_;
  MessageArena* arena_;
  Message* nested_message_;
  uint8_t* size_field_;
  uint64_t payload_start_;  // writer->written() when the payload began.
  uint32_t size_;           // Valid once finalized_.
  bool finalized_;
};

// Stack-ordered storage for the nested Message objects of one root. The first
// kInlineDepth levels live inside the arena itself; deeper levels use heap
// blocks that are kept for reuse, so a warm arena never allocates.
class MessageArena {
 public:
  static constexpr size_t kInlineDepth = 16;

  MessageArena() = default;
  MessageArena(const MessageArena&) = delete;
  MessageArena& operator=(const MessageArena&) = delete;

  // Constructs a T in the next free slot. O(1); allocates only the first
  // time a depth beyond kInlineDepth is reached.
  template <typename T>
  T* NewMessage() {
    static_assert(std::is_base_of<Message, T>::value,
                  "arena messages derive from Message");
    static_assert(sizeof(T) == sizeof(Message) &&
                      std::is_trivially_destructible<T>::value,
                  "generated message classes must add no state");
    void* slot = ZT_LIKELY(depth_ < kInlineDepth) ? &inline_slots_[depth_]
                                                  : OverflowSlot();
    ++depth_;
    return new (slot) T;
  }

  // Releases the most recently created message. O(1).
  void DeleteLastMessage() {
    ZT_CHECK(depth_ > 0);
    --depth_;
  }

  // Forgets all messages (keeps heap blocks for reuse). O(1).
  void Reset() { depth_ = 0; }

  size_t depth() const { return depth_; }

 private:
  struct alignas(Message) Slot {
    unsigned char bytes[sizeof(Message)];
  };
  static constexpr size_t kBlockSize = 32;

  void* OverflowSlot();

  size_t depth_ = 0;
  Slot inline_slots_[kInlineDepth];
  std::vector<std::unique_ptr<Slot[]>> overflow_blocks_;
};

template <typename T>
T* Message::BeginNestedMessage(uint32_t field_id) {
  if (ZT_UNLIKELY(nested_message_ != nullptr))
    EndNestedMessage();
  T* child = arena_->NewMessage<T>();
  BeginNestedMessageInternal(field_id, child);
  return child;
}

// A root message of generated type T together with the arena its nested
// messages live in. Not copyable or movable (nested messages point into it).
template <typename T>
class RootMessage final : public T {
 public:
  // Without a writer: call Reset(writer) before the first setter.
  RootMessage() { T::Reset(nullptr, &arena_); }
  explicit RootMessage(ScatteredStreamWriter* writer) {
    T::Reset(writer, &arena_);
  }

  // Starts over at |writer|'s current position. O(1).
  void Reset(ScatteredStreamWriter* writer) {
    arena_.Reset();
    T::Reset(writer, &arena_);
  }

 private:
  MessageArena arena_;
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_MESSAGE_H_
