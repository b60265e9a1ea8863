#include "zt/ext/tracing/core/trace_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/core/test_packets.h"
#include "src/tracing/core/test_service.h"
#include "src/tracing/core/test_smb.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
using test::ExpectPacket;
using test::InlineService;
using test::SmbSetup;
using test::WritePacket;

TEST(TraceWriterTest, SmallPacketsInOneChunk) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(7);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->writer_id(), 1);
  for (uint64_t i = 0; i < 3; i++)
    WritePacket(w.get(), 0, i, 10 + i);
  EXPECT_TRUE(s.service.history().empty() && s.service.pending_commits() == 0)
      << "nothing committed before the chunk is full or flushed";
  w->Flush();
  s.service.Drain();
  ASSERT_EQ(s.service.history().size(), 1u);
  const CommitData& c = s.service.history()[0];
  ASSERT_EQ(c.chunks_to_move.size(), 1u);
  EXPECT_EQ(c.chunks_to_move[0].target_buffer, 7u);
  EXPECT_TRUE(c.chunks_to_patch.empty());
  ASSERT_EQ(s.service.chunk_headers().size(), 1u);
  const auto& h = s.service.chunk_headers()[0];
  EXPECT_EQ(h.writer_id, 1);
  EXPECT_EQ(h.chunk_id, 0u);
  // And an empty one: counted when the third ended, so that a scrape takes
  // the third (ScrapeTakesEveryFinishedPacket).
  EXPECT_EQ(h.packet_count, 4);
  EXPECT_EQ(h.flags, 0);
  ASSERT_EQ(s.service.packets().size(), 3u);
  for (uint64_t i = 0; i < 3; i++)
    ExpectPacket(s.service.packets()[i], 0, i, 10 + i);
  EXPECT_EQ(w->stats().packets_started, 3u);
  EXPECT_EQ(w->stats().packets_dropped, 0u);
}

TEST(TraceWriterTest, FragmentsFlagsAndPatches) {
  SharedMemoryArbiter::Options opt;
  opt.layout = ABI::kPageDiv4;  // 1020-byte chunks.
  SmbSetup s(16 * 4096, 4096, opt);
  auto w = s.arbiter->CreateTraceWriter(1);
  WritePacket(w.get(), 0, 0, 5);
  WritePacket(w.get(), 0, 1, 5000);  // ~5 chunks.
  WritePacket(w.get(), 0, 2, 5);
  w->Flush();
  s.service.Drain();
  const auto& hdrs = s.service.chunk_headers();
  ASSERT_GE(hdrs.size(), 5u);
  for (size_t i = 0; i < hdrs.size(); i++)
    EXPECT_EQ(hdrs[i].chunk_id, i) << "chunk ids are consecutive";
  // First chunk: packet 0, then the start of packet 1 with open nested
  // messages whose sizes live here.
  EXPECT_EQ(hdrs[0].packet_count, 2);
  EXPECT_EQ(hdrs[0].flags, ABI::kLastPacketContinuesOnNextChunk |
                               ABI::kChunkNeedsPatching);
  for (size_t i = 1; i + 1 < hdrs.size(); i++) {
    EXPECT_EQ(hdrs[i].packet_count, 1);
    EXPECT_EQ(hdrs[i].flags, ABI::kFirstPacketContinuesFromPrevChunk |
                                 ABI::kLastPacketContinuesOnNextChunk);
  }
  EXPECT_EQ(hdrs.back().packet_count, 3) << "the end of 1, 2, an empty slot";
  EXPECT_EQ(hdrs.back().flags, ABI::kFirstPacketContinuesFromPrevChunk);
  // Three size fields (for_testing, payload, nested) patched, for chunk 0.
  size_t patches = 0;
  for (const CommitData& c : s.service.history()) {
    for (const auto& p : c.chunks_to_patch) {
      EXPECT_EQ(p.chunk_id, 0u);
      EXPECT_EQ(p.writer_id, 1);
      EXPECT_FALSE(p.has_more_patches);
      for (const auto& patch : p.patches) {
        EXPECT_LT(patch.offset, 1020u - 8u);
        EXPECT_EQ(patch.data[0] & 0x80, 0x80);
        patches++;
      }
    }
  }
  EXPECT_EQ(patches, 3u);
  EXPECT_EQ(s.service.reassembler().stats().patches_applied, 3u);
  ASSERT_EQ(s.service.packets().size(), 3u);
  ExpectPacket(s.service.packets()[0], 0, 0, 5);
  ExpectPacket(s.service.packets()[1], 0, 1, 5000);
  ExpectPacket(s.service.packets()[2], 0, 2, 5);
  EXPECT_EQ(w->pending_patches(), 0u);
}

