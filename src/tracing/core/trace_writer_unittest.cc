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
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;

// An SMB, the producer's arbiter over it and a service with its own view.
struct SmbSetup {
  SmbSetup(size_t smb_size, size_t page_size,
        SharedMemoryArbiter::Options options = SharedMemoryArbiter::Options())
      : mem(static_cast<uint8_t*>(aligned_alloc(4096, smb_size))),
        service_abi(mem, smb_size, page_size),
        service(&service_abi) {
    memset(mem, 0, smb_size);
    arbiter.reset(
        new SharedMemoryArbiter(mem, smb_size, page_size, &service, options));
  }
  ~SmbSetup() {
    arbiter.reset();
    free(mem);
  }
  uint8_t* mem;
  ABI service_abi;
  TestService service;
  std::unique_ptr<SharedMemoryArbiter> arbiter;
};

// A sink that plays the service synchronously inside OnCommit, so a single
// thread can write more than the SMB holds.
class InlineService : public CommitSink {
 public:
  explicit InlineService(ABI* abi) : service_(abi) {}
  void OnCommit(CommitData data) override {
    service_.OnCommit(std::move(data));
    service_.Drain();
  }
  TestService& service() { return service_; }

 private:
  TestService service_;
};

void WritePacket(TraceWriter* w, uint32_t writer, uint64_t seq, size_t size) {
  auto p = w->NewTracePacket();
  test::WriteTestPacket(p.get(), writer, seq, test::TestPayload(writer, seq, size));
}

void ExpectPacket(const ReassembledPacket& got, uint32_t writer, uint64_t seq,
                  size_t size, bool dropped_before = false) {
  std::vector<uint8_t> data = got.data;
  EXPECT_EQ(test::StripPreviousDropped(&data), dropped_before) << "seq " << seq;
  // Each test writer starts at seq 0: only that packet says it is first.
  EXPECT_EQ(test::StripFirstOnSequence(&data), seq == 0) << "seq " << seq;
  EXPECT_EQ(data, test::ExpectedPacket(writer, seq, size)) << "seq " << seq;
}

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
  EXPECT_EQ(h.packet_count, 3);
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
  EXPECT_EQ(hdrs.back().packet_count, 2);
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

TEST(TraceWriterTest, ScrapedChunkThenCompleteCopy) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  for (uint64_t i = 0; i < 5; i++)
    WritePacket(w.get(), 0, i, 30);
  // Flush-time scraping: packets 0..3 are finished, packet 4 might not be.
  ABI::ChunkCopy copy;
  ASSERT_TRUE(s.service_abi.ScrapeChunk(0, 0, &copy));
  EXPECT_FALSE(copy.complete);
  EXPECT_EQ(copy.header.packet_count, 5);
  ASSERT_TRUE(s.service.reassembler().AddChunk(std::move(copy)));
  s.service.Drain();
  EXPECT_EQ(s.service.packets().size(), 4u);
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

// The raw fast path (BeginRawPacket / EndRawPacketAndBeginNext /
// EndRawBytes). Raw packets are TracePackets of exactly |size| bytes:
// timestamp = seq, then (size >= 5) padding in synchronization_marker.
std::vector<uint8_t> RawPacket(uint64_t seq, size_t size) {
  std::vector<uint8_t> b = {0x40, static_cast<uint8_t>(seq & 0x7F)};
  if (size == 2)
    return b;
  EXPECT_TRUE(size >= 5 && size <= TraceWriter::kMaxRawPacketSize) << size;
  const std::string pad = test::TestPayload(9, seq, size - 5);
  b.insert(b.end(), {0xA2, 0x02, static_cast<uint8_t>(size - 5)});  // Field 36.
  b.insert(b.end(), pad.begin(), pad.end());
  return b;
}

