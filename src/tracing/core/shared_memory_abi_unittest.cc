#include "zt/ext/tracing/core/shared_memory_abi.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/core/test_packet_headers.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;

struct Region {
  explicit Region(size_t size) : mem(static_cast<uint8_t*>(aligned_alloc(4096, size))), len(size) {
    memset(mem, 0, size);
  }
  ~Region() { free(mem); }
  uint8_t* mem;
  size_t len;
};

ABI::ChunkHeaderValues Hdr(uint16_t writer, uint32_t id, uint16_t count = 0,
                           uint8_t flags = 0) {
  ABI::ChunkHeaderValues h;
  h.writer_id = writer;
  h.chunk_id = id;
  h.packet_count = count;
  h.flags = flags;
  return h;
}

uint32_t RawWord(const Region& r, size_t page_size, size_t page) {
  uint32_t w;
  memcpy(&w, r.mem + page * page_size, 4);
  return w;
}

TEST(SharedMemoryABITest, ChunkSizesOfEveryLayout) {
  // align-down-4((page - 8) / n), as the wire format fixes.
  EXPECT_EQ(ABI::ChunkSizeFor(4096, ABI::kPageDiv1), 4088u);
  EXPECT_EQ(ABI::ChunkSizeFor(4096, ABI::kPageDiv2), 2044u);
  EXPECT_EQ(ABI::ChunkSizeFor(4096, ABI::kPageDiv4), 1020u);
  EXPECT_EQ(ABI::ChunkSizeFor(4096, ABI::kPageDiv7), 584u);
  EXPECT_EQ(ABI::ChunkSizeFor(4096, ABI::kPageDiv14), 292u);
  EXPECT_EQ(ABI::ChunkSizeFor(65536, ABI::kPageDiv1), 65528u);
  EXPECT_EQ(ABI::ChunkSizeFor(32768, ABI::kPageDiv7), 4680u);
  EXPECT_EQ(ABI::ChunkSizeFor(4096, ABI::kPageNotPartitioned), 0u);
  EXPECT_EQ(ABI::ChunkSizeFor(4096, 6), 0u);
  EXPECT_EQ(ABI::ChunkSizeFor(4096, 7), 0u);
  for (size_t page = 4096; page <= 65536; page += 4096) {
    for (uint32_t layout = 1; layout <= 5; layout++) {
      const size_t cs = ABI::ChunkSizeFor(page, layout);
      EXPECT_EQ(cs % 4, 0u);
      EXPECT_LE(8 + cs * ABI::NumChunksForLayout(layout), page);
      EXPECT_LT(page - 8 - cs * ABI::NumChunksForLayout(layout),
                4 * ABI::NumChunksForLayout(layout));
    }
  }
}

TEST(SharedMemoryABITest, GeometryValidation) {
  Region r(65536);
  EXPECT_TRUE(ABI::IsValidGeometry(r.mem, 65536, 4096));
  EXPECT_TRUE(ABI::IsValidGeometry(r.mem, 65536, 65536));
  EXPECT_FALSE(ABI::IsValidGeometry(r.mem, 65536, 2048));
  EXPECT_FALSE(ABI::IsValidGeometry(r.mem, 65536, 6000));
  EXPECT_FALSE(ABI::IsValidGeometry(r.mem, 65536 + 4096, 8192));
  EXPECT_FALSE(ABI::IsValidGeometry(r.mem, 0, 4096));
  EXPECT_FALSE(ABI::IsValidGeometry(nullptr, 4096, 4096));
  EXPECT_FALSE(ABI::IsValidGeometry(r.mem + 4, 4096, 4096));
  EXPECT_FALSE(ABI::IsValidGeometry(r.mem, 131072, 131072));
  ABI bad(r.mem, 65536, 3000);
  EXPECT_FALSE(bad.is_valid());
  EXPECT_FALSE(bad.TryPartitionPage(0, ABI::kPageDiv1));
  EXPECT_FALSE(bad.TryAcquireChunkForReading(0, 0).is_valid());
}