TEST(TraceWriterTest, PacketLargerThanTheSmbWithAServiceDraining) {
  std::unique_ptr<uint8_t, decltype(&free)> mem(
      static_cast<uint8_t*>(aligned_alloc(4096, 2 * 8192)), &free);
  memset(mem.get(), 0, 2 * 8192);
  ABI service_abi(mem.get(), 2 * 8192, 8192);
  InlineService sink(&service_abi);
  SharedMemoryArbiter::Options opt;
  opt.layout = ABI::kPageDiv2;
  opt.commit_batch_chunks = 1;
  SharedMemoryArbiter arbiter(mem.get(), 2 * 8192, 8192, &sink, opt);
  {
    auto w = arbiter.CreateTraceWriter(0);
    for (uint64_t i = 0; i < 4; i++)
      WritePacket(w.get(), 3, i, i == 2 ? (1u << 20) : 100);
    w->Flush();
    EXPECT_EQ(w->stats().packets_dropped, 0u);
  }
  sink.service().Finish();
  auto& pk = sink.service().packets();
  ASSERT_EQ(pk.size(), 4u);
  for (uint64_t i = 0; i < 4; i++)
    ExpectPacket(pk[i], 3, i, i == 2 ? (1u << 20) : 100);
  EXPECT_EQ(sink.service().reassembler().stats().packets_emitted, 4u);
  EXPECT_EQ(sink.service().reassembler().stats().patches_applied, 3u);
}

TEST(TraceWriterTest, DropPolicyCountsAndMarks) {
  // One 4 KiB page, nobody draining: the writer runs out of chunks.
  SmbSetup s(4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kDrop);
  uint64_t seq = 0;
  for (; seq < 400; seq++)
    WritePacket(w.get(), 0, seq, 20);
  EXPECT_TRUE(w->is_dropping());
  const uint64_t dropped = w->stats().packets_dropped;
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(w->stats().drop_episodes, 1u);
  EXPECT_GE(s.arbiter->stats().chunks_unavailable, 1u);
  // The service catches up; the next packet makes it and is marked.
  s.service.Drain();
  const size_t before = s.service.packets().size();
  WritePacket(w.get(), 0, seq, 20);
  EXPECT_FALSE(w->is_dropping());
  w->Flush();
  s.service.Finish();
  auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), before + 1);
  EXPECT_EQ(before + dropped, 400u) << "every packet is delivered or counted";
  for (size_t i = 0; i < before; i++)
    ExpectPacket(pk[i], 0, i, 20);
  ExpectPacket(pk.back(), 0, seq, 20, /*dropped_before=*/true);
}

// Packets dropped at the end of a sequence are told too: Flush() writes an
// empty packet carrying the mark once a chunk is free, and not twice.
TEST(TraceWriterTest, FlushTellsALossAtTheEnd) {
  SmbSetup s(4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kDrop);
  uint64_t seq = 0;
  for (; seq < 400; seq++)
    WritePacket(w.get(), 0, seq, 20);
  ASSERT_TRUE(w->is_dropping());
  w->Flush();  // No chunk free yet: nothing to write the mark into.
  s.service.Drain();
  const size_t before = s.service.packets().size();
  w->Flush();  // Now there is one.
  EXPECT_FALSE(w->is_dropping());
  w->Flush();  // Told already.
  s.service.Finish();
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), before + 1);
  std::vector<uint8_t> mark = pk.back().data;
  EXPECT_TRUE(test::StripPreviousDropped(&mark));
  EXPECT_TRUE(mark.empty()) << "only the mark";
}

