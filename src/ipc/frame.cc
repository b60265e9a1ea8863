// The frame codec of the sockets (frame.h).

#include "src/ipc/frame.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "zt/base/logging.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace ipc {

namespace {

namespace pu = protozero::proto_utils;

// Field ids of IPCFrame and IPCFrame.InvokeMethod
// (protos/zt/ipc/wire_protocol.proto).
constexpr uint32_t kFrameRequestId = 2;
constexpr uint32_t kFrameInvokeMethod = 5;
constexpr uint32_t kInvokeServiceId = 1;
constexpr uint32_t kInvokeMethodId = 2;
constexpr uint32_t kInvokeArgs = 3;
constexpr uint32_t kInvokeDropReply = 4;

void WriteHeader(uint32_t payload_size, char* dst) {
  for (size_t i = 0; i < kFrameHeaderSize; i++)
    dst[i] = static_cast<char>(payload_size >> (8 * i));
}

uint32_t ReadHeader(const char* src) {
  uint32_t value = 0;
  for (size_t i = 0; i < kFrameHeaderSize; i++)
    value |= uint32_t{static_cast<uint8_t>(src[i])} << (8 * i);
  return value;
}

uint8_t* WriteVarIntField(uint32_t id, uint64_t value, uint8_t* dst) {
  *dst++ = static_cast<uint8_t>(pu::MakeTagVarInt(id));  // Ids < 16: one byte.
  return pu::WriteVarInt(value, dst);
}

// Reads the varint field tagged |tag| (one byte) at |*pos|, if it is there.
bool ReadVarIntField(uint32_t tag, const uint8_t** pos, const uint8_t* end, uint64_t* value) {
  const uint8_t* p = *pos;
  if (p == end || *p != tag)
    return false;
  const uint8_t* next = pu::ParseVarInt(p + 1, end, value);
  if (next == p + 1)
    return false;  // Truncated, or longer than 10 bytes.
  *pos = next;
  return true;
}

// Reads the length-delimited field tagged |tag| at |*pos|, if it is there.
bool ReadBytesField(uint32_t tag, const uint8_t** pos, const uint8_t* end,
                    std::string_view* value) {
  uint64_t size;
  const uint8_t* p = *pos;
  if (!ReadVarIntField(tag, &p, end, &size) || size > static_cast<uint64_t>(end - p))
    return false;
  *value = std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(size));
  *pos = p + size;
  return true;
}

// Decodes |data| as a plain method call, laid out as clients write one
// (SerializeInvokeFrame(), upstream's generated code): request_id, then
// msg_invoke_method with service_id, method_id, args_proto and an optional
// drop_reply, each once, in that order. Such bytes mean to IPCFrame's
// parser what they mean here (ids truncated to 32 bits as it does; any
// non-zero drop_reply is true). False for anything else, odd or malformed:
// the generic parser decides those.
bool DecodePlainInvoke(const char* data, size_t size, InvokeRequest* out) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data);
  const uint8_t* const end = p + size;
  uint64_t request_id, service_id, method_id, drop_reply = 0;
  std::string_view invoke, args;
  if (!ReadVarIntField(pu::MakeTagVarInt(kFrameRequestId), &p, end, &request_id) ||
      !ReadBytesField(pu::MakeTagLengthDelimited(kFrameInvokeMethod), &p, end, &invoke) ||
      p != end) {
    return false;
  }
  p = reinterpret_cast<const uint8_t*>(invoke.data());
  const uint8_t* const invoke_end = p + invoke.size();
  if (!ReadVarIntField(pu::MakeTagVarInt(kInvokeServiceId), &p, invoke_end, &service_id) ||
      !ReadVarIntField(pu::MakeTagVarInt(kInvokeMethodId), &p, invoke_end, &method_id) ||
      !ReadBytesField(pu::MakeTagLengthDelimited(kInvokeArgs), &p, invoke_end, &args)) {
    return false;
  }
  if (p != invoke_end &&
      !ReadVarIntField(pu::MakeTagVarInt(kInvokeDropReply), &p, invoke_end, &drop_reply)) {
    return false;
  }
  if (p != invoke_end)
    return false;
  out->request_id = request_id;
  out->service_id = static_cast<uint32_t>(service_id);
  out->method_id = static_cast<uint32_t>(method_id);
  out->args = args;
  out->drop_reply = drop_reply != 0;
  return true;
}

}  // namespace

namespace {

// IPCFrame's fields around an invoke's args: the InvokeMethod body's size
// and the payload's (the frame without its header).
struct InvokeLayout {
  size_t body;
  size_t payload;
};

InvokeLayout LayOutInvoke(const InvokeRequest& invoke) {
  const size_t args_field = 1 + pu::VarIntSize(invoke.args.size()) + invoke.args.size();
  const size_t body = 1 + pu::VarIntSize(invoke.service_id) + 1 +
                      pu::VarIntSize(invoke.method_id) + args_field +
                      (invoke.drop_reply ? 2 : 0);
  // The generic writer reserves 4 bytes for a nested message's length.
  const size_t payload =
      1 + pu::VarIntSize(invoke.request_id) + 1 + pu::kMessageLengthFieldSize + body;
  return InvokeLayout{body, payload};
}

}  // namespace