TEST(SharedMemoryABITest, EveryLayoutFullLifecycle) {
  for (size_t page_size : {4096u, 8192u, 16384u, 32768u, 65536u}) {
    Region r(page_size * 2);
    ABI abi(r.mem, r.len, page_size);
    ASSERT_TRUE(abi.is_valid());
    ASSERT_EQ(abi.num_pages(), 2u);
    for (uint32_t layout = 1; layout <= 5; layout++) {
      SCOPED_TRACE(testing::Message() << page_size << " layout " << layout);
      const uint32_t n = ABI::NumChunksForLayout(layout);
      ASSERT_TRUE(abi.is_page_free(1));
      ASSERT_TRUE(abi.TryPartitionPage(1, static_cast<ABI::PageLayout>(layout)));
      EXPECT_FALSE(abi.TryPartitionPage(1, ABI::kPageDiv1));
      EXPECT_EQ(abi.GetPageLayout(1), layout);
      EXPECT_EQ(RawWord(r, page_size, 1), layout << 28);
      EXPECT_EQ(abi.GetFreeChunks(1), (1u << n) - 1);
      EXPECT_EQ(abi.GetUsedChunks(1), 0u);
      std::vector<ABI::Chunk> chunks;
      for (uint32_t i = 0; i < n; i++) {
        ABI::Chunk c = abi.TryAcquireChunkForWriting(1, i, Hdr(7, 100 + i, 1, 3));
        ASSERT_TRUE(c.is_valid());
        EXPECT_EQ(c.size(), ABI::ChunkSizeFor(page_size, layout));
        EXPECT_EQ(c.begin(), r.mem + page_size + 8 + i * c.size());
        EXPECT_EQ(c.page_idx(), 1u);
        EXPECT_EQ(c.chunk_idx(), i);
        EXPECT_EQ(abi.GetChunkState(1, i), ABI::kChunkBeingWritten);
        // Header bytes: chunk_id u32, writer_id u16, count:10|flags:6.
        uint32_t id;
        uint16_t writer, packets;
        memcpy(&id, c.begin(), 4);
        memcpy(&writer, c.begin() + 4, 2);
        memcpy(&packets, c.begin() + 6, 2);
        EXPECT_EQ(id, 100 + i);
        EXPECT_EQ(writer, 7);
        EXPECT_EQ(packets, 1 | (3 << 10));
        // A chunk cannot be taken twice.
        EXPECT_FALSE(abi.TryAcquireChunkForWriting(1, i, Hdr(8, 1)).is_valid());
        // Not complete yet: the service cannot take it.
        EXPECT_FALSE(abi.TryAcquireChunkForReading(1, i).is_valid());
        chunks.push_back(std::move(c));
      }
      EXPECT_FALSE(abi.TryAcquireChunkForWriting(1, n, Hdr(7, 1)).is_valid());
      EXPECT_EQ(abi.GetFreeChunks(1), 0u);
      EXPECT_FALSE(abi.IsPageComplete(1));
      for (auto& c : chunks)
        EXPECT_TRUE(abi.ReleaseChunkAsComplete(std::move(c)));
      EXPECT_TRUE(abi.IsPageComplete(1));
      for (uint32_t i = 0; i < n; i++) {
        EXPECT_EQ(abi.GetChunkState(1, i), ABI::kChunkComplete);
        ABI::Chunk rc = abi.TryAcquireChunkForReading(1, i);
        ASSERT_TRUE(rc.is_valid());
        EXPECT_EQ(abi.GetChunkState(1, i), ABI::kChunkBeingRead);
        EXPECT_FALSE(abi.TryAcquireChunkForReading(1, i).is_valid());
        ABI::ChunkCopy copy;
        ABI::CopyChunk(rc, &copy);
        EXPECT_EQ(copy.header.chunk_id, 100 + i);
        EXPECT_EQ(copy.header.writer_id, 7);
        EXPECT_EQ(copy.header.packet_count, 1);
        EXPECT_EQ(copy.header.flags, 3);
        EXPECT_EQ(copy.payload.size(), rc.payload_size());
        uint8_t* hdr = rc.begin();
        EXPECT_TRUE(abi.ReleaseChunkAsFree(std::move(rc)));
        const uint8_t zeros[8] = {};
        EXPECT_EQ(memcmp(hdr, zeros, 8), 0) << "header cleared on free";
      }
      // The last free chunk returns the page to "not partitioned".
      EXPECT_TRUE(abi.is_page_free(1));
      EXPECT_EQ(RawWord(r, page_size, 1), 0u);
      EXPECT_EQ(RawWord(r, page_size, 0), 0u) << "neighbour untouched";
    }
  }
}

