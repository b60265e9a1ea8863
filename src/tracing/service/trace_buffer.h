// TraceBuffer: the service's central, non-shared buffer of one tracing
// session's `buffers` entry. The service copies committed chunks out of a
// producer's SMB into it, patches size fields that arrive out of band, and
// reads back whole TracePackets, per writer sequence in order.
//
// Memory is bounded by the size given at creation: chunks are stored as
// records in one ring of bytes. When it is full, kOverwrite (RING_BUFFER)
// deletes the oldest records to make room and kDiscard (DISCARD) refuses
// every later chunk. Everything a producer wrote is untrusted: sizes, flags,
// fragment counts and patches are validated, and inconsistencies are counted
// (abi_violations, patches_failed, ...) and never abort. A packet is returned
// only whole: never with a missing fragment, never while a patch to it may
// still arrive.
//
// Single-threaded: the service calls it from its task runner only.

#ifndef ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_H_
#define ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "zt/ext/tracing/core/commit_data.h"

namespace zt {

// Counters of one buffer; names and meanings as TraceStats.BufferStats.
struct TraceBufferStats {
  uint64_t buffer_size = 0;
  uint64_t bytes_written = 0;        // Chunk payload bytes stored.
  uint64_t bytes_overwritten = 0;    // ... deleted unread (kOverwrite).
  uint64_t bytes_read = 0;           // Payload bytes of the chunks read
                                     // (bytes_written's unit: the
                                     // difference is what is still stored).
  uint64_t padding_bytes_written = 0;
  uint64_t padding_bytes_cleared = 0;
  uint64_t chunks_written = 0;
  uint64_t chunks_rewritten = 0;     // A scraped copy replaced by a newer one.
  uint64_t chunks_overwritten = 0;   // Deleted with unread packets.
  uint64_t chunks_discarded = 0;     // Refused: kDiscard and full, or too big.
  uint64_t chunks_read = 0;          // Fully consumed.
  // Not a TraceStats field: copies of a chunk already stored complete or
  // already read, ignored (the commit of a chunk that a flush had copied
  // while complete). Kept so that every chunk handed over is accounted for.
  uint64_t chunks_recopied = 0;
  uint64_t chunks_committed_out_of_order = 0;
  uint64_t write_wrap_count = 0;
  uint64_t patches_succeeded = 0;
  uint64_t patches_failed = 0;       // Chunk gone, other producer, bad offset.
  uint64_t readaheads_succeeded = 0; // Fragmented packets joined.
  uint64_t readaheads_failed = 0;    // ... whose next chunk was not there yet.
  uint64_t abi_violations = 0;       // Malformed chunks and fragments.
  uint64_t trace_writer_packet_loss = 0;  // Drop markers and sequence gaps.
  // Packets writers reported dropping (CommitData::WriterDrops), marked in
  // the data or not. zerotrace only (BufferStats field 1001).
  uint64_t writer_packets_dropped = 0;
};

// How full the chunks of one writer were when read: chunk payload bytes
// used (up to the end of the last packet), in buckets whose upper bounds
// are kThresholds plus one overflow bucket, as TraceStats.WriterStats
// reports them (upstream's bucket definition, so that readers compare
// traces). A full 4 KiB chunk lands in the 4096 bucket; a run of small
// ones says the writer is flushed too often.
struct ChunkPayloadHistogram {
  static constexpr uint32_t kThresholds[] = {8,    32,   128,  512,
                                             1024, 2048, 4096, 8192,
                                             12288, 16384};
  static constexpr size_t kBuckets =
      sizeof(kThresholds) / sizeof(kThresholds[0]) + 1;
  uint64_t counts[kBuckets] = {};
  int64_t sums[kBuckets] = {};

  void Add(uint32_t used) {
    size_t b = 0;
    while (b < kBuckets - 1 && used > kThresholds[b])
      b++;
    counts[b]++;
    sums[b] += used;
  }
};

// Histograms by (producer id, writer id): ordered, so stats come out in a
// stable order.
using WriterStatsMap =
    std::map<std::pair<uint32_t, uint16_t>, ChunkPayloadHistogram>;

// One chunk handed to CopyChunkUntrusted: the sequence it belongs to, what
// its header said and its payload. Only |producer_id| is trusted (the
// service's id of the connection); the rest comes from the producer.
struct TraceBufferChunk {
  uint32_t producer_id = 0;
  uint16_t writer_id = 0;
  uint32_t chunk_id = 0;
  uint16_t packet_count = 0;  // The header's count.
  uint8_t flags = 0;          // The header's flags (SharedMemoryABI::ChunkFlags).
  // False for a chunk scraped while still BeingWritten: see
  // CopyChunkUntrusted.
  bool complete = true;
  const uint8_t* payload = nullptr;  // The chunk minus its 8-byte header.
  size_t size = 0;
};

// A run of bytes inside the buffer.
struct TraceBufferSlice {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// One packet read back, with the sequence it came from. Who the producer
// is (uid, pid) the service knows by |producer_id|. The bytes are not
// copied out: |slices| point into the buffer (one per fragment, in order)
// and stay valid until the next call that writes into it
// (CopyChunkUntrusted, TryPatchChunkContents) or its destruction; reading
// further packets does not move them. Reused between reads, the object
// allocates only when a packet has more fragments than any before.
struct TraceBufferPacket {
  std::vector<TraceBufferSlice> slices;
  size_t size = 0;  // Sum of the slices' sizes: the TracePacket's size.

  // The packet's bytes, joined (a copy: for fragmented packets and tests).
  void CopyTo(std::vector<uint8_t>* out) const {
    out->clear();
    out->reserve(size);
    for (const TraceBufferSlice& s : slices)
      out->insert(out->end(), s.data, s.data + s.size);
  }

