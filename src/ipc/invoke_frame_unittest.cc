// Method-call frames take a path of their own (frame.h): written straight
// by SerializeInvokeFrame(), decoded in place by the deserializer. Both must
// agree with the generic IPCFrame path byte for byte and value for value,
// on whatever a peer sends.

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/ipc/frame.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace ipc {
namespace {

Frame GenericInvoke(const InvokeRequest& invoke) {
  Frame frame;
  frame.set_request_id(invoke.request_id);
  auto* m = frame.mutable_msg_invoke_method();
  m->set_service_id(invoke.service_id);
  m->set_method_id(invoke.method_id);
  m->set_args_proto(std::string(invoke.args));
  if (invoke.drop_reply)
    m->set_drop_reply(true);
  return frame;
}

uint64_t RandomValue(std::mt19937_64& rng, uint64_t max) {
  switch (rng() % 4) {
    case 0:
      return 0;
    case 1:
      return max;
    case 2:
      return rng() % 300;
  }
  const uint64_t v = rng() >> (rng() % 64);
  return max == UINT64_MAX ? v : v % (max + 1);
}

std::string RandomArgs(std::mt19937_64& rng) {
  static const size_t kSizes[] = {0, 1, 127, 128, 300, 16383, 16384};
  const size_t size = rng() % 2 ? kSizes[rng() % 7] : rng() % 2000;
  std::string args(size, '\0');
  for (char& c : args)
    c = static_cast<char>(rng());
  return args;
}

TEST(InvokeFrameTest, BytesAsTheGenericPathWritesThem) {
  std::mt19937_64 rng(21);
  std::string reused;
  for (int i = 0; i < 3000; i++) {
    const std::string args = RandomArgs(rng);
    InvokeRequest invoke;
    invoke.request_id = RandomValue(rng, UINT64_MAX);
    invoke.service_id = static_cast<uint32_t>(RandomValue(rng, UINT32_MAX));
    invoke.method_id = static_cast<uint32_t>(RandomValue(rng, UINT32_MAX));
    invoke.args = args;
    invoke.drop_reply = rng() % 2;
    SerializeInvokeFrame(invoke, &reused);  // Longer or shorter than the last.
    ASSERT_EQ(reused, SerializeFrame(GenericInvoke(invoke))) << "case " << i;
  }
}

TEST(InvokeFrameTest, TheLargestArgsFillAFrame) {
  // request_id, the InvokeMethod's tag and 4-byte length, two one-byte ids,
  // the args' tag and 4-byte length.
  const size_t largest = kMaxReceiveFrameSize - kFrameHeaderSize - 2 - 5 - 2 - 2 - 1 - 4;
  const std::string args(largest, 'a');
  InvokeRequest invoke{1, 1, 1, args, false};
  std::string bytes;
  EXPECT_EQ(InvokeFrameSize(invoke), kMaxReceiveFrameSize);
  SerializeInvokeFrame(invoke, &bytes);
  EXPECT_EQ(bytes.size(), kMaxReceiveFrameSize);
  EXPECT_EQ(bytes, SerializeFrame(GenericInvoke(invoke)));
  const std::string over(largest + 1, 'a');
  invoke.args = over;
  EXPECT_DEATH(SerializeInvokeFrame(invoke, &bytes), "");
}

// What the host would serve from |payload|, through PopNext(), next to the
// generic parse of the same bytes.
void ExpectSameAsGeneric(const std::string& payload) {
  std::string stream(kFrameHeaderSize, '\0');
  for (size_t i = 0; i < kFrameHeaderSize; i++)
    stream[i] = static_cast<char>(payload.size() >> (8 * i));
  stream += payload;
  Frame generic;
  const bool parses = generic.ParseFromString(payload);
  BufferedFrameDeserializer d;
  ASSERT_EQ(d.Receive(stream.data(), stream.size()), parses);
  BufferedFrameDeserializer::ReceivedFrame got;
  if (!parses) {
    EXPECT_FALSE(d.PopNext(&got));
    return;
  }
  ASSERT_TRUE(d.PopNext(&got));
  if (got.frame) {
    EXPECT_TRUE(*got.frame == generic);
    return;
  }
  // Decoded in place: only ever a frame the host serves as a plain call.
  ASSERT_TRUE(generic.has_msg_invoke_method());
  EXPECT_FALSE(generic.has_msg_bind_service());
  EXPECT_FALSE(generic.has_set_peer_identity());
  EXPECT_EQ(got.invoke.request_id, generic.request_id());
  EXPECT_EQ(got.invoke.service_id, generic.msg_invoke_method().service_id());
  EXPECT_EQ(got.invoke.method_id, generic.msg_invoke_method().method_id());
  EXPECT_EQ(got.invoke.args, generic.msg_invoke_method().args_proto());
  EXPECT_EQ(got.invoke.drop_reply, generic.msg_invoke_method().drop_reply());
}

std::string Varint(uint64_t v) {
  uint8_t buf[10];
  const uint8_t* end = protozero::proto_utils::WriteVarInt(v, buf);
  return std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(end - buf));
}
std::string Tag(uint32_t id, uint32_t type) { return Varint(id << 3 | type); }
std::string VarIntField(uint32_t id, uint64_t v) { return Tag(id, 0) + Varint(v); }
std::string Bytes(uint32_t id, const std::string& body) {
  return Tag(id, 2) + Varint(body.size()) + body;
}

TEST(InvokeFrameTest, OddFramesAsTheGenericParser) {
  const std::string ids = VarIntField(1, 2) + VarIntField(2, 3);
  const std::string plain = ids + Bytes(3, "args");
  const std::vector<std::string> payloads = {
      VarIntField(2, 7) + Bytes(5, plain),
      VarIntField(2, 7) + Bytes(5, plain + VarIntField(4, 0)),  // drop_reply false, sent.
      VarIntField(2, 7) + Bytes(5, plain + VarIntField(4, 2)),  // Not 0: true.
      VarIntField(2, 7) + Bytes(5, VarIntField(1, (uint64_t{1} << 32) + 2) + VarIntField(2, 3) +
                                       Bytes(3, "")),  // Ids truncated.
      Bytes(5, plain),                                  // No request id.
      Bytes(5, plain) + VarIntField(2, 7),              // Out of order.
      VarIntField(2, 7) + Bytes(5, Bytes(3, "a") + ids),
      VarIntField(2, 7) + Bytes(5, ids),                // No args.
      VarIntField(2, 7) + Bytes(5, ""),
      VarIntField(2, 7) + Bytes(5, ids) + Bytes(5, Bytes(3, "merged")),
      VarIntField(2, 7) + Bytes(5, plain + VarIntField(9, 1)),  // Unknown inside.
      VarIntField(2, 7) + Bytes(5, plain) + VarIntField(99, 1),
      VarIntField(2, 7) + Bytes(5, plain) + Bytes(3, Bytes(1, "ProducerPort")),
      VarIntField(2, 7) + VarIntField(5, 1),             // Wrong wire type.
      VarIntField(2, 7) + Bytes(5, plain + Bytes(4, "x")),
      // The writers' 4-byte lengths, and request_id as one.
      Tag(2, 0) + "\x87\x80\x80\x00" + Tag(5, 2) + "\x88\x80\x80\x00" + plain,
      // Malformed: cut lengths and varints, a group.
      VarIntField(2, 7) + Tag(5, 2) + Varint(plain.size() + 1) + plain,
      VarIntField(2, 7) + Bytes(5, ids + Tag(3, 2) + Varint(9) + "abc"),
      VarIntField(2, 7) + Bytes(5, plain + Tag(4, 0)),
      VarIntField(2, 7) + Bytes(5, plain) + Tag(6, 3),
      "",
  };
  for (const std::string& payload : payloads) {
    SCOPED_TRACE(testing::PrintToString(payload));
    ExpectSameAsGeneric(payload);
  }
}

TEST(InvokeFrameTest, MutatedCallsAsTheGenericParser) {
  std::mt19937_64 rng(22);
  std::string bytes;
  for (int i = 0; i < 20000; i++) {
    std::string args(rng() % 20, 'x');
    InvokeRequest invoke{RandomValue(rng, UINT64_MAX),
                         static_cast<uint32_t>(RandomValue(rng, UINT32_MAX)),
                         static_cast<uint32_t>(RandomValue(rng, UINT32_MAX)), args, rng() % 2 == 0};
    SerializeInvokeFrame(invoke, &bytes);
    std::string payload = bytes.substr(kFrameHeaderSize);
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !payload.empty(); e++) {
      const size_t at = rng() % payload.size();
      switch (rng() % 4) {
        case 0:
          payload[at] = static_cast<char>(rng());
          break;
        case 1:
          payload.resize(at);
          break;
        case 2:
          payload.erase(at, 1);
          break;
        case 3:
          payload.insert(at, 1, static_cast<char>(rng()));
          break;
      }
    }
    ExpectSameAsGeneric(payload);
    if (HasFatalFailure())
      return;
  }
}