TEST(SharedMemoryABITest, InvalidTransitionsAreRejected) {
  Region r(8192);
  ABI abi(r.mem, r.len, 4096);
  // Nothing works on an unpartitioned page.
  EXPECT_FALSE(abi.TryAcquireChunkForWriting(0, 0, Hdr(1, 1)).is_valid());
  EXPECT_FALSE(abi.TryAcquireChunkForReading(0, 0).is_valid());
  // Bad arguments.
  EXPECT_FALSE(abi.TryPartitionPage(2, ABI::kPageDiv1));
  EXPECT_FALSE(abi.TryPartitionPage(0, ABI::kPageNotPartitioned));
  EXPECT_FALSE(abi.TryPartitionPage(0, static_cast<ABI::PageLayout>(6)));
  EXPECT_FALSE(abi.TryPartitionPage(0, static_cast<ABI::PageLayout>(7)));
  EXPECT_FALSE(abi.ReleaseChunkAsComplete(ABI::Chunk()));
  EXPECT_FALSE(abi.ReleaseChunkAsFree(ABI::Chunk()));

  ASSERT_TRUE(abi.TryPartitionPage(0, ABI::kPageDiv4));
  ABI::Chunk w = abi.TryAcquireChunkForWriting(0, 2, Hdr(1, 1));
  ASSERT_TRUE(w.is_valid());
  // Free a chunk that is BeingWritten: refused (the service may only free
  // what it is reading).
  {
    ABI::Chunk again = abi.TryAcquireChunkForWriting(0, 3, Hdr(1, 2));
    ASSERT_TRUE(again.is_valid());
    EXPECT_FALSE(abi.ReleaseChunkAsFree(std::move(again)));
    EXPECT_EQ(abi.GetChunkState(0, 3), ABI::kChunkBeingWritten);
  }
  ASSERT_TRUE(abi.ReleaseChunkAsComplete(std::move(w)));
  // Completing twice: we need a handle; rebuild one via reading then try to
  // complete a BeingRead chunk.
  ABI::Chunk rd = abi.TryAcquireChunkForReading(0, 2);
  ASSERT_TRUE(rd.is_valid());
  ABI::Chunk rd_moved = std::move(rd);
  EXPECT_FALSE(rd.is_valid());
  // A peer repartitions the page behind our back (hostile): the handle's
  // geometry no longer matches and both releases fail without touching it.
  uint32_t hostile = (ABI::kPageDiv2 << 28) | (2u << 4);
  reinterpret_cast<std::atomic<uint32_t>*>(r.mem)->store(hostile);
  EXPECT_FALSE(abi.ReleaseChunkAsFree(std::move(rd_moved)));
  EXPECT_EQ(RawWord(r, 4096, 0), hostile);
}

