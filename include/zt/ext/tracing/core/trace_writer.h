// TraceWriter: writes TracePackets of one sequence (one thread, one data
// source instance) straight into chunks of the shared memory buffer.
//
//   auto packet = writer->NewTracePacket();
//   packet->set_timestamp(...);
//   ...                       // the handle finalizes the packet when it dies
//
// Packets bigger than what is left in a chunk continue in the next chunk as
// fragments; size fields left behind in a chunk already handed over are
// patched out of band. When the buffer is full, packets are dropped, counted
// and the next packet that makes it carries previous_packet_dropped.
//
// Thread-compatible: one thread at a time. Destroy before its arbiter.

#ifndef ZT_EXT_TRACING_CORE_TRACE_WRITER_H_
#define ZT_EXT_TRACING_CORE_TRACE_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "zt/base/logging.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/protozero/message.h"
#include "zt/protozero/scattered_stream_writer.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/buffer_exhausted_policy.h"

namespace zt {

class PatchList;
class SharedMemoryArbiter;

class TraceWriter : public protozero::ScatteredStreamWriter::Delegate {
 public:
  using TracePacket = protos::pbzero::TracePacket;

  // Owns the right to write the current packet; finalizes it on destruction.
  class TracePacketHandle {
   public:
    TracePacketHandle() = default;
    explicit TracePacketHandle(TraceWriter* writer) : writer_(writer) {}
    TracePacketHandle(TracePacketHandle&& o) noexcept : writer_(o.writer_) {
      o.writer_ = nullptr;
    }
    TracePacketHandle& operator=(TracePacketHandle&& o) noexcept {
      Finish();
      writer_ = o.writer_;
      o.writer_ = nullptr;
      return *this;
    }
    ~TracePacketHandle() { Finish(); }

    TracePacket* get() const { return &writer_->packet_; }
    TracePacket* operator->() const { return get(); }
    TracePacket& operator*() const { return *get(); }
    explicit operator bool() const { return writer_ != nullptr; }
    // Gives the open packet up without finishing it: for the C ABI, whose
    // packets live across calls (PacketBegin .. PacketEnd), where the
    // caller finishes it later with TraceWriter::FinishPacketOfCAbi().
    TraceWriter* Detach() {
      TraceWriter* w = writer_;
      writer_ = nullptr;
      return w;
    }
    // Finalizes now (idempotent).
    void Finish() {
      if (writer_) {
        TraceWriter* w = writer_;
        writer_ = nullptr;
        w->FinishTracePacket();
      }
    }

   private:
    TraceWriter* writer_ = nullptr;
  };