std::string Call(uint64_t request_id, const std::string& args) {
  std::string bytes;
  SerializeInvokeFrame(InvokeRequest{request_id, 1, 2, args, false}, &bytes);
  return bytes;
}

// Calls decoded in place point into the receive buffer: one not popped
// before the next read must survive the bytes moving.
TEST(InvokeFrameTest, CallsNotPoppedBeforeTheNextReadKeepTheirArgs) {
  const std::string stream = Call(1, std::string(300, 'a')) + Call(2, "bb") +
                             Call(3, std::string(1000, 'c'));
  for (size_t split = 0; split <= stream.size(); split += 7) {
    BufferedFrameDeserializer d;
    ASSERT_TRUE(d.Receive(stream.data(), split));
    ASSERT_TRUE(d.Receive(stream.data() + split, stream.size() - split));
    for (uint64_t id : {1u, 2u, 3u}) {
      std::unique_ptr<Frame> frame = d.PopNextFrame();
      ASSERT_NE(frame, nullptr);
      EXPECT_EQ(frame->request_id(), id);
      const size_t size = id == 1 ? 300 : id == 2 ? 2 : 1000;
      EXPECT_EQ(frame->msg_invoke_method().args_proto(), std::string(size, "abc"[id - 1]));
    }
  }
}