// Writes |bytes| through the raw path and returns their end, or null if
// BeginRawPacket() refused (nothing written then).
uint8_t* WriteRawBytes(TraceWriter* w, const std::vector<uint8_t>& bytes) {
  uint8_t* dst = w->BeginRawPacket();
  if (!dst)
    return nullptr;
  memcpy(dst, bytes.data(), bytes.size());
  return dst + bytes.size();
}

// A raw packet closed with EndRawPacketAndBeginNext(), its 4-byte size
// field checked in place. Returns false if the writer refused it.
bool WriteRawPacket(TraceWriter* w, const std::vector<uint8_t>& bytes) {
  uint8_t* end = WriteRawBytes(w, bytes);
  if (!end)
    return false;
  w->EndRawPacketAndBeginNext(end);
  uint8_t* size_field = end - bytes.size() - ABI::kPacketHeaderSize;
  const std::vector<uint8_t> got(size_field, size_field + ABI::kPacketHeaderSize);
  const std::vector<uint8_t> want = {
      static_cast<uint8_t>(bytes.size() | 0x80), 0x80, 0x80, 0x00};
  EXPECT_EQ(got, want) << "a redundant 4-byte varint";
  return true;
}

// Bytes left in the chunk for the open packet.
size_t Room(const TraceWriter::TracePacketHandle& h) {
  return static_cast<size_t>(h->stream_writer()->end() -
                             h->stream_writer()->write_ptr());
}

// Writes raw packets (appended to |raw|) until the open, empty packet has
// exactly |target| bytes of room; every one must be accepted.
void RawFillToRoom(TraceWriter* w, const TraceWriter::TracePacketHandle& h,
                   size_t target, uint64_t* seq,
                   std::vector<std::vector<uint8_t>>* raw) {
  for (;;) {
    const size_t room = Room(h);
    ASSERT_GE(room, target + ABI::kPacketHeaderSize + 5);
    const size_t last = room - target - ABI::kPacketHeaderSize;
    // Either the last packet, or one that leaves 64 bytes for it.
    const size_t size = last <= TraceWriter::kMaxRawPacketSize
                            ? last
                            : std::min<size_t>(100, last - 68);
    raw->push_back(RawPacket((*seq)++, size));
    ASSERT_TRUE(WriteRawPacket(w, raw->back())) << "room " << room;
    if (size == last)
      break;
  }
  ASSERT_EQ(Room(h), target);
}

TEST(TraceWriterRawTest, RawPacketsBetweenHandlePackets) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  // The sequence's first packet carries first_packet_on_sequence: never raw.
  WritePacket(w.get(), 0, 0, 10);
  std::vector<std::vector<uint8_t>> raw;
  auto h = w->NewTracePacket();
  for (uint64_t seq = 1; seq <= 3; seq++) {
    raw.push_back(RawPacket(seq, 5 + seq * 30));
    ASSERT_TRUE(WriteRawPacket(w.get(), raw.back())) << seq;
  }
  test::WriteTestPacket(h.get(), 0, 4, test::TestPayload(0, 4, 10));
  h.Finish();
  h = w->NewTracePacket();
  raw.push_back(RawPacket(5, TraceWriter::kMaxRawPacketSize));
  ASSERT_TRUE(WriteRawPacket(w.get(), raw.back()));
  raw.push_back(RawPacket(6, 2));
  ASSERT_TRUE(WriteRawPacket(w.get(), raw.back()));
  h.Finish();  // The packet opened by the last raw one: empty.
  w->Flush();
  s.service.Finish();
  ASSERT_EQ(s.service.chunk_headers().size(), 1u);
  EXPECT_EQ(s.service.chunk_headers()[0].packet_count, 8)
      << "2 by handle, 5 raw, 1 empty";
  EXPECT_EQ(s.service.chunk_headers()[0].flags, 0);
  const auto& st = s.service.reassembler().stats();
  EXPECT_EQ(st.empty_packets, 1u);
  EXPECT_EQ(st.bad_size_varints + st.sizes_out_of_bounds +
                st.count_flag_mismatches,
            0u);
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), 7u);
  ExpectPacket(pk[0], 0, 0, 10);
  EXPECT_EQ(pk[1].data, raw[0]);
  EXPECT_EQ(pk[2].data, raw[1]);
  EXPECT_EQ(pk[3].data, raw[2]);
  ExpectPacket(pk[4], 0, 4, 10);
  EXPECT_EQ(pk[5].data, raw[3]);
  EXPECT_EQ(pk[6].data, raw[4]);
}

