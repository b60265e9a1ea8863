// The frame codec of the sockets (frame.h).

#include "src/ipc/frame.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace ipc {

namespace {

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

}  // namespace

std::string SerializeFrame(const Frame& frame) {
  const std::string payload = frame.SerializeAsString();
  ZT_CHECK(payload.size() <= kMaxFrameSize - kFrameHeaderSize);
  std::string bytes(kFrameHeaderSize, '\0');
  WriteHeader(static_cast<uint32_t>(payload.size()), &bytes[0]);
  bytes += payload;
  return bytes;
}

BufferedFrameDeserializer::BufferedFrameDeserializer(size_t max_frame_size)
    : capacity_(max_frame_size) {
  ZT_CHECK(max_frame_size > kFrameHeaderSize);
}

BufferedFrameDeserializer::ReceiveBuffer BufferedFrameDeserializer::BeginReceive() {
  if (!buffer_)
    buffer_.reset(new char[capacity_]);
  // EndReceive() leaves at most a partial frame, which is shorter than the
  // limit, or breaks the stream.
  ZT_CHECK(size_ < capacity_);
  return ReceiveBuffer{buffer_.get() + size_, capacity_ - size_};
}

bool BufferedFrameDeserializer::EndReceive(size_t size, base::ScopedFile fd) {
  ZT_CHECK(buffer_ && size <= capacity_ - size_);
  if (broken())
    return false;
  size_ += size;
  size_t consumed = 0;
  const size_t first_new = frames_.size();
  while (size_ - consumed >= kFrameHeaderSize) {
    const char* header = buffer_.get() + consumed;
    const uint64_t frame_size = uint64_t{ReadHeader(header)} + kFrameHeaderSize;
    if (frame_size > capacity_) {
      return Break("a frame of " + std::to_string(frame_size) + " bytes (header included) is over the limit of " +
                   std::to_string(capacity_));
    }
    if (size_ - consumed < frame_size)
      break;  // The rest of it comes with a later read.
    auto frame = std::make_unique<Frame>();
    if (!frame->ParseFromArray(header + kFrameHeaderSize, frame_size - kFrameHeaderSize))
      return Break("a frame of " + std::to_string(frame_size) + " bytes is not an IPCFrame");
    frames_.push_back(QueuedFrame{std::move(frame), base::ScopedFile()});
    consumed += frame_size;
  }
  // The partial frame, if any, to the front: the next read completes it.
  size_ -= consumed;
  if (consumed > 0 && size_ > 0)
    memmove(buffer_.get(), buffer_.get() + consumed, size_);
  AttributeFd(first_new, std::move(fd));
  return true;
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
  if (size_ > 0) {
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

std::unique_ptr<Frame> BufferedFrameDeserializer::PopNextFrame(base::ScopedFile* fd) {
  if (frames_.empty())
    return nullptr;
  std::unique_ptr<Frame> frame = std::move(frames_.front().frame);
  if (fd)
    *fd = std::move(frames_.front().fd);
  frames_.pop_front();
  return frame;
}

bool BufferedFrameDeserializer::Break(std::string error) {
  error_ = std::move(error);
  size_ = 0;
  return false;
}

}  // namespace ipc
}  // namespace zt
