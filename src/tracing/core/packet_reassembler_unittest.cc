#include "src/tracing/core/packet_reassembler.h"

#include <gtest/gtest.h>

#include "src/tracing/core/test_packet_headers.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;

// Builds a chunk copy from fragments given as strings; sizes as 4-byte
// redundant varints unless |raw| is used.
struct ChunkBuilder {
  ChunkBuilder(uint16_t writer, uint32_t id, uint8_t flags = 0) {
    copy.header.writer_id = writer;
    copy.header.chunk_id = id;
    copy.header.flags = flags;
  }
  ChunkBuilder& Frag(const std::string& s) {
    uint8_t hdr[4];
    const uint32_t n = static_cast<uint32_t>(s.size());
    hdr[0] = static_cast<uint8_t>(0x80 | (n & 0x7F));
    hdr[1] = static_cast<uint8_t>(0x80 | ((n >> 7) & 0x7F));
    hdr[2] = static_cast<uint8_t>(0x80 | ((n >> 14) & 0x7F));
    hdr[3] = static_cast<uint8_t>((n >> 21) & 0x7F);
    copy.payload.insert(copy.payload.end(), hdr, hdr + 4);
    copy.payload.insert(copy.payload.end(), s.begin(), s.end());
    copy.header.packet_count++;
    return *this;
  }
  ChunkBuilder& Raw(std::vector<uint8_t> bytes, uint16_t count_delta) {
    copy.payload.insert(copy.payload.end(), bytes.begin(), bytes.end());
    copy.header.packet_count = static_cast<uint16_t>(copy.header.packet_count + count_delta);
    return *this;
  }
  ChunkBuilder& Count(uint16_t c) {
    copy.header.packet_count = c;
    return *this;
  }
  ChunkBuilder& Pad(size_t n) {
    copy.payload.resize(copy.payload.size() + n, 0xEE);
    return *this;
  }
  ABI::ChunkCopy copy;
};

std::vector<std::string> Read(PacketReassembler* r, bool finish = false) {
  std::vector<ReassembledPacket> out;
  if (finish)
    r->Finish(&out);
  else
    r->ReadPackets(&out);
  std::vector<std::string> s;
  for (auto& p : out)
    s.emplace_back(p.data.begin(), p.data.end());
  return s;
}

using V = std::vector<std::string>;
constexpr uint8_t kFirst = ABI::kFirstPacketContinuesFromPrevChunk;
constexpr uint8_t kLast = ABI::kLastPacketContinuesOnNextChunk;
constexpr uint8_t kPatch = ABI::kChunkNeedsPatching;

TEST(PacketReassemblerTest, WholeAndFragmentedPackets) {
  PacketReassembler r;
  ASSERT_TRUE(r.AddChunk(ChunkBuilder(1, 0, kLast).Frag("a").Frag("bb").Pad(5).copy));
  EXPECT_EQ(Read(&r), V{"a"});
  ASSERT_TRUE(r.AddChunk(ChunkBuilder(1, 1, kFirst | kLast).Frag("cc").copy));
  ASSERT_TRUE(r.AddChunk(ChunkBuilder(1, 2, kFirst).Frag("dd").Frag("e").copy));
  EXPECT_EQ(Read(&r), (V{"bbccdd", "e"}));
  EXPECT_EQ(r.stats().packets_emitted, 3u);
  EXPECT_EQ(r.chunks_held(), 0u);
}

TEST(PacketReassemblerTest, SequencesAreIndependent) {
  PacketReassembler r;
  r.AddChunk(ChunkBuilder(1, 0, kLast).Frag("x1").copy);
  r.AddChunk(ChunkBuilder(2, 0).Frag("y").copy);
  r.AddChunk(ChunkBuilder(1, 1, kFirst).Frag("x2").copy);
  auto got = Read(&r);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (V{"x1x2", "y"}));
}

TEST(PacketReassemblerTest, GapDiscardsPartialAndOrphanFragment) {
  PacketReassembler r;
  r.AddChunk(ChunkBuilder(1, 0, kLast).Frag("a").Frag("b").copy);
  r.AddChunk(ChunkBuilder(1, 2, kFirst).Frag("c").Frag("d").copy);
  std::vector<ReassembledPacket> out;
  r.ReadPackets(&out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[0].loss_before);
  EXPECT_TRUE(out[1].loss_before);
  EXPECT_EQ(std::string(out[1].data.begin(), out[1].data.end()), "d");
  EXPECT_EQ(r.stats().sequence_gaps, 1u);
  EXPECT_EQ(r.stats().fragments_without_start, 1u);
  EXPECT_EQ(r.stats().packets_not_continued, 1u);
}

