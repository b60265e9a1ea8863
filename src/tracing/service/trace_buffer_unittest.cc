#include "src/tracing/service/trace_buffer.h"

#include <map>
#include <random>

#include <gtest/gtest.h>

#include "src/tracing/core/test_packet_headers.h"
#include "src/tracing/service/trace_buffer_test_util.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
using test::Bytes;
using test::Pattern;
using test::ReadAll;
using test::KiBChunk;
using test::TestChunk;
using Policy = TraceBuffer::OverwritePolicy;

using Packet = protos::pbzero::TracePacket;
// previous_packet_dropped values (DataLossReason bits).
constexpr uint32_t kNone = 0;
constexpr uint32_t kLoss = Packet::DATA_LOSS_PRESENT;
constexpr uint32_t kOverwrite = kLoss | Packet::DATA_LOSS_OVERWRITE;
constexpr uint32_t kCorrupted = kLoss | Packet::DATA_LOSS_CHUNK_CORRUPTED;

constexpr uint8_t kFirstCont = ABI::kFirstPacketContinuesFromPrevChunk;
constexpr uint8_t kLastCont = ABI::kLastPacketContinuesOnNextChunk;

std::unique_ptr<TraceBuffer> Make(size_t size, Policy p = Policy::kOverwrite) {
  return test::MakeTraceBuffer(size, p);
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
  c.AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 3u);
  EXPECT_EQ(pk[0].data, Pattern(10, 1));
  EXPECT_EQ(pk[1].data, Pattern(1, 2));
  EXPECT_EQ(pk[2].data, Pattern(300, 3));
  for (const auto& p : pk) {
    EXPECT_EQ(p.producer_id, 7u);
    EXPECT_EQ(p.writer_id, 1u);
    EXPECT_EQ(p.previous_packet_dropped, kNone);
  }
  // Read and written count whole chunk payloads: nothing is left.
  EXPECT_EQ(tb->stats().bytes_read, c.payload.size());
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
  TestChunk(1)
      .Frag(Pattern(3, 1))
      .Frag(Pattern(20, 2))
      .Flags(kLastCont)
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
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  EXPECT_EQ(tb->stats().readaheads_succeeded, 1u);
}

TEST(TraceBufferTest, MissingMiddleChunk) {
  auto tb = Make(4096);
  TestChunk(1)
      .Frag(Pattern(3, 1))
      .Frag(Pattern(20, 2))
      .Flags(kLastCont)
      .AddTo(tb.get());
  // Chunk 2 (the middle of the packet) never arrives.
  TestChunk(3)
      .Frag(Pattern(30, 3))
      .Frag(Pattern(4, 4))
      .Flags(kFirstCont)
      .AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].data, Pattern(3, 1));
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  EXPECT_EQ(pk[1].data, Pattern(4, 4));
  EXPECT_EQ(pk[1].previous_packet_dropped,
            kLoss | Packet::DATA_LOSS_REASSEMBLY_GAP);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
  EXPECT_EQ(tb->stats().abi_violations, 0u);
  // A late chunk 2 is stale now.
  TestChunk(2)
      .Frag(Pattern(5, 5))
      .Flags(kFirstCont | kLastCont)
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
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  EXPECT_EQ(pk[1].previous_packet_dropped, kLoss | Packet::DATA_LOSS_READ_GAP);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 1u);
}

TEST(TraceBufferTest, ContinuationWithoutBeginning) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(3, 1)).AddTo(tb.get());
  TestChunk(2)
      .Frag(Pattern(9, 2))
      .Frag(Pattern(4, 3))
      .Flags(kFirstCont)
      .AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[1].data, Pattern(4, 3));
  EXPECT_EQ(pk[1].previous_packet_dropped,
            kLoss | Packet::DATA_LOSS_ORPHAN_CONTINUATION);
  EXPECT_EQ(tb->stats().abi_violations, 1u);
}

