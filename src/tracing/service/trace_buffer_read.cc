// TraceBuffer: the read side. Packets come out per sequence in chunk-id
// order, fragments joined by reading ahead, losses marked with their
// causes; see docs/design/trace_buffer.md ("Reading", "Loss causes").

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "src/tracing/service/trace_buffer_impl.h"
#include "zt/base/logging.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace trace_buffer_internal {

namespace {
using ABI = SharedMemoryABI;
using Packet = protos::pbzero::TracePacket;
}  // namespace

FragStatus TraceBufferImpl::ParseFragment(const ChunkMeta& m,
                                          Fragment* f) const {
  const size_t size = m.payload_size;
  if (m.read_offset >= size)
    return FragStatus::kMalformed;  // The count promised more fragments.
  const uint8_t* payload = payload_of(m);
  const ABI::PacketHeader h =
      ABI::ParsePacketHeader(payload + m.read_offset, payload + size);
  if (h.status == ABI::PacketHeaderStatus::kDropMarker)
    return FragStatus::kDropMarker;
  if (!h.ok())
    return FragStatus::kMalformed;
  f->data_off = m.read_offset + h.header_size;
  f->size = h.size;
  f->next_off = f->data_off + f->size;
  return FragStatus::kOk;
}

bool TraceBufferImpl::MaybeFinishFront(SeqState* s) {
  const ChunkMeta& m = s->chunks.front();
  if (m.fragments_read < m.packet_count)
    return false;
  // A scraped copy may still be replaced by a longer one, unless the writer
  // has visibly moved on to a later chunk, or is gone.
  if (!m.complete && s->chunks.size() == 1 && !s->writer_gone)
    return false;
  stats_.chunks_read++;
  stats_.bytes_read += m.payload_size;
  if (m.complete && !m.abandoned)
    RecordChunkUse(s, m.read_offset);
  s->next_id = m.chunk_id + 1;
  // Its record is space to reuse now; nothing refers to it any more.
  ring_[m.offset + kKindOffset] = kConsumed;
  s->chunks.pop_front();
  return true;
}

void TraceBufferImpl::AbandonFront(SeqState* s, uint32_t cause) {
  ChunkMeta& m = s->chunks.front();
  AddLoss(s, cause);
  s->orphan = (m.flags & ABI::kLastPacketContinuesOnNextChunk)
                  ? Orphan::kExplained
                  : Orphan::kUnexpected;
  m.fragments_read = m.packet_count;
  m.read_offset = m.payload_size;
  m.complete = true;  // A later copy could not be trusted to line up.
  m.abandoned = true;
  MaybeFinishFront(s);
}

void TraceBufferImpl::SkipGap(SeqState* s, uint32_t id, uint32_t cause) {
  // Ids [next_id, id) are missing: deleted or refused by us (a loss known
  // and counted already) or never received (the writer's loss).
  const uint32_t last = id - 1;
  const bool in_gap = IdAtOrAfter(last, s->next_id);
  if (!(in_gap && s->has_lost && IdAtOrAfter(s->lost_upto, last)))
    stats_.trace_writer_packet_loss++;
  const bool overwritten =
      in_gap && s->has_overwritten && IdAtOrAfter(s->overwritten_upto, last);
  AddLoss(s, overwritten ? uint32_t{Packet::DATA_LOSS_OVERWRITE} : cause);
  s->orphan = Orphan::kExplained;
  s->next_id = id;
  // Given up: if one of them comes after all, it is a loss, not a copy.
  if (in_gap && (!s->has_lost || IdAfter(last, s->lost_upto))) {
    s->lost_upto = last;
    s->has_lost = true;
  }
}

void TraceBufferImpl::EmitMeta(SeqState* s, TraceBufferPacket* out) {
  out->producer_id = ProducerOf(s->key);
  out->writer_id = WriterOf(s->key);
  out->previous_packet_dropped = s->loss;
  s->loss = 0;
}

void TraceBufferImpl::RecordChunkUse(SeqState* s, uint32_t used) {
  if (!s->histogram) {
    const auto key = std::make_pair(ProducerOf(s->key), WriterOf(s->key));
    auto it = writer_stats_.find(key);
    if (it == writer_stats_.end()) {
      if (writer_stats_.size() >= kMaxWriterStats)
        return;
      it = writer_stats_.emplace(key, ChunkPayloadHistogram()).first;
    }
    s->histogram = &it->second;
  }
  s->histogram->Add(used);
}

void TraceBufferImpl::OnProducerGone(uint32_t producer_id) {
  for (auto& entry : seqs_) {
    if (ProducerOf(entry.first) == producer_id)
      entry.second.writer_gone = true;
  }
}

// Whether the last fragment of the front chunk was finished by its writer:
// in a complete chunk, unless it waits for patches; in a scraped one, if it
// goes on in a later chunk (the writer moved on: the read-ahead decides
// about the rest) or its size was written (a fragment's size is written
// when it ends). An empty packet at the end of a scraped chunk waits too:
// it cannot be told from one being written.
bool TraceBufferImpl::LastFragmentFinished(const ChunkMeta& m) const {
  if (m.flags & ABI::kChunkNeedsPatching)
    return false;
  if (m.complete || (m.flags & ABI::kLastPacketContinuesOnNextChunk))
    return true;
  // Malformed: not waited for; the reader's own checks give it up.
  Fragment f;
  return ParseFragment(m, &f) != FragStatus::kOk || f.size > 0;
}

