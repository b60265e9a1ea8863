// Frames of the producer and consumer sockets: a little-endian u32 length,
// then that many bytes of one IPCFrame (docs/wire.md, docs/design/ipc.md).
//
// BufferedFrameDeserializer turns the bytes a stream socket delivers, cut
// and glued at any boundary, back into frames: the socket reads into the
// deserializer's own buffer (no copy), and each complete frame is decoded
// there. A frame longer than its limit (kMaxReceiveFrameSize, header
// included) or one that does not decode breaks the stream: the caller
// closes that connection.
//
// Two limits (docs/design/ipc.md, "Frame sizes"): kMaxFrameSize, 128 KiB,
// is what an upstream Perfetto peer receives, so it bounds every frame we
// send to a peer that did not say it takes more (every reply, and every
// request to a host that is not ours); kMaxReceiveFrameSize, 4 MiB, is what
// our hosts and clients receive (a config of a few MB) and what our hosts
// announce in their bind reply.
//
// Method calls, most of what a host receives (a producer's CommitData per
// batch), take a path of their own both ways: SerializeInvokeFrame() writes
// one straight into a reused buffer, and the deserializer decodes a plain
// one in place, its arguments left in the receive buffer; the bytes and the
// accepted inputs are those of the generic IPCFrame path.
//
// Not thread-safe: one per connection, used on its task runner's thread.
// Memory: a buffer of 4 KiB, allocated at the first receive; a read that
// fills it grows it to the base capacity (128 KiB), so a connection that
// sends a few small requests (most consumers, an idle producer) holds 4 KiB
// and a busy one reads 128 KiB at a time after its first read. Past the
// base it grows with the bytes of a larger frame as they arrive (at most
// twice what came, up to the limit) and shrinks back to the base once that
// frame is done, so a peer holds no more than it sent, and not for longer.

#ifndef ZT_SRC_IPC_FRAME_H_
#define ZT_SRC_IPC_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/scoped_file.h"
#include "zt/ipc/wire_protocol.gen.h"

namespace zt {
namespace ipc {

using Frame = protos::gen::IPCFrame;

constexpr size_t kFrameHeaderSize = 4;
// The largest frame an upstream Perfetto peer receives, header included
// (its kIPCBufferSize, v14 to v58): the limit of what we send unless the
// peer said it takes more.
constexpr size_t kMaxFrameSize = 128 * 1024;
// The largest frame our hosts and clients receive, header included, and
// what our hosts announce (BindServiceReply.zt_max_request_frame_size).
constexpr size_t kMaxReceiveFrameSize = 4 * 1024 * 1024;
// Reads a host or client makes per readable callback of a socket: the watch
// is level-triggered, so a peer that keeps sending is served again after
// the other connections had their turn.
constexpr int kMaxReadsPerCallback = 16;

// |frame| as it goes on the socket: header and bytes, in one buffer. A frame
// longer than kMaxReceiveFrameSize is a bug of the sender (replies are sized
// to fit kMaxFrameSize, requests checked with InvokeFrameSize()): CHECKed.
std::string SerializeFrame(const Frame& frame);

// A method call: the IPCFrame fields a host serves one by.
struct InvokeRequest {
  uint64_t request_id = 0;
  uint32_t service_id = 0;
  uint32_t method_id = 0;
  std::string_view args;  // The serialized request (args_proto).
  bool drop_reply = false;
};

// The frame of |invoke|, header included, into |out| (its contents
// replaced, its capacity reused): byte for byte what SerializeFrame() gives
// for an IPCFrame with request_id and msg_invoke_method {service_id,
// method_id, args_proto, drop_reply only if true}, as upstream's clients
// send it. Args that make the frame longer than kMaxReceiveFrameSize:
// CHECKed (a caller checks InvokeFrameSize() against its peer's limit).
void SerializeInvokeFrame(const InvokeRequest& invoke, std::string* out);

// The size of SerializeInvokeFrame()'s frame for |invoke|, header included.
size_t InvokeFrameSize(const InvokeRequest& invoke);

class BufferedFrameDeserializer {
 public:
  struct ReceiveBuffer {
    char* data;
    size_t size;  // Never 0.
  };