// The one-CAS path a writer takes on a fresh page must leave exactly what
// TryPartitionPage + TryAcquireChunkForWriting(0) would: same word, same
// header, other chunks still free; and it must refuse a page in use.
TEST(SharedMemoryABITest, PartitionAndAcquireFirstChunkInOneStep) {
  for (uint32_t layout = ABI::kPageDiv1; layout <= ABI::kPageDiv14; layout++) {
    Region a(8192), b(8192);
    ABI one(a.mem, a.len, 4096), two(b.mem, b.len, 4096);
    const auto l = static_cast<ABI::PageLayout>(layout);
    ABI::Chunk c1 = one.TryPartitionPageAndAcquireFirstChunk(1, l, Hdr(7, 42, 1, 1));
    ASSERT_TRUE(c1.is_valid());
    ASSERT_TRUE(two.TryPartitionPage(1, l));
    ABI::Chunk c2 = two.TryAcquireChunkForWriting(1, 0, Hdr(7, 42, 1, 1));
    ASSERT_TRUE(c2.is_valid());
    EXPECT_EQ(RawWord(a, 4096, 1), RawWord(b, 4096, 1)) << layout;
    EXPECT_EQ(memcmp(a.mem, b.mem, a.len), 0) << layout;
    EXPECT_EQ(c1.chunk_idx(), 0u);
    EXPECT_EQ(c1.size(), ABI::ChunkSizeFor(4096, layout));
    EXPECT_EQ(one.GetFreeChunks(1), ((1u << ABI::NumChunksForLayout(layout)) - 1) & ~1u);
    // Not free any more: refused, nothing changed.
    const uint32_t before = RawWord(a, 4096, 1);
    EXPECT_FALSE(one.TryPartitionPageAndAcquireFirstChunk(1, l, Hdr(8, 1)).is_valid());
    EXPECT_EQ(RawWord(a, 4096, 1), before);
    // The chunk goes through the normal life cycle and frees the page.
    ASSERT_TRUE(one.ReleaseChunkAsComplete(std::move(c1)));
    ABI::Chunk rd = one.TryAcquireChunkForReading(1, 0);
    ASSERT_TRUE(rd.is_valid());
    ASSERT_TRUE(one.ReleaseChunkAsFree(std::move(rd)));
    EXPECT_TRUE(one.is_page_free(1));
  }
  Region r(4096);
  ABI abi(r.mem, r.len, 4096);
  EXPECT_FALSE(abi.TryPartitionPageAndAcquireFirstChunk(1, ABI::kPageDiv1, Hdr(1, 1)).is_valid());
  EXPECT_FALSE(abi.TryPartitionPageAndAcquireFirstChunk(0, ABI::kPageNotPartitioned, Hdr(1, 1)).is_valid());
  EXPECT_FALSE(abi.TryPartitionPageAndAcquireFirstChunk(0, static_cast<ABI::PageLayout>(6), Hdr(1, 1)).is_valid());
  EXPECT_TRUE(abi.is_page_free(0));
}

TEST(SharedMemoryABITest, ReservedLayoutsAreInvalid) {
  Region r(4096);
  ABI abi(r.mem, r.len, 4096);
  for (uint32_t layout : {6u, 7u}) {
    const uint32_t word = (layout << 28) | 0x0FFFFFFF;
    reinterpret_cast<std::atomic<uint32_t>*>(r.mem)->store(word);
    EXPECT_EQ(abi.GetPageLayout(0), ABI::kPageNotPartitioned);
    EXPECT_EQ(abi.GetChunkState(0, 0), ABI::kChunkFree);
    EXPECT_EQ(abi.GetFreeChunks(0), 0u);
    EXPECT_EQ(abi.GetUsedChunks(0), 0u);
    EXPECT_FALSE(abi.IsPageComplete(0));
    EXPECT_FALSE(abi.TryAcquireChunkForReading(0, 0).is_valid());
    EXPECT_FALSE(abi.TryAcquireChunkForWriting(0, 0, Hdr(1, 1)).is_valid());
    ABI::ChunkCopy copy;
    EXPECT_FALSE(abi.ScrapeChunk(0, 0, &copy));
  }
}

