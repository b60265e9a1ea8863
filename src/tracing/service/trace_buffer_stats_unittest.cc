// TraceBuffer's counters as TraceStats reports them: bytes read in the unit
// of bytes written, and the per-writer chunk payload histograms.

#include <gtest/gtest.h>

#include "src/tracing/service/trace_buffer.h"
#include "src/tracing/service/trace_buffer_test_util.h"

namespace zt {
namespace {

using test::Bytes;
using test::Pattern;
using test::ReadAll;
using test::TestChunk;

std::unique_ptr<TraceBuffer> Make(size_t size) {
  return test::MakeTraceBuffer(size);
}

TEST(TraceBufferStatsTest, BytesReadCountsWholeChunksLikeBytesWritten) {
  auto tb = Make(64 * 1024);
  TestChunk a(0);
  a.Frag(Pattern(100, 1)).Frag(Pattern(20, 2)).PadTo(4088);
  a.AddTo(tb.get());
  TestChunk b(1);
  b.Frag(Pattern(50, 3)).PadTo(4088);
  b.AddTo(tb.get());
  ASSERT_EQ(ReadAll(tb.get()).size(), 3u);
  const TraceBufferStats& st = tb->stats();
  EXPECT_EQ(st.bytes_written, 2u * 4088);
  // Everything was read: nothing is left buffered by the stats' arithmetic.
  EXPECT_EQ(st.bytes_read, st.bytes_written);
  EXPECT_EQ(st.chunks_read, 2u);
}

TEST(TraceBufferStatsTest, BytesReadLeavesWhatIsStillBuffered) {
  auto tb = Make(64 * 1024);
  TestChunk a(0);
  a.Frag(Pattern(10, 1));
  a.AddTo(tb.get());
  ASSERT_EQ(ReadAll(tb.get()).size(), 1u);
  TestChunk b(1);
  b.Frag(Pattern(30, 2));
  b.AddTo(tb.get());
  EXPECT_EQ(tb->stats().bytes_written - tb->stats().bytes_read, b.payload.size());
}

size_t BucketOf(uint32_t used) {
  size_t b = 0;
  while (b < ChunkPayloadHistogram::kBuckets - 1 &&
         used > ChunkPayloadHistogram::kThresholds[b]) {
    b++;
  }
  return b;
}

TEST(TraceBufferStatsTest, WriterStatsHistogramOfTheBytesUsedPerChunk) {
  auto tb = Make(64 * 1024);
  // Writer 1: a chunk with 14 bytes used and padding after them; writer 2
  // (producer 3): two chunks of 604 and 5004 bytes.
  TestChunk a(0);
  a.Frag(Pattern(10, 1)).PadTo(200);
  a.AddTo(tb.get());
  TestChunk b(7);
  b.Producer(3).Writer(2).Frag(Pattern(600, 2));
  b.AddTo(tb.get());
  TestChunk c(8);
  c.Producer(3).Writer(2).Frag(Pattern(5000, 3));
  c.AddTo(tb.get());
  ASSERT_EQ(ReadAll(tb.get()).size(), 3u);

  const WriterStatsMap& ws = tb->writer_stats();
  ASSERT_EQ(ws.size(), 2u);
  const ChunkPayloadHistogram& h1 = ws.at({1, 1});
  const ChunkPayloadHistogram& h2 = ws.at({3, 2});
  for (size_t i = 0; i < ChunkPayloadHistogram::kBuckets; i++) {
    EXPECT_EQ(h1.counts[i], i == BucketOf(14) ? 1u : 0u) << i;
    EXPECT_EQ(h1.sums[i], i == BucketOf(14) ? 14 : 0) << i;
  }
  EXPECT_EQ(BucketOf(14), 1u);     // (8, 32]
  EXPECT_EQ(BucketOf(604), 4u);    // (512, 1024]
  EXPECT_EQ(BucketOf(5004), 7u);   // (4096, 8192]
  EXPECT_EQ(h2.counts[4], 1u);
  EXPECT_EQ(h2.sums[4], 604);
  EXPECT_EQ(h2.counts[7], 1u);
  EXPECT_EQ(h2.sums[7], 5004);
  EXPECT_EQ(BucketOf(1u << 20), ChunkPayloadHistogram::kBuckets - 1);
}

TEST(TraceBufferStatsTest, ChunksNotReadToTheirEndAreNotInWriterStats) {
  auto tb = Make(64 * 1024);
  // Scraped while its writer was still in it: not complete, and no later
  // chunk says it is done.
  TestChunk scraped(0);
  scraped.Frag(Pattern(10, 1)).Scraped();
  scraped.AddTo(tb.get());
  // Corrupt: it promises two packets and holds one.
  TestChunk corrupt(0);
  corrupt.Writer(2).Frag(Pattern(10, 2)).Count(2);
  corrupt.AddTo(tb.get());
  ReadAll(tb.get());
  EXPECT_TRUE(tb->writer_stats().empty());
}

TEST(TraceBufferStatsTest, ACompleteChunkCopiedAgainIsAccountedForNotLost) {
  // A flush copied chunk 0 while complete; its commit copies it again,
  // once before it is read and once after.
  auto tb = Make(64 * 1024);
  TestChunk a(0);
  a.Frag(Pattern(10, 1));
  a.AddTo(tb.get());
  a.AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_recopied, 1u);
  auto packets = ReadAll(tb.get());
  ASSERT_EQ(packets.size(), 1u);
  TestChunk b(1);
  b.Frag(Pattern(20, 2));
  b.AddTo(tb.get());
  a.AddTo(tb.get());  // Read already: ignored, not a loss.
  packets = ReadAll(tb.get());
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0].previous_packet_dropped, 0u);
  const TraceBufferStats& st = tb->stats();
  EXPECT_EQ(st.chunks_recopied, 2u);
  EXPECT_EQ(st.chunks_written, 2u);
  EXPECT_EQ(st.chunks_discarded, 0u);
  EXPECT_EQ(st.abi_violations, 0u);
}