  // The buffer's size until a read fills it (at most |base_capacity|).
  static constexpr size_t kFirstCapacity = 4096;

  // |base_capacity| (at most |max_frame_size|) is the buffer's size between
  // large frames once a read filled the first one: smaller than the default
  // only for fuzzers, so that short inputs reach the growing and shrinking.
  explicit BufferedFrameDeserializer(size_t max_frame_size = kMaxReceiveFrameSize,
                                     size_t base_capacity = kMaxFrameSize);
  BufferedFrameDeserializer(const BufferedFrameDeserializer&) = delete;
  BufferedFrameDeserializer& operator=(const BufferedFrameDeserializer&) = delete;

  // Where the next read goes: the free part of the buffer. The partial
  // frame held so far moves to the front; a buffer below the base that the
  // last read filled grows to the base; a buffer a partial frame fills
  // grows (below the base: to the base or the frame's size; past it: to at
  // most twice its size, at most the frame's), and one grown for a frame
  // that is done shrinks back to the base capacity.
  ReceiveBuffer BeginReceive();

  // The part of BeginReceive() that moves the partial frame to the front
  // and shrinks a buffer grown for a frame that is done: for a caller that
  // has served every frame and will not read again soon, so that the
  // memory goes back now. Invalidates what PopNext() returned.
  void Compact();

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

  // A popped frame. A plain method call (a request id and an InvokeMethod
  // of the fields it defines, each kind of field once) comes decoded in
  // place: |frame| is null and |invoke| is the call, its args pointing into
  // the receive buffer, valid until the next BeginReceive() or Receive().
  // Any other frame is |frame|.
  struct ReceivedFrame {
    std::unique_ptr<Frame> frame;
    InvokeRequest invoke;
    base::ScopedFile fd;  // The descriptor that came with it, if any.
  };

  // The oldest frame not popped yet into |out|; false if there is none.
  // What a host serves from: no allocation for a plain method call.
  bool PopNext(ReceivedFrame* out);

  // The oldest frame not popped yet, every kind decoded as a Frame, or
  // null; |fd| (if not null) gets the descriptor that came with it, if any.
  std::unique_ptr<Frame> PopNextFrame(base::ScopedFile* fd = nullptr);

  bool broken() const { return !error_.empty(); }
  // The buffer's size now (0 before the first receive).
  size_t capacity() const { return capacity_; }
  const std::string& error() const { return error_; }
  // Bytes of a frame not complete yet.
  size_t pending_bytes() const { return size_ - consumed_; }

 private:
  struct QueuedFrame {
    std::unique_ptr<Frame> frame;  // Null for a call decoded in place.
    InvokeRequest invoke;
    // Where an in-place call's IPCFrame is in buffer_, to decode it as a
    // Frame if it is still queued when the buffer's bytes move.
    size_t offset = 0;
    size_t size = 0;
    base::ScopedFile fd;
  };

  bool Break(std::string error);
  // Moves the |size_| bytes held into a buffer of |capacity| bytes.
  void Reallocate(size_t capacity);
  void AttributeFd(size_t first_new, base::ScopedFile fd);
  // The frames still queued that point into buffer_, decoded as Frames.
  void DetachQueuedFrames();
  void PopFront();

  const size_t max_frame_size_;
  const size_t base_capacity_;
  size_t capacity_ = 0;
  std::unique_ptr<char[]> buffer_;
  size_t size_ = 0;  // Bytes held at the front of buffer_.
  // Of those, the bytes of complete frames (queued or popped): the partial
  // frame after them moves to the front at the next BeginReceive(), not
  // before, so that calls decoded in place stay valid until then.
  size_t consumed_ = 0;
  // Queued frames are [next_frame_, size()); the vector is emptied, its
  // capacity kept, once every frame is popped.
  std::vector<QueuedFrame> frames_;
  size_t next_frame_ = 0;
  base::ScopedFile carried_fd_;  // For the partial frame.
  // The last EndReceive() filled the room BeginReceive() gave: below the
  // base capacity, the buffer grows to it (more is likely coming).
  bool last_read_filled_ = false;
  std::string error_;
};

}  // namespace ipc
}  // namespace zt

#endif  // ZT_SRC_IPC_FRAME_H_
