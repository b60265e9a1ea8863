// libFuzzer target: a hostile byte stream on a socket, cut into reads at
// boundaries the input also chooses, through BufferedFrameDeserializer.
//
// Input: byte 0 is the largest read (1..256 bytes, as a peer's writes may
// arrive); the rest is the stream. Beyond "no crash, no out-of-bounds"
// (ASan/UBSan), it checks that every frame decoded re-encodes into a frame
// that decodes to the same bytes, and that a stream cut into reads gives
// the same frames as the same stream in one piece. The host's way of
// popping (plain method calls decoded in place) must agree with the
// generic decoding frame by frame, and a call re-encoded by
// SerializeInvokeFrame() must decode to the same call. A deserializer with a
// buffer of 8 bytes between frames (it grows for each frame and shrinks
// after, which short inputs otherwise never reach) must give the same
// frames too.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/ipc/frame.h"

namespace {

void Check(bool cond) {
  if (!cond)
    abort();
}

std::vector<std::string> Decode(const uint8_t* data, size_t size, size_t max_read, bool* broken,
                                size_t base_capacity = zt::ipc::kMaxFrameSize) {
  zt::ipc::BufferedFrameDeserializer deserializer(zt::ipc::kMaxReceiveFrameSize, base_capacity);
  std::vector<std::string> frames;
  while (size > 0 && !deserializer.broken()) {
    const size_t n = size < max_read ? size : max_read;
    deserializer.Receive(data, n);
    data += n;
    size -= n;
  }
  *broken = deserializer.broken();
  while (std::unique_ptr<zt::ipc::Frame> frame = deserializer.PopNextFrame()) {
    const std::string bytes = frame->SerializeAsString();
    // Re-encoded, it decodes again, to the same bytes.
    zt::ipc::BufferedFrameDeserializer again;
    const std::string framed = zt::ipc::SerializeFrame(*frame);
    Check(again.Receive(framed.data(), framed.size()));
    std::unique_ptr<zt::ipc::Frame> copy = again.PopNextFrame();
    Check(copy != nullptr && copy->SerializeAsString() == bytes);
    frames.push_back(bytes);
  }
  return frames;
}

// The stream in reads of |max_read| bytes, popped as a host pops them;
// each frame must be what the generic decoding made of it (|generic|).
void CheckHostView(const uint8_t* data, size_t size, size_t max_read,
                   const std::vector<std::string>& generic) {
  zt::ipc::BufferedFrameDeserializer deserializer;
  zt::ipc::BufferedFrameDeserializer::ReceivedFrame got;
  size_t popped = 0;
  std::string reencoded;
  while (size > 0 && !deserializer.broken()) {
    const size_t n = size < max_read ? size : max_read;
    deserializer.Receive(data, n);
    data += n;
    size -= n;
    // Popped between reads, as a host does, so calls stay in place.
    while (deserializer.PopNext(&got)) {
      Check(popped < generic.size());
      zt::ipc::Frame expected;
      Check(expected.ParseFromString(generic[popped++]));
      if (got.frame) {
        Check(got.frame->SerializeAsString() == generic[popped - 1]);
        continue;
      }
      const auto& invoke = expected.msg_invoke_method();
      Check(expected.has_msg_invoke_method() && !expected.has_msg_bind_service() &&
            !expected.has_set_peer_identity());
      Check(got.invoke.request_id == expected.request_id() &&
            got.invoke.service_id == invoke.service_id() &&
            got.invoke.method_id == invoke.method_id() && got.invoke.args == invoke.args_proto() &&
            got.invoke.drop_reply == invoke.drop_reply());
      zt::ipc::SerializeInvokeFrame(got.invoke, &reencoded);
      zt::ipc::BufferedFrameDeserializer again;
      zt::ipc::BufferedFrameDeserializer::ReceivedFrame call;
      Check(again.Receive(reencoded.data(), reencoded.size()) && again.PopNext(&call));
      Check(!call.frame && call.invoke.request_id == got.invoke.request_id &&
            call.invoke.args == got.invoke.args && call.invoke.drop_reply == got.invoke.drop_reply);
    }
  }
  Check(popped == generic.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  const size_t max_read = size_t{data[0]} + 1;
  bool broken_in_reads = false, broken_whole = false;
  const std::vector<std::string> in_reads = Decode(data + 1, size - 1, max_read, &broken_in_reads);
  const std::vector<std::string> whole = Decode(data + 1, size - 1, size, &broken_whole);
  Check(in_reads == whole && broken_in_reads == broken_whole);
  bool broken_tiny = false;
  const std::vector<std::string> tiny =
      Decode(data + 1, size - 1, max_read, &broken_tiny, /*base_capacity=*/8);
  Check(tiny == whole && broken_tiny == broken_whole);
  CheckHostView(data + 1, size - 1, max_read, whole);
  return 0;
}