  // Every packet begun is counted once in packets_started: each
  // NewTracePacket() call, each packet EndRawPacketAndBeginNext() opens, and
  // the empty packet Flush() writes to carry a pending loss mark. A packet
  // reaches the service iff it is not counted in packets_dropped (a writer
  // that keeps its next packet open leaves it empty at the end; readers
  // skip empty packets).
  struct Stats {
    uint64_t packets_started = 0;
    // Started in, or cut short by, drop mode; and given up by the caller
    // before they began (MarkPacketLost(): not in packets_started).
    uint64_t packets_dropped = 0;
    uint64_t drop_episodes = 0;    // Times the writer entered drop mode.
    uint64_t chunks_used = 0;
    // Time this writer waited for a free chunk (kStallThenDrop).
    uint64_t stall_ns = 0;
  };

  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Starts a packet. The previous handle must have been destroyed (or
  // Finish()ed): checked in every build, since two open packets would
  // interleave their bytes in the chunk. O(1) except when a new chunk is
  // needed.
  TracePacketHandle NewTracePacket() {
    if (ZT_UNLIKELY(in_packet_))
      FatalPacketOpen("NewTracePacket()");
    uint8_t* size_field = stream_writer_.write_ptr();
    // One test covers every reason to leave the fast path: no room, a full
    // packet count, drop mode and a pending "previous packet dropped" mark
    // (the last two set count_limit_ to 0).
    if (ZT_UNLIKELY(stream_writer_.end() - size_field <
                        static_cast<ptrdiff_t>(kMinRoomForPacket) ||
                    cur_count() >= count_limit_)) {
      return NewTracePacketSlowPath();
    }
    // The size field is left as it is: it is always written (size, or the
    // drop marker) before the service may read it.
    stream_writer_.set_write_ptr(size_field + SharedMemoryABI::kPacketHeaderSize);
    BeginPacket(size_field);
    CountOpenedPacket();
    UpdateRawStart();
    return TracePacketHandle(this);
  }

  // A fast path for writers that keep their next packet open ahead of time
  // (a service scraping a chunk leaves out its last packet, which may be in
  // progress, so an open empty packet at the end lets it take every finished
  // one). With the open packet still empty, not in drop mode and room in the
  // chunk for |max_size| bytes, kRawScratchBytes more and what
  // NewTracePacket() asks of the next packet (its header and a few bytes),
  // returns where the packet's bytes go; null otherwise (write through the
  // handle). The End calls below are only for a packet BeginRawPacket()
  // accepted.
  // The caller then writes at most |max_size| bytes there (at most
  // kMaxRawPacketSize: a one-byte size), may overwrite kRawScratchBytes
  // past its packet's end as scratch (fixed-size copies), and calls either
  // EndRawPacketAndBeginNext() or, to go on through the handle,
  // EndRawBytes(). Saves the handle and Message bookkeeping of a packet:
  // about a third of the cost of a small one.
  // Cost: one compare for |max_size| up to kRawPacketRoom (a constant at
  // the call site), two above: small packets are refused only in a chunk's
  // last kRawPacketRoom + kMinRoomForPacket bytes.
  static constexpr size_t kMaxRawPacketSize = 127;  // One-byte size varint.
  static constexpr size_t kRawPacketRoom = 48;
  static constexpr size_t kRawScratchBytes = 12;
  ZT_ALWAYS_INLINE uint8_t* BeginRawPacket(size_t max_size = kRawPacketRoom) {
    // raw_start_ holds every condition above for kRawPacketRoom, decided
    // when the packet was opened; the write pointer still there means the
    // packet is empty. raw_limit_ is where a raw packet must end.
    uint8_t* p = stream_writer_.write_ptr();
    if (ZT_LIKELY(p == raw_start_ && (max_size <= kRawPacketRoom ||
                                      raw_limit_ - p >= static_cast<ptrdiff_t>(max_size)))) {
      if (p == nullptr)  // raw_start_ never is: tells callers' null tests.
        __builtin_unreachable();
      return p;
    }
    return nullptr;
  }
  // BeginRawPacket(max_size) for when it refused, slow path. When the
  // bound that keeps the chunk's packet count in range was met (it is
  // computed conservatively, see UpdateRawStart()), it is computed again
  // and the packet begins here. When the chunk's room is short, the open
  // packet, empty, stays behind (readers skip empty packets) and the raw
  // packet opens a new chunk, rather than the event going through the
  // handle in fragments across two chunks. Null when something else
  // refuses (drop mode, a loss mark to write, patches pending, the packet
  // not empty, the count full) or no chunk is free.
  uint8_t* BeginRawPacketSlow(size_t max_size);

  // Closes the packet BeginRawPacket() opened for raw bytes, which end at
  // |end|, and opens the next packet in the same chunk. A packet longer
  // than the room checked (kMaxRawPacketSize at most) would have overrun
  // it: a CHECK in every build.
  ZT_ALWAYS_INLINE void EndRawPacketAndBeginNext(uint8_t* end) {
    uint8_t* const start = fragment_start_;
    const size_t size = static_cast<size_t>(end - start);
    // A raw packet starts at or before raw_start_limit_, kRawPacketRoom
    // before raw_limit_: one within that room needs one compare.
    ZT_CHECK(size <= kRawPacketRoom || (size <= kMaxRawPacketSize && end <= raw_limit_));
    // The size as a redundant 4-byte varint, bytes {size|0x80, 0x80, 0x80,
    // 0}, in one little-endian store, into the packet's header (a raw
    // packet is one fragment: its header is just before it).
    const uint32_t size_field = static_cast<uint32_t>(size) | 0x808080u;
    memcpy(start - SharedMemoryABI::kPacketHeaderSize, &size_field, sizeof(size_field));
    // The next packet. packet_ is not Reset: nothing was written through it
    // since its last Reset, so it is still an empty root message; only its
    // start offset is stale, and that only feeds the size Finalize()
    // returns, which the writer does not use (it measures fragments).
    cur_fragment_size_field_ = end;
    uint8_t* next = end + SharedMemoryABI::kPacketHeaderSize;
    fragment_start_ = next;
    stream_writer_.set_write_ptr(next);
    stats_.packets_started++;
    CountPacketInChunk();
    // As UpdateRawStart(), knowing that no patch is pending (none was when
    // this packet began, and raw bytes add none) and that the count is in
    // range below raw_start_limit_.
    raw_start_ = next <= raw_start_limit_ ? next : NoRawStart();
  }
  // Leaves the packet BeginRawPacket() opened open for more, through the
  // handle, after raw bytes up to |end|.
  void EndRawBytes(uint8_t* end) {
    ZT_CHECK(static_cast<size_t>(end - fragment_start_) <= kMaxRawPacketSize &&
             end <= raw_limit_);
    stream_writer_.set_write_ptr(end);
  }

  // Hands the current chunk (even partly filled) to the service and
  // delivers all pending commits. Not inside a packet: the chunk would go
  // to the service with the packet unfinished, then be written to while the
  // service owns it; checked in every build (aborts with a message). If
  // packets were dropped since the last one written (no free chunk), an
  // empty packet marking the loss goes first, when a chunk can be had
  // without waiting: a loss at the end of a sequence is told too.
  void Flush();

  // Counts a packet the caller gives up before beginning it (the SDK: a
  // track event emitted from inside another event's callback, while that
  // event's packet is open). It is counted in packets_dropped, and the next
  // packet carries previous_packet_dropped = DATA_LOSS_PRESENT, so readers
  // count the loss where it happened and drop the sequence's incremental
  // state until it is cleared. O(1).
  void MarkPacketLost();

  // For the C ABI (src/c_abi): the stream the open packet's bytes go to,
  // written directly by C code between NewTracePacket() (its handle
  // detached) and FinishPacketOfCAbi(), which closes the packet once the
  // stream's write pointer is where the C side left it.
  protozero::ScatteredStreamWriter* stream_writer_of_c_abi() { return &stream_writer_; }
  void FinishPacketOfCAbi() { TracePacketHandle(this).Finish(); }

  uint16_t writer_id() const { return writer_id_; }
  uint32_t target_buffer() const { return target_buffer_; }
  const Stats& stats() const { return stats_; }
  bool is_dropping() const { return dropping_; }
  size_t pending_patches() const;

 private:
  friend class SharedMemoryArbiter;
  // Leaves room for the 4-byte size and a few bytes of packet: opening a
  // packet that fragments at once would only waste a fragment header.
  static constexpr size_t kMinRoomForPacket =
      SharedMemoryABI::kPacketHeaderSize + 8;
  static_assert(kRawScratchBytes <= kMinRoomForPacket, "BeginRawPacket's room");
  static_assert(kRawPacketRoom <= kMaxRawPacketSize, "a small packet is a packet");
  static constexpr size_t kGarbageSize = 1024;

  TraceWriter(SharedMemoryArbiter* arbiter, uint16_t writer_id,
              uint32_t target_buffer, BufferExhaustedPolicy policy,
              std::atomic<uint64_t>* published_drops);
  // Publishes packets_dropped to the arbiter, which reports it to the
  // service (CommitData::WriterDrops). Slow paths only.
  void PublishDrops();

  void BeginPacket(uint8_t* size_field) {
    cur_fragment_size_field_ = size_field;
    packet_.Reset(&stream_writer_);
    fragment_start_ = stream_writer_.write_ptr();
    in_packet_ = true;
    stats_.packets_started++;
  }

  // Counts a new packet in the chunk and publishes it in the chunk's
  // header (release: a scraping service then sees the previous packet's
  // bytes complete).
  void CountPacketInChunk() {
    cur_packets_word_++;  // The count is the low bits; it cannot overflow.
    cur_chunk_.header()->packets.store(cur_packets_word_,
                                       std::memory_order_release);
  }
  // Counts the packet just opened in the chunk, unless the previous one's
  // end counted it already (count_reserved_, the usual case: then the
  // chunk's header already says so and is not written again).
  void CountOpenedPacket() {
    if (ZT_LIKELY(count_reserved_)) {
      count_reserved_ = false;
      return;
    }
    CountPacketInChunk();
  }
  // A scraping service leaves out a chunk's last counted packet, which may
  // be in progress. So when a packet ends, the next one is counted at once
  // (as upstream's writer inflates its count): the packet just finished is
  // no longer last, and a flush or stop takes it. The slot's header is
  // written when the next packet opens, or as an empty packet (readers skip
  // those) when the chunk is left first (MaterializeReservedPacket()).
  // Only with room for a packet in the chunk and in its count.
  void ReserveNextPacket() {
    if (ZT_LIKELY(stream_writer_.end() - stream_writer_.write_ptr() >=
                      static_cast<ptrdiff_t>(kMinRoomForPacket) &&
                  cur_count() + 1 < count_limit_)) {
      CountPacketInChunk();
      count_reserved_ = true;
    }
  }
  void MaterializeReservedPacket();

  TracePacketHandle NewTracePacketSlowPath();
  // Opens a packet where NewTracePacket()'s fast path cannot: in a new
  // chunk when |new_chunk| or when this one is full.
  void OpenPacketSlow(bool new_chunk);
  // |what| was called while a packet is open: a caller bug that would
  // corrupt the chunk; says so and aborts.
  [[noreturn]] ZT_NOINLINE static void FatalPacketOpen(const char* what);
  // count_limit_ is the fast path's packet count bound: 0 while dropping or
  // while the next packet must carry previous_packet_dropped.
  void UpdateCountLimit() {
    count_limit_ = (dropping_ || mark_previous_dropped_)
                       ? 0
                       : SharedMemoryABI::kMaxPacketCount;
  }

  // The open packet, just begun and empty, may be written raw when the
  // chunk has room for a raw packet and the next packet's header, the
  // chunk's count has room for the next, and nothing is to be patched (see
  // BeginRawPacket()). Drop mode and a pending loss mark set count_limit_
  // to 0. Anything that moves the write pointer off the packet's start
  // (bytes through the handle, a new chunk, the garbage range) disables it
  // by that alone; the slow paths also clear raw_start_ outright.
  //
  // raw_start_limit_ also keeps the chunk's count in range, so that
  // EndRawPacketAndBeginNext() need not look at it: each raw packet's end
  // moves the next one's start on by its 4-byte header at least and counts
  // one packet, so a start below fragment_start_ + 4 * (counts left - 1) + 3
  // is one with a count left. In chunks of 4 KiB it never binds (a chunk
  // cannot hold 1,023 packets); in larger ones, when it does,
  // BeginRawPacketSlow() computes it again from where the writer is.
  void UpdateRawStart() {
    raw_limit_ = stream_writer_.end() - kMinRoomForPacket;
    uint8_t* limit = raw_limit_ - kRawPacketRoom;
    const int counts_left = static_cast<int>(count_limit_) - static_cast<int>(cur_count());
    if (counts_left <= 0 || has_pending_patches_ || fragment_start_ > limit) {
      raw_start_limit_ = limit;
      raw_start_ = NoRawStart();
      return;
    }
    constexpr size_t kHeader = SharedMemoryABI::kPacketHeaderSize;
    const size_t by_count = kHeader * static_cast<size_t>(counts_left - 1) + (kHeader - 1);
    if (static_cast<size_t>(limit - fragment_start_) > by_count)
      limit = fragment_start_ + by_count;
    raw_start_limit_ = limit;
    raw_start_ = fragment_start_;
  }

  // What raw_start_ holds when no raw packet may start: never a write
  // position (the writer object itself), and not null, which the stream's
  // write position is before its first chunk.
  uint8_t* NoRawStart() { return reinterpret_cast<uint8_t*>(this); }

  void FinishTracePacket() {
    raw_start_ = NoRawStart();
    packet_.Finalize();
    if (ZT_LIKELY(cur_fragment_size_field_ != nullptr)) {
      protozero::proto_utils::WriteRedundantVarInt4(
          static_cast<uint32_t>(stream_writer_.write_ptr() - fragment_start_),
          cur_fragment_size_field_);
      cur_fragment_size_field_ = nullptr;
    }
    in_packet_ = false;
    fragment_start_ = nullptr;
    if (ZT_UNLIKELY(has_pending_patches_))
      SendFilledPatches();
    ReserveNextPacket();
  }

  // Writes an empty packet carrying previous_packet_dropped if a loss is
  // pending and a chunk can be had without waiting.
  void WriteLossMarkIfPending();
  // Acquires the next chunk and, inside a packet, closes the current
  // fragment (size, continuation flag, patch slots). On failure enters drop
  // mode and returns the garbage range.
  protozero::ContiguousMemoryRange AcquireNextRange();
  void SendFilledPatches();
  void ReturnCurrentChunk();
  protozero::ContiguousMemoryRange GarbageRange();
  // ScatteredStreamWriter::Delegate: the chunk-switch slow path.
  protozero::ContiguousMemoryRange GetNewBuffer() override;
  // The C ABI's size fields (PerfettoStreamWriterAnnotatePatch): a slot of
  // the patch list for a field in the current chunk, or null (not in a
  // packet, dropping, or outside the chunk).
  uint8_t* AnnotatePatch(uint8_t* patch_addr) override;

  SharedMemoryArbiter* const arbiter_;
  std::atomic<uint64_t>* const published_drops_;  // The arbiter's record.
  const uint16_t writer_id_;
  const uint32_t target_buffer_;
  const BufferExhaustedPolicy policy_;

  SharedMemoryABI::Chunk cur_chunk_;
  uint32_t next_chunk_id_ = 0;
  // The chunk's packet count: the low bits of the header word's mirror.
  uint16_t cur_count() const { return cur_packets_word_ & SharedMemoryABI::kMaxPacketCount; }
  uint16_t count_limit_ = SharedMemoryABI::kMaxPacketCount;
  uint16_t cur_packets_word_ = 0;  // Mirror of the chunk header's count|flags.
  protozero::ScatteredStreamWriter stream_writer_;
  protozero::RootMessage<TracePacket> packet_;
  uint8_t* cur_fragment_size_field_ = nullptr;
  uint8_t* fragment_start_ = nullptr;
  // fragment_start_ while the open packet may be written raw, else
  // NoRawStart().
  uint8_t* raw_start_ = reinterpret_cast<uint8_t*>(this);
  // Where a raw packet must end in the current chunk: before the room the
  // next packet needs; and where a small one must start (set with
  // raw_start_ by UpdateRawStart()).
  uint8_t* raw_limit_ = nullptr;
  uint8_t* raw_start_limit_ = nullptr;
  bool in_packet_ = false;
  // The chunk's count includes a packet not yet opened, whose header goes
  // at the write position (ReserveNextPacket()).
  bool count_reserved_ = false;
  bool dropping_ = false;
  bool mark_previous_dropped_ = false;
  // TracePacket.DataLossReason bits for the pending mark.
  uint32_t loss_reasons_ = 0;
  bool first_packet_ = true;  // The next packet is the sequence's first.
  // Slots of size fields left in chunks already handed over; created at
  // the first one (most writers never fragment a nested message).
  std::unique_ptr<PatchList> patch_list_;
  bool has_pending_patches_ = false;  // patch_list_ is not empty.
  // AnnotatePatch() gave a slot for a field in the current chunk: the
  // chunk needs patching when it is returned.
  bool c_abi_patch_in_chunk_ = false;
  std::unique_ptr<uint8_t[]> garbage_;
  Stats stats_;
};

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_TRACE_WRITER_H_