TEST(SharedMemoryABITest, ConcurrentChangeOfOtherChunksIsRetried) {
  // Other chunks' bits changing between load and CAS is normal; the
  // transition must still succeed.
  Region r(4096);
  ABI abi(r.mem, r.len, 4096);
  ASSERT_TRUE(abi.TryPartitionPage(0, ABI::kPageDiv14));
  std::vector<ABI::Chunk> chunks;
  for (int i = 0; i < 14; i++)
    chunks.push_back(abi.TryAcquireChunkForWriting(0, i, Hdr(1, i)));
  for (int i = 0; i < 14; i += 2)
    ASSERT_TRUE(abi.ReleaseChunkAsComplete(std::move(chunks[i])));
  EXPECT_EQ(abi.GetUsedChunks(0), 0x3FFFu);
  for (int i = 0; i < 14; i += 2) {
    ABI::Chunk c = abi.TryAcquireChunkForReading(0, i);
    ASSERT_TRUE(c.is_valid());
    ASSERT_TRUE(abi.ReleaseChunkAsFree(std::move(c)));
  }
  EXPECT_EQ(abi.GetFreeChunks(0), 0x1555u);
  EXPECT_FALSE(abi.is_page_free(0));
  // Chunk 0 free again: it can be re-acquired while the page stays split.
  EXPECT_TRUE(abi.TryAcquireChunkForWriting(0, 0, Hdr(2, 9)).is_valid());
}

TEST(SharedMemoryABITest, ScrapeTakesOnlyFinishedPackets) {
  Region r(4096);
  ABI abi(r.mem, r.len, 4096);
  ASSERT_TRUE(abi.TryPartitionPage(0, ABI::kPageDiv1));
  ABI::Chunk c = abi.TryAcquireChunkForWriting(0, 0, Hdr(3, 5));
  ASSERT_TRUE(c.is_valid());
  ABI::ChunkCopy copy;
  ASSERT_TRUE(abi.ScrapeChunk(0, 0, &copy));
  EXPECT_TRUE(copy.payload.empty());
  EXPECT_FALSE(copy.complete);
  // Two finished packets of 3 and 2 bytes, a third in progress.
  uint8_t* p = c.payload_begin();
  const uint8_t bytes[] = {0x83, 0x80, 0x80, 0x00, 'a', 'b', 'c',
                           0x82, 0x80, 0x80, 0x00, 'd', 'e',
                           0x00, 0x00, 0x00, 0x00, 'x'};
  memcpy(p, bytes, sizeof(bytes));
  c.IncrementPacketCount();
  c.IncrementPacketCount();
  c.IncrementPacketCount();
  ASSERT_TRUE(abi.ScrapeChunk(0, 0, &copy));
  EXPECT_EQ(copy.header.packet_count, 3);
  EXPECT_EQ(copy.header.writer_id, 3);
  EXPECT_EQ(copy.header.chunk_id, 5u);
  ASSERT_EQ(copy.payload.size(), 13u);
  EXPECT_EQ(memcmp(copy.payload.data(), bytes, 13), 0);
  // A size running past the chunk makes the scrape fail.
  p[0] = 0xFF;
  p[1] = 0xFF;
  p[2] = 0x7F;
  p[3] = 0x00;
  EXPECT_FALSE(abi.ScrapeChunk(0, 0, &copy));
  // Only BeingWritten chunks are scraped.
  ASSERT_TRUE(abi.ReleaseChunkAsComplete(std::move(c)));
  EXPECT_FALSE(abi.ScrapeChunk(0, 0, &copy));
}

TEST(SharedMemoryABITest, PacketHeaderEveryCase) {
  for (const test::PacketHeaderCase& c : test::PacketHeaderCases()) {
    SCOPED_TRACE(c.what);
    // Exactly sized, so that ASan catches a read past the chunk's end.
    std::unique_ptr<uint8_t[]> chunk(new uint8_t[c.bytes.size() + 1]);
    uint8_t* begin = chunk.get() + 1;  // Any alignment.
    if (!c.bytes.empty())
      memcpy(begin, c.bytes.data(), c.bytes.size());
    const ABI::PacketHeader h =
        ABI::ParsePacketHeader(begin, begin + c.bytes.size());
    EXPECT_EQ(static_cast<int>(h.status), static_cast<int>(c.status));
    EXPECT_EQ(h.ok(), c.status == ABI::PacketHeaderStatus::kOk);
    EXPECT_EQ(h.header_size, c.header_size);
    EXPECT_EQ(h.size, c.size);
  }
}

