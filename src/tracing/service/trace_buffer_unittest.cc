#include "src/tracing/service/trace_buffer.h"

#include <map>
#include <random>

#include <gtest/gtest.h>

#include "src/tracing/service/trace_buffer_test_util.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
using test::Bytes;
using test::Pattern;
using test::ReadAll;
using test::TestChunk;
using Policy = TraceBuffer::OverwritePolicy;

constexpr uint8_t kFirstCont = ABI::kFirstPacketContinuesFromPrevChunk;
constexpr uint8_t kLastCont = ABI::kLastPacketContinuesOnNextChunk;
constexpr uint8_t kPatch = ABI::kChunkNeedsPatching;

std::unique_ptr<TraceBuffer> Make(size_t size, Policy p = Policy::kOverwrite) {
  auto tb = TraceBuffer::Create(size, p);
  EXPECT_TRUE(tb);
  return tb;
}

// A chunk whose record takes exactly 1 KiB: one packet of 1004 bytes.
TestChunk KiBChunk(uint32_t id, uint16_t writer = 1) {
  return TestChunk(id).Writer(writer).Frag(Pattern(1004, id * 7 + writer));
}

TEST(TraceBufferTest, CreateRoundsAndRejects) {
  EXPECT_FALSE(TraceBuffer::Create(0, Policy::kOverwrite));
  if (sizeof(size_t) > 4) {
    EXPECT_FALSE(TraceBuffer::Create((size_t{1} << 32) + 1, Policy::kDiscard));
  }
  auto tb = Make(1);
  EXPECT_EQ(tb->size(), 4096u);
  EXPECT_EQ(tb->stats().buffer_size, 4096u);
  EXPECT_EQ(Make(4097, Policy::kDiscard)->size(), 8192u);
  EXPECT_EQ(Make(4097, Policy::kDiscard)->policy(), Policy::kDiscard);
}

TEST(TraceBufferTest, SingleChunkPackets) {
  auto tb = Make(4096);
  TestChunk c(1);
  c.Frag(Pattern(10, 1)).Frag(Pattern(1, 2)).Frag(Pattern(300, 3));
  c.producer = 7;
  c.uid = 1234;
  c.pid = 99;
  c.AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 3u);
  EXPECT_EQ(pk[0].data, Pattern(10, 1));
  EXPECT_EQ(pk[1].data, Pattern(1, 2));
  EXPECT_EQ(pk[2].data, Pattern(300, 3));
  for (const auto& p : pk) {
    EXPECT_EQ(p.producer_id, 7u);
    EXPECT_EQ(p.writer_id, 1u);
    EXPECT_EQ(p.producer_uid, 1234);
    EXPECT_EQ(p.producer_pid, 99);
    EXPECT_FALSE(p.previous_packet_dropped);
  }
  EXPECT_EQ(tb->stats().bytes_read, 311u);
  EXPECT_EQ(tb->stats().chunks_read, 1u);
  EXPECT_EQ(tb->stats().chunks_written, 1u);
  EXPECT_EQ(tb->stats().bytes_written, c.payload.size());
  EXPECT_TRUE(ReadAll(tb.get()).empty());  // Consumed.
}

TEST(TraceBufferTest, ZeroSizeSkippedAndShortVarintAccepted) {
  auto tb = Make(4096);
  TestChunk c(1);
  c.Frag({}).Raw({3, 'a', 'b', 'c'}).Count(2);  // 1-byte size varint.
  c.Frag(Pattern(5, 5));
  c.AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].data, Bytes({'a', 'b', 'c'}));
  EXPECT_EQ(pk[1].data, Pattern(5, 5));
  EXPECT_EQ(tb->stats().abi_violations, 0u);
}

