// libFuzzer target: hostile shared-memory contents and commit requests fed to
// the service-side SharedMemoryABI accessors and the PacketReassembler.
//
// Input layout: byte 0 selects the mode.
//  * even: an SMB image. Byte 1 picks the page size (4..32 KiB); the rest of
//    the input is copied over the SMB (page words, chunk headers, payloads,
//    all attacker-controlled). Every chunk of every page is then queried,
//    scraped, acquired, copied, freed and given to the reassembler; input
//    left over after the SMB image is parsed as a CommitDataRequest whose
//    patches are applied.
//  * odd: a sequence of chunk copies given directly to the reassembler:
//    records of [writer u8][chunk_id u8][flags u8][count u16][complete u8]
//    [payload len u16][payload], with patch records mixed in when the flags
//    byte has its top bit set.
//
// Beyond "no crash, no out-of-bounds" (ASan/UBSan), it checks invariants: a
// packet is never larger than the payload bytes given, stats add up, a
// chunk copy has exactly the geometry of the layout, and the packet header
// parser's verdict on the input's first bytes agrees with what it read.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "src/tracing/core/packet_reassembler.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace {

using zt::CommitData;
using zt::PacketReassembler;
using zt::ReassembledPacket;
using ABI = zt::SharedMemoryABI;

void Check(bool cond) {
  if (!cond)
    abort();
}

void CheckPackets(const std::vector<ReassembledPacket>& out,
                  size_t payload_bytes_given, const PacketReassembler& r) {
  size_t total = 0;
  for (const ReassembledPacket& p : out) {
    Check(!p.data.empty());
    Check(p.writer_id != 0);
    total += p.data.size();
  }
  Check(total <= payload_bytes_given);
  Check(r.stats().packets_emitted == out.size());
  Check(r.stats().bytes_emitted == total);
}

void FuzzSmb(const uint8_t* data, size_t size) {
  if (size < 2)
    return;
  const size_t page_size = 4096u << (data[1] % 4);
  const size_t num_pages = 4;
  const size_t smb_size = page_size * num_pages;
  data += 2;
  size -= 2;
  std::vector<uint64_t> storage(smb_size / 8);
  uint8_t* smb = reinterpret_cast<uint8_t*>(storage.data());
  const size_t image = size < smb_size ? size : smb_size;
  memcpy(smb, data, image);
  // Spread a small input over all pages so every page word is hostile.
  if (image < smb_size) {
    for (size_t p = 1; p < num_pages && image >= 8; p++)
      memcpy(smb + p * page_size, data, image < page_size ? image : page_size);
  }
  ABI abi(smb, smb_size, page_size);
  Check(abi.is_valid());
  PacketReassembler reassembler;
  size_t payload_bytes = 0;
  for (size_t page = 0; page < num_pages + 1; page++) {
    const uint32_t layout = abi.GetPageLayout(page);
    Check(page < num_pages || layout == 0);
    abi.GetFreeChunks(page);
    abi.GetUsedChunks(page);
    abi.IsPageComplete(page);
    for (size_t c = 0; c < ABI::kMaxChunksPerPage + 2; c++) {
      const ABI::ChunkState state = abi.GetChunkState(page, c);
      Check(state <= ABI::kChunkComplete);
      ABI::ChunkCopy scraped;
      if (abi.ScrapeChunk(page, c, &scraped)) {
        Check(scraped.payload.size() + 8 <= abi.chunk_size(layout));
        payload_bytes += scraped.payload.size();
        reassembler.AddChunk(std::move(scraped));
      }
      ABI::ChunkCopy peeked;
      if (abi.PeekCompleteChunk(page, c, &peeked)) {
        Check(state == ABI::kChunkComplete);
        Check(peeked.payload.size() + 8 == abi.chunk_size(layout));
      }
      abi.PeekChunkHeader(page, c);
      ABI::Chunk chunk = abi.TryAcquireChunkForReading(page, c);
      if (!chunk.is_valid())
        continue;
      Check(chunk.size() == abi.chunk_size(layout));
      Check(chunk.begin() >= smb && chunk.end() <= smb + smb_size);
      ABI::ChunkCopy copy;
      ABI::CopyChunk(chunk, &copy);
      Check(copy.payload.size() == chunk.payload_size());
      Check(abi.ReleaseChunkAsFree(std::move(chunk)));
      Check(abi.GetChunkState(page, c) == ABI::kChunkFree);
      payload_bytes += copy.payload.size();
      reassembler.AddChunk(std::move(copy));
    }
  }
  std::vector<ReassembledPacket> out;
  reassembler.ReadPackets(&out);
  if (size > smb_size) {
    CommitData commit;
    if (ParseCommitData(data + smb_size, size - smb_size, &commit)) {
      // What parses re-serializes to something that parses the same.
      const std::string again = SerializeCommitData(commit);
      CommitData back;
      Check(ParseCommitData(reinterpret_cast<const uint8_t*>(again.data()),
                              again.size(), &back));
      Check(back == commit);
      for (const auto& p : commit.chunks_to_patch)
        reassembler.ApplyPatches(p);
    }
  }
  reassembler.Finish(&out);
  CheckPackets(out, payload_bytes, reassembler);
  Check(reassembler.chunks_held() == 0);
}

