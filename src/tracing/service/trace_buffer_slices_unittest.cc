// Packets read out of a TraceBuffer are slices of its ring, not copies:
// one per fragment, valid until the buffer is next written.

#include <gtest/gtest.h>

#include "src/tracing/service/trace_buffer.h"
#include "src/tracing/service/trace_buffer_test_util.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
using test::Bytes;
using test::Pattern;
using test::TestChunk;

TEST(TraceBufferSlicesTest, APacketIsOneSliceAFragmentedOneASlicePerFragment) {
  auto tb = test::MakeTraceBuffer(64 * 1024);
  const Bytes whole = Pattern(100, 1);
  const Bytes head = Pattern(30, 2);
  const Bytes middle = Pattern(40, 3);
  const Bytes tail = Pattern(50, 4);
  TestChunk a(0);
  a.Frag(whole).Frag(head).Flags(ABI::kLastPacketContinuesOnNextChunk);
  a.AddTo(tb.get());
  TestChunk b(1);
  b.Frag(middle).Flags(ABI::kFirstPacketContinuesFromPrevChunk |
                       ABI::kLastPacketContinuesOnNextChunk);
  b.AddTo(tb.get());
  TestChunk c(2);
  c.Frag(tail).Flags(ABI::kFirstPacketContinuesFromPrevChunk);
  c.AddTo(tb.get());

  tb->BeginRead();
  TraceBufferPacket first;
  ASSERT_TRUE(tb->ReadNextTracePacket(&first));
  // Points into the buffer: the bytes of chunk a's payload after the
  // 4-byte size, not a copy.
  ASSERT_EQ(first.slices.size(), 1u);
  EXPECT_EQ(first.size, whole.size());
  EXPECT_EQ(Bytes(first.slices[0].data, first.slices[0].data + first.size), whole);

  TraceBufferPacket joined;
  ASSERT_TRUE(tb->ReadNextTracePacket(&joined));
  ASSERT_EQ(joined.slices.size(), 3u);
  EXPECT_EQ(joined.size, head.size() + middle.size() + tail.size());
  Bytes expected = head;
  expected.insert(expected.end(), middle.begin(), middle.end());
  expected.insert(expected.end(), tail.begin(), tail.end());
  Bytes got;
  joined.CopyTo(&got);
  EXPECT_EQ(got, expected);
  TraceBufferPacket none;
  EXPECT_FALSE(tb->ReadNextTracePacket(&none));

  // Reading on (to the end) moved nothing: the first packet's slice still
  // holds its bytes.
  EXPECT_EQ(Bytes(first.slices[0].data, first.slices[0].data + first.size), whole);
}

}  // namespace
}  // namespace zt