TEST(TraceBufferTest, PacketAcrossFourChunks) {
  auto tb = Make(8192);
  const Bytes a = Pattern(100, 1), b = Pattern(50, 2), c = Pattern(60, 3),
              d = Pattern(70, 4), e = Pattern(5, 5);
  TestChunk(1).Frag(Pattern(3, 9)).Frag(a).Flags(kLastCont).AddTo(tb.get());
  TestChunk(2).Frag(b).Flags(kFirstCont | kLastCont).AddTo(tb.get());
  TestChunk(3).Frag(c).Flags(kFirstCont | kLastCont).AddTo(tb.get());
  TestChunk(4).Frag(d).Frag(e).Flags(kFirstCont).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 3u);
  Bytes joined = a;
  joined.insert(joined.end(), b.begin(), b.end());
  joined.insert(joined.end(), c.begin(), c.end());
  joined.insert(joined.end(), d.begin(), d.end());
  EXPECT_EQ(pk[0].data, Pattern(3, 9));
  EXPECT_EQ(pk[1].data, joined);
  EXPECT_EQ(pk[2].data, e);
  EXPECT_EQ(tb->stats().readaheads_succeeded, 1u);
  EXPECT_EQ(tb->stats().chunks_read, 4u);
  EXPECT_EQ(tb->stats().abi_violations, 0u);
}

TEST(TraceBufferTest, FragmentWaitsForNextChunk) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(3, 1)).Frag(Pattern(20, 2)).Flags(kLastCont)
      .AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Pattern(3, 1));
  EXPECT_GE(tb->stats().readaheads_failed, 1u);
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  TestChunk(2).Frag(Pattern(30, 3)).Flags(kFirstCont).AddTo(tb.get());
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  Bytes want = Pattern(20, 2);
  const Bytes tail = Pattern(30, 3);
  want.insert(want.end(), tail.begin(), tail.end());
  EXPECT_EQ(pk[0].data, want);
  EXPECT_FALSE(pk[0].previous_packet_dropped);
  EXPECT_EQ(tb->stats().readaheads_succeeded, 1u);
}

TEST(TraceBufferTest, MissingMiddleChunk) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(3, 1)).Frag(Pattern(20, 2)).Flags(kLastCont)
      .AddTo(tb.get());
  // Chunk 2 (the middle of the packet) never arrives.
  TestChunk(3).Frag(Pattern(30, 3)).Frag(Pattern(4, 4)).Flags(kFirstCont)
      .AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].data, Pattern(3, 1));
  EXPECT_FALSE(pk[0].previous_packet_dropped);
  EXPECT_EQ(pk[1].data, Pattern(4, 4));
  EXPECT_TRUE(pk[1].previous_packet_dropped);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
  EXPECT_EQ(tb->stats().abi_violations, 0u);
  // A late chunk 2 is stale now.
  TestChunk(2).Frag(Pattern(5, 5)).Flags(kFirstCont | kLastCont)
      .AddTo(tb.get());
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  EXPECT_EQ(tb->stats().chunks_discarded, 1u);
  EXPECT_EQ(tb->stats().chunks_committed_out_of_order, 1u);
}

TEST(TraceBufferTest, GapBetweenWholePackets) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(3, 1)).AddTo(tb.get());
  TestChunk(4).Frag(Pattern(4, 2)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_FALSE(pk[0].previous_packet_dropped);
  EXPECT_TRUE(pk[1].previous_packet_dropped);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
}

TEST(TraceBufferTest, ContinuationWithoutBeginning) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(3, 1)).AddTo(tb.get());
  TestChunk(2).Frag(Pattern(9, 2)).Frag(Pattern(4, 3)).Flags(kFirstCont)
      .AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[1].data, Pattern(4, 3));
  EXPECT_TRUE(pk[1].previous_packet_dropped);
  EXPECT_EQ(tb->stats().abi_violations, 1u);
}

TEST(TraceBufferTest, NextChunkLacksContinuationFlag) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(20, 1)).Flags(kLastCont).AddTo(tb.get());
  TestChunk(2).Frag(Pattern(7, 2)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Pattern(7, 2));
  EXPECT_TRUE(pk[0].previous_packet_dropped);
  EXPECT_EQ(tb->stats().abi_violations, 1u);
}