// Against the generic varint decoder held to kPacketHeaderSize bytes, on
// random bytes and chunk ends: the same value, length and verdict.
TEST(SharedMemoryABITest, PacketHeaderMatchesVarIntDecoder) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 200000; iter++) {
    uint8_t buf[8];
    for (uint8_t& b : buf) {
      const uint32_t r = rng();
      b = static_cast<uint8_t>((r & 0x300) ? (r | 0x80) : r);  // Mostly 0x80+.
    }
    const size_t avail = rng() % 9;
    const ABI::PacketHeader h = ABI::ParsePacketHeader(buf, buf + avail);
    uint64_t value = 0;
    const uint8_t* data = protozero::proto_utils::ParseVarInt(
        buf, buf + std::min<size_t>(avail, ABI::kPacketHeaderSize), &value);
    if (data == buf) {
      ASSERT_EQ(h.header_size, 0);
      ASSERT_TRUE(h.status == ABI::PacketHeaderStatus::kTruncated ||
                  h.status == ABI::PacketHeaderStatus::kBadVarint);
      ASSERT_EQ(h.status == ABI::PacketHeaderStatus::kBadVarint,
                avail >= ABI::kPacketHeaderSize);
      continue;
    }
    ASSERT_EQ(h.header_size, data - buf);
    ASSERT_EQ(h.size, value);
    const size_t left = avail - h.header_size;
    if (value == ABI::kPacketSizeDropPacket)
      ASSERT_EQ(h.status, ABI::PacketHeaderStatus::kDropMarker);
    else if (value > left)
      ASSERT_EQ(h.status, ABI::PacketHeaderStatus::kPastChunkEnd);
    else
      ASSERT_EQ(h.status, ABI::PacketHeaderStatus::kOk);
  }
}

// Scraping walks finished packets with the same parser: a bad header among
// them fails the scrape, a drop marker ends it with the marker kept.
TEST(SharedMemoryABITest, ScrapeStopsAtEveryBadHeader) {
  for (const test::PacketHeaderCase& c : test::PacketHeaderCases()) {
    SCOPED_TRACE(c.what);
    Region r(4096);
    ABI abi(r.mem, r.len, 4096);
    ASSERT_TRUE(abi.TryPartitionPage(0, ABI::kPageDiv1));
    ABI::Chunk chunk = abi.TryAcquireChunkForWriting(0, 0, Hdr(3, 5));
    ASSERT_TRUE(chunk.is_valid());
    // A good packet, then the case's header as the chunk's last bytes, and
    // a third packet counted (in progress), so that the case's is finished.
    const size_t payload = chunk.payload_size();
    const uint8_t good[] = {0x82, 0x80, 0x80, 0x00, 'o', 'k'};
    ASSERT_LE(sizeof(good) + c.bytes.size(), payload);
    const size_t at = payload - c.bytes.size();
    memset(chunk.payload_begin(), 0, payload);
    memcpy(chunk.payload_begin(), good, sizeof(good));
    // Fill the gap with one packet so the case's header starts at |at|.
    const size_t gap = at - sizeof(good);
    ASSERT_GE(gap, 4u);
    const uint32_t filler = static_cast<uint32_t>(gap - 4);
    uint8_t* f = chunk.payload_begin() + sizeof(good);
    f[0] = static_cast<uint8_t>(0x80 | (filler & 0x7F));
    f[1] = static_cast<uint8_t>(0x80 | ((filler >> 7) & 0x7F));
    f[2] = 0x80;
    f[3] = 0x00;
    if (!c.bytes.empty())
      memcpy(chunk.payload_begin() + at, c.bytes.data(), c.bytes.size());
    for (int i = 0; i < 4; i++)
      chunk.IncrementPacketCount();
    ABI::ChunkCopy copy;
    const bool ok = abi.ScrapeChunk(0, 0, &copy);
    switch (c.status) {
      case ABI::PacketHeaderStatus::kOk:
        ASSERT_TRUE(ok);
        EXPECT_EQ(copy.payload.size(), at + c.header_size + c.size);
        break;
      case ABI::PacketHeaderStatus::kDropMarker:
        ASSERT_TRUE(ok);
        EXPECT_EQ(copy.payload.size(), at + 4);
        break;
      default:
        EXPECT_FALSE(ok);
        EXPECT_TRUE(copy.payload.empty());
    }
  }
}