TEST(InvokeFrameTest, PoppedInPlaceUntilTheNextRead) {
  BufferedFrameDeserializer d;
  const std::string stream = Call(1, "one") + Call(2, "two") + Call(3, "three").substr(0, 5);
  ASSERT_TRUE(d.Receive(stream.data(), stream.size()));
  BufferedFrameDeserializer::ReceivedFrame got;
  ASSERT_TRUE(d.PopNext(&got));
  EXPECT_EQ(got.frame, nullptr);
  EXPECT_EQ(got.invoke.args, "one");
  // The next read moves the partial third frame to the front: the second,
  // still queued, is decoded as a Frame first.
  const std::string rest = Call(3, "three").substr(5);
  ASSERT_TRUE(d.Receive(rest.data(), rest.size()));
  ASSERT_TRUE(d.PopNext(&got));
  ASSERT_NE(got.frame, nullptr);
  EXPECT_EQ(got.frame->msg_invoke_method().args_proto(), "two");
  ASSERT_TRUE(d.PopNext(&got));
  EXPECT_EQ(got.frame, nullptr);
  EXPECT_EQ(got.invoke.request_id, 3u);
  EXPECT_EQ(got.invoke.args, "three");
  EXPECT_FALSE(d.PopNext(&got));
  EXPECT_EQ(d.pending_bytes(), 0u);
}

TEST(InvokeFrameTest, CallsBeforeABreakStayPoppable) {
  const std::string garbage("\x0f", 1);  // Wire type 7.
  std::string stream = Call(1, std::string(50, 'x'));
  stream += std::string("\x01\x00\x00\x00", 4) + garbage;
  BufferedFrameDeserializer d;
  EXPECT_FALSE(d.Receive(stream.data(), stream.size()));
  // Reads after the break must not disturb what is queued.
  const BufferedFrameDeserializer::ReceiveBuffer room = d.BeginReceive();
  memset(room.data, 'z', room.size);
  BufferedFrameDeserializer::ReceivedFrame got;
  ASSERT_TRUE(d.PopNext(&got));
  ASSERT_NE(got.frame, nullptr);
  EXPECT_EQ(got.frame->msg_invoke_method().args_proto(), std::string(50, 'x'));
  EXPECT_FALSE(d.PopNext(&got));
}

}  // namespace
}  // namespace ipc
}  // namespace zt