// A scraped chunk whose writer is still in its last packet (size not
// written yet): that packet waits; finished by a later copy, it is read.
TEST(TraceBufferGoneTest, APacketBeingWrittenWaitsForItsFinishedCopy) {
  auto tb = Make(64 * 1024);
  TestChunk scraped(0);
  scraped.Frag(Pattern(10, 1)).Frag(Bytes()).Raw(Pattern(6, 2)).Scraped();
  scraped.AddTo(tb.get());
  EXPECT_EQ(ReadAll(tb.get()).size(), 1u);
  // The same chunk, complete: the second packet, 6 bytes, finished.
  TestChunk done(0);
  done.Frag(Pattern(10, 1)).Frag(Pattern(6, 2));
  done.AddTo(tb.get());
  const auto packets = ReadAll(tb.get());
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0].data, Pattern(6, 2));
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 0u);
}

// Its producer killed: the packets it finished are read, the one it was
// writing is dropped and counted; another producer's wait is untouched.
TEST(TraceBufferGoneTest, AGoneProducersTornPacketIsDroppedAndCounted) {
  auto tb = Make(64 * 1024);
  TestChunk torn(0);
  torn.Frag(Pattern(10, 1)).Frag(Pattern(12, 2)).Frag(Bytes()).Raw(Pattern(7, 3)).Scraped();
  torn.AddTo(tb.get());
  TestChunk other(0);
  other.Producer(2).Frag(Pattern(5, 4)).Frag(Bytes()).Scraped();
  other.AddTo(tb.get());
  EXPECT_EQ(ReadAll(tb.get()).size(), 3u);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 0u);

  tb->OnProducerGone(1);
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
  EXPECT_EQ(tb->stats().chunks_read, 1u) << "the gone producer's chunk is read to its end";
}

// Gone while a packet waited for its continuation in a chunk that will
// never come: dropped and counted.
TEST(TraceBufferGoneTest, AGoneProducersUnfinishedFragmentedPacketIsCounted) {
  auto tb = Make(64 * 1024);
  TestChunk first(0);
  first.Frag(Pattern(8, 1)).Frag(Pattern(20, 2)).Flags(SharedMemoryABI::kLastPacketContinuesOnNextChunk);
  first.AddTo(tb.get());
  EXPECT_EQ(ReadAll(tb.get()).size(), 1u);
  tb->OnProducerGone(1);
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
}

}  // namespace
}  // namespace zt