size_t InvokeFrameSize(const InvokeRequest& invoke) {
  return kFrameHeaderSize + LayOutInvoke(invoke).payload;
}

void SerializeInvokeFrame(const InvokeRequest& invoke, std::string* out) {
  const InvokeLayout layout = LayOutInvoke(invoke);
  const size_t body = layout.body;
  const size_t payload = layout.payload;
  ZT_CHECK(payload <= kMaxReceiveFrameSize - kFrameHeaderSize);
  out->resize(kFrameHeaderSize + payload);
  uint8_t* const begin = reinterpret_cast<uint8_t*>(&(*out)[0]);
  WriteHeader(static_cast<uint32_t>(payload), reinterpret_cast<char*>(begin));
  uint8_t* p = begin + kFrameHeaderSize;
  p = WriteVarIntField(kFrameRequestId, invoke.request_id, p);
  *p++ = static_cast<uint8_t>(pu::MakeTagLengthDelimited(kFrameInvokeMethod));
  pu::WriteRedundantVarInt4(static_cast<uint32_t>(body), p);
  p += pu::kMessageLengthFieldSize;
  p = WriteVarIntField(kInvokeServiceId, invoke.service_id, p);
  p = WriteVarIntField(kInvokeMethodId, invoke.method_id, p);
  *p++ = static_cast<uint8_t>(pu::MakeTagLengthDelimited(kInvokeArgs));
  p = pu::WriteVarInt(invoke.args.size(), p);
  if (!invoke.args.empty())
    memcpy(p, invoke.args.data(), invoke.args.size());
  p += invoke.args.size();
  if (invoke.drop_reply)
    p = WriteVarIntField(kInvokeDropReply, 1, p);
  ZT_CHECK(p == begin + out->size());
}

std::string SerializeFrame(const Frame& frame) {
  const std::string payload = frame.SerializeAsString();
  ZT_CHECK(payload.size() <= kMaxReceiveFrameSize - kFrameHeaderSize);
  std::string bytes(kFrameHeaderSize, '\0');
  WriteHeader(static_cast<uint32_t>(payload.size()), &bytes[0]);
  bytes += payload;
  return bytes;
}

BufferedFrameDeserializer::BufferedFrameDeserializer(size_t max_frame_size,
                                                     size_t base_capacity)
    : max_frame_size_(max_frame_size),
      base_capacity_(std::min(base_capacity, max_frame_size)) {
  ZT_CHECK(base_capacity_ > kFrameHeaderSize);
}

void BufferedFrameDeserializer::Reallocate(size_t capacity) {
  ZT_CHECK(capacity > size_);
  std::unique_ptr<char[]> buffer(new char[capacity]);
  if (size_ > 0)
    memcpy(buffer.get(), buffer_.get(), size_);
  buffer_ = std::move(buffer);
  capacity_ = capacity;
}

BufferedFrameDeserializer::ReceiveBuffer BufferedFrameDeserializer::BeginReceive() {
  if (!buffer_)
    Reallocate(std::min(kFirstCapacity, base_capacity_));
  Compact();
  if (size_ == capacity_) {
    // A partial frame fills the buffer: it is longer than the buffer and
    // within the limit (EndReceive() broke the stream otherwise). Grown
    // with what arrives, so a peer that declares megabytes and sends
    // little holds little; below the base, to the base (what any busy
    // connection holds anyway).
    const uint64_t declared = uint64_t{ReadHeader(buffer_.get())} + kFrameHeaderSize;
    ZT_CHECK(declared > capacity_ && declared <= max_frame_size_);
    const uint64_t step = std::max<uint64_t>(uint64_t{capacity_} * 2, base_capacity_);
    Reallocate(static_cast<size_t>(std::min<uint64_t>(declared, step)));
  } else if (last_read_filled_ && capacity_ < base_capacity_) {
    // The socket had at least a buffer's worth: read the rest in base-sized
    // pieces, not 4 KiB ones.
    Reallocate(base_capacity_);
  }
  last_read_filled_ = false;
  ZT_CHECK(size_ < capacity_);
  return ReceiveBuffer{buffer_.get() + size_, capacity_ - size_};
}

void BufferedFrameDeserializer::Compact() {
  if (!buffer_)
    return;
  if (consumed_ > 0) {
    // The partial frame, if any, to the front: the next read completes it.
    DetachQueuedFrames();
    size_ -= consumed_;
    if (size_ > 0)
      memmove(buffer_.get(), buffer_.get() + consumed_, size_);
    consumed_ = 0;
  }
  // A partial frame's declared size, header included, once its header is in.
  const uint64_t declared =
      size_ >= kFrameHeaderSize ? uint64_t{ReadHeader(buffer_.get())} + kFrameHeaderSize : 0;
  if (capacity_ > base_capacity_ && size_ < base_capacity_ && declared <= base_capacity_) {
    // The large frame is done and what follows fits the base: the memory
    // goes back now, not at the next large frame.
    Reallocate(base_capacity_);
  }
}

