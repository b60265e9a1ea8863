// TraceBuffer implementation; see docs/design/trace_buffer.md for the layout
// and the rules. Everything a producer sent is validated where it is used.

#include "src/tracing/service/trace_buffer.h"

#include <cstring>
#include <map>
#include <new>
#include <tuple>

#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/protozero/proto_utils.h"

namespace zt {

TraceBuffer::~TraceBuffer() = default;

namespace {

using ABI = SharedMemoryABI;

constexpr size_t kSizeGranularity = 4096;
constexpr uint64_t kMaxSize = 1ull << 32;
constexpr size_t kAlign = 8;

enum RecordKind : uint8_t { kFree = 0, kPadding = 1, kChunk = 2 };

// Lives in the ring in front of every record. Free and padding records only
// use the first 8 bytes, so that any 8-byte leftover can still be a record.
struct RecordHeader {
  uint32_t size_units;  // Whole record, in kAlign units (4 GiB fits).
  uint8_t kind;
  uint8_t reserved;
  uint16_t writer_id;
  uint32_t producer_id;
  uint32_t chunk_id;
};
constexpr size_t kRecordHeaderSize = sizeof(RecordHeader);
constexpr size_t kFillerHeaderSize = 8;
static_assert(kRecordHeaderSize == 16, "record header layout");

// Chunk ids wrap at 2^32: order them by signed distance.
bool IdAfter(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(a - b) > 0;
}
bool IdAtOrAfter(uint32_t a, uint32_t b) {
  return a == b || IdAfter(a, b);
}

struct SeqKey {
  uint32_t producer_id;
  uint16_t writer_id;
  bool operator<(const SeqKey& o) const {
    return std::tie(producer_id, writer_id) <
           std::tie(o.producer_id, o.writer_id);
  }
};

struct ChunkKey {
  uint32_t producer_id;
  uint16_t writer_id;
  uint32_t chunk_id;
  bool operator<(const ChunkKey& o) const {
    return std::tie(producer_id, writer_id, chunk_id) <
           std::tie(o.producer_id, o.writer_id, o.chunk_id);
  }
};

// Present only while the chunk still has something to read.
struct ChunkMeta {
  size_t offset = 0;  // Of the record in the ring.
  size_t payload_size = 0;
  size_t read_offset = 0;  // Payload offset of the next fragment.
  uint16_t packet_count = 0;
  uint16_t fragments_read = 0;
  uint8_t flags = 0;
  bool complete = true;
  int32_t uid = -1;
  int32_t pid = -1;
};

struct SeqState {
  // Every id before next_id is read or given up; a new chunk with such an id
  // is stale (once reading started: before that, next_id is the lowest id
  // seen and may move back for out-of-order arrivals).
  uint32_t next_id = 0;
  uint32_t max_id = 0;     // Highest id written.
  uint32_t lost_upto = 0;  // Highest id deleted or refused unread.
  bool read_started = false;
  bool has_lost = false;
  bool loss = false;  // The next packet returned has previous_packet_dropped.
  // The beginning of whatever continues into the next chunk is gone (known
  // loss): drop an orphan continuation quietly instead of calling it an ABI
  // violation.
  bool drop_cont = false;
  size_t num_chunks = 0;  // Index entries.
  uint64_t pass = 0;      // BeginRead() pass that listed it.
};

struct Fragment {
  size_t data_off = 0;
  size_t size = 0;
  size_t next_off = 0;
};
enum class FragStatus { kOk, kMalformed, kDropMarker };

class TraceBufferImpl : public TraceBuffer {
 public:
  TraceBufferImpl(std::unique_ptr<uint8_t[]> ring, size_t size,
                  OverwritePolicy policy)
      : ring_(std::move(ring)), size_(size), policy_(policy) {
    max_seqs_ = size_ / 256 + 64;
    WriteFiller(0, size_, kFree);
    stats_.buffer_size = size_;
  }

  void CopyChunkUntrusted(uint32_t producer_id, int32_t producer_uid,
                          int32_t producer_pid, uint16_t writer_id,
                          uint32_t chunk_id, uint16_t packet_count,
                          uint8_t flags, bool complete, const uint8_t* payload,
                          size_t size) override;
  bool TryPatchChunkContents(uint32_t producer_id, uint16_t writer_id,
                             uint32_t chunk_id,
                             const std::vector<CommitData::Patch>& patches,
                             bool other_patches_pending) override;
  void BeginRead() override;
  bool ReadNextTracePacket(TraceBufferPacket* packet) override;
  const TraceBufferStats& stats() const override { return stats_; }
  size_t size() const override { return size_; }
  OverwritePolicy policy() const override { return policy_; }