  uint32_t producer_id = 0;
  uint16_t writer_id = 0;
  // Why data of this sequence was lost between the previous packet returned
  // for it and this one, as TracePacket.DataLossReason bits (what upstream's
  // service writes into previous_packet_dropped); 0: nothing lost.
  // DATA_LOSS_PRESENT goes with every other bit. The buffer sets:
  //  * READ_GAP: chunks of the sequence never arrived (or were refused:
  //    too big, or a full kDiscard buffer);
  //  * CHUNK_CORRUPTED: a malformed chunk (bad packet header, fewer packets
  //    than its count), whose rest was dropped;
  //  * ORPHAN_CONTINUATION: the end of a packet whose beginning never came,
  //    and for which no other cause is known (a producer bug, or the first
  //    chunk of a sequence starting mid-packet);
  //  * REASSEMBLY_GAP: a fragmented packet whose next chunk will never come;
  //  * REASSEMBLY_BROKEN_CHAIN: a fragmented packet whose next chunk does not
  //    continue it;
  //  * OVERWRITE: unread data deleted to make room (kOverwrite), or a
  //    scraped chunk deleted before its complete copy came;
  //  * WRITER_ABORT: the writer's drop marker.
  // Never SMB_FULL: that loss happened in the producer, whose writer marks
  // the next packet itself (the service merges both). The first packet of a
  // sequence carries only losses the buffer saw: nothing is assumed about
  // what came before its first chunk (the writer's first_packet_on_sequence
  // tells readers that).
  uint32_t previous_packet_dropped = 0;
};

class TraceBuffer {
 public:
  enum class OverwritePolicy { kOverwrite, kDiscard };

  // |size_bytes| is rounded up to a multiple of 4 KiB; null if it is 0 or
  // above 4 GiB. Allocates the whole buffer up front.
  static std::unique_ptr<TraceBuffer> Create(size_t size_bytes,
                                             OverwritePolicy policy);
  virtual ~TraceBuffer();

  // Stores a copy of |chunk|'s payload with its header values. For a chunk
  // scraped while still BeingWritten (|chunk.complete| false) only its
  // first |packet_count| packets are readable, and a later copy of the same
  // (producer, writer, chunk_id) with the same size replaces it
  // (chunks_rewritten). A complete chunk already stored is never replaced
  // (abi_violations). A chunk older than the newest one stored of its
  // sequence is taken only within 32 places of it (abi_violations
  // otherwise: producers commit a writer's chunks in order, but for a
  // scraped one). O(size) plus, for a chunk that is not the newest of its
  // sequence, O(log chunks); no allocation but amortized list growth.
  virtual void CopyChunkUntrusted(const TraceBufferChunk& chunk) = 0;

  // Applies |patches| (offsets from the start of the chunk payload, 4 bytes
  // each) to the stored chunk of |producer_id|/|writer_id|/|chunk_id|. All or
  // nothing: false (patches_failed) if the chunk is not stored (overwritten,
  // never came, another producer's) or any patch is out of bounds. When
  // |other_patches_pending| is false the chunk stops waiting for patches and
  // its last packet becomes readable.
  virtual bool TryPatchChunkContents(uint32_t producer_id, uint16_t writer_id,
                                     uint32_t chunk_id,
                                     const std::vector<CommitData::Patch>& patches,
                                     bool other_patches_pending) = 0;

  // |producer_id| is gone (disconnected): its writers will never finish,
  // patch or continue what they were writing. Its scraped chunks become
  // readable to their end; a packet left unfinished in them (or waiting for
  // patches or a continuation that will not come) is dropped and counted
  // in trace_writer_packet_loss, as a writer's abandoned packet is. A last
  // packet of size 0 counts too: it cannot be told from a torn one. O(the
  // buffer's sequences).
  virtual void OnProducerGone(uint32_t producer_id) = 0;

  // Starts a read pass, then returns packets one at a time until false. Per
  // (producer, writer) sequence packets come in write order; across
  // sequences, older chunks first. Read packets are consumed: their space
  // can be reused. Packets not readable yet (a later fragment or a patch
  // still to come) stay for a later pass.
  virtual void BeginRead() = 0;
  virtual bool ReadNextTracePacket(TraceBufferPacket* packet) = 0;

  virtual const TraceBufferStats& stats() const = 0;
  // Adds to stats().writer_packets_dropped.
  virtual void CountWriterPacketsDropped(uint64_t packets) = 0;
  // One histogram per writer that had a complete chunk read to its end
  // (chunks given up as corrupt or overwritten are not in it). At most
  // kMaxWriterStats writers are tracked; later ones are left out.
  static constexpr size_t kMaxWriterStats = 4096;
  virtual const WriterStatsMap& writer_stats() const = 0;
  virtual size_t size() const = 0;
  virtual OverwritePolicy policy() const = 0;
};

// A copy of everything this buffer holds, its read position and stats
// included: reading the copy returns what the next reads of this one
// would (packets already read are not in it), and the two go on
// independently. For CloneSession's snapshot; the service never writes
// into a copy, so to the copy every writer is gone (OnProducerGone): its
// scraped chunks are read to their end, a packet left unfinished in them
// dropped and counted in trace_writer_packet_loss. Null if the memory is
// not there. Reserves size() bytes but writes (makes resident) only the
// records' headers and the unread chunks: O(records + bytes held). Defined in
// trace_buffer_clone.cc, part of zt_tracing_service_ports: only the
// daemon clones, so a program tracing in process neither links nor
// builds it.
std::unique_ptr<TraceBuffer> CloneTraceBuffer(const TraceBuffer& buffer);

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_H_
