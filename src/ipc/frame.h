// Frames of the producer and consumer sockets: a little-endian u32 length,
// then that many bytes of one IPCFrame (docs/wire.md, docs/design/ipc.md).
//
// BufferedFrameDeserializer turns the bytes a stream socket delivers, cut
// and glued at any boundary, back into frames: the socket reads into the
// deserializer's own buffer (no copy), and each complete frame is decoded
// there. A frame longer than kMaxFrameSize (header included: Perfetto's
// limit, so every peer sizes its replies to fit) or one that does not
// decode breaks the stream: the caller closes that connection.
//
// Not thread-safe: one per connection, used on its task runner's thread.
// Memory: the frame-size limit, allocated at the first receive.

#ifndef ZT_SRC_IPC_FRAME_H_
#define ZT_SRC_IPC_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "src/base/scoped_file.h"
#include "zt/ipc/wire_protocol.gen.h"

namespace zt {
namespace ipc {

using Frame = protos::gen::IPCFrame;

constexpr size_t kFrameHeaderSize = 4;
// The largest frame, header included.
constexpr size_t kMaxFrameSize = 128 * 1024;
// Reads a host or client makes per readable callback of a socket: the watch
// is level-triggered, so a peer that keeps sending is served again after
// the other connections had their turn.
constexpr int kMaxReadsPerCallback = 16;

// |frame| as it goes on the socket: header and bytes, in one buffer. A frame
// longer than kMaxFrameSize is a bug of the sender (replies are sized to
// fit): CHECKed.
std::string SerializeFrame(const Frame& frame);

class BufferedFrameDeserializer {
 public:
  struct ReceiveBuffer {
    char* data;
    size_t size;  // Never 0.
  };

  explicit BufferedFrameDeserializer(size_t max_frame_size = kMaxFrameSize);
  BufferedFrameDeserializer(const BufferedFrameDeserializer&) = delete;
  BufferedFrameDeserializer& operator=(const BufferedFrameDeserializer&) = delete;

  // Where the next read goes: the free part of the buffer. The partial
  // frame held so far stays at the front, so there is always room for the
  // rest of a frame within the limit.
  ReceiveBuffer BeginReceive();

  // |size| bytes were written at BeginReceive()'s data, and |fd| came with
  // them (or none). Decodes every frame they complete into the queue; the
  // descriptor goes with the frame that ends the read (see AttributeFd). False once the stream is broken (a frame
  // over the limit, or bytes that are not an IPCFrame): error() says why,
  // the frames decoded before the break stay poppable, and every later
  // call fails. O(bytes received + bytes of the partial frame moved).
  bool EndReceive(size_t size, base::ScopedFile fd = base::ScopedFile());

  // Copies |size| bytes in as if received, in as many reads as it takes
  // (tests, fuzzers). Same result as EndReceive().
  bool Receive(const void* data, size_t size);

  // The oldest decoded frame not popped yet, or null; |fd| (if not null)
  // gets the descriptor that came with it, if any.
  std::unique_ptr<Frame> PopNextFrame(base::ScopedFile* fd = nullptr);

  bool broken() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // Bytes of a frame not complete yet.
  size_t pending_bytes() const { return size_; }

 private:
  bool Break(std::string error);

  const size_t capacity_;
  std::unique_ptr<char[]> buffer_;
  struct QueuedFrame {
    std::unique_ptr<Frame> frame;
    base::ScopedFile fd;
  };
  void AttributeFd(size_t first_new, base::ScopedFile fd);

  size_t size_ = 0;  // Bytes held at the front of buffer_.
  std::deque<QueuedFrame> frames_;
  base::ScopedFile carried_fd_;  // For the partial frame at the front.
  std::string error_;
};

}  // namespace ipc
}  // namespace zt

#endif  // ZT_SRC_IPC_FRAME_H_
