// TraceBufferImpl, the one TraceBuffer: its records, its per-sequence index
// and its state. Private to trace_buffer.cc (writing, patching) and
// trace_buffer_read.cc (reading); the layout and the rules are in
// docs/design/trace_buffer.md.

#ifndef ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_IMPL_H_
#define ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_IMPL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "src/tracing/service/trace_buffer.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace trace_buffer_internal {

constexpr size_t kAlign = 8;

enum RecordKind : uint8_t {
  kFree = 0,     // Never used, or left over after a partial delete.
  kPadding = 1,  // The tail left unused when the writer wrapped.
  kChunk = 2,    // A chunk with something left to read: in its sequence's list.
  kConsumed = 3,  // A chunk read (or given up) to the end: space to reuse.
};

// In the ring in front of every record. Free and padding records only use
// the first 8 bytes, so that any 8-byte leftover can still be a record.
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
constexpr size_t kKindOffset = 4;
static_assert(kRecordHeaderSize == 16, "record header layout");

// Chunk ids wrap at 2^32: order them by signed distance.
inline bool IdAfter(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(a - b) > 0;
}
inline bool IdAtOrAfter(uint32_t a, uint32_t b) {
  return a == b || IdAfter(a, b);
}

// A writer sequence: (producer id, writer id) in one integer.
using SeqKey = uint64_t;
inline SeqKey MakeSeqKey(uint32_t producer_id, uint16_t writer_id) {
  return (uint64_t{producer_id} << 16) | writer_id;
}
inline uint32_t ProducerOf(SeqKey key) {
  return static_cast<uint32_t>(key >> 16);
}
inline uint16_t WriterOf(SeqKey key) {
  return static_cast<uint16_t>(key);
}

// One stored chunk that still has something to read.
struct ChunkMeta {
  uint32_t chunk_id = 0;
  uint32_t offset = 0;  // Of its record in the ring (rings are <= 4 GiB).
  uint32_t payload_size = 0;
  uint32_t read_offset = 0;  // Payload offset of the next fragment.
  uint16_t packet_count = 0;
  uint16_t fragments_read = 0;
  uint8_t flags = 0;
  bool complete = true;  // False: scraped, a longer copy may replace it.
  bool abandoned = false;  // Given up as corrupt: not in writer_stats.
};

// The chunks of one sequence that still have something to read, sorted by
// chunk id: a ring of ChunkMeta that grows by doubling. Chunks arrive in id
// order (appended) and leave in id order (read or overwritten, both oldest
// first), so the ends are O(1); a chunk arriving out of order is inserted
// at most kMaxDisorder places from the back (CopyChunkUntrusted refuses
// others), and all ids lie within 2^31 of the front, so that positions can
// be found by binary search on the distance from the front.
class ChunkList {
 public:
  static constexpr size_t kMaxDisorder = 32;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ChunkMeta& operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  const ChunkMeta& operator[](size_t i) const {
    return buf_[(head_ + i) & mask_];
  }
  ChunkMeta& front() { return (*this)[0]; }
  ChunkMeta& back() { return (*this)[size_ - 1]; }

  void push_back(const ChunkMeta& m) {
    if (size_ == buf_.size())
      Grow();
    buf_[(head_ + size_) & mask_] = m;
    size_++;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    if (--size_ == 0)
      Clear();
  }
  // Inserts before position |i| (<= size()), moving the elements after it.
  void Insert(size_t i, const ChunkMeta& m);
  // Removes position |i|, moving the shorter side.
  void Erase(size_t i);
  // The first position whose id is at or after |chunk_id| (size() if none).
  size_t LowerBound(uint32_t chunk_id) const;
  // The position of |chunk_id|, or size().
  size_t Find(uint32_t chunk_id) const {
    const size_t i = LowerBound(chunk_id);
    return i < size_ && (*this)[i].chunk_id == chunk_id ? i : size_;
  }

 private:
  void Grow();
  void Clear();  // Empty: gives large storage back (idle sequences are many).

  std::vector<ChunkMeta> buf_;  // Size 0 or a power of two.
  size_t mask_ = 0;
  size_t head_ = 0;
  size_t size_ = 0;
};

// What a continuation fragment met without its beginning means.
enum class Orphan : uint8_t {
  kUnexpected,  // A producer bug: abi_violations,
                // DATA_LOSS_ORPHAN_CONTINUATION.
  kExplained,   // Its beginning is a loss already marked: dropped quietly.
  kAtStart,     // The first chunk of the sequence in this buffer starts
                // mid-packet: DATA_LOSS_ORPHAN_CONTINUATION, no violation.
};