// The point of the open packet at the end: a scraped chunk gives every
// finished raw packet.
TEST(TraceWriterRawTest, ScrapeTakesEveryFinishedRawPacket) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  auto h = w->NewTracePacket();
  std::vector<std::vector<uint8_t>> raw;
  for (uint64_t seq = 1; seq <= 4; seq++) {
    raw.push_back(RawPacket(seq, 20));
    ASSERT_TRUE(WriteRawPacket(w.get(), raw.back()));
  }
  ABI::ChunkCopy copy;
  ASSERT_TRUE(s.service_abi.ScrapeChunk(0, 0, &copy));
  EXPECT_FALSE(copy.complete);
  EXPECT_EQ(copy.header.packet_count, 6);
  ASSERT_TRUE(s.service.reassembler().AddChunk(std::move(copy)));
  s.service.Drain();
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), 5u);
  ExpectPacket(pk[0], 0, 0, 10);
  for (size_t i = 0; i < 4; i++)
    EXPECT_EQ(pk[i + 1].data, raw[i]) << i;
  h.Finish();
  w->Flush();
  s.service.Finish();
  EXPECT_EQ(s.service.packets().size(), 5u) << "the complete copy adds none";
}

TEST(TraceWriterRawTest, RefusedWithoutAnOpenEmptyPacket) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "no packet yet";
  auto h = w->NewTracePacket();
  EXPECT_EQ(w->BeginRawPacket(), nullptr)
      << "the first packet holds first_packet_on_sequence";
  h.Finish();
  h = w->NewTracePacket();
  ASSERT_NE(w->BeginRawPacket(), nullptr) << "open and empty";
  h.Finish();  // An empty packet: the write pointer is where it started.
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "after Finish()";
  h = w->NewTracePacket();
  h->set_timestamp(5);
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "bytes written by the handle";
  h.Finish();
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "after Finish()";
  w->Flush();
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "after Flush()";
  // A fresh chunk's first packet is empty: raw again.
  h = w->NewTracePacket();
  const std::vector<uint8_t> raw = RawPacket(6, 30);
  ASSERT_TRUE(WriteRawPacket(w.get(), raw));
  h.Finish();
  w->Flush();
  s.service.Finish();
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), 3u) << "first-packet mark, timestamp 5, raw";
  EXPECT_EQ(test::SeqOf(pk[1].data), 5u);
  EXPECT_EQ(pk[2].data, raw);
}