TEST(TraceBufferTest, PatchThenRead) {
  auto tb = Make(4096);
  TestChunk c(1);
  c.Frag(Pattern(5, 1)).Frag({0, 0, 0, 0}).Flags(kPatch);
  c.AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);  // The last fragment waits for its patch.
  EXPECT_EQ(pk[0].data, Pattern(5, 1));
  const uint32_t off = 4 + 5 + 4;  // Data of the second fragment.
  CommitData::Patch p1{off, {1, 2, 3, 4}};
  EXPECT_TRUE(tb->TryPatchChunkContents(1, 1, 1, {p1}, true));
  EXPECT_TRUE(ReadAll(tb.get()).empty());  // More patches pending.
  EXPECT_TRUE(tb->TryPatchChunkContents(1, 1, 1, {}, false));
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Bytes({1, 2, 3, 4}));
  EXPECT_EQ(tb->stats().patches_succeeded, 2u);
  EXPECT_EQ(tb->stats().patches_failed, 0u);
}

TEST(TraceBufferTest, PatchedSizeOfFragmentAcrossChunks) {
  auto tb = Make(4096);
  TestChunk c1(1);
  c1.Frag(Pattern(10, 1)).Flags(kLastCont | kPatch);
  test::PutSize4(&c1.payload[0], 0);  // Size not known at the switch.
  c1.AddTo(tb.get());
  TestChunk(2).Frag(Pattern(6, 2)).Flags(kFirstCont).AddTo(tb.get());
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  CommitData::Patch p{0, {}};
  test::PutSize4(p.data.data(), 10);
  EXPECT_TRUE(tb->TryPatchChunkContents(1, 1, 1, {p}, false));
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  Bytes want = Pattern(10, 1);
  const Bytes tail = Pattern(6, 2);
  want.insert(want.end(), tail.begin(), tail.end());
  EXPECT_EQ(pk[0].data, want);
  EXPECT_FALSE(pk[0].previous_packet_dropped);
}

