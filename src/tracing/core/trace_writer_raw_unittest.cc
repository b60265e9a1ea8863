// The trace writer's raw fast path (BeginRawPacket /
// EndRawPacketAndBeginNext / EndRawBytes) and MarkPacketLost().

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/core/test_smb.h"
#include "zt/ext/tracing/core/trace_writer.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
using test::ExpectPacket;
using test::SmbSetup;
using test::WritePacket;

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
  uint8_t* dst = w->BeginRawPacket(bytes.size());
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

// WriteRawPacket(), with the slow path's second try when the fast one
// refuses, as the SDK's writers do.
bool WriteRawPacketOrSlow(TraceWriter* w, const std::vector<uint8_t>& bytes) {
  uint8_t* dst = w->BeginRawPacket(bytes.size());
  if (!dst)
    dst = w->BeginRawPacketSlow(bytes.size());
  if (!dst)
    return false;
  memcpy(dst, bytes.data(), bytes.size());
  w->EndRawPacketAndBeginNext(dst + bytes.size());
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
  EXPECT_EQ(s.service.chunk_headers()[0].packet_count, 9)
      << "2 by handle, 5 raw, 1 empty, 1 counted at the last one's end";
  EXPECT_EQ(s.service.chunk_headers()[0].flags, 0);
  const auto& st = s.service.reassembler().stats();
  EXPECT_EQ(st.empty_packets, 2u);
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
  EXPECT_EQ(w->BeginRawPacket(kMax), nullptr);
  EXPECT_NE(w->BeginRawPacket(), nullptr) << "room for a small one";
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
  EXPECT_EQ(w->BeginRawPacket(1), nullptr);
  h->set_timestamp(seq);
  h.Finish();
  w->Flush();
  s.service.Finish();
  ASSERT_EQ(s.service.chunk_headers().size(), 2u);
  // The slot counted when the first chunk's last packet ended (the second
  // chunk has no room left for one).
  EXPECT_EQ(s.service.reassembler().stats().empty_packets, 1u);
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

// A packet of at most kRawPacketRoom bytes needs that and the next
// packet's minimum room (kMinRoomForPacket: its header and 8 bytes), no
// more; a larger one its own size and that.
TEST(TraceWriterRawTest, SmallPacketsNeedLessRoom) {
  SmbSetup s(4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  constexpr size_t kSmall = TraceWriter::kRawPacketRoom;
  constexpr size_t kNextPacket = ABI::kPacketHeaderSize + 8;
  WritePacket(w.get(), 0, 0, 10);
  uint64_t seq = 1;
  std::vector<std::vector<uint8_t>> raw;
  auto h = w->NewTracePacket();
  RawFillToRoom(w.get(), h, kSmall + kNextPacket, &seq, &raw);
  if (HasFatalFailure())
    return;
  EXPECT_EQ(w->BeginRawPacket(kSmall + 1), nullptr);
  raw.push_back(RawPacket(seq++, kSmall));
  ASSERT_TRUE(WriteRawPacket(w.get(), raw.back()));
  EXPECT_EQ(Room(h), kNextPacket - ABI::kPacketHeaderSize);
  EXPECT_EQ(w->BeginRawPacket(5), nullptr);
  h.Finish();
  w->Flush();
  s.service.Finish();
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), raw.size() + 1);
  for (size_t i = 0; i < raw.size(); i++)
    EXPECT_EQ(pk[i + 1].data, raw[i]) << i;
}

// At a chunk's end, BeginRawPacketSlow() leaves the open packet
// empty there and takes the raw packet to a new chunk: every packet reads,
// in order, and none is fragmented.
TEST(TraceWriterRawTest, ANewChunkWhenOnlyTheRoomIsShort) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  uint64_t seq = 1;
  std::vector<std::vector<uint8_t>> raw;
  auto h = w->NewTracePacket();
  RawFillToRoom(w.get(), h, 40, &seq, &raw);
  if (HasFatalFailure())
    return;
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "40 bytes: short";
  EXPECT_EQ(w->BeginRawPacketSlow(20), nullptr) << "20 bytes fit";
  raw.push_back(RawPacket(seq++, 30));
  uint8_t* dst = w->BeginRawPacketSlow(raw.back().size());
  ASSERT_NE(dst, nullptr);
  EXPECT_EQ(w->stats().chunks_used, 2u);
  memcpy(dst, raw.back().data(), raw.back().size());
  w->EndRawPacketAndBeginNext(dst + raw.back().size());
  raw.push_back(RawPacket(seq++, 20));
  ASSERT_TRUE(WriteRawPacket(w.get(), raw.back())) << "raw again in the new chunk";
  h.Finish();
  w->Flush();
  s.service.Finish();
  ASSERT_EQ(s.service.chunk_headers().size(), 2u);
  for (const auto& header : s.service.chunk_headers())
    EXPECT_EQ(header.flags, 0) << "no fragments";
  const auto& st = s.service.reassembler().stats();
  EXPECT_EQ(st.bad_size_varints + st.sizes_out_of_bounds + st.count_flag_mismatches, 0u);
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), raw.size() + 1);
  ExpectPacket(pk[0], 0, 0, 10);
  for (size_t i = 0; i < raw.size(); i++)
    EXPECT_EQ(pk[i + 1].data, raw[i]) << i;
}