TEST(TraceWriterRawTest, RefusedWithoutRoomInTheChunk) {
  SmbSetup s(4096, 4096);  // One chunk: a second one waits for the service.
  auto w = s.arbiter->CreateTraceWriter(0);
  constexpr size_t kMax = TraceWriter::kMaxRawPacketSize;
  WritePacket(w.get(), 0, 0, 10);
  uint64_t seq = 1;
  std::vector<std::vector<uint8_t>> raw;
  auto h = w->NewTracePacket();
  // No room for the longest raw packet and the next packet's header.
  RawFillToRoom(w.get(), h, kMax + ABI::kPacketHeaderSize - 1, &seq, &raw);
  if (HasFatalFailure())
    return;
  EXPECT_EQ(w->BeginRawPacket(), nullptr);
  h->set_timestamp(seq++);  // The handle still writes there.
  h.Finish();
  w->Flush();
  s.service.Drain();
  // Writers leave 8 bytes of room for the next packet as well (the room
  // NewTracePacket() wants): with that, the longest raw packet is taken.
  h = w->NewTracePacket();
  RawFillToRoom(w.get(), h, kMax + ABI::kPacketHeaderSize + 8, &seq, &raw);
  if (HasFatalFailure())
    return;
  raw.push_back(RawPacket(seq++, kMax));
  ASSERT_TRUE(WriteRawPacket(w.get(), raw.back()));
  EXPECT_EQ(Room(h), 8u);
  EXPECT_EQ(w->BeginRawPacket(), nullptr);
  h->set_timestamp(seq);
  h.Finish();
  w->Flush();
  s.service.Finish();
  ASSERT_EQ(s.service.chunk_headers().size(), 2u);
  EXPECT_EQ(s.service.reassembler().stats().empty_packets, 0u);
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), raw.size() + 3);
  ExpectPacket(pk[0], 0, 0, 10);
  size_t r = 0;
  for (size_t i = 1; i < pk.size(); i++) {
    if (r < raw.size() && pk[i].data == raw[r]) {
      r++;
    } else {
      EXPECT_EQ(pk[i].data.size(), 2u) << i << ": a timestamp by the handle";
    }
  }
  EXPECT_EQ(r, raw.size()) << "every raw packet, in order";
  EXPECT_EQ(test::SeqOf(pk.back().data), seq);
}

// Drop mode, and the packet that tells the loss, go through the handle.
TEST(TraceWriterRawTest, RefusedInDropModeAndForTheLossMark) {
  SmbSetup s(4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kDrop);
  for (uint64_t seq = 0; seq < 400; seq++)
    WritePacket(w.get(), 0, seq, 20);
  ASSERT_TRUE(w->is_dropping());
  auto h = w->NewTracePacket();  // Into the garbage range.
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "drop mode";
  h.Finish();
  const uint64_t dropped = w->stats().packets_dropped;
  s.service.Drain();
  const size_t before = s.service.packets().size();
  h = w->NewTracePacket();
  ASSERT_FALSE(w->is_dropping());
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "carries previous_packet_dropped";
  h.Finish();
  h = w->NewTracePacket();
  const std::vector<uint8_t> raw = RawPacket(1, 40);
  ASSERT_TRUE(WriteRawPacket(w.get(), raw)) << "loss told: raw again";
  h.Finish();
  w->Flush();
  s.service.Finish();
  EXPECT_EQ(w->stats().packets_dropped, dropped);
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), before + 2);
  std::vector<uint8_t> mark = pk[before].data;
  EXPECT_TRUE(test::StripPreviousDropped(&mark));
  EXPECT_TRUE(mark.empty());
  EXPECT_EQ(pk[before + 1].data, raw);
}

TEST(TraceWriterRawTest, RawPacketsRespectTheChunkPacketCount) {
  SmbSetup s(4 * 65536, 65536);  // Room for far more than 1023 tiny packets.
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  auto h = w->NewTracePacket();
  size_t raw = 0;
  while (WriteRawPacket(w.get(), RawPacket(raw + 1, 2))) {
    raw++;
    ASSERT_LE(raw, 2000u);
  }
  EXPECT_EQ(raw, ABI::kMaxPacketCount - 2u) << "the first and the open one";
  EXPECT_GT(Room(h), 1000u) << "refused for the count, not the room";
  h.Finish();
  WritePacket(w.get(), 0, raw + 1, 10);  // Into the next chunk.
  w->Flush();
  s.service.Finish();
  const auto& hdrs = s.service.chunk_headers();
  ASSERT_EQ(hdrs.size(), 2u);
  EXPECT_EQ(hdrs[0].packet_count, ABI::kMaxPacketCount);
  EXPECT_EQ(hdrs[1].packet_count, 1);
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), raw + 2);
  for (size_t i = 1; i <= raw; i++)
    ASSERT_EQ(pk[i].data, RawPacket(i, 2)) << i;
  ExpectPacket(pk.back(), 0, raw + 1, 10);
}