struct SeqState {
  SeqKey key = 0;
  ChunkList chunks;
  // Every id before next_id is read or given up; a new chunk with such an id
  // is stale (once reading started: before that, next_id is the lowest id
  // seen and may move back for out-of-order arrivals).
  uint32_t next_id = 0;
  uint32_t max_id = 0;            // Highest id written.
  // Highest id deleted, refused or skipped (never received) unread.
  uint32_t lost_upto = 0;
  uint32_t overwritten_upto = 0;  // Highest id deleted unread (kOverwrite).
  bool read_started = false;
  bool has_lost = false;
  bool has_overwritten = false;
  // Its producer disconnected: nothing more will come for it.
  bool writer_gone = false;
  Orphan orphan = Orphan::kUnexpected;
  // TracePacket.DataLossReason bits for the next packet returned (0: no
  // loss since the previous one).
  uint32_t loss = 0;
  uint64_t pass = 0;  // BeginRead() pass that listed it.
  // Its entry in writer_stats_ (null until a chunk of it is read; map
  // nodes do not move).
  ChunkPayloadHistogram* histogram = nullptr;
};

// Causes accumulate until a packet carries them; PRESENT goes with any.
inline void AddLoss(SeqState* s, uint32_t cause) {
  s->loss |= protos::pbzero::TracePacket::DATA_LOSS_PRESENT | cause;
}

struct Fragment {
  size_t data_off = 0;
  size_t size = 0;
  size_t next_off = 0;
};
enum class FragStatus { kOk, kMalformed, kDropMarker };

class TraceBufferImpl : public TraceBuffer {
 public:
  TraceBufferImpl(std::unique_ptr<uint8_t[]> ring, size_t size,
                  OverwritePolicy policy);
  ~TraceBufferImpl() override;

  void CopyChunkUntrusted(const TraceBufferChunk& chunk) override;
  bool TryPatchChunkContents(uint32_t producer_id, uint16_t writer_id,
                             uint32_t chunk_id,
                             const std::vector<CommitData::Patch>& patches,
                             bool other_patches_pending) override;
  void OnProducerGone(uint32_t producer_id) override;
  void BeginRead() override;
  bool ReadNextTracePacket(TraceBufferPacket* packet) override;
  const TraceBufferStats& stats() const override { return stats_; }
  void CountWriterPacketsDropped(uint64_t packets) override {
    stats_.writer_packets_dropped += packets;
  }
  const WriterStatsMap& writer_stats() const override { return writer_stats_; }
  size_t size() const override { return size_; }
  OverwritePolicy policy() const override { return policy_; }
  std::unique_ptr<TraceBuffer> Clone() const;  // CloneTraceBuffer(), trace_buffer_clone.cc

 private:
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
  SeqState* FindSeq(SeqKey key) {
    if (cached_seq_ && cached_seq_->key == key)
      return cached_seq_;
    auto it = seqs_.find(key);
    if (it == seqs_.end())
      return nullptr;
    cached_seq_ = &it->second;
    return cached_seq_;
  }

  // Writing (trace_buffer.cc).
  // Writes |chunk|'s record of |record| bytes at wptr_ (room made) and
  // returns its index entry.
  ChunkMeta AppendRecord(const TraceBufferChunk& chunk, size_t record);
  SeqState* NewSeq(SeqKey key, uint32_t chunk_id);
  void CopyOutOfOrder(SeqState* s, const TraceBufferChunk& chunk);
  void Replace(ChunkMeta* m, const TraceBufferChunk& chunk);
  // A chunk whose id the reader has passed.
  void DropStale(SeqState* s, uint32_t chunk_id);
  void RefuseChunk(SeqState* s, uint32_t chunk_id);
  // The record size for |chunk|, with room made for it at wptr_; false
  // (the chunk refused and counted) if it cannot be stored.
  bool MakeRoomFor(SeqState* s, const TraceBufferChunk& chunk, size_t* record);
  bool MakeRoom(size_t need);
  bool ClearRange(size_t begin, size_t end, size_t* cleared_end);
  void DeleteChunkRecord(size_t pos, const RecordHeader& h);
  void PruneSequences();

  // Reading (trace_buffer_read.cc). The chunk being read is always the
  // front of its sequence's list.
  FragStatus ParseFragment(const ChunkMeta& m, Fragment* f) const;
  bool MaybeFinishFront(SeqState* s);
  bool LastFragmentFinished(const ChunkMeta& m) const;
  void AbandonFront(SeqState* s, uint32_t cause);
  void SkipGap(SeqState* s, uint32_t id, uint32_t cause);
  bool ReadFromSequence(SeqState* s, TraceBufferPacket* out);
  ReadAheadResult ReadAhead(SeqState* s, const Fragment& first,
                            TraceBufferPacket* out);
  void EmitMeta(SeqState* s, TraceBufferPacket* out);
  // Adds a chunk read to its end, |used| payload bytes, to writer_stats_.
  void RecordChunkUse(SeqState* s, uint32_t used);

  std::unique_ptr<uint8_t[]> ring_;
  const size_t size_;
  const OverwritePolicy policy_;
  size_t wptr_ = 0;  // The oldest record starts here.
  bool discard_latched_ = false;
  size_t max_seqs_ = 0;
  // Node-based: a SeqState stays where it is while others come and go.
  std::unordered_map<SeqKey, SeqState> seqs_;
  SeqState* cached_seq_ = nullptr;  // The last one looked up (or null).
  std::vector<SeqKey> read_order_;
  size_t read_idx_ = 0;
  uint64_t pass_ = 0;
  TraceBufferStats stats_;
  WriterStatsMap writer_stats_;
};

}  // namespace trace_buffer_internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_IMPL_H_