TEST(TraceBufferTest, NextChunkLacksContinuationFlag) {
  auto tb = Make(4096);
  TestChunk(1).Frag(Pattern(20, 1)).Flags(kLastCont).AddTo(tb.get());
  TestChunk(2).Frag(Pattern(7, 2)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Pattern(7, 2));
  EXPECT_EQ(pk[0].previous_packet_dropped,
            kLoss | Packet::DATA_LOSS_REASSEMBLY_BROKEN_CHAIN);
  EXPECT_EQ(tb->stats().abi_violations, 1u);
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
    EXPECT_EQ(pk[i].previous_packet_dropped, i == 0 ? kOverwrite : kNone);
  }
  EXPECT_EQ(st.trace_writer_packet_loss, 0u);
  // Read chunks are overwritten silently.
  KiBChunk(7).AddTo(tb.get());
  KiBChunk(8).AddTo(tb.get());
  EXPECT_EQ(st.chunks_overwritten, 2u);
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  EXPECT_EQ(pk[1].previous_packet_dropped, kNone);
}

TEST(TraceBufferTest, OverwriteInsideFragmentedPacket) {
  auto tb = Make(4096);
  TestChunk c1(1);
  c1.Frag(Pattern(500, 1)).Frag(Pattern(490, 2)).Flags(kLastCont);
  c1.PadTo(1008).AddTo(tb.get());  // 1 KiB record.
  TestChunk(2)
      .Frag(Pattern(30, 3))
      .Frag(Pattern(40, 4))
      .Flags(kFirstCont)
      .PadTo(1008)
      .AddTo(tb.get());
  KiBChunk(1, 2).AddTo(tb.get());
  KiBChunk(2, 2).AddTo(tb.get());
  KiBChunk(3, 2).AddTo(tb.get());  // Overwrites chunk 1 of writer 1.
  EXPECT_EQ(tb->stats().chunks_overwritten, 1u);
  auto pk = ReadAll(tb.get());
  std::vector<Bytes> w1;
  for (const auto& p : pk) {
    if (p.writer_id == 1) {
      w1.push_back(p.data);
      EXPECT_EQ(p.previous_packet_dropped, kOverwrite);
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
    EXPECT_EQ(pk[i].previous_packet_dropped, kNone);
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
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
}

TEST(TraceBufferTest, ChunkBiggerThanBufferDiscarded) {
  auto tb = Make(4096, Policy::kDiscard);
  TestChunk(1).Frag(Pattern(5000, 1)).AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_discarded, 1u);
  TestChunk(2).Frag(Pattern(5, 2)).AddTo(tb.get());  // Not latched.
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].previous_packet_dropped, kLoss | Packet::DATA_LOSS_READ_GAP);
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
  EXPECT_EQ(pk[0].previous_packet_dropped, kOverwrite);
  EXPECT_EQ(pk[1].data, Pattern(1500, 4));
}

TEST(TraceBufferTest, ScrapedThenCompleteNoDuplicates) {
  auto tb = Make(4096);
  TestChunk full(1);
  full.Frag(Pattern(10, 1)).Frag(Pattern(11, 2)).Frag(Pattern(12, 3));
  full.PadTo(200);
  TestChunk scraped = full;
  scraped.Count(2).Scraped();
  std::fill(scraped.payload.begin() + 4 + 10 + 4 + 11, scraped.payload.end(),
            0);
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
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
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
  TestChunk other = done;
  other.PadTo(120);
  other.AddTo(tb.get());  // A complete chunk is never replaced...
  EXPECT_EQ(tb->stats().abi_violations, 2u);
  done.Scraped().AddTo(tb.get());  // ... not even by a scraped copy.
  EXPECT_EQ(tb->stats().abi_violations, 3u);
  EXPECT_EQ(ReadAll(tb.get()).size(), 1u);
}

// A flush copies complete chunks whose commit has not come yet; the commit
// then brings the same chunk again. The two are one, whether the first
// copy was read meanwhile or not: nothing returned twice, nothing counted.
// A chunk the reader gave up for lost that comes late still counts.
TEST(TraceBufferTest, ACompleteChunkCopiedTwiceIsOne) {
  auto tb = Make(4096);
  TestChunk c1(1), c2(2), c3(3);
  c1.Frag(Pattern(5, 1)).Frag(Pattern(6, 2));
  c2.Frag(Pattern(7, 3));
  c3.Frag(Pattern(8, 4));
  c1.AddTo(tb.get());
  c2.AddTo(tb.get());
  c1.AddTo(tb.get());  // Not read yet.
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 3u);
  c2.AddTo(tb.get());  // Read already.
  c3.AddTo(tb.get());
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Pattern(8, 4));
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  const TraceBufferStats& st = tb->stats();
  EXPECT_EQ(st.chunks_discarded, 0u);
  EXPECT_EQ(st.abi_violations, 0u);
  EXPECT_EQ(st.chunks_written, 3u);
  EXPECT_EQ(st.chunks_read, 3u);
  // Chunk 4 never came: 5 is read after the gap, then 4 comes late.
  TestChunk(5).Frag(Pattern(9, 5)).AddTo(tb.get());
  ASSERT_EQ(ReadAll(tb.get()).size(), 1u);
  TestChunk(4).Frag(Pattern(9, 6)).AddTo(tb.get());
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  EXPECT_EQ(st.chunks_discarded, 1u);
}