// EndRawBytes: the same packet goes on through the handle, within the
// chunk or across chunks (fragment sizes and patches count the raw bytes).
TEST(TraceWriterRawTest, EndRawBytesThenTheHandle) {
  SharedMemoryArbiter::Options opt;
  opt.layout = ABI::kPageDiv4;  // 1020-byte chunks.
  SmbSetup s(16 * 4096, 4096, opt);
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  std::vector<std::vector<uint8_t>> want;
  for (uint64_t seq : {1, 2}) {
    const size_t payload = seq == 1 ? 30 : 3000;
    auto h = w->NewTracePacket();
    std::vector<uint8_t> raw = RawPacket(seq, 50);
    uint8_t* end = WriteRawBytes(w.get(), raw);
    ASSERT_NE(end, nullptr);
    w->EndRawBytes(end);
    EXPECT_EQ(w->BeginRawPacket(), nullptr) << "no longer empty";
    test::WriteTestPacket(h.get(), 0, seq, test::TestPayload(0, seq, payload));
    h.Finish();
    const std::vector<uint8_t> rest = test::ExpectedPacket(0, seq, payload);
    raw.insert(raw.end(), rest.begin(), rest.end());
    want.push_back(raw);
  }
  WritePacket(w.get(), 0, 3, 10);
  EXPECT_EQ(w->stats().packets_started, 4u) << "EndRawBytes starts none";
  w->Flush();
  s.service.Finish();
  EXPECT_EQ(w->pending_patches(), 0u);
  EXPECT_EQ(s.service.reassembler().stats().patches_applied, 3u);
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), 4u);
  ExpectPacket(pk[0], 0, 0, 10);
  EXPECT_EQ(pk[1].data, want[0]);
  EXPECT_EQ(pk[2].data, want[1]);
  ExpectPacket(pk[3], 0, 3, 10);
}

TEST(TraceWriterRawTest, PacketsStartedCountsRawPackets) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  auto h = w->NewTracePacket();
  EXPECT_EQ(w->stats().packets_started, 2u);
  for (uint64_t seq = 1; seq <= 3; seq++) {
    ASSERT_TRUE(WriteRawPacket(w.get(), RawPacket(seq, 10)));
    EXPECT_EQ(w->stats().packets_started, 2u + seq) << "the one opened";
  }
  uint8_t* end = WriteRawBytes(w.get(), RawPacket(4, 10));
  ASSERT_NE(end, nullptr);
  w->EndRawBytes(end);
  h->set_sequence_flags(2);
  h.Finish();
  EXPECT_EQ(w->stats().packets_started, 5u);
  EXPECT_EQ(w->stats().packets_dropped, 0u);
  w->Flush();
  s.service.Finish();
  ASSERT_EQ(s.service.chunk_headers().size(), 1u);
  EXPECT_EQ(s.service.chunk_headers()[0].packet_count, 5);
  EXPECT_EQ(s.service.packets().size(), 5u) << "started and not dropped";
}

TEST(TraceWriterRawDeathTest, RawPacketLongerThanTheMaximumAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  auto h = w->NewTracePacket();
  uint8_t* dst = w->BeginRawPacket();
  ASSERT_NE(dst, nullptr);
  constexpr size_t kMax = TraceWriter::kMaxRawPacketSize;
  ASSERT_DEATH(w->EndRawPacketAndBeginNext(dst + kMax + 1),
               "CHECK failed: size <= kMaxRawPacketSize");
  ASSERT_DEATH(w->EndRawBytes(dst + kMax + 1),
               "CHECK failed: .*<= kMaxRawPacketSize");
  // The longest allowed passes.
  const std::vector<uint8_t> raw = RawPacket(1, kMax);
  ASSERT_TRUE(WriteRawPacket(w.get(), raw));
  h.Finish();
  w->Flush();
  s.service.Finish();
  ASSERT_EQ(s.service.packets().size(), 2u);
  EXPECT_EQ(s.service.packets()[1].data, raw);
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