// What a flush copies besides scraped chunks: a Complete chunk whose commit
// has not come, copied whole and left Complete for that commit to take.
TEST(SharedMemoryABITest, PeekCompleteChunkLeavesItToItsCommit) {
  Region r(2 * 4096);
  ABI abi(r.mem, r.len, 4096);
  ASSERT_TRUE(abi.TryPartitionPage(0, ABI::kPageDiv2));
  ABI::Chunk c = abi.TryAcquireChunkForWriting(0, 1, Hdr(3, 9, 0, 0));
  ASSERT_TRUE(c.is_valid());
  memset(c.payload_begin(), 0x5A, c.payload_size());
  c.IncrementPacketCount();
  c.SetFlags(ABI::kLastPacketContinuesOnNextChunk);
  const size_t payload_size = c.payload_size();
  EXPECT_EQ(abi.PeekChunkHeader(0, 1).chunk_id, 9u);
  EXPECT_EQ(abi.PeekChunkHeader(0, 1).writer_id, 3u);
  ABI::ChunkCopy copy;
  EXPECT_FALSE(abi.PeekCompleteChunk(0, 1, &copy)) << "still being written";
  ASSERT_TRUE(abi.ReleaseChunkAsComplete(std::move(c)));
  ASSERT_TRUE(abi.PeekCompleteChunk(0, 1, &copy));
  EXPECT_TRUE(copy.complete);
  EXPECT_EQ(copy.header.chunk_id, 9u);
  EXPECT_EQ(copy.header.writer_id, 3u);
  EXPECT_EQ(copy.header.packet_count, 1u);
  EXPECT_EQ(copy.header.flags, ABI::kLastPacketContinuesOnNextChunk);
  ASSERT_EQ(copy.payload.size(), payload_size);
  EXPECT_EQ(copy.payload, std::vector<uint8_t>(payload_size, 0x5A));
  EXPECT_EQ(abi.GetChunkState(0, 1), ABI::kChunkComplete);
  ABI::Chunk taken = abi.TryAcquireChunkForReading(0, 1);
  ASSERT_TRUE(taken.is_valid());
  EXPECT_FALSE(abi.PeekCompleteChunk(0, 1, &copy)) << "being read";
  ASSERT_TRUE(abi.ReleaseChunkAsFree(std::move(taken)));
  EXPECT_FALSE(abi.PeekCompleteChunk(0, 1, &copy));
  // Headers of free chunks are cleared; bad indices read as zeros.
  EXPECT_EQ(abi.PeekChunkHeader(0, 1).writer_id, 0u);
  EXPECT_EQ(abi.PeekChunkHeader(0, 2).chunk_id, 0u);
  EXPECT_EQ(abi.PeekChunkHeader(5, 0).chunk_id, 0u);
  EXPECT_FALSE(abi.PeekCompleteChunk(5, 0, &copy));
}