TEST(TraceBufferTest, OutOfOrderCommits) {
  auto tb = Make(4096);
  TestChunk(2)
      .Frag(Pattern(6, 2))
      .Frag(Pattern(7, 3))
      .Flags(kFirstCont)
      .AddTo(tb.get());
  TestChunk(1)
      .Frag(Pattern(4, 0))
      .Frag(Pattern(5, 1))
      .Flags(kLastCont)
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
    EXPECT_EQ(p.previous_packet_dropped, kNone);
}

TEST(TraceBufferTest, DropMarker) {
  auto tb = Make(4096);
  TestChunk c1(1);
  c1.Frag(Pattern(5, 1)).Count(2);
  c1.payload.resize(c1.payload.size() + 4);
  test::PutSize4(&c1.payload[c1.payload.size() - 4],
                 ABI::kPacketSizeDropPacket);
  c1.PadTo(64).AddTo(tb.get());
  TestChunk(2).Frag(Pattern(6, 2)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  EXPECT_EQ(pk[1].previous_packet_dropped,
            kLoss | Packet::DATA_LOSS_WRITER_ABORT);
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
  EXPECT_EQ(pk[0].previous_packet_dropped,
            kLoss | Packet::DATA_LOSS_WRITER_ABORT);
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
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  EXPECT_EQ(pk[1].data, Pattern(6, 2));
  EXPECT_EQ(pk[1].previous_packet_dropped, kCorrupted);
  EXPECT_EQ(pk[2].data, Pattern(7, 4));
  EXPECT_EQ(pk[2].previous_packet_dropped, kCorrupted);
  EXPECT_EQ(pk[3].data, Pattern(8, 5));
  EXPECT_EQ(pk[3].previous_packet_dropped, kCorrupted);
  EXPECT_EQ(tb->stats().abi_violations, 3u);
  EXPECT_EQ(tb->stats().chunks_read, 5u);
}

// Each header case as a chunk's last fragment, after a good one: the
// buffer reads it as SharedMemoryABI::ParsePacketHeader says (the same
// parser as scraping and the reference reader), and flags the next packet
// after a rejected one.
TEST(TraceBufferTest, EveryHeaderCase) {
  using S = ABI::PacketHeaderStatus;
  for (const test::PacketHeaderCase& c : test::PacketHeaderCases()) {
    SCOPED_TRACE(c.what);
    auto tb = Make(4096);
    TestChunk(1).Frag(Pattern(5, 1)).Raw(c.bytes).Count(2).AddTo(tb.get());
    TestChunk(2).Frag(Pattern(6, 2)).AddTo(tb.get());
    auto pk = ReadAll(tb.get());
    std::vector<Bytes> want = {Pattern(5, 1)};
    if (c.status == S::kOk && c.size > 0) {
      want.emplace_back(c.bytes.begin() + c.header_size,
                        c.bytes.begin() + c.header_size + c.size);
    }
    want.push_back(Pattern(6, 2));
    ASSERT_EQ(pk.size(), want.size());
    for (size_t i = 0; i < pk.size(); i++)
      EXPECT_EQ(pk[i].data, want[i]);
    uint32_t want_loss = kNone;
    if (c.status == S::kDropMarker)
      want_loss = kLoss | Packet::DATA_LOSS_WRITER_ABORT;
    else if (c.status != S::kOk)
      want_loss = kCorrupted;
    EXPECT_EQ(pk.back().previous_packet_dropped, want_loss);
    const bool malformed = c.status != S::kOk && c.status != S::kDropMarker;
    EXPECT_EQ(tb->stats().abi_violations, malformed ? 1u : 0u);
    EXPECT_EQ(tb->stats().trace_writer_packet_loss,
              c.status == S::kDropMarker ? 1u : 0u);
    EXPECT_EQ(tb->stats().chunks_read, 2u);
  }
}

// Causes accumulate until a packet carries them: a writer's drop marker,
// then a chunk that never came.
TEST(TraceBufferTest, LossCausesAccumulate) {
  auto tb = Make(4096);
  TestChunk c1(1);
  c1.Frag(Pattern(5, 1)).Raw({0xFF, 0xFF, 0xFF, 0x7F}).Count(2);
  c1.AddTo(tb.get());
  TestChunk(3).Frag(Pattern(6, 3)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
  EXPECT_EQ(pk[1].previous_packet_dropped, kLoss |
                                               Packet::DATA_LOSS_WRITER_ABORT |
                                               Packet::DATA_LOSS_READ_GAP);
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 2u);
}

// The first chunk of a sequence that starts with the end of a packet: the
// beginning was lost before this buffer saw the sequence. Not a producer
// bug, but a loss all the same.
TEST(TraceBufferTest, SequenceStartingMidPacket) {
  auto tb = Make(4096);
  TestChunk(7)
      .Frag(Pattern(9, 1))
      .Frag(Pattern(4, 2))
      .Flags(kFirstCont)
      .AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Pattern(4, 2));
  EXPECT_EQ(pk[0].previous_packet_dropped,
            kLoss | Packet::DATA_LOSS_ORPHAN_CONTINUATION);
  EXPECT_EQ(tb->stats().abi_violations, 0u);
}