 private:
  using Index = std::map<ChunkKey, ChunkMeta>;
  using IndexIt = Index::iterator;
  enum class ReadAheadResult { kPacket, kEmpty, kWait, kBroken };

  RecordHeader ReadRecordHeader(size_t pos) const {
    // The ring is not zeroed up front: read the rest only for chunks, whose
    // headers are always written whole.
    RecordHeader h{};
    memcpy(&h, ring_.get() + pos, kFillerHeaderSize);
    if (h.kind == kChunk)
      memcpy(&h, ring_.get() + pos, kRecordHeaderSize);
    return h;
  }
  void WriteFiller(size_t pos, size_t len, RecordKind kind) {
    RecordHeader h{};
    h.size_units = static_cast<uint32_t>(len / kAlign);
    h.kind = kind;
    memcpy(ring_.get() + pos, &h, kFillerHeaderSize);
  }
  uint8_t* payload_of(const ChunkMeta& m) const {
    return ring_.get() + m.offset + kRecordHeaderSize;
  }
  static bool InSeq(const Index& index, IndexIt it, const SeqKey& sk) {
    return it != index.end() && it->first.producer_id == sk.producer_id &&
           it->first.writer_id == sk.writer_id;
  }

  void Replace(IndexIt it, int32_t uid, int32_t pid, uint16_t packet_count,
               uint8_t flags, bool complete, const uint8_t* payload,
               size_t size);
  void RefuseChunk(SeqState* s, uint32_t chunk_id);
  bool MakeRoom(size_t need);
  bool ClearRange(size_t begin, size_t end, size_t* cleared_end);
  bool IsLiveChunk(size_t pos, const RecordHeader& h, IndexIt* out);
  void DeleteChunkRecord(size_t pos, const RecordHeader& h);
  void PruneSequences();

  IndexIt FindAtOrAfter(const SeqKey& sk, uint32_t id);
  bool HasChunkAfter(const SeqKey& sk, uint32_t id) {
    return FindAtOrAfter(sk, id + 1) != index_.end();
  }
  FragStatus ParseFragment(const ChunkMeta& m, Fragment* f) const;
  bool MaybeFinishChunk(const SeqKey& sk, SeqState* s, IndexIt it);
  void AbandonChunk(const SeqKey& sk, SeqState* s, IndexIt it);
  bool ReadFromSequence(const SeqKey& sk, SeqState* s, TraceBufferPacket* out);
  ReadAheadResult ReadAhead(const SeqKey& sk, SeqState* s, IndexIt start,
                            const Fragment& first, TraceBufferPacket* out);
  void EmitMeta(const SeqKey& sk, SeqState* s, const ChunkMeta& m,
                TraceBufferPacket* out);