TEST(SharedMemoryABITest, PacketCountSaturatesAndFlagsAccumulate) {
  Region r(4096);
  ABI abi(r.mem, r.len, 4096);
  ASSERT_TRUE(abi.TryPartitionPage(0, ABI::kPageDiv1));
  ABI::Chunk c = abi.TryAcquireChunkForWriting(0, 0, Hdr(3, 5));
  for (int i = 0; i < 2000; i++)
    c.IncrementPacketCount();
  EXPECT_EQ(c.packet_count(), ABI::kMaxPacketCount);
  c.SetFlags(ABI::kLastPacketContinuesOnNextChunk);
  c.SetFlags(ABI::kChunkNeedsPatching);
  EXPECT_EQ(c.flags(), 6);
  EXPECT_EQ(c.packet_count(), ABI::kMaxPacketCount);
  EXPECT_EQ(c.ReadHeader().packet_count, 1023);
}

// Random garbage page words and chunk headers: no call may crash, read out
// of bounds (ASan) or report a state/layout that is not in the word.
TEST(SharedMemoryABITest, GarbageWordsAreValidated) {
  Region r(4 * 4096);
  ABI abi(r.mem, r.len, 4096);
  std::mt19937 rng(42);
  for (int iter = 0; iter < 20000; iter++) {
    const size_t page = rng() % 4;
    const uint32_t word = static_cast<uint32_t>(rng());
    reinterpret_cast<std::atomic<uint32_t>*>(r.mem + page * 4096)->store(word);
    for (size_t off = 8; off < 4096; off += 292)
      r.mem[page * 4096 + off + rng() % 8] = static_cast<uint8_t>(rng());
    const uint32_t layout = (word >> 28) & 7;
    const uint32_t n = ABI::NumChunksForLayout(layout);
    const size_t idx = rng() % 16;
    EXPECT_EQ(abi.GetPageLayout(page), n ? layout : 0u);
    const ABI::ChunkState st = abi.GetChunkState(page, idx);
    if (idx >= n)
      EXPECT_EQ(st, ABI::kChunkFree);
    else
      EXPECT_EQ(st, (word >> (2 * idx)) & 3);
    ABI::ChunkCopy copy;
    if (abi.ScrapeChunk(page, idx, &copy)) {
      EXPECT_LE(copy.payload.size(), ABI::ChunkSizeFor(4096, layout) - 8);
    }
    ABI::Chunk c = abi.TryAcquireChunkForReading(page, idx);
    if (c.is_valid()) {
      EXPECT_LT(idx, n);
      EXPECT_EQ(st, ABI::kChunkComplete);
      EXPECT_LE(c.end(), r.mem + r.len);
      ABI::CopyChunk(c, &copy);
      EXPECT_TRUE(abi.ReleaseChunkAsFree(std::move(c)));
    }
    ABI::Chunk w = abi.TryAcquireChunkForWriting(page, idx, Hdr(1, 1));
    if (w.is_valid()) {
      EXPECT_LT(idx, n);
      EXPECT_TRUE(abi.ReleaseChunkAsComplete(std::move(w)));
    }
  }
}

// The arbiter's page scan tests a page word at once for its free chunks;
// it must agree with the chunks' states one by one, for every layout and
// every mix of states (bits past the layout's chunks included).
TEST(SharedMemoryABITest, FreeChunkBitsAreTheFreeChunksOfTheLayout) {
  std::mt19937 random(7);
  for (uint32_t layout = 0; layout < 8; layout++) {
    for (int i = 0; i < 20000; i++) {
      const uint32_t states = static_cast<uint32_t>(random()) & 0x0FFFFFFFu;
      // Sparse words too: most chunks free.
      const uint32_t word = (layout << ABI::kLayoutShift) |
                            (i % 2 ? states : states & static_cast<uint32_t>(random()));
      uint32_t expected = 0;
      for (uint32_t c = 0; c < ABI::NumChunksForLayout(layout); c++) {
        if (ABI::StateOf(word, c) == ABI::kChunkFree)
          expected |= 1u << (2 * c);
      }
      ASSERT_EQ(ABI::FreeChunkBits(word), expected) << "layout " << layout << " word " << word;
    }
  }
}

}  // namespace
}  // namespace zt
