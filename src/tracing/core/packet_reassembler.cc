#include "src/tracing/core/packet_reassembler.h"

#include <algorithm>
#include <utility>

namespace zt {

using ABI = SharedMemoryABI;

namespace {

// Whether chunk id |a| comes after |b| (ids wrap around at 2^32).
bool IdAfter(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(a - b) > 0;
}

}  // namespace

size_t PacketReassembler::chunks_held() const {
  size_t n = 0;
  for (const auto& it : sequences_)
    n += it.second.chunks.size();
  return n;
}

bool PacketReassembler::AddChunk(ABI::ChunkCopy chunk) {
  const ABI::ChunkHeaderValues& h = chunk.header;
  if (h.writer_id == 0 || chunk.payload.size() > ABI::kMaxPageSize) {
    stats_.chunks_rejected++;
    return false;
  }
  Sequence& seq = sequences_[h.writer_id];
  // A complete copy replaces a scraped one of the same chunk, provided it
  // still covers what was already read from the scraped copy.
  for (Entry& e : seq.chunks) {
    if (e.header.chunk_id != h.chunk_id)
      continue;
    if (e.complete || e.offset > chunk.payload.size() ||
        e.fragments_done > h.packet_count) {
      stats_.chunks_rejected++;
      return false;
    }
    e.header = h;
    e.payload = std::move(chunk.payload);
    e.complete = chunk.complete;
    stats_.chunks_replaced++;
    return true;
  }
  if (seq.have_last_added && !IdAfter(h.chunk_id, seq.last_added)) {
    stats_.chunks_rejected++;  // Duplicate or out of order.
    return false;
  }
  seq.have_last_added = true;
  seq.last_added = h.chunk_id;
  Entry e;
  e.header = h;
  e.payload = std::move(chunk.payload);
  e.complete = chunk.complete;
  seq.chunks.push_back(std::move(e));
  stats_.chunks_added++;
  return true;
}

bool PacketReassembler::ApplyPatches(const CommitData::ChunkToPatch& patch) {
  auto it = sequences_.find(patch.writer_id);
  if (it != sequences_.end()) {
    for (Entry& e : it->second.chunks) {
      if (e.header.chunk_id != patch.chunk_id)
        continue;
      for (const CommitData::Patch& p : patch.patches) {
        // Only bytes not yet consumed can meaningfully change; anything
        // outside the payload is hostile.
        if (p.offset < e.offset ||
            p.offset > e.payload.size() ||
            e.payload.size() - p.offset < p.data.size()) {
          stats_.patches_rejected++;
          continue;
        }
        std::copy(p.data.begin(), p.data.end(), e.payload.begin() + p.offset);
        stats_.patches_applied++;
      }
      if (!patch.has_more_patches)
        e.header.flags &= static_cast<uint8_t>(~ABI::kChunkNeedsPatching);
      return true;
    }
  }
  stats_.patches_rejected += patch.patches.size();
  return false;
}

void PacketReassembler::ReadPackets(std::vector<ReassembledPacket>* out) {
  for (auto& it : sequences_)
    Process(it.first, &it.second, /*final=*/false, out);
}

void PacketReassembler::Finish(std::vector<ReassembledPacket>* out) {
  for (auto& it : sequences_) {
    Process(it.first, &it.second, /*final=*/true, out);
    if (it.second.has_partial) {
      stats_.packets_not_continued++;
      DiscardPartial(&it.second);
    }
    it.second.skipping = false;
  }
}

void PacketReassembler::DiscardPartial(Sequence* seq) {
  seq->has_partial = false;
  seq->partial.clear();
  seq->loss_pending = true;
}

void PacketReassembler::Emit(uint16_t writer_id, Sequence* seq,
                             std::vector<ReassembledPacket>* out) {
  seq->has_partial = false;
  if (seq->partial.empty()) {
    stats_.empty_packets++;  // Padding some producers write; not data.
    return;
  }
  ReassembledPacket p;
  p.writer_id = writer_id;
  p.data = std::move(seq->partial);
  p.loss_before = seq->loss_pending;
  seq->loss_pending = false;
  seq->partial = std::vector<uint8_t>();
  stats_.packets_emitted++;
  stats_.bytes_emitted += p.data.size();
  out->push_back(std::move(p));
}

void PacketReassembler::Process(uint16_t writer_id, Sequence* seq, bool final,
                                std::vector<ReassembledPacket>* out) {
  while (!seq->chunks.empty()) {
    Entry& e = seq->chunks.front();
    const uint16_t count = e.header.packet_count;
    const uint8_t flags = e.header.flags;
    if (!e.started) {
      e.started = true;
      if (seq->have_expected && e.header.chunk_id != seq->expected) {
        stats_.sequence_gaps++;
        if (seq->has_partial)
          stats_.packets_not_continued++;
        DiscardPartial(seq);
        seq->skipping = false;
      }
      seq->have_expected = true;
      seq->expected = e.header.chunk_id + 1;
      const bool continues = flags & ABI::kFirstPacketContinuesFromPrevChunk;
      const bool continued = flags & ABI::kLastPacketContinuesOnNextChunk;
      if (count == 0 && (continues || continued)) {
        stats_.count_flag_mismatches++;
        e.fragments_done = 0;
        e.offset = e.payload.size();
      }
    }

    const bool needs_patching = flags & ABI::kChunkNeedsPatching;
    // The last fragment of a chunk still being written may be in progress;
    // that of a chunk waiting for patches has holes.
    uint32_t limit = count;
    if ((!e.complete || needs_patching) && limit > 0)
      limit--;
    ConsumeFragments(writer_id, seq, &e, limit, out);

    if (e.fragments_done < count && (!e.complete || needs_patching)) {
      if (!final)
        return;  // Wait for the complete copy or the patches.
      if (!e.complete)
        stats_.incomplete_chunks_abandoned++;
      else
        stats_.unpatched_chunks++;
      // The last fragment is unusable, and with it its packet (a partial
      // left over can only be that packet's beginning).
      if (seq->has_partial)
        stats_.packets_not_continued++;
      DiscardPartial(seq);
      seq->skipping = (flags & ABI::kLastPacketContinuesOnNextChunk) != 0;
    }
    seq->chunks.pop_front();
  }
}

void PacketReassembler::ConsumeFragments(uint16_t writer_id, Sequence* seq,
                                         Entry* e, uint32_t limit,
                                         std::vector<ReassembledPacket>* out) {
  const uint16_t count = e->header.packet_count;
  const uint8_t flags = e->header.flags;
  const size_t payload_size = e->payload.size();
  const uint8_t* payload = e->payload.data();
  auto abandon_chunk = [&] {
    if (seq->has_partial)
      stats_.packets_not_continued++;
    DiscardPartial(seq);
    // Whatever this chunk's last packet was, its continuation (if any) is
    // now without a start: skip it quietly rather than count it twice.
    seq->skipping = (flags & ABI::kLastPacketContinuesOnNextChunk) != 0;
    e->fragments_done = count;
    e->offset = payload_size;
  };

  while (e->fragments_done < limit) {
    const uint32_t i = e->fragments_done;
    if (e->offset >= payload_size) {
      stats_.count_flag_mismatches++;  // Fewer fragments than the count says.
      abandon_chunk();
      return;
    }
    const ABI::PacketHeader h =
        ABI::ParsePacketHeader(payload + e->offset, payload + payload_size);
    switch (h.status) {
      case ABI::PacketHeaderStatus::kOk:
        break;
      case ABI::PacketHeaderStatus::kDropMarker:
        // The writer abandoned this packet; nothing after the marker counts.
        stats_.drop_markers++;
        DiscardPartial(seq);
        seq->skipping = false;
        e->fragments_done = count;
        e->offset = payload_size;
        return;
      case ABI::PacketHeaderStatus::kTruncated:
      case ABI::PacketHeaderStatus::kBadVarint:
        stats_.bad_size_varints++;
        abandon_chunk();
        return;
      case ABI::PacketHeaderStatus::kPastChunkEnd:
        stats_.sizes_out_of_bounds++;
        abandon_chunk();
        return;
    }
    const uint8_t* data = payload + e->offset + h.header_size;
    const size_t size = h.size;
    e->offset += h.header_size + size;
    e->fragments_done++;

    const bool continues_prev =
        i == 0 && (flags & ABI::kFirstPacketContinuesFromPrevChunk);
    const bool continues_next =
        i + 1 == count && (flags & ABI::kLastPacketContinuesOnNextChunk);
    if (continues_prev) {
      if (seq->skipping) {
        // Rest of a packet already known to be broken.
        if (!continues_next)
          seq->skipping = false;
        continue;
      }
      if (!seq->has_partial) {
        stats_.fragments_without_start++;
        seq->loss_pending = true;
        seq->skipping = continues_next;
        continue;
      }
    } else {
      if (seq->has_partial) {
        stats_.packets_not_continued++;
        DiscardPartial(seq);
      }
      seq->skipping = false;
      seq->has_partial = true;
      seq->partial.clear();
    }
    seq->partial.insert(seq->partial.end(), data, data + size);
    if (!continues_next)
      Emit(writer_id, seq, out);
  }
  if (e->fragments_done == count && e->complete &&
      !(flags & ABI::kChunkNeedsPatching)) {
    e->offset = payload_size;  // Bytes after the last fragment are padding.
  }
}

}  // namespace zt