uint64_t ReportedDrops(const std::vector<CommitData>& history, uint16_t writer_id) {
  uint64_t packets = 0;
  for (const CommitData& c : history) {
    for (const CommitData::WriterDrops& d : c.writer_drops) {
      if (d.writer_id == writer_id)
        packets += d.packets;
    }
  }
  return packets;
}

// A writer that drops and then writes nothing more leaves no packet to
// carry the mark: its drops reach the service in the commits instead, at
// the next flush (a stop's) and when it goes, each counted once.
TEST(TraceWriterTest, DropsAreReportedWithoutALaterPacket) {
  SmbSetup s(4096, 4096);  // Nobody drains: no chunk frees up.
  auto w = s.arbiter->CreateTraceWriter(3, BufferExhaustedPolicy::kDrop);
  const uint16_t id = w->writer_id();
  for (uint64_t seq = 0; seq < 400; seq++)
    WritePacket(w.get(), 0, seq, 20);
  ASSERT_TRUE(w->is_dropping());
  const uint64_t dropped = w->stats().packets_dropped;
  ASSERT_GT(dropped, 0u);
  s.arbiter->FlushPendingCommitData(7);  // What a flush or a stop does.
  s.service.Drain();
  EXPECT_EQ(ReportedDrops(s.service.history(), id), dropped);
  for (const CommitData& c : s.service.history()) {
    for (const CommitData::WriterDrops& d : c.writer_drops)
      EXPECT_EQ(d.target_buffer, 3u);
  }
  // The drain freed the chunks: fill them again until more drops, then the
  // writer goes (still no chunk for a mark).
  for (uint64_t seq = 400; seq < 4000 && w->stats().packets_dropped < dropped + 50; seq++)
    WritePacket(w.get(), 0, seq, 20);
  const uint64_t total = w->stats().packets_dropped;
  ASSERT_GE(total, dropped + 50);
  ASSERT_TRUE(w->is_dropping());
  w.reset();
  s.arbiter->FlushPendingCommitData();
  s.service.Drain();
  EXPECT_EQ(ReportedDrops(s.service.history(), id), total) << "each drop once";
}

TEST(TraceWriterTest, DropInsideAPacketWritesTheDropMarker) {
  SharedMemoryArbiter::Options opt;
  opt.layout = ABI::kPageDiv2;
  SmbSetup s(2 * 4096, 4096, opt);
  auto w = s.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kDrop);
  WritePacket(w.get(), 0, 0, 10);
  WritePacket(w.get(), 0, 1, 50000);  // Far more than the 4 chunks.
  EXPECT_EQ(w->stats().packets_dropped, 1u);
  s.service.Drain();
  WritePacket(w.get(), 0, 2, 10);
  w->Flush();
  s.service.Finish();
  const auto& st = s.service.reassembler().stats();
  EXPECT_EQ(st.drop_markers, 1u);
  EXPECT_EQ(st.packets_emitted, 2u);
  auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), 2u);
  ExpectPacket(pk[0], 0, 0, 10);
  ExpectPacket(pk[1], 0, 2, 10, /*dropped_before=*/true);
  EXPECT_TRUE(pk[1].loss_before);
}

TEST(TraceWriterTest, StallThenDropWaitsBoundedThenDrops) {
  SharedMemoryArbiter::Options opt;
  opt.stall_timeout = std::chrono::milliseconds(30);
  SmbSetup s(4096, 4096, opt);
  auto w = s.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kStallThenDrop);
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seq = 0; seq < 400; seq++)
    WritePacket(w.get(), 0, seq, 20);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(elapsed, std::chrono::milliseconds(30));
  EXPECT_LT(elapsed, std::chrono::seconds(5)) << "dropping must not stall again";
  const auto st = s.arbiter->stats();
  EXPECT_EQ(st.stalls, 1u);
  EXPECT_EQ(st.stall_timeouts, 1u);
  EXPECT_GT(w->stats().packets_dropped, 0u);
  EXPECT_GE(st.commits, 1u) << "a stalling writer commits what is pending";
}