// Nothing is assumed about what came before a sequence's first chunk (its
// writer's first_packet_on_sequence says it to readers), and a new read
// pass does not mark its first packet either. A loss the buffer saw before
// the first read is marked: it voids the sequence's incremental state.
TEST(TraceBufferTest, FirstPacketCarriesOnlyKnownLosses) {
  auto tb = Make(4096);
  KiBChunk(1, 2).AddTo(tb.get());
  KiBChunk(2, 2).AddTo(tb.get());
  KiBChunk(100, 1).AddTo(tb.get());  // Writer 1 starts at id 100.
  KiBChunk(101, 1).AddTo(tb.get());
  KiBChunk(102, 1).AddTo(tb.get());  // Overwrites writer 2's chunk 1.
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 4u);
  for (const auto& p : pk) {
    if (p.writer_id == 2)
      EXPECT_EQ(p.previous_packet_dropped, kOverwrite);
    else
      EXPECT_EQ(p.previous_packet_dropped, kNone);
  }
  KiBChunk(103, 1).AddTo(tb.get());
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].previous_packet_dropped, kNone);
}

// A chunk deleted unread while an older one of its sequence is still
// stored (it arrived out of order, so it sits before it in the ring): the
// packets before the hole stay unflagged, the one after it says OVERWRITE,
// not READ_GAP, and the writer is not blamed.
TEST(TraceBufferTest, OverwrittenHoleInsideASequence) {
  auto tb = Make(4096);
  KiBChunk(2).AddTo(tb.get());
  KiBChunk(1).AddTo(tb.get());
  KiBChunk(3).AddTo(tb.get());
  KiBChunk(1, 2).AddTo(tb.get());
  KiBChunk(2, 2).AddTo(tb.get());  // Overwrites writer 1's chunk 2.
  EXPECT_EQ(tb->stats().chunks_overwritten, 1u);
  auto pk = ReadAll(tb.get());
  std::vector<uint32_t> w1;
  for (const auto& p : pk) {
    if (p.writer_id == 1)
      w1.push_back(p.previous_packet_dropped);
  }
  EXPECT_EQ(w1, (std::vector<uint32_t>{kNone, kOverwrite}));
  EXPECT_EQ(tb->stats().trace_writer_packet_loss, 0u);
}