void TraceBufferImpl::BeginRead() {
  read_order_.clear();
  read_idx_ = 0;
  pass_++;
  // The sequences that have something to read, oldest unread chunk first
  // (its distance from the write position, where the oldest record is).
  // O(sequences log sequences): walking every record of the ring instead
  // made each read pass O(buffer), and a service that reads a large buffer
  // in 1 MiB pieces quadratic (90% of ztraced's time draining a 2 GB
  // buffer into a pipe went there).
  std::vector<std::pair<size_t, SeqKey>> oldest;
  oldest.reserve(seqs_.size());
  for (auto& entry : seqs_) {
    SeqState& s = entry.second;
    if (s.chunks.empty())
      continue;
    const size_t offset = s.chunks.front().offset;
    const size_t distance = offset >= wptr_ ? offset - wptr_ : offset + size_ - wptr_;
    oldest.emplace_back(distance, s.key);
    s.pass = pass_;
  }
  std::sort(oldest.begin(), oldest.end());
  for (const auto& entry : oldest)
    read_order_.push_back(entry.second);
}

bool TraceBufferImpl::ReadNextTracePacket(TraceBufferPacket* packet) {
  while (read_idx_ < read_order_.size()) {
    SeqState* s = FindSeq(read_order_[read_idx_]);
    if (s && ReadFromSequence(s, packet))
      return true;
    read_idx_++;
  }
  return false;
}

bool TraceBufferImpl::ReadFromSequence(SeqState* s, TraceBufferPacket* out) {
  for (;;) {
    if (s->chunks.empty())
      return false;
    if (!s->read_started) {
      s->read_started = true;
      // Whatever came before the first chunk seen is unknown, not malformed
      // (unless its loss is known: chunks overwritten before this read).
      if (s->orphan == Orphan::kUnexpected)
        s->orphan = Orphan::kAtStart;
    }
    ChunkMeta& m = s->chunks.front();
    // Stored ids are never before next_id: older ones are refused as stale.
    ZT_DCHECK(IdAtOrAfter(m.chunk_id, s->next_id));
    if (m.chunk_id != s->next_id)
      SkipGap(s, m.chunk_id, Packet::DATA_LOSS_READ_GAP);
    if (m.fragments_read >= m.packet_count) {
      if (!MaybeFinishFront(s))
        return false;  // A scraped chunk whose complete copy may come.
      continue;
    }
    const bool last = m.fragments_read + 1 == m.packet_count;
    if (last && !LastFragmentFinished(m)) {
      // Its bytes may still change: patches to come, or a writer still in
      // it (a scraped chunk's packet whose size is not written yet; read
      // as empty now, it would be skipped when the finished copy comes).
      if (!s->writer_gone)
        return false;
      // Torn by its writer's end (a producer killed mid-packet): dropped,
      // and counted as the writer's loss.
      stats_.trace_writer_packet_loss++;
      AbandonFront(s, Packet::DATA_LOSS_WRITER_ABORT);
      continue;
    }
    Fragment f;
    const FragStatus st = ParseFragment(m, &f);
    if (st == FragStatus::kMalformed) {
      stats_.abi_violations++;
      AbandonFront(s, Packet::DATA_LOSS_CHUNK_CORRUPTED);
      continue;
    }
    if (st == FragStatus::kDropMarker) {
      // The writer gave up on this packet; its length is unknown, so
      // nothing after the marker can be located either.
      stats_.trace_writer_packet_loss++;
      AbandonFront(s, Packet::DATA_LOSS_WRITER_ABORT);
      continue;
    }
    const bool continues_prev =
        m.fragments_read == 0 &&
        (m.flags & ABI::kFirstPacketContinuesFromPrevChunk);
    const bool continues_next =
        last && (m.flags & ABI::kLastPacketContinuesOnNextChunk);
    if (continues_prev) {
      // A read-ahead would have consumed it with its beginning.
      if (s->orphan == Orphan::kUnexpected)
        stats_.abi_violations++;
      if (s->orphan != Orphan::kExplained)
        AddLoss(s, Packet::DATA_LOSS_ORPHAN_CONTINUATION);
      s->orphan = continues_next ? Orphan::kExplained : Orphan::kUnexpected;
      m.fragments_read++;
      m.read_offset = static_cast<uint32_t>(f.next_off);
      MaybeFinishFront(s);
      continue;
    }
    s->orphan = Orphan::kUnexpected;
    if (continues_next) {
      switch (ReadAhead(s, f, out)) {
        case ReadAheadResult::kPacket:
          return true;
        case ReadAheadResult::kWait:
          if (s->writer_gone) {
            // The rest of the packet will never come.
            stats_.trace_writer_packet_loss++;
            AbandonFront(s, Packet::DATA_LOSS_WRITER_ABORT);
            continue;
          }
          stats_.readaheads_failed++;
          return false;
        case ReadAheadResult::kEmpty:
        case ReadAheadResult::kBroken:
          continue;
      }
    }
    m.fragments_read++;
    m.read_offset = static_cast<uint32_t>(f.next_off);
    if (f.size == 0) {
      MaybeFinishFront(s);
      continue;
    }
    const uint8_t* data = payload_of(m) + f.data_off;
    out->slices.clear();
    out->slices.push_back({data, f.size});
    out->size = f.size;
    EmitMeta(s, out);
    MaybeFinishFront(s);
    return true;
  }
}