TEST(TraceBufferTest, PatchFailures) {
  auto tb = Make(4096);
  TestChunk c(1);
  c.Frag(Pattern(8, 1)).Flags(kPatch);
  c.AddTo(tb.get());
  const uint32_t size = static_cast<uint32_t>(c.payload.size());
  // Another producer's chunk with the same writer and chunk id.
  EXPECT_FALSE(tb->TryPatchChunkContents(2, 1, 1, {{4, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(tb->TryPatchChunkContents(1, 2, 1, {{4, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(tb->TryPatchChunkContents(1, 1, 5, {{4, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(
      tb->TryPatchChunkContents(1, 1, 1, {{size - 3, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(
      tb->TryPatchChunkContents(1, 1, 1, {{0xFFFFFFFFu, {9, 9, 9, 9}}}, false));
  // All or nothing: the good patch is not applied either.
  EXPECT_FALSE(tb->TryPatchChunkContents(
      1, 1, 1, {{4, {9, 9, 9, 9}}, {size, {1, 1, 1, 1}}}, false));
  EXPECT_EQ(tb->stats().patches_failed, 6u);
  EXPECT_TRUE(ReadAll(tb.get()).empty());  // Still waiting.
  EXPECT_TRUE(
      tb->TryPatchChunkContents(1, 1, 1, {{size - 4, {7, 7, 7, 7}}}, false));
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  Bytes want = Pattern(8, 1);
  std::fill(want.end() - 4, want.end(), 7);
  EXPECT_EQ(pk[0].data, want);
  EXPECT_EQ(tb->stats().patches_succeeded, 1u);
}

TEST(TraceBufferTest, PatchAfterOverwriteFails) {
  auto tb = Make(4096);
  TestChunk c = KiBChunk(1);
  c.Flags(kPatch);
  c.AddTo(tb.get());
  for (uint32_t id = 2; id <= 5; id++)
    KiBChunk(id).AddTo(tb.get());
  EXPECT_FALSE(tb->TryPatchChunkContents(1, 1, 1, {{4, {1, 2, 3, 4}}}, false));
  EXPECT_EQ(tb->stats().patches_failed, 1u);
  EXPECT_EQ(tb->stats().chunks_overwritten, 1u);
}

TEST(TraceBufferTest, OverwriteCountsAndMarksLoss) {
  auto tb = Make(4096);
  for (uint32_t id = 1; id <= 6; id++)
    KiBChunk(id).AddTo(tb.get());
  const TraceBufferStats& st = tb->stats();
  EXPECT_EQ(st.chunks_written, 6u);
  EXPECT_EQ(st.chunks_overwritten, 2u);
  EXPECT_EQ(st.bytes_overwritten, 2u * 1008u);
  EXPECT_EQ(st.write_wrap_count, 1u);
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 4u);
  for (size_t i = 0; i < 4; i++) {
    EXPECT_EQ(pk[i].data, Pattern(1004, static_cast<uint32_t>(i + 3) * 7 + 1));
    EXPECT_EQ(pk[i].previous_packet_dropped, i == 0);
  }
  EXPECT_EQ(st.trace_writer_packet_loss, 0u);
  // Read chunks are overwritten silently.
  KiBChunk(7).AddTo(tb.get());
  KiBChunk(8).AddTo(tb.get());
  EXPECT_EQ(st.chunks_overwritten, 2u);
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_FALSE(pk[0].previous_packet_dropped);
  EXPECT_FALSE(pk[1].previous_packet_dropped);
}

TEST(TraceBufferTest, OverwriteInsideFragmentedPacket) {
  auto tb = Make(4096);
  TestChunk c1(1);
  c1.Frag(Pattern(500, 1)).Frag(Pattern(490, 2)).Flags(kLastCont);
  c1.PadTo(1008).AddTo(tb.get());  // 1 KiB record.
  TestChunk(2).Frag(Pattern(30, 3)).Frag(Pattern(40, 4)).Flags(kFirstCont)
      .PadTo(1008).AddTo(tb.get());
  KiBChunk(1, 2).AddTo(tb.get());
  KiBChunk(2, 2).AddTo(tb.get());
  KiBChunk(3, 2).AddTo(tb.get());  // Overwrites chunk 1 of writer 1.
  EXPECT_EQ(tb->stats().chunks_overwritten, 1u);
  auto pk = ReadAll(tb.get());
  std::vector<Bytes> w1;
  for (const auto& p : pk) {
    if (p.writer_id == 1) {
      w1.push_back(p.data);
      EXPECT_TRUE(p.previous_packet_dropped);
    }
  }
  ASSERT_EQ(w1.size(), 1u);  // The tail of the split packet is dropped.
  EXPECT_EQ(w1[0], Pattern(40, 4));
  EXPECT_EQ(tb->stats().abi_violations, 0u);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 0u);
}

TEST(TraceBufferTest, DiscardWhenFull) {
  auto tb = Make(4096, Policy::kDiscard);
  for (uint32_t id = 1; id <= 5; id++)
    KiBChunk(id).AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_discarded, 1u);
  EXPECT_EQ(tb->stats().chunks_overwritten, 0u);
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 4u);
  for (size_t i = 0; i < 4; i++)
    EXPECT_FALSE(pk[i].previous_packet_dropped);
  // Latched: refused even though the space was read since.
  KiBChunk(6).AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_discarded, 2u);
  EXPECT_TRUE(ReadAll(tb.get()).empty());
}

TEST(TraceBufferTest, DiscardReusesConsumedSpace) {
  auto tb = Make(4096, Policy::kDiscard);
  for (uint32_t id = 1; id <= 3; id++)
    KiBChunk(id).AddTo(tb.get());
  EXPECT_EQ(ReadAll(tb.get()).size(), 3u);
  for (uint32_t id = 4; id <= 6; id++)
    KiBChunk(id).AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_discarded, 0u);
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 3u);
  EXPECT_EQ(pk[2].data, Pattern(1004, 6 * 7 + 1));
  EXPECT_FALSE(pk[0].previous_packet_dropped);
}

TEST(TraceBufferTest, ChunkBiggerThanBufferDiscarded) {
  auto tb = Make(4096, Policy::kDiscard);
  TestChunk(1).Frag(Pattern(5000, 1)).AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_discarded, 1u);
  TestChunk(2).Frag(Pattern(5, 2)).AddTo(tb.get());  // Not latched.
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_TRUE(pk[0].previous_packet_dropped);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 0u);
}

TEST(TraceBufferTest, WrapWritesPadding) {
  auto tb = Make(4096);
  for (uint32_t id = 1; id <= 3; id++)  // 3 KiB used, 1 KiB tail.
    KiBChunk(id).AddTo(tb.get());
  TestChunk(4).Frag(Pattern(1500, 4)).AddTo(tb.get());  // Does not fit.
  EXPECT_EQ(tb->stats().padding_bytes_written, 1024u);
  EXPECT_EQ(tb->stats().write_wrap_count, 1u);
  EXPECT_EQ(tb->stats().chunks_overwritten, 2u);
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].data, Pattern(1004, 3 * 7 + 1));
  EXPECT_TRUE(pk[0].previous_packet_dropped);
  EXPECT_EQ(pk[1].data, Pattern(1500, 4));
}

TEST(TraceBufferTest, ScrapedThenCompleteNoDuplicates) {
  auto tb = Make(4096);
  TestChunk full(1);
  full.Frag(Pattern(10, 1)).Frag(Pattern(11, 2)).Frag(Pattern(12, 3));
  full.PadTo(200);
  TestChunk scraped = full;
  scraped.Count(2).Scraped();
  std::fill(scraped.payload.begin() + 4 + 10 + 4 + 11, scraped.payload.end(), 0);
  scraped.AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[1].data, Pattern(11, 2));
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  full.AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_rewritten, 1u);
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Pattern(12, 3));
  EXPECT_FALSE(pk[0].previous_packet_dropped);
  EXPECT_EQ(tb->stats().chunks_read, 1u);
}

TEST(TraceBufferTest, BadReplacementsRejected) {
  auto tb = Make(4096);
  TestChunk c(1);
  c.Frag(Pattern(10, 1)).PadTo(100).Scraped();
  c.AddTo(tb.get());
  TestChunk bigger = c;
  bigger.PadTo(120);
  bigger.complete = true;
  bigger.AddTo(tb.get());  // Different size.
  EXPECT_EQ(tb->stats().abi_violations, 1u);
  TestChunk done = c;
  done.complete = true;
  done.AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_rewritten, 1u);
  done.AddTo(tb.get());  // A complete chunk is never replaced.
  EXPECT_EQ(tb->stats().abi_violations, 2u);
  EXPECT_EQ(ReadAll(tb.get()).size(), 1u);
}

TEST(TraceBufferTest, OutOfOrderCommits) {
  auto tb = Make(4096);
  TestChunk(2).Frag(Pattern(6, 2)).Frag(Pattern(7, 3)).Flags(kFirstCont)
      .AddTo(tb.get());
  TestChunk(1).Frag(Pattern(4, 0)).Frag(Pattern(5, 1)).Flags(kLastCont)
      .AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_committed_out_of_order, 1u);
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 3u);
  EXPECT_EQ(pk[0].data, Pattern(4, 0));
  Bytes joined = Pattern(5, 1);
  const Bytes tail = Pattern(6, 2);
  joined.insert(joined.end(), tail.begin(), tail.end());
  EXPECT_EQ(pk[1].data, joined);
  EXPECT_EQ(pk[2].data, Pattern(7, 3));
  for (const auto& p : pk)
    EXPECT_FALSE(p.previous_packet_dropped);
}