// A scraped chunk stands for packets still to come: deleting it before its
// complete copy arrives loses them, even though all it showed was read.
TEST(TraceBufferTest, ScrapedChunkOverwrittenBeforeItsCompleteCopy) {
  auto tb = Make(4096);
  TestChunk scraped(1);
  scraped.Frag(Pattern(10, 1)).PadTo(1008).Scraped();
  scraped.AddTo(tb.get());
  ASSERT_EQ(ReadAll(tb.get()).size(), 1u);
  for (uint32_t id = 1; id <= 4; id++)
    KiBChunk(id, 2).AddTo(tb.get());  // The last one overwrites it.
  TestChunk(2).Frag(Pattern(7, 2)).AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  std::vector<uint32_t> w1;
  for (const auto& p : pk) {
    if (p.writer_id == 1)
      w1.push_back(p.previous_packet_dropped);
  }
  EXPECT_EQ(w1, (std::vector<uint32_t>{kOverwrite}));
}

// Chunks older than the newest stored of their sequence (a scraped chunk
// committed ahead of those its writer had not committed yet) are stored in
// id order and read in it, unflagged.
TEST(TraceBufferTest, LateChunksAreReadInOrder) {
  auto tb = Make(64 * 1024);
  for (uint32_t id : {10u, 7u, 8u, 9u, 12u, 11u})
    TestChunk(id).Frag(Pattern(5, id)).AddTo(tb.get());
  EXPECT_EQ(tb->stats().chunks_committed_out_of_order, 4u);
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 6u);
  for (uint32_t i = 0; i < 6; i++) {
    EXPECT_EQ(pk[i].data, Pattern(5, 7 + i));
    EXPECT_EQ(pk[i].previous_packet_dropped, kNone);
  }
  EXPECT_EQ(tb->stats().abi_violations, 0u);
}

// A late chunk is taken up to 32 places from the newest of its sequence,
// and not further (nor across more than 2^31 ids), whatever the length of
// the sequence: keeping the index sorted stays cheap for any producer.
TEST(TraceBufferTest, LateChunksOnlyWithinReach) {
  auto tb = Make(256 * 1024);
  for (uint32_t id = 100; id < 132; id++)  // 32 chunks.
    TestChunk(id).Frag(Pattern(3, id)).AddTo(tb.get());
  TestChunk(99).Frag(Pattern(3, 99)).AddTo(tb.get());  // 32 places back.
  EXPECT_EQ(tb->stats().abi_violations, 0u);
  TestChunk(98).Frag(Pattern(3, 98)).AddTo(tb.get());  // 33 places back.
  EXPECT_EQ(tb->stats().abi_violations, 1u);
  EXPECT_EQ(tb->stats().chunks_discarded, 1u);
  // Near the back of a long sequence is fine.
  for (uint32_t id = 132; id < 400; id++) {
    if (id != 390)
      TestChunk(id).Frag(Pattern(3, id)).AddTo(tb.get());
  }
  TestChunk(390).Frag(Pattern(3, 390)).AddTo(tb.get());
  // 2^31 ids away orders neither way.
  TestChunk(100u + 0x80000000u).Frag(Pattern(3, 1)).AddTo(tb.get());
  EXPECT_EQ(tb->stats().abi_violations, 2u);
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 400u - 99u);
  for (uint32_t i = 0; i < pk.size(); i++) {
    EXPECT_EQ(pk[i].data, Pattern(3, 99 + i));
    EXPECT_EQ(pk[i].previous_packet_dropped, kNone);
  }
}

TEST(TraceBufferTest, WriterZeroRejected) {
  auto tb = Make(4096);
  TestChunk(1).Writer(0).Frag(Pattern(5, 1)).AddTo(tb.get());
  EXPECT_EQ(tb->stats().abi_violations, 1u);
  EXPECT_EQ(tb->stats().chunks_written, 0u);
}

TEST(TraceBufferTest, ChunkIdWrapAround) {
  auto tb = Make(4096);
  TestChunk(0xFFFFFFFFu)
      .Frag(Pattern(5, 1))
      .Frag(Pattern(6, 2))
      .Flags(kLastCont)
      .AddTo(tb.get());
  TestChunk(0)
      .Frag(Pattern(7, 3))
      .Frag(Pattern(8, 4))
      .Flags(kFirstCont)
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
    const uint32_t n = seen[producer]++;
    const uint32_t id = 6 + n / 2;
    EXPECT_EQ(pk[i].data,
              Pattern(10 + n % 2, producer * 100 + id + (n % 2) * 50));
    EXPECT_EQ(pk[i].previous_packet_dropped, kNone);
  }
}

}  // namespace
}  // namespace zt