TEST(TraceWriterTest, StallResolvedByAServiceThread) {
  SharedMemoryArbiter::Options opt;
  opt.stall_timeout = std::chrono::seconds(10);
  // Two chunks: a writer takes its next chunk before returning the current
  // one, so a one-chunk SMB can never satisfy it.
  SmbSetup s(2 * 4096, 4096, opt);
  std::atomic<bool> stop{false};
  std::thread service([&] {
    while (!stop.load()) {
      s.service.WaitForCommit(5);
      s.service.Drain();
    }
  });
  {
    auto w = s.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kStallThenDrop);
    for (uint64_t seq = 0; seq < 2000; seq++)
      WritePacket(w.get(), 0, seq, 20);
    w->Flush();
    EXPECT_EQ(w->stats().packets_dropped, 0u);
  }
  stop = true;
  service.join();
  s.service.Finish();
  ASSERT_EQ(s.service.packets().size(), 2000u);
  for (uint64_t seq = 0; seq < 2000; seq++)
    ExpectPacket(s.service.packets()[seq], 0, seq, 20);
}

// What a stop or a flush gets from a thread that wrote and then went quiet:
// every packet it finished (its last one was left out before the writer
// counted the next slot at each packet's end), never the one still open.
TEST(TraceWriterTest, ScrapeTakesEveryFinishedPacketButNotAnOpenOne) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  for (uint64_t i = 0; i < 3; i++)
    WritePacket(w.get(), 0, i, 30);
  ABI::ChunkCopy copy;
  ASSERT_TRUE(s.service_abi.ScrapeChunk(0, 0, &copy));
  ASSERT_TRUE(s.service.reassembler().AddChunk(std::move(copy)));
  s.service.Drain();
  EXPECT_EQ(s.service.packets().size(), 3u) << "the last finished packet too";
  {
    auto open = w->NewTracePacket();
    test::WriteTestPacket(open.get(), 0, 3, test::TestPayload(0, 3, 30));
    ABI::ChunkCopy during;
    ASSERT_TRUE(s.service_abi.ScrapeChunk(0, 0, &during));
    ASSERT_TRUE(s.service.reassembler().AddChunk(std::move(during)));
    s.service.Drain();
    EXPECT_EQ(s.service.packets().size(), 3u) << "not the open one";
  }
  w->Flush();
  s.service.Finish();
  ASSERT_EQ(s.service.packets().size(), 4u);
  for (uint64_t i = 0; i < 4; i++)
    ExpectPacket(s.service.packets()[i], 0, i, 30);
}

TEST(TraceWriterTest, ScrapedChunkThenCompleteCopy) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  for (uint64_t i = 0; i < 5; i++)
    WritePacket(w.get(), 0, i, 30);
  // Flush-time scraping: packets 0..4 are finished (the next one is
  // counted already, so packet 4 is not the last).
  ABI::ChunkCopy copy;
  ASSERT_TRUE(s.service_abi.ScrapeChunk(0, 0, &copy));
  EXPECT_FALSE(copy.complete);
  EXPECT_EQ(copy.header.packet_count, 6);
  ASSERT_TRUE(s.service.reassembler().AddChunk(std::move(copy)));
  s.service.Drain();
  EXPECT_EQ(s.service.packets().size(), 5u);
  WritePacket(w.get(), 0, 5, 30);
  w->Flush();
  s.service.Finish();
  auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), 6u);
  for (uint64_t i = 0; i < 6; i++)
    ExpectPacket(pk[i], 0, i, 30);
  EXPECT_EQ(s.service.reassembler().stats().chunks_replaced, 1u);
}