TEST(PacketReassemblerTest, StartWithoutContinuation) {
  PacketReassembler r;
  r.AddChunk(ChunkBuilder(1, 0, kLast).Frag("a").copy);
  r.AddChunk(ChunkBuilder(1, 1).Frag("b").copy);  // Flag 1 missing.
  EXPECT_EQ(Read(&r), V{"b"});
  EXPECT_EQ(r.stats().packets_not_continued, 1u);
}

TEST(PacketReassemblerTest, BadSizesAbandonTheChunk) {
  PacketReassembler r;
  // Size running past the payload.
  r.AddChunk(ChunkBuilder(1, 0).Frag("ok").Raw({0x90, 0x80, 0x80, 0x00, 'x'}, 1).copy);
  EXPECT_EQ(Read(&r), V{"ok"});
  EXPECT_EQ(r.stats().sizes_out_of_bounds, 1u);
  // A varint longer than 4 bytes.
  r.AddChunk(ChunkBuilder(1, 1).Raw({0x80, 0x80, 0x80, 0x80, 0x01, 'x'}, 1).copy);
  EXPECT_EQ(Read(&r), V{});
  EXPECT_EQ(r.stats().bad_size_varints, 1u);
  // More packets announced than present.
  r.AddChunk(ChunkBuilder(1, 2).Frag("p").Count(3).copy);
  EXPECT_EQ(Read(&r), V{"p"});
  EXPECT_EQ(r.stats().count_flag_mismatches, 1u);
  // Flags without packets.
  r.AddChunk(ChunkBuilder(1, 3, kLast).copy);
  EXPECT_EQ(Read(&r), V{});
  EXPECT_EQ(r.stats().count_flag_mismatches, 2u);
  r.AddChunk(ChunkBuilder(1, 4).Frag("q").copy);
  EXPECT_EQ(Read(&r), V{"q"});
}

// Each header case as a chunk's last fragment, after a good one: what is
// emitted and counted follows ParsePacketHeader's verdict, and the packet
// after a rejected header reports the loss.
TEST(PacketReassemblerTest, EveryHeaderCase) {
  using S = ABI::PacketHeaderStatus;
  for (const test::PacketHeaderCase& c : test::PacketHeaderCases()) {
    SCOPED_TRACE(c.what);
    PacketReassembler r;
    r.AddChunk(ChunkBuilder(1, 0).Frag("ok").Raw(c.bytes, 1).copy);
    r.AddChunk(ChunkBuilder(1, 1).Frag("next").copy);
    std::vector<ReassembledPacket> out;
    r.Finish(&out);
    std::vector<std::string> got;
    for (const auto& p : out)
      got.emplace_back(p.data.begin(), p.data.end());
    const ReassemblerStats& st = r.stats();
    // No byte left at all is the count promising a fragment that is not
    // there; any other unfinished varint is a bad size.
    const bool none_left = c.bytes.empty();
    const bool bad_varint = c.status == S::kTruncated || c.status == S::kBadVarint;
    EXPECT_EQ(st.count_flag_mismatches, none_left ? 1u : 0u);
    EXPECT_EQ(st.bad_size_varints, bad_varint && !none_left ? 1u : 0u);
    EXPECT_EQ(st.sizes_out_of_bounds, c.status == S::kPastChunkEnd ? 1u : 0u);
    EXPECT_EQ(st.drop_markers, c.status == S::kDropMarker ? 1u : 0u);
    V want = {"ok"};
    if (c.status == S::kOk && c.size > 0) {
      want.emplace_back(c.bytes.begin() + c.header_size,
                        c.bytes.begin() + c.header_size + c.size);
    }
    want.push_back("next");
    EXPECT_EQ(got, want);
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.back().loss_before, c.status != S::kOk);
  }
}

TEST(PacketReassemblerTest, DropMarker) {
  PacketReassembler r;
  r.AddChunk(ChunkBuilder(1, 0, kLast).Frag("a").Frag("b").copy);
  r.AddChunk(ChunkBuilder(1, 1, kFirst).Raw({0xFF, 0xFF, 0xFF, 0x7F}, 1).copy);
  r.AddChunk(ChunkBuilder(1, 2).Frag("c").copy);
  std::vector<ReassembledPacket> out;
  r.ReadPackets(&out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[1].loss_before);
  EXPECT_EQ(r.stats().drop_markers, 1u);
  EXPECT_EQ(r.stats().sizes_out_of_bounds, 0u) << "a marker is not a violation";
}