TEST(TraceBufferTest, DropMarker) {
  auto tb = Make(4096);
  TestChunk c1(1);
  c1.Frag(Pattern(5, 1)).Count(2);
  c1.payload.resize(c1.payload.size() + 4);
  test::PutSize4(&c1.payload[c1.payload.size() - 4], ABI::kPacketSizeDropPacket);
  c1.PadTo(64).AddTo(tb.get());
  TestChunk(2).Frag(Pattern(6, 2)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_FALSE(pk[0].previous_packet_dropped);
  EXPECT_TRUE(pk[1].previous_packet_dropped);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
  EXPECT_EQ(tb->stats().abi_violations, 0u);
}

TEST(TraceBufferTest, DropMarkerInContinuation) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(50, 1)).Flags(kLastCont).AddTo(tb.get());
  TestChunk c2(2);
  c2.Count(1).Flags(kFirstCont).PadTo(4);
  test::PutSize4(&c2.payload[0], ABI::kPacketSizeDropPacket);
  c2.AddTo(tb.get());
  TestChunk(3).Frag(Pattern(6, 3)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Pattern(6, 3));
  EXPECT_TRUE(pk[0].previous_packet_dropped);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
  EXPECT_EQ(tb->stats().abi_violations, 0u);
}

TEST(TraceBufferTest, MalformedSizesAndVarints) {
  auto tb = Make(4096);
  // Size runs past the chunk: rest of the chunk dropped.
  TestChunk c1(1);
  c1.Frag(Pattern(5, 1)).Raw({0x80 | 100, 0x80, 0x80, 0}).Raw({1, 2}).Count(3);
  c1.AddTo(tb.get());
  TestChunk(2).Frag(Pattern(6, 2)).AddTo(tb.get());
  // A varint without terminator.
  TestChunk c3(3);
  c3.Raw({0xFF, 0xFF, 0xFF}).Count(1);
  c3.AddTo(tb.get());
  // The count promises more fragments than there are bytes.
  TestChunk c4(4);
  c4.Frag(Pattern(7, 4)).Count(5);
  c4.AddTo(tb.get());
  TestChunk(5).Frag(Pattern(8, 5)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 4u);
  EXPECT_EQ(pk[0].data, Pattern(5, 1));
  EXPECT_FALSE(pk[0].previous_packet_dropped);
  EXPECT_EQ(pk[1].data, Pattern(6, 2));
  EXPECT_TRUE(pk[1].previous_packet_dropped);
  EXPECT_EQ(pk[2].data, Pattern(7, 4));
  EXPECT_TRUE(pk[2].previous_packet_dropped);
  EXPECT_EQ(pk[3].data, Pattern(8, 5));
  EXPECT_TRUE(pk[3].previous_packet_dropped);
  EXPECT_EQ(tb->stats().abi_violations, 3u);
  EXPECT_EQ(tb->stats().chunks_read, 5u);
}