void FuzzChunks(const uint8_t* data, size_t size) {
  PacketReassembler reassembler;
  std::vector<ReassembledPacket> out;
  size_t payload_bytes = 0;
  size_t pos = 1;
  while (pos + 8 <= size) {
    const uint8_t* r = data + pos;
    pos += 8;
    size_t len = static_cast<size_t>(r[6] | (r[7] << 8)) % 2048;
    if (len > size - pos)
      len = size - pos;
    if (r[2] & 0x80) {
      CommitData::ChunkToPatch patch;
      patch.writer_id = r[0] % 4;
      patch.chunk_id = r[1] % 16;
      patch.has_more_patches = r[2] & 0x40;
      for (size_t i = 0; i + 6 <= len; i += 6) {
        CommitData::Patch p;
        p.offset = static_cast<uint32_t>(data[pos + i] | (data[pos + i + 1] << 8));
        memcpy(p.data.data(), data + pos + i + 2, 4);
        patch.patches.push_back(p);
      }
      reassembler.ApplyPatches(patch);
    } else {
      ABI::ChunkCopy copy;
      copy.header.writer_id = r[0] % 4;
      copy.header.chunk_id = r[1] % 16;
      copy.header.flags = r[2] & 0x3F;
      copy.header.packet_count =
          static_cast<uint16_t>((r[3] | (r[4] << 8)) & ABI::kMaxPacketCount);
      copy.complete = !(r[5] & 1);
      copy.payload.assign(data + pos, data + pos + len);
      payload_bytes += len;
      reassembler.AddChunk(std::move(copy));
    }
    pos += len;
    if (r[5] & 2)
      reassembler.ReadPackets(&out);
  }
  reassembler.Finish(&out);
  // Replaced scraped copies may contribute their bytes twice at most.
  CheckPackets(out, 2 * payload_bytes, reassembler);
  Check(reassembler.chunks_held() == 0);
}

// The packet header parser on every offset of the input, each time with
// the input's end as the chunk's: its verdict must be self-consistent and
// it must never read past |end| (ASan).
void CheckPacketHeaders(const uint8_t* data, size_t size) {
  using S = ABI::PacketHeaderStatus;
  for (size_t off = 0; off <= size && off < 64; off++) {
    const ABI::PacketHeader h = ABI::ParsePacketHeader(data + off, data + size);
    const size_t avail = size - off;
    switch (h.status) {
      case S::kOk:
        Check(h.header_size >= 1 && h.header_size <= ABI::kPacketHeaderSize);
        Check(size_t{h.header_size} + h.size <= avail);
        break;
      case S::kDropMarker:
        Check(h.header_size == 4 && h.size == ABI::kPacketSizeDropPacket);
        break;
      case S::kPastChunkEnd:
        Check(h.header_size >= 1 && size_t{h.header_size} + h.size > avail);
        Check(h.size < ABI::kPacketSizeDropPacket);
        break;
      case S::kTruncated:
        Check(h.header_size == 0 && avail < ABI::kPacketHeaderSize);
        break;
      case S::kBadVarint:
        Check(h.header_size == 0 && avail >= ABI::kPacketHeaderSize);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  CheckPacketHeaders(data, size);
  if (data[0] % 2 == 0)
    FuzzSmb(data, size);
  else
    FuzzChunks(data, size);
  return 0;
}