bool BufferedFrameDeserializer::EndReceive(size_t size, base::ScopedFile fd) {
  ZT_CHECK(buffer_ && size <= capacity_ - size_);
  if (broken())
    return false;
  last_read_filled_ = size == capacity_ - size_;
  size_ += size;
  const size_t first_new = frames_.size();
  while (size_ - consumed_ >= kFrameHeaderSize) {
    const char* header = buffer_.get() + consumed_;
    const uint64_t frame_size = uint64_t{ReadHeader(header)} + kFrameHeaderSize;
    if (frame_size > max_frame_size_) {
      return Break("a frame of " + std::to_string(frame_size) +
                   " bytes (header included) is over the limit of " +
                   std::to_string(max_frame_size_));
    }
    if (size_ - consumed_ < frame_size)
      break;  // The rest of it comes with a later read.
    QueuedFrame& queued = frames_.emplace_back();
    queued.offset = consumed_ + kFrameHeaderSize;
    queued.size = frame_size - kFrameHeaderSize;
    if (!DecodePlainInvoke(header + kFrameHeaderSize, queued.size, &queued.invoke)) {
      queued.frame = std::make_unique<Frame>();
      if (!queued.frame->ParseFromArray(header + kFrameHeaderSize, queued.size)) {
        frames_.pop_back();
        return Break("a frame of " + std::to_string(frame_size) + " bytes is not an IPCFrame");
      }
    }
    consumed_ += frame_size;
  }
  AttributeFd(first_new, std::move(fd));
  return true;
}

void BufferedFrameDeserializer::DetachQueuedFrames() {
  for (size_t i = next_frame_; i < frames_.size(); i++) {
    QueuedFrame& queued = frames_[i];
    if (queued.frame)
      continue;
    queued.frame = std::make_unique<Frame>();
    // Decoded as a call already: the generic parser accepts it too.
    ZT_CHECK(queued.frame->ParseFromArray(buffer_.get() + queued.offset, queued.size));
    queued.invoke = InvokeRequest();
  }
}

// Linux ends a read of a stream socket with the message that brought file
// descriptors: bytes of earlier messages may come before it in the same
// read, never after. Peers send a frame per message, so the descriptors
// belong to the frame that ends the read; if the read ends inside a frame,
// to that frame, completed by a later read.
void BufferedFrameDeserializer::AttributeFd(size_t first_new, base::ScopedFile fd) {
  const bool completed = frames_.size() > first_new;
  if (completed && carried_fd_)
    frames_[first_new].fd = std::move(carried_fd_);
  if (!fd)
    return;
  if (size_ > consumed_) {
    carried_fd_ = std::move(fd);  // Replaces (closes) any unclaimed one.
  } else if (completed && !frames_.back().fd) {
    frames_.back().fd = std::move(fd);
  }
  // Otherwise a descriptor no frame can own: closed here.
}

bool BufferedFrameDeserializer::Receive(const void* data, size_t size) {
  const char* src = static_cast<const char*>(data);
  while (size > 0) {
    if (broken())
      return false;
    const ReceiveBuffer room = BeginReceive();
    const size_t n = std::min(size, room.size);
    memcpy(room.data, src, n);
    if (!EndReceive(n, base::ScopedFile()))
      return false;
    src += n;
    size -= n;
  }
  return !broken();
}

bool BufferedFrameDeserializer::PopNext(ReceivedFrame* out) {
  if (next_frame_ == frames_.size())
    return false;
  QueuedFrame& queued = frames_[next_frame_];
  out->frame = std::move(queued.frame);
  out->invoke = queued.invoke;
  out->fd = std::move(queued.fd);
  PopFront();
  return true;
}

std::unique_ptr<Frame> BufferedFrameDeserializer::PopNextFrame(base::ScopedFile* fd) {
  if (next_frame_ == frames_.size())
    return nullptr;
  QueuedFrame& queued = frames_[next_frame_];
  std::unique_ptr<Frame> frame = std::move(queued.frame);
  if (!frame) {
    frame = std::make_unique<Frame>();
    ZT_CHECK(frame->ParseFromArray(buffer_.get() + queued.offset, queued.size));
  }
  if (fd)
    *fd = std::move(queued.fd);
  PopFront();
  return frame;
}

void BufferedFrameDeserializer::PopFront() {
  if (++next_frame_ < frames_.size())
    return;
  frames_.clear();  // Every frame popped: the capacity serves the next ones.
  next_frame_ = 0;
}

bool BufferedFrameDeserializer::Break(std::string error) {
  error_ = std::move(error);
  // The frames queued before the break stay poppable: calls decoded in
  // place keep their bytes (no read writes here any more).
  DetachQueuedFrames();
  size_ = consumed_ = 0;
  if (capacity_ > base_capacity_) {  // No large frame comes any more.
    buffer_.reset();
    capacity_ = 0;
  }
  return false;
}

}  // namespace ipc
}  // namespace zt