// Nothing changes when the room is not what refuses: no packet open, the
// packet not empty, a loss mark to write.
TEST(TraceWriterRawTest, NoNewChunkForAnythingButRoom) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  EXPECT_EQ(w->BeginRawPacketSlow(20), nullptr) << "no packet yet";
  WritePacket(w.get(), 0, 0, 10);
  auto h = w->NewTracePacket();
  h->set_timestamp(1);
  EXPECT_EQ(w->BeginRawPacketSlow(20), nullptr) << "not empty";
  h.Finish();
  h = w->NewTracePacket();
  w->MarkPacketLost();
  EXPECT_EQ(w->BeginRawPacketSlow(20), nullptr) << "a loss mark to write";
  h.Finish();
  EXPECT_EQ(w->stats().chunks_used, 1u);
  w->Flush();
  s.service.Finish();
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

// A packet the caller gives up while another is open (MarkPacketLost): it
// is counted, and the next packet begun carries previous_packet_dropped =
// DATA_LOSS_PRESENT alone (no buffer was full); the raw path waits until
// that packet is written.
TEST(TraceWriterRawTest, MarkPacketLostMarksTheNextPacket) {
  SmbSetup s(4 * 4096, 4096);
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  auto h = w->NewTracePacket();
  test::WriteTestPacket(h.get(), 0, 1, test::TestPayload(0, 1, 10));
  const uint64_t dropped = w->stats().packets_dropped;
  w->MarkPacketLost();
  EXPECT_EQ(w->stats().packets_dropped, dropped + 1);
  h.Finish();
  h = w->NewTracePacket();
  EXPECT_EQ(w->BeginRawPacket(), nullptr) << "carries the mark";
  test::WriteTestPacket(h.get(), 0, 2, test::TestPayload(0, 2, 10));
  h.Finish();
  h = w->NewTracePacket();
  const std::vector<uint8_t> raw = RawPacket(3, 40);
  ASSERT_TRUE(WriteRawPacket(w.get(), raw)) << "loss told: raw again";
  h.Finish();
  w->Flush();
  s.service.Finish();
  const auto& pk = s.service.packets();
  ASSERT_EQ(pk.size(), 4u);
  ExpectPacket(pk[0], 0, 0, 10);
  ExpectPacket(pk[1], 0, 1, 10);
  const std::vector<uint8_t> kLossPresent = {0xD0, 0x02, 0x01};  // Field 42 = 1.
  ASSERT_GE(pk[2].data.size(), kLossPresent.size());
  EXPECT_EQ(std::vector<uint8_t>(pk[2].data.begin(), pk[2].data.begin() + 3), kLossPresent);
  EXPECT_EQ(std::vector<uint8_t>(pk[2].data.begin() + 3, pk[2].data.end()),
            test::ExpectedPacket(0, 2, 10));
  EXPECT_EQ(pk[3].data, raw);
}

TEST(TraceWriterRawTest, RawPacketsRespectTheChunkPacketCount) {
  SmbSetup s(4 * 65536, 65536);  // Room for far more than 1023 tiny packets.
  auto w = s.arbiter->CreateTraceWriter(0);
  WritePacket(w.get(), 0, 0, 10);
  auto h = w->NewTracePacket();
  size_t raw = 0;
  size_t fast = 0;  // Before the fast path's first refusal.
  while (WriteRawPacketOrSlow(w.get(), RawPacket(raw + 1, 2))) {
    raw++;
    if (fast == 0 && w->BeginRawPacket(2) == nullptr)
      fast = raw;
    ASSERT_LE(raw, 2000u);
  }
  // The fast path's bound is conservative (4 bytes a packet: it never
  // looks at the count); the slow path computes it again, up to the count.
  EXPECT_GT(fast, 300u);
  EXPECT_LT(fast, raw);
  EXPECT_EQ(raw, ABI::kMaxPacketCount - 2u) << "the first and the open one";
  EXPECT_GT(Room(h), 1000u) << "refused for the count, not the room";
  h.Finish();
  WritePacket(w.get(), 0, raw + 1, 10);  // Into the next chunk.
  w->Flush();
  s.service.Finish();
  const auto& hdrs = s.service.chunk_headers();
  ASSERT_EQ(hdrs.size(), 2u);
  EXPECT_EQ(hdrs[0].packet_count, ABI::kMaxPacketCount);
  EXPECT_EQ(hdrs[1].packet_count, 2) << "and the slot counted at its end";
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
  EXPECT_EQ(s.service.chunk_headers()[0].packet_count, 6) << "and the slot counted at the end";
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
               "CHECK failed: .*size <= kMaxRawPacketSize");
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

}  // namespace
}  // namespace zt
