// TraceBuffer::Clone, CloneSession's snapshot of a buffer: the copy holds
// what the source would return next, and the two go on independently.

#include <stdio.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "src/base/test/resident_memory.h"

#include "src/tracing/service/trace_buffer.h"
#include "src/tracing/service/trace_buffer_test_util.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
using test::Bytes;
using test::Pattern;
using test::TestChunk;
using test::kResidentMemoryMeaningful;
using test::ResidentBytes;

TEST(TraceBufferCloneTest, TheCopyHoldsWhatIsUnreadAndGoesOnAlone) {
  // A ring that wrapped (its first record no longer at offset 0), with
  // stats and a writer histogram to copy.
  auto tb = test::MakeTraceBuffer(8 * 1024);
  for (uint32_t id = 0; id < 10; id++)
    test::KiBChunk(id).AddTo(tb.get());
  const size_t first_read = test::ReadAll(tb.get()).size();
  ASSERT_GT(tb->stats().chunks_overwritten, 0u);
  ASSERT_EQ(first_read, 10u - tb->stats().chunks_overwritten);
  for (uint32_t id = 10; id < 13; id++)
    test::KiBChunk(id).AddTo(tb.get());
  // A fragmented packet whose end has not come.
  TestChunk open(13);
  open.Frag(Pattern(50, 1)).Frag(Pattern(60, 2)).Flags(ABI::kLastPacketContinuesOnNextChunk);
  open.AddTo(tb.get());

  std::unique_ptr<TraceBuffer> copy = CloneTraceBuffer(*tb);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->size(), tb->size());
  EXPECT_EQ(copy->stats().chunks_overwritten, tb->stats().chunks_overwritten);
  EXPECT_EQ(copy->stats().chunks_read, tb->stats().chunks_read);
  EXPECT_EQ(copy->writer_stats().size(), tb->writer_stats().size());

  auto total = [](const TraceBuffer& b) {
    uint64_t n = 0;
    for (const auto& entry : b.writer_stats())
      for (uint64_t c : entry.second.counts)
        n += c;
    return n;
  };
  const uint64_t copy_total = total(*copy);

  // The source goes on: the fragmented packet ends, more comes.
  TestChunk end(14);
  end.Frag(Pattern(70, 3)).Flags(ABI::kFirstPacketContinuesFromPrevChunk);
  end.AddTo(tb.get());
  const std::vector<test::ReadPacket> source = test::ReadAll(tb.get());
  ASSERT_EQ(source.size(), 5u);  // Chunks 10-12, the 50, the joined 60+70.

  // The copy has what was unread when it was made, and nothing after: its
  // fragment will never end there, and is counted, not waited for.
  const std::vector<test::ReadPacket> copied = test::ReadAll(copy.get());
  ASSERT_EQ(copied.size(), 4u);
  for (size_t i = 0; i < 4; i++)
    EXPECT_EQ(copied[i].data, source[i].data) << i;
  EXPECT_EQ(copy->stats().trace_writer_packet_loss, 1u);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 0u);
  EXPECT_TRUE(test::ReadAll(copy.get()).empty());
  // Each kept its own histogram: the copy's reads (chunks 10-12) went into
  // the copy's, not the source's.
  const uint64_t source_total = total(*tb);
  EXPECT_EQ(total(*copy), copy_total + 3);
  test::ReadAll(copy.get());
  EXPECT_EQ(total(*tb), source_total);
}

// A clone of a large buffer that holds little costs what it holds: only the
// records' headers and the unread chunks are written into the copy. Found
// with a live upstream v53 consumer cloning a 64 MiB session holding 7 KiB
// from ztraced: 77 ms (upstream's traced: 1.5 ms), the whole ring made
// resident, when the ring was copied whole.
TEST(TraceBufferCloneTest, ACloneOfALargeBufferHoldingLittleCostsWhatItHolds) {
  constexpr size_t kSize = 256u << 20;
  auto tb = test::MakeTraceBuffer(kSize);
  ASSERT_TRUE(tb);
  for (uint32_t id = 0; id < 8; id++)
    test::KiBChunk(id).AddTo(tb.get());
  test::ReadAll(tb.get());  // Chunks 0-7 consumed: their payloads not copied.
  for (uint32_t id = 8; id < 16; id++)
    test::KiBChunk(id).AddTo(tb.get());

  const size_t rss_before = ResidentBytes();
  std::unique_ptr<TraceBuffer> copy = CloneTraceBuffer(*tb);
  const size_t rss_after = ResidentBytes();
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->size(), kSize);
  if (kResidentMemoryMeaningful) {
    EXPECT_LT(rss_after, rss_before + (16u << 20))
        << "cloning a " << (kSize >> 20) << " MiB buffer holding 16 KiB made "
        << ((rss_after - rss_before) >> 20) << " MiB resident";
  }
  // What the copy holds reads back, the same as from the source.
  const std::vector<test::ReadPacket> copied = test::ReadAll(copy.get());
  const std::vector<test::ReadPacket> source = test::ReadAll(tb.get());
  ASSERT_EQ(copied.size(), 8u);
  ASSERT_EQ(source.size(), 8u);
  for (size_t i = 0; i < copied.size(); i++)
    EXPECT_EQ(copied[i].data, source[i].data) << i;
}

}  // namespace
}  // namespace zt