  std::unique_ptr<uint8_t[]> ring_;
  const size_t size_;
  const OverwritePolicy policy_;
  size_t wptr_ = 0;  // The oldest record starts here.
  bool discard_latched_ = false;
  size_t max_seqs_ = 0;
  Index index_;
  std::map<SeqKey, SeqState> seqs_;
  std::vector<SeqKey> read_order_;
  size_t read_idx_ = 0;
  uint64_t pass_ = 0;
  TraceBufferStats stats_;
};

// --- Writing ---

void TraceBufferImpl::CopyChunkUntrusted(uint32_t producer_id,
                                         int32_t producer_uid,
                                         int32_t producer_pid,
                                         uint16_t writer_id, uint32_t chunk_id,
                                         uint16_t packet_count, uint8_t flags,
                                         bool complete, const uint8_t* payload,
                                         size_t size) {
  if (writer_id == 0 || (size > 0 && payload == nullptr)) {
    stats_.abi_violations++;
    return;
  }
  auto existing = index_.find(ChunkKey{producer_id, writer_id, chunk_id});
  if (existing != index_.end()) {
    Replace(existing, producer_uid, producer_pid, packet_count, flags,
            complete, payload, size);
    return;
  }

  const SeqKey sk{producer_id, writer_id};
  auto sit = seqs_.find(sk);
  if (sit == seqs_.end()) {
    PruneSequences();
    sit = seqs_.emplace(sk, SeqState()).first;
    sit->second.next_id = chunk_id;
    sit->second.max_id = chunk_id;
  } else {
    SeqState& s = sit->second;
    if (IdAfter(s.max_id, chunk_id))
      stats_.chunks_committed_out_of_order++;
    if (s.read_started && IdAfter(s.next_id, chunk_id)) {
      // Already read or given up: storing it would break order or return
      // packets twice.
      stats_.chunks_discarded++;
      return;
    }
  }
  SeqState* s = &sit->second;

  const uint64_t record = (uint64_t{kRecordHeaderSize} + size + kAlign - 1) &
                          ~uint64_t{kAlign - 1};
  if (record > size_) {
    RefuseChunk(s, chunk_id);
    return;
  }
  if (discard_latched_ || !MakeRoom(static_cast<size_t>(record))) {
    if (policy_ == OverwritePolicy::kDiscard)
      discard_latched_ = true;
    RefuseChunk(s, chunk_id);
    return;
  }

  const size_t pos = wptr_;
  RecordHeader h{};
  h.size_units = static_cast<uint32_t>(record / kAlign);
  h.kind = kChunk;
  h.writer_id = writer_id;
  h.producer_id = producer_id;
  h.chunk_id = chunk_id;
  memcpy(ring_.get() + pos, &h, kRecordHeaderSize);
  if (size > 0)
    memcpy(ring_.get() + pos + kRecordHeaderSize, payload, size);
  wptr_ += static_cast<size_t>(record);
  if (wptr_ == size_) {
    wptr_ = 0;
    stats_.write_wrap_count++;
  }

  ChunkMeta m;
  m.offset = pos;
  m.payload_size = size;
  m.packet_count = packet_count;
  m.flags = flags;
  m.complete = complete;
  m.uid = producer_uid;
  m.pid = producer_pid;
  index_.emplace(ChunkKey{producer_id, writer_id, chunk_id}, m);
  s->num_chunks++;
  if (IdAfter(chunk_id, s->max_id))
    s->max_id = chunk_id;
  if (!s->read_started && IdAfter(s->next_id, chunk_id))
    s->next_id = chunk_id;
  stats_.chunks_written++;
  stats_.bytes_written += size;
}

void TraceBufferImpl::Replace(IndexIt it, int32_t uid, int32_t pid,
                              uint16_t packet_count, uint8_t flags,
                              bool complete, const uint8_t* payload,
                              size_t size) {
  ChunkMeta& m = it->second;
  // Only a scraped copy may be superseded, by one of the same chunk (same
  // size) that still covers what was read from it.
  if (m.complete || size != m.payload_size ||
      packet_count < m.fragments_read) {
    stats_.abi_violations++;
    return;
  }
  if (size > 0)
    memcpy(payload_of(m), payload, size);
  m.packet_count = packet_count;
  m.flags = flags;
  m.complete = complete;
  m.uid = uid;
  m.pid = pid;
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

bool TraceBufferImpl::IsLiveChunk(size_t pos, const RecordHeader& h,
                                  IndexIt* out) {
  if (h.kind != kChunk)
    return false;
  auto it = index_.find(ChunkKey{h.producer_id, h.writer_id, h.chunk_id});
  // The offset check tells a consumed record from a newer copy of its key
  // (possible after its sequence state was pruned).
  if (it == index_.end() || it->second.offset != pos)
    return false;
  *out = it;
  return true;
}

bool TraceBufferImpl::ClearRange(size_t begin, size_t end,
                                 size_t* cleared_end) {
  if (policy_ == OverwritePolicy::kDiscard) {
    // All or nothing: check before deleting anything.
    for (size_t pos = begin; pos < end;) {
      const RecordHeader h = ReadRecordHeader(pos);
      IndexIt it;
      if (IsLiveChunk(pos, h, &it))
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
  IndexIt it;
  if (!IsLiveChunk(pos, h, &it))
    return;  // Consumed already.
  const ChunkMeta& m = it->second;
  auto sit = seqs_.find(SeqKey{h.producer_id, h.writer_id});
  SeqState& s = sit->second;  // Never pruned while it has chunks.
  const bool unread = m.fragments_read < m.packet_count;
  if (unread) {
    stats_.chunks_overwritten++;
    stats_.bytes_overwritten += m.payload_size;
  }
  // A scraped chunk may have had more packets coming: those are lost too.
  if (unread || !m.complete) {
    if (!s.has_lost || IdAfter(h.chunk_id, s.lost_upto))
      s.lost_upto = h.chunk_id;
    s.has_lost = true;
    // If the reader is not there yet, it sees the hole when it gets there
    // (and must not flag the packets before it).
    if (h.chunk_id == s.next_id) {
      s.loss = true;
      s.drop_cont = true;
    }
  }
  // Move the reader past it, so that a late copy of it is stale.
  if (h.chunk_id == s.next_id)
    s.next_id = h.chunk_id + 1;
  s.num_chunks--;
  index_.erase(it);
}

void TraceBufferImpl::PruneSequences() {
  if (seqs_.size() < max_seqs_)
    return;
  // Idle states only: they just remember gap-detection state, whose loss
  // costs at most a missed previous_packet_dropped.
  for (auto it = seqs_.begin(); it != seqs_.end();) {
    if (it->second.num_chunks == 0)
      it = seqs_.erase(it);
    else
      ++it;
  }
}

// --- Patching ---

bool TraceBufferImpl::TryPatchChunkContents(
    uint32_t producer_id, uint16_t writer_id, uint32_t chunk_id,
    const std::vector<CommitData::Patch>& patches, bool other_patches_pending) {
  auto it = index_.find(ChunkKey{producer_id, writer_id, chunk_id});
  if (it == index_.end()) {
    stats_.patches_failed++;
    return false;
  }
  ChunkMeta& m = it->second;
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

// --- Reading ---

TraceBufferImpl::IndexIt TraceBufferImpl::FindAtOrAfter(const SeqKey& sk,
                                                        uint32_t id) {
  auto it = index_.lower_bound(ChunkKey{sk.producer_id, sk.writer_id, id});
  if (InSeq(index_, it, sk) && IdAtOrAfter(it->first.chunk_id, id))
    return it;
  // Ids that wrapped past 2^32 sort first.
  it = index_.lower_bound(ChunkKey{sk.producer_id, sk.writer_id, 0});
  if (InSeq(index_, it, sk) && it->first.chunk_id < id &&
      IdAtOrAfter(it->first.chunk_id, id)) {
    return it;
  }
  return index_.end();
}

FragStatus TraceBufferImpl::ParseFragment(const ChunkMeta& m,
                                          Fragment* f) const {
  const size_t size = m.payload_size;
  if (m.read_offset >= size)
    return FragStatus::kMalformed;  // The count promised more fragments.
  const uint8_t* payload = payload_of(m);
  const uint8_t* begin = payload + m.read_offset;
  uint64_t len = 0;
  const uint8_t* data =
      protozero::proto_utils::ParseVarInt(begin, payload + size, &len);
  if (data == begin)
    return FragStatus::kMalformed;
  if (len == ABI::kPacketSizeDropPacket)
    return FragStatus::kDropMarker;
  const size_t data_off = static_cast<size_t>(data - payload);
  if (len > size - data_off)
    return FragStatus::kMalformed;
  f->data_off = data_off;
  f->size = static_cast<size_t>(len);
  f->next_off = data_off + f->size;
  return FragStatus::kOk;
}

bool TraceBufferImpl::MaybeFinishChunk(const SeqKey& sk, SeqState* s,
                                       IndexIt it) {
  const ChunkMeta& m = it->second;
  if (m.fragments_read < m.packet_count)
    return false;
  // A scraped copy may still be replaced by a longer one, unless the writer
  // has visibly moved on to a later chunk.
  const uint32_t id = it->first.chunk_id;
  if (!m.complete && !HasChunkAfter(sk, id))
    return false;
  stats_.chunks_read++;
  s->next_id = id + 1;
  s->num_chunks--;
  index_.erase(it);
  return true;
}

void TraceBufferImpl::AbandonChunk(const SeqKey& sk, SeqState* s, IndexIt it) {
  ChunkMeta& m = it->second;
  s->loss = true;
  s->drop_cont = (m.flags & ABI::kLastPacketContinuesOnNextChunk) != 0;
  m.fragments_read = m.packet_count;
  m.read_offset = m.payload_size;
  m.complete = true;  // A later copy could not be trusted to line up.
  MaybeFinishChunk(sk, s, it);
}

void TraceBufferImpl::EmitMeta(const SeqKey& sk, SeqState* s,
                               const ChunkMeta& m, TraceBufferPacket* out) {
  out->producer_id = sk.producer_id;
  out->writer_id = sk.writer_id;
  out->producer_uid = m.uid;
  out->producer_pid = m.pid;
  out->previous_packet_dropped = s->loss;
  s->loss = false;
  stats_.bytes_read += out->data.size();
}

void TraceBufferImpl::BeginRead() {
  read_order_.clear();
  read_idx_ = 0;
  pass_++;
  // Oldest record first: it starts at the write position.
  size_t pos = wptr_;
  size_t walked = 0;
  while (walked < size_) {
    const RecordHeader h = ReadRecordHeader(pos);
    const size_t len = size_t{h.size_units} * kAlign;
    IndexIt it;
    if (IsLiveChunk(pos, h, &it)) {
      const SeqKey sk{h.producer_id, h.writer_id};
      auto sit = seqs_.find(sk);
      if (sit != seqs_.end() && sit->second.pass != pass_) {
        sit->second.pass = pass_;
        read_order_.push_back(sk);
      }
    }
    walked += len;
    pos += len;
    if (pos == size_)
      pos = 0;
  }
}

bool TraceBufferImpl::ReadNextTracePacket(TraceBufferPacket* packet) {
  while (read_idx_ < read_order_.size()) {
    auto sit = seqs_.find(read_order_[read_idx_]);
    if (sit != seqs_.end() &&
        ReadFromSequence(sit->first, &sit->second, packet)) {
      return true;
    }
    read_idx_++;
  }
  return false;
}

bool TraceBufferImpl::ReadFromSequence(const SeqKey& sk, SeqState* s,
                                       TraceBufferPacket* out) {
  for (;;) {
    IndexIt it = FindAtOrAfter(sk, s->next_id);
    if (it == index_.end())
      return false;
    if (!s->read_started) {
      s->read_started = true;
      // Whatever came before the first chunk seen is unknown, not malformed.
      s->drop_cont = true;
    }
    const uint32_t id = it->first.chunk_id;
    if (id != s->next_id) {
      // Missing chunks: either deleted by us (already marked) or never
      // received (the writer's loss).
      const bool deleted = s->has_lost && IdAtOrAfter(s->lost_upto, id - 1) &&
                           IdAtOrAfter(id - 1, s->next_id);
      if (!deleted)
        stats_.trace_writer_packet_loss++;
      s->loss = true;
      s->drop_cont = true;
      s->next_id = id;
    }
    ChunkMeta& m = it->second;
    if (m.fragments_read >= m.packet_count) {
      if (!MaybeFinishChunk(sk, s, it))
        return false;  // A scraped chunk whose complete copy may come.
      continue;
    }
    const bool last = m.fragments_read + 1 == m.packet_count;
    if (last && (m.flags & ABI::kChunkNeedsPatching))
      return false;  // Its bytes may still change.
    Fragment f;
    const FragStatus st = ParseFragment(m, &f);
    if (st == FragStatus::kMalformed) {
      stats_.abi_violations++;
      AbandonChunk(sk, s, it);
      continue;
    }
    if (st == FragStatus::kDropMarker) {
      // The writer gave up on this packet; its length is unknown, so
      // nothing after the marker can be located either.
      stats_.trace_writer_packet_loss++;
      AbandonChunk(sk, s, it);
      continue;
    }
    const bool continues_prev =
        m.fragments_read == 0 && (m.flags & ABI::kFirstPacketContinuesFromPrevChunk);
    const bool continues_next =
        last && (m.flags & ABI::kLastPacketContinuesOnNextChunk);
    if (continues_prev) {
      // A read-ahead would have consumed it with its beginning.
      if (!s->drop_cont)
        stats_.abi_violations++;
      s->loss = true;
      s->drop_cont = continues_next;
      m.fragments_read++;
      m.read_offset = f.next_off;
      MaybeFinishChunk(sk, s, it);
      continue;
    }
    s->drop_cont = false;
    if (continues_next) {
      switch (ReadAhead(sk, s, it, f, out)) {
        case ReadAheadResult::kPacket:
          return true;
        case ReadAheadResult::kWait:
          stats_.readaheads_failed++;
          return false;
        case ReadAheadResult::kEmpty:
        case ReadAheadResult::kBroken:
          continue;
      }
    }
    m.fragments_read++;
    m.read_offset = f.next_off;
    if (f.size == 0) {
      MaybeFinishChunk(sk, s, it);
      continue;
    }
    const uint8_t* data = payload_of(m) + f.data_off;
    out->data.assign(data, data + f.size);
    EmitMeta(sk, s, m, out);
    MaybeFinishChunk(sk, s, it);
    return true;
  }
}

TraceBufferImpl::ReadAheadResult TraceBufferImpl::ReadAhead(
    const SeqKey& sk, SeqState* s, IndexIt start, const Fragment& first,
    TraceBufferPacket* out) {
  std::vector<IndexIt> chain;
  std::vector<Fragment> frags;
  bool broken = false;
  bool breaker_continues = false;  // The chunk that broke it starts orphaned.
  uint32_t id = start->first.chunk_id;
  for (;;) {
    const uint32_t next = id + 1;
    IndexIt it = index_.find(ChunkKey{sk.producer_id, sk.writer_id, next});
    if (it == index_.end()) {
      const bool overwritten = s->has_lost && IdAtOrAfter(s->lost_upto, next) &&
                               IdAfter(next, start->first.chunk_id);
      if (!overwritten && !HasChunkAfter(sk, next))
        return ReadAheadResult::kWait;
      broken = true;  // It will never come; the gap is handled later.
      break;
    }
    const ChunkMeta& nm = it->second;
    if (nm.packet_count == 0 && !nm.complete)
      return ReadAheadResult::kWait;  // Scraped before its first fragment.
    if (!(nm.flags & ABI::kFirstPacketContinuesFromPrevChunk) ||
        nm.packet_count == 0) {
      stats_.abi_violations++;
      broken = true;
      breaker_continues = nm.packet_count == 0;
      break;
    }
    const bool nlast = nm.packet_count == 1;
    if (nlast && (nm.flags & ABI::kChunkNeedsPatching))
      return ReadAheadResult::kWait;
    Fragment nf;
    if (ParseFragment(nm, &nf) != FragStatus::kOk) {
      // Counted when that chunk is read on its own.
      broken = true;
      breaker_continues = true;
      break;
    }
    chain.push_back(it);
    frags.push_back(nf);
    if (!(nlast && (nm.flags & ABI::kLastPacketContinuesOnNextChunk)))
      break;
    id = next;
  }

  if (!broken) {
    size_t total = first.size;
    for (const Fragment& f : frags)
      total += f.size;
    out->data.clear();
    out->data.reserve(total);
    const uint8_t* p = payload_of(start->second) + first.data_off;
    out->data.insert(out->data.end(), p, p + first.size);
    for (size_t i = 0; i < chain.size(); i++) {
      const uint8_t* q = payload_of(chain[i]->second) + frags[i].data_off;
      out->data.insert(out->data.end(), q, q + frags[i].size);
    }
    stats_.readaheads_succeeded++;
  }

  // Consume the fragments walked, whether joined or dropped.
  const ChunkMeta start_meta = start->second;
  start->second.fragments_read++;
  start->second.read_offset = first.next_off;
  MaybeFinishChunk(sk, s, start);
  for (size_t i = 0; i < chain.size(); i++) {
    chain[i]->second.fragments_read++;
    chain[i]->second.read_offset = frags[i].next_off;
    MaybeFinishChunk(sk, s, chain[i]);
  }
  if (broken) {
    s->loss = true;
    s->drop_cont = breaker_continues;
    return ReadAheadResult::kBroken;
  }
  if (out->data.empty())
    return ReadAheadResult::kEmpty;
  EmitMeta(sk, s, start_meta, out);
  return ReadAheadResult::kPacket;
}

}  // namespace

std::unique_ptr<TraceBuffer> TraceBuffer::Create(size_t size_bytes,
                                                 OverwritePolicy policy) {
  if (size_bytes == 0 || uint64_t{size_bytes} > kMaxSize)
    return nullptr;
  const size_t size =
      (size_bytes + kSizeGranularity - 1) & ~(kSizeGranularity - 1);
  std::unique_ptr<uint8_t[]> ring(new (std::nothrow) uint8_t[size]);
  if (!ring)
    return nullptr;
  return std::unique_ptr<TraceBuffer>(
      new TraceBufferImpl(std::move(ring), size, policy));
}

}  // namespace zt
