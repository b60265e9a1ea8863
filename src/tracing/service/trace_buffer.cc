// TraceBuffer: creation, the per-sequence chunk lists, and the write side
// (chunks copied in, room made, patches); reading is trace_buffer_read.cc.
// See docs/design/trace_buffer.md for the layout and the rules. Everything
// a producer sent is validated where it is used.

#include "src/tracing/service/trace_buffer.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "src/tracing/service/trace_buffer_impl.h"
#include "zt/base/compiler.h"
#include "zt/base/logging.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {

TraceBuffer::~TraceBuffer() = default;

namespace trace_buffer_internal {

namespace {

using ABI = SharedMemoryABI;
using Packet = protos::pbzero::TracePacket;

constexpr size_t kSizeGranularity = 4096;
constexpr uint64_t kMaxSize = 1ull << 32;
// An idle sequence keeps at most this much list storage.
constexpr size_t kKeptListCapacity = 64;

}  // namespace

// --- ChunkList ---

void ChunkList::Grow() {
  std::vector<ChunkMeta> bigger(buf_.empty() ? 8 : buf_.size() * 2);
  for (size_t i = 0; i < size_; i++)
    bigger[i] = (*this)[i];
  buf_.swap(bigger);
  mask_ = buf_.size() - 1;
  head_ = 0;
}

void ChunkList::Clear() {
  head_ = size_ = 0;
  if (buf_.size() > kKeptListCapacity) {
    std::vector<ChunkMeta>().swap(buf_);
    mask_ = 0;
  }
}

void ChunkList::Insert(size_t i, const ChunkMeta& m) {
  ZT_CHECK(i <= size_);
  push_back(m);  // Room at the back, then the tail moves up by one.
  for (size_t j = size_ - 1; j > i; j--)
    (*this)[j] = (*this)[j - 1];
  (*this)[i] = m;
}

void ChunkList::Erase(size_t i) {
  ZT_CHECK(i < size_);
  if (i < size_ / 2) {
    for (size_t j = i; j > 0; j--)
      (*this)[j] = (*this)[j - 1];
    pop_front();
    return;
  }
  for (size_t j = i; j + 1 < size_; j++)
    (*this)[j] = (*this)[j + 1];
  if (--size_ == 0)
    Clear();
}

size_t ChunkList::LowerBound(uint32_t chunk_id) const {
  if (size_ == 0)
    return 0;
  const uint32_t front_id = (*this)[0].chunk_id;
  if (!IdAfter(chunk_id, front_id))
    return 0;  // At or before the front (the common case: the front itself).
  // Every id lies within 2^31 after the front: distances order them.
  const uint32_t target = chunk_id - front_id;
  size_t lo = 1, hi = size_;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if ((*this)[mid].chunk_id - front_id < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// --- TraceBufferImpl: writing ---

TraceBufferImpl::TraceBufferImpl(std::unique_ptr<uint8_t[]> ring, size_t size,
                                 OverwritePolicy policy)
    : ring_(std::move(ring)), size_(size), policy_(policy) {
  max_seqs_ = size_ / 256 + 64;
  WriteFiller(0, size_, kFree);
  stats_.buffer_size = size_;
}

TraceBufferImpl::~TraceBufferImpl() = default;

// Inlined: on every chunk's path.
ZT_ALWAYS_INLINE inline bool TraceBufferImpl::MakeRoomFor(
    SeqState* s, const TraceBufferChunk& chunk, size_t* record) {
  const uint64_t bytes = (uint64_t{kRecordHeaderSize} + chunk.size + kAlign - 1) &
                         ~uint64_t{kAlign - 1};
  if (bytes > size_ || discard_latched_ ||
      !MakeRoom(static_cast<size_t>(bytes))) {
    // A full kDiscard buffer takes nothing more, so that what it holds
    // stays a prefix of each sequence.
    if (bytes <= size_ && policy_ == OverwritePolicy::kDiscard)
      discard_latched_ = true;
    RefuseChunk(s, chunk.chunk_id);
    return false;
  }
  *record = static_cast<size_t>(bytes);
  return true;
}

void TraceBufferImpl::CopyChunkUntrusted(const TraceBufferChunk& chunk) {
  const uint32_t chunk_id = chunk.chunk_id;
  const size_t size = chunk.size;
  if (chunk.writer_id == 0 || (size > 0 && chunk.payload == nullptr)) {
    stats_.abi_violations++;
    return;
  }
  const SeqKey key = MakeSeqKey(chunk.producer_id, chunk.writer_id);
  SeqState* s = FindSeq(key);
  if (!s) {
    s = NewSeq(key, chunk_id);
  } else if (!s->chunks.empty() &&
             !IdAfter(chunk_id, s->chunks.back().chunk_id)) {
    // Not the newest stored: a new copy of a stored chunk, or a late one.
    CopyOutOfOrder(s, chunk);
    return;
  } else if (!s->chunks.empty() &&
             !IdAfter(chunk_id, s->chunks.front().chunk_id)) {
    // 2^31 or more ids after the oldest stored: ids would no longer order.
    stats_.abi_violations++;
    RefuseChunk(s, chunk_id);
    return;
  } else {
    if (IdAfter(s->max_id, chunk_id))
      stats_.chunks_committed_out_of_order++;
    if (s->read_started && IdAfter(s->next_id, chunk_id)) {
      DropStale(s, chunk_id);
      return;
    }
  }

  size_t record = 0;
  if (!MakeRoomFor(s, chunk, &record))
    return;
  // Making room deletes only chunks older than this one: it is still the
  // newest of its sequence.
  s->chunks.push_back(AppendRecord(chunk, record));
  if (IdAfter(chunk_id, s->max_id))
    s->max_id = chunk_id;
  if (!s->read_started && IdAfter(s->next_id, chunk_id))
    s->next_id = chunk_id;
}

ChunkMeta TraceBufferImpl::AppendRecord(const TraceBufferChunk& chunk,
                                        size_t record) {
  const size_t pos = wptr_;
  RecordHeader h{};
  h.size_units = static_cast<uint32_t>(record / kAlign);
  h.kind = kChunk;
  h.writer_id = chunk.writer_id;
  h.producer_id = chunk.producer_id;
  h.chunk_id = chunk.chunk_id;
  memcpy(ring_.get() + pos, &h, kRecordHeaderSize);
  if (chunk.size > 0)
    memcpy(ring_.get() + pos + kRecordHeaderSize, chunk.payload, chunk.size);
  wptr_ += record;
  if (wptr_ == size_) {
    wptr_ = 0;
    stats_.write_wrap_count++;
  }
  stats_.chunks_written++;
  stats_.bytes_written += chunk.size;
  ChunkMeta m;
  m.chunk_id = chunk.chunk_id;
  m.offset = static_cast<uint32_t>(pos);
  m.payload_size = static_cast<uint32_t>(chunk.size);
  m.packet_count = chunk.packet_count;
  m.flags = chunk.flags;
  m.complete = chunk.complete;
  return m;
}

SeqState* TraceBufferImpl::NewSeq(SeqKey key, uint32_t chunk_id) {
  PruneSequences();
  SeqState* s = &seqs_[key];
  s->key = key;
  s->next_id = chunk_id;
  s->max_id = chunk_id;
  cached_seq_ = s;
  return s;
}

void TraceBufferImpl::CopyOutOfOrder(SeqState* s,
                                     const TraceBufferChunk& chunk) {
  const uint32_t chunk_id = chunk.chunk_id;
  const size_t stored = s->chunks.Find(chunk_id);
  if (stored < s->chunks.size()) {
    Replace(&s->chunks[stored], chunk);
    return;
  }
  stats_.chunks_committed_out_of_order++;
  if (s->read_started && IdAfter(s->next_id, chunk_id)) {
    DropStale(s, chunk_id);
    return;
  }
  // Late chunks come a few places from the newest (a scraped chunk ahead
  // of the ones its writer had not committed yet). Further back, or so far
  // that ids would no longer order (2^31), it is refused: the lists stay
  // cheap to keep sorted whatever a producer sends.
  const size_t at = s->chunks.LowerBound(chunk_id);
  if (s->chunks.size() - at > ChunkList::kMaxDisorder ||
      !IdAfter(s->chunks.back().chunk_id, chunk_id)) {
    stats_.abi_violations++;
    RefuseChunk(s, chunk_id);
    return;
  }
  size_t record = 0;
  if (!MakeRoomFor(s, chunk, &record))
    return;
  // Making room may have deleted chunks of this sequence: find the place
  // again.
  const ChunkMeta m = AppendRecord(chunk, record);
  s->chunks.Insert(s->chunks.LowerBound(chunk_id), m);
  if (!s->read_started && IdAfter(s->next_id, chunk_id))
    s->next_id = chunk_id;
}

void TraceBufferImpl::DropStale(SeqState* s, uint32_t chunk_id) {
  // Already read or given up: storing it would break order or return
  // packets twice. One that was read is the commit of a chunk copied while
  // complete at a flush: nothing is lost, nothing to count.
  if (s->has_lost && IdAtOrAfter(s->lost_upto, chunk_id))
    stats_.chunks_discarded++;
  else
    stats_.chunks_recopied++;
}

void TraceBufferImpl::Replace(ChunkMeta* m, const TraceBufferChunk& chunk) {
  // A complete chunk copied again (its commit after a flush copied it
  // complete): the same chunk, nothing to do.
  if (m->complete && chunk.complete && chunk.size == m->payload_size) {
    stats_.chunks_recopied++;
    return;
  }
  // Otherwise only a scraped copy may be superseded, by one of the same
  // chunk (same size) that still covers what was read from it.
  if (m->complete || chunk.size != m->payload_size ||
      chunk.packet_count < m->fragments_read) {
    stats_.abi_violations++;
    return;
  }
  if (chunk.size > 0)
    memcpy(payload_of(*m), chunk.payload, chunk.size);
  m->packet_count = chunk.packet_count;
  m->flags = chunk.flags;
  m->complete = chunk.complete;
  stats_.chunks_rewritten++;
}

void TraceBufferImpl::RefuseChunk(SeqState* s, uint32_t chunk_id) {
  stats_.chunks_discarded++;
  // No loss mark yet: the reader marks it when it reaches the missing id, so
  // that packets before it are not flagged.
  if (!s->has_lost || IdAfter(chunk_id, s->lost_upto))
    s->lost_upto = chunk_id;
  s->has_lost = true;
  if (IdAfter(chunk_id, s->max_id))
    s->max_id = chunk_id;
}

bool TraceBufferImpl::MakeRoom(size_t need) {
  size_t cleared_end = 0;
  if (size_ - wptr_ < need) {
    if (!ClearRange(wptr_, size_, &cleared_end))
      return false;
    const size_t tail = size_ - wptr_;
    if (tail > 0) {
      WriteFiller(wptr_, tail, kPadding);
      stats_.padding_bytes_written += tail;
    }
    wptr_ = 0;
    stats_.write_wrap_count++;
  }
  if (!ClearRange(wptr_, wptr_ + need, &cleared_end))
    return false;
  // The last record deleted may reach past the new one: keep the ring tiled.
  if (cleared_end > wptr_ + need)
    WriteFiller(wptr_ + need, cleared_end - wptr_ - need, kFree);
  return true;
}

bool TraceBufferImpl::ClearRange(size_t begin, size_t end,
                                 size_t* cleared_end) {
  if (policy_ == OverwritePolicy::kDiscard) {
    // All or nothing: check before deleting anything.
    for (size_t pos = begin; pos < end;) {
      const RecordHeader h = ReadRecordHeader(pos);
      if (h.kind == kChunk)
        return false;
      pos += size_t{h.size_units} * kAlign;
    }
  }
  size_t pos = begin;
  while (pos < end) {
    const RecordHeader h = ReadRecordHeader(pos);
    const size_t len = size_t{h.size_units} * kAlign;
    if (h.kind == kChunk)
      DeleteChunkRecord(pos, h);
    else if (h.kind == kPadding)
      stats_.padding_bytes_cleared += len;
    pos += len;
  }
  *cleared_end = pos;
  return true;
}

void TraceBufferImpl::DeleteChunkRecord(size_t pos, const RecordHeader& h) {
  // A live record is in its sequence's list (never pruned while it has
  // chunks), almost always at the front: the oldest record of a sequence
  // is its lowest id.
  SeqState* s = FindSeq(MakeSeqKey(h.producer_id, h.writer_id));
  const size_t i = s ? s->chunks.Find(h.chunk_id) : 0;
  if (!s || i == s->chunks.size() || s->chunks[i].offset != pos) {
    ZT_DCHECK(false);  // Nothing refers to this record: nothing to undo.
    return;
  }
  const ChunkMeta& m = s->chunks[i];
  const bool unread = m.fragments_read < m.packet_count;
  if (unread) {
    stats_.chunks_overwritten++;
    stats_.bytes_overwritten += m.payload_size;
  }
  // A scraped chunk may have had more packets coming: those are lost too.
  if (unread || !m.complete) {
    if (!s->has_lost || IdAfter(h.chunk_id, s->lost_upto))
      s->lost_upto = h.chunk_id;
    if (!s->has_overwritten || IdAfter(h.chunk_id, s->overwritten_upto))
      s->overwritten_upto = h.chunk_id;
    s->has_lost = s->has_overwritten = true;
    // If the reader is not there yet, it sees the hole when it gets there
    // (and must not flag the packets before it).
    if (h.chunk_id == s->next_id) {
      AddLoss(s, Packet::DATA_LOSS_OVERWRITE);
      s->orphan = Orphan::kExplained;
    }
  }
  // Move the reader past it, so that a late copy of it is stale.
  if (h.chunk_id == s->next_id)
    s->next_id = h.chunk_id + 1;
  if (i == 0)
    s->chunks.pop_front();
  else
    s->chunks.Erase(i);
}

void TraceBufferImpl::PruneSequences() {
  if (seqs_.size() < max_seqs_)
    return;
  // Idle states only: they just remember gap-detection state, whose loss
  // costs at most a missed previous_packet_dropped.
  cached_seq_ = nullptr;
  for (auto it = seqs_.begin(); it != seqs_.end();) {
    if (it->second.chunks.empty())
      it = seqs_.erase(it);
    else
      ++it;
  }
}

// --- Patching ---

bool TraceBufferImpl::TryPatchChunkContents(
    uint32_t producer_id, uint16_t writer_id, uint32_t chunk_id,
    const std::vector<CommitData::Patch>& patches, bool other_patches_pending) {
  SeqState* s = FindSeq(MakeSeqKey(producer_id, writer_id));
  const size_t i = s ? s->chunks.Find(chunk_id) : 0;
  if (!s || i == s->chunks.size()) {
    stats_.patches_failed++;
    return false;
  }
  ChunkMeta& m = s->chunks[i];
  for (const CommitData::Patch& p : patches) {
    if (p.offset > m.payload_size ||
        m.payload_size - p.offset < p.data.size()) {
      stats_.patches_failed++;
      return false;
    }
  }
  uint8_t* payload = payload_of(m);
  for (const CommitData::Patch& p : patches)
    memcpy(payload + p.offset, p.data.data(), p.data.size());
  if (!other_patches_pending)
    m.flags = static_cast<uint8_t>(m.flags & ~ABI::kChunkNeedsPatching);
  stats_.patches_succeeded++;
  return true;
}

// Asks for transparent huge pages over the 2 MiB-aligned part of a large
// ring. Its pages are touched for the first time as the ring fills, on the
// service thread: with 4 KiB pages that is a fault per 4 KiB, a fifth of
// that thread's time when a writer runs flat out; with 2 MiB pages, one
// per 2 MiB. At most one huge page more is resident than was written.
// Advice only: without THP (or "never") nothing changes.
static void AdviseHugePages(uint8_t* ring, size_t size) {
#if defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  if (size < 2 * kHugePage)
    return;
  const uintptr_t begin =
      (reinterpret_cast<uintptr_t>(ring) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(ring) + size) & ~(kHugePage - 1);
  if (end > begin)
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)ring;
  (void)size;
#endif
}

}  // namespace trace_buffer_internal

std::unique_ptr<TraceBuffer> TraceBuffer::Create(size_t size_bytes,
                                                 OverwritePolicy policy) {
  using trace_buffer_internal::kMaxSize;
  using trace_buffer_internal::kSizeGranularity;
  if (size_bytes == 0 || uint64_t{size_bytes} > kMaxSize)
    return nullptr;
  const size_t size =
      (size_bytes + kSizeGranularity - 1) & ~(kSizeGranularity - 1);
  std::unique_ptr<uint8_t[]> ring(new (std::nothrow) uint8_t[size]);
  if (!ring)
    return nullptr;
  trace_buffer_internal::AdviseHugePages(ring.get(), size);
  return std::unique_ptr<TraceBuffer>(
      new trace_buffer_internal::TraceBufferImpl(std::move(ring), size,
                                                 policy));
}

}  // namespace zt