TEST(PacketReassemblerTest, PatchesGateTheLastPacket) {
  PacketReassembler r;
  // "b" + a 4-byte hole at payload offset 4+1+4+1 = 10.
  r.AddChunk(ChunkBuilder(1, 0, kLast | kPatch).Frag("a").Frag(std::string("b\0\0\0\0", 5)).copy);
  EXPECT_EQ(Read(&r), V{"a"}) << "the packet with holes waits";
  r.AddChunk(ChunkBuilder(1, 1, kFirst).Frag("c").copy);
  EXPECT_EQ(Read(&r), V{});
  CommitData::ChunkToPatch p;
  p.writer_id = 1;
  p.chunk_id = 0;
  p.patches.push_back({10, {'W', 'X', 'Y', 'Z'}});
  p.has_more_patches = true;
  EXPECT_TRUE(r.ApplyPatches(p));
  EXPECT_EQ(Read(&r), V{}) << "more patches announced";
  p.patches = {{9000, {1, 2, 3, 4}}};  // Out of bounds: rejected.
  p.has_more_patches = false;
  EXPECT_TRUE(r.ApplyPatches(p));
  EXPECT_EQ(Read(&r), V{"bWXYZc"});
  EXPECT_EQ(r.stats().patches_applied, 1u);
  EXPECT_EQ(r.stats().patches_rejected, 1u);
  // The chunk is gone: late patches are rejected.
  p.chunk_id = 0;
  EXPECT_FALSE(r.ApplyPatches(p));
}

TEST(PacketReassemblerTest, UnpatchedAtFinishIsCounted) {
  PacketReassembler r;
  r.AddChunk(ChunkBuilder(1, 0, kLast | kPatch).Frag("a").Frag("b").copy);
  r.AddChunk(ChunkBuilder(1, 1, kFirst).Frag("c").Frag("d").copy);
  EXPECT_EQ(Read(&r), V{"a"});
  std::vector<ReassembledPacket> out;
  r.Finish(&out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::string(out[0].data.begin(), out[0].data.end()), "d");
  EXPECT_TRUE(out[0].loss_before);
  EXPECT_EQ(r.stats().unpatched_chunks, 1u);
}

TEST(PacketReassemblerTest, DuplicatesAndOutOfOrderAreRejected) {
  PacketReassembler r;
  EXPECT_TRUE(r.AddChunk(ChunkBuilder(1, 5).Frag("a").copy));
  EXPECT_FALSE(r.AddChunk(ChunkBuilder(1, 5).Frag("a").copy));
  EXPECT_FALSE(r.AddChunk(ChunkBuilder(1, 4).Frag("a").copy));
  EXPECT_FALSE(r.AddChunk(ChunkBuilder(0, 6).Frag("a").copy));
  EXPECT_EQ(r.stats().chunks_rejected, 3u);
  EXPECT_EQ(Read(&r), V{"a"});
  // Chunk ids wrap around.
  PacketReassembler w;
  EXPECT_TRUE(w.AddChunk(ChunkBuilder(1, 0xFFFFFFFF, kLast).Frag("x").copy));
  EXPECT_TRUE(w.AddChunk(ChunkBuilder(1, 0, kFirst).Frag("y").copy));
  EXPECT_EQ(Read(&w), V{"xy"});
  EXPECT_EQ(w.stats().sequence_gaps, 0u);
}

TEST(PacketReassemblerTest, ScrapedCopyThenCompleteCopy) {
  PacketReassembler r;
  ChunkBuilder scraped(1, 0);
  scraped.Frag("a").Frag("b").Count(3);  // Third packet still being written.
  scraped.copy.complete = false;
  EXPECT_TRUE(r.AddChunk(scraped.copy));
  EXPECT_EQ(Read(&r), (V{"a", "b"}));
  EXPECT_EQ(Read(&r), V{});
  EXPECT_TRUE(r.AddChunk(ChunkBuilder(1, 0).Frag("a").Frag("b").Frag("c").copy));
  EXPECT_EQ(Read(&r), V{"c"});
  EXPECT_EQ(r.stats().chunks_replaced, 1u);
  // A scraped chunk never completed is abandoned at Finish.
  ChunkBuilder s2(1, 1);
  s2.Frag("d").Count(2);
  s2.copy.complete = false;
  r.AddChunk(s2.copy);
  EXPECT_EQ(Read(&r, /*finish=*/true), V{"d"});
  EXPECT_EQ(r.stats().incomplete_chunks_abandoned, 1u);
}

TEST(PacketReassemblerTest, EmptyPacketsAreSkipped) {
  PacketReassembler r;
  r.AddChunk(ChunkBuilder(1, 0).Raw({0x00}, 1).Frag("a").Raw({0x00}, 1).copy);
  EXPECT_EQ(Read(&r), V{"a"});
  EXPECT_EQ(r.stats().empty_packets, 2u);
}

}  // namespace
}  // namespace zt