// Joins the packet whose first fragment |first| ends the front chunk with
// its continuations in the chunks after it (ids front+1, front+2, ...,
// which are the next positions of the list when they are there).
TraceBufferImpl::ReadAheadResult TraceBufferImpl::ReadAhead(
    SeqState* s, const Fragment& first, TraceBufferPacket* out) {
  ChunkList& list = s->chunks;
  std::vector<Fragment> frags;     // Of positions 1, 2, ...
  uint32_t broken = 0;             // The loss cause, if the chain broke.
  bool breaker_continues = false;  // The chunk that broke it starts orphaned.
  bool gap = false;                // ... because a chunk will never come.
  const uint32_t start_id = list.front().chunk_id;
  for (;;) {
    const size_t pos = frags.size() + 1;
    const uint32_t next = start_id + static_cast<uint32_t>(pos);
    if (pos >= list.size() || list[pos].chunk_id != next) {
      const bool deleted = s->has_lost && IdAtOrAfter(s->lost_upto, next);
      if (!deleted && pos >= list.size())
        return ReadAheadResult::kWait;
      // It will never come: deleted by us, or skipped by the writer.
      const bool overwritten =
          s->has_overwritten && IdAtOrAfter(s->overwritten_upto, next);
      broken = overwritten ? Packet::DATA_LOSS_OVERWRITE
                           : Packet::DATA_LOSS_REASSEMBLY_GAP;
      gap = true;
      break;
    }
    const ChunkMeta& nm = list[pos];
    if (nm.packet_count == 0 && !nm.complete)
      return ReadAheadResult::kWait;  // Scraped before its first fragment.
    if (!(nm.flags & ABI::kFirstPacketContinuesFromPrevChunk) ||
        nm.packet_count == 0) {
      stats_.abi_violations++;
      broken = Packet::DATA_LOSS_REASSEMBLY_BROKEN_CHAIN;
      breaker_continues = nm.packet_count == 0;
      break;
    }
    const bool nlast = nm.packet_count == 1;
    if (nlast && (nm.flags & ABI::kChunkNeedsPatching))
      return ReadAheadResult::kWait;
    Fragment nf;
    const FragStatus nst = ParseFragment(nm, &nf);
    if (nst != FragStatus::kOk) {
      // Counted (and marked again) when that chunk is read on its own.
      broken = nst == FragStatus::kDropMarker
                   ? Packet::DATA_LOSS_WRITER_ABORT
                   : Packet::DATA_LOSS_CHUNK_CORRUPTED;
      breaker_continues = true;
      break;
    }
    frags.push_back(nf);
    if (!(nlast && (nm.flags & ABI::kLastPacketContinuesOnNextChunk)))
      break;
  }

  if (!broken) {
    // The fragments where they lie in the ring: joined by whoever copies
    // the packet out.
    out->slices.clear();
    out->slices.push_back({payload_of(list.front()) + first.data_off, first.size});
    out->size = first.size;
    for (size_t i = 0; i < frags.size(); i++) {
      out->slices.push_back(
          {payload_of(list[i + 1]) + frags[i].data_off, frags[i].size});
      out->size += frags[i].size;
    }
    stats_.readaheads_succeeded++;
  }

  // Consume the fragments walked, whether joined or dropped, then finish
  // the chunks that have nothing left, in order from the front.
  list.front().fragments_read++;
  list.front().read_offset = static_cast<uint32_t>(first.next_off);
  for (size_t i = 0; i < frags.size(); i++) {
    list[i + 1].fragments_read++;
    list[i + 1].read_offset = static_cast<uint32_t>(frags[i].next_off);
  }
  const uint32_t walked = static_cast<uint32_t>(frags.size()) + 1;
  for (uint32_t i = 0;
       i < walked && !list.empty() && list.front().chunk_id == start_id + i;
       i++) {
    if (!MaybeFinishFront(s))
      break;
  }
  if (broken) {
    AddLoss(s, broken);
    s->orphan = breaker_continues ? Orphan::kExplained : Orphan::kUnexpected;
    if (gap && s->next_id == start_id + walked && !list.empty()) {
      // The missing chunks are this loss: the read goes on after them
      // without reporting them again as a read gap.
      SkipGap(s, list.front().chunk_id, Packet::DATA_LOSS_REASSEMBLY_GAP);
    }
    return ReadAheadResult::kBroken;
  }
  if (out->size == 0)
    return ReadAheadResult::kEmpty;
  EmitMeta(s, out);
  return ReadAheadResult::kPacket;
}

}  // namespace trace_buffer_internal
}  // namespace zt