TEST(TraceBufferTest, WriterZeroRejected) {
  auto tb = Make(4096);
  TestChunk(1).Writer(0).Frag(Pattern(5, 1)).AddTo(tb.get());
  EXPECT_EQ(tb->stats().abi_violations, 1u);
  EXPECT_EQ(tb->stats().chunks_written, 0u);
}

TEST(TraceBufferTest, ChunkIdWrapAround) {
  auto tb = Make(4096);
  TestChunk(0xFFFFFFFFu).Frag(Pattern(5, 1)).Frag(Pattern(6, 2))
      .Flags(kLastCont).AddTo(tb.get());
  TestChunk(0).Frag(Pattern(7, 3)).Frag(Pattern(8, 4)).Flags(kFirstCont)
      .AddTo(tb.get());
  TestChunk(1).Frag(Pattern(9, 5)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 4u);
  EXPECT_EQ(pk[0].data, Pattern(5, 1));
  EXPECT_EQ(pk[1].data.size(), 13u);
  EXPECT_EQ(pk[2].data, Pattern(8, 4));
  EXPECT_EQ(pk[3].data, Pattern(9, 5));
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 0u);
}

TEST(TraceBufferTest, InterleavedSequencesKeepOrder) {
  auto tb = Make(64 * 1024);
  for (uint32_t id = 1; id <= 10; id++) {
    for (uint32_t producer = 1; producer <= 2; producer++) {
      TestChunk c(id);
      c.Producer(producer).Writer(3);  // Same writer id, two producers.
      c.Frag(Pattern(10, producer * 100 + id));
      c.Frag(Pattern(11, producer * 100 + id + 50));
      c.uid = static_cast<int32_t>(producer);
      c.AddTo(tb.get());
    }
    if (id == 5) {
      EXPECT_EQ(ReadAll(tb.get()).size(), 20u);
    }
  }
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 20u);
  std::map<uint32_t, uint32_t> seen;
  for (size_t i = 0; i < pk.size(); i++) {
    const uint32_t producer = pk[i].producer_id;
    EXPECT_EQ(pk[i].producer_uid, static_cast<int32_t>(producer));
    const uint32_t n = seen[producer]++;
    const uint32_t id = 6 + n / 2;
    EXPECT_EQ(pk[i].data,
              Pattern(10 + n % 2, producer * 100 + id + (n % 2) * 50));
    EXPECT_FALSE(pk[i].previous_packet_dropped);
  }
}

}  // namespace
}  // namespace zt