TEST(TraceWriterTest, ChunkIdsMonotonicAcrossFlushes) {
  SmbSetup s(8 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  for (int round = 0; round < 5; round++) {
    WritePacket(w.get(), 0, round, 10);
    w->Flush();
  }
  s.service.Finish();
  const auto& hdrs = s.service.chunk_headers();
  ASSERT_EQ(hdrs.size(), 5u);
  for (uint32_t i = 0; i < 5; i++)
    EXPECT_EQ(hdrs[i].chunk_id, i);
  EXPECT_EQ(s.service.packets().size(), 5u);
}

TEST(TraceWriterTest, MaxPacketsPerChunk) {
  // 64 KiB page, one chunk: 1-byte-payload packets exceed the 10-bit count.
  SmbSetup s(4 * 65536, 65536);
  auto w = s.arbiter->CreateTraceWriter(0);
  for (uint64_t i = 0; i < 3000; i++) {
    auto p = w->NewTracePacket();
    p->set_timestamp(i);
  }
  w->Flush();
  s.service.Finish();
  for (const auto& h : s.service.chunk_headers())
    EXPECT_LE(h.packet_count, ABI::kMaxPacketCount);
  ASSERT_EQ(s.service.packets().size(), 3000u);
  EXPECT_EQ(s.service.chunk_headers().size(), 3u);
}

TEST(TraceWriterTest, WriterIdsAreUniqueAndBounded) {
  SmbSetup s(4096, 4096);
  std::vector<std::unique_ptr<TraceWriter>> writers;
  std::vector<bool> seen(65536, false);
  for (int i = 0; i < 65535; i++) {
    auto w = s.arbiter->CreateTraceWriter(0);
    ASSERT_TRUE(w);
    ASSERT_NE(w->writer_id(), 0);
    ASSERT_FALSE(seen[w->writer_id()]);
    seen[w->writer_id()] = true;
    writers.push_back(std::move(w));
  }
  EXPECT_FALSE(s.arbiter->CreateTraceWriter(0));
  EXPECT_EQ(s.arbiter->stats().writer_ids_exhausted, 1u);
  const uint16_t freed = writers[100]->writer_id();
  writers[100].reset();
  auto again = s.arbiter->CreateTraceWriter(0);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->writer_id(), freed);
}

TEST(CommitDataTest, RoundTripAndRejects) {
  CommitData c;
  c.chunks_to_move.push_back({3, 1, 9});
  c.chunks_to_move.push_back({0, 13, 0});
  CommitData::ChunkToPatch p;
  p.target_buffer = 2;
  p.writer_id = 65535;
  p.chunk_id = 0xFFFFFFFF;
  p.patches.push_back({4066, {0x81, 0x80, 0x80, 0x00}});
  p.has_more_patches = true;
  c.chunks_to_patch.push_back(p);
  c.flush_request_id = 77;
  const std::string bytes = SerializeCommitData(c);
  CommitData back;
  ASSERT_TRUE(ParseCommitData(reinterpret_cast<const uint8_t*>(bytes.data()),
                                bytes.size(), &back));
  EXPECT_TRUE(back == c);
  // Truncations never parse as something else silently... or at least never
  // crash; a cut inside a field is a parse error.
  EXPECT_FALSE(ParseCommitData(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 bytes.size() - 1, &back));
  // writer_id above 16 bits, patch data of 3 bytes, inline chunk data.
  const uint8_t big_writer[] = {0x12, 0x04, 0x10, 0x80, 0x80, 0x04};
  EXPECT_FALSE(ParseCommitData(big_writer, sizeof(big_writer), &back));
  const uint8_t short_patch[] = {0x12, 0x07, 0x22, 0x05, 0x12, 0x03, 1, 2, 3};
  EXPECT_FALSE(ParseCommitData(short_patch, sizeof(short_patch), &back));
  const uint8_t inline_data[] = {0x0A, 0x03, 0x22, 0x01, 0x00};
  EXPECT_FALSE(ParseCommitData(inline_data, sizeof(inline_data), &back));
}

}  // namespace
}  // namespace zt
