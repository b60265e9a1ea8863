// PacketReassembler: the reference reader of committed chunks. It takes
// copies of chunks (as the service copies them out of a producer's SMB) and
// CommitData patches, and rebuilds the TracePackets of every writer sequence.
// Everything it is given is untrusted: inconsistencies are rejected and
// counted by reason, and a packet is emitted only when all of its fragments
// were seen, validated and patched. Used by the tests, the fuzzer and (later)
// the service's trace buffer.
//
// Chunks of one writer must be added in the order the producer committed
// them, which is chunk-id order. One instance serves one producer (writer ids
// are per producer). Thread-compatible.

#ifndef ZT_SRC_TRACING_CORE_PACKET_REASSEMBLER_H_
#define ZT_SRC_TRACING_CORE_PACKET_REASSEMBLER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "zt/ext/tracing/core/commit_data.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace zt {

struct ReassembledPacket {
  uint16_t writer_id = 0;
  std::vector<uint8_t> data;  // The TracePacket bytes, without size prefix.
  // Data of this sequence was lost (as far as the reader can tell) between
  // the previous emitted packet and this one.
  bool loss_before = false;
};

struct ReassemblerStats {
  uint64_t chunks_added = 0;
  uint64_t chunks_replaced = 0;      // A scraped copy superseded.
  uint64_t chunks_rejected = 0;      // Duplicate, out of order, writer 0, ...
  uint64_t sequence_gaps = 0;        // A chunk id was skipped.
  uint64_t fragments_without_start = 0;
  uint64_t packets_not_continued = 0;  // Partial packet never finished.
  uint64_t bad_size_varints = 0;
  uint64_t sizes_out_of_bounds = 0;
  uint64_t count_flag_mismatches = 0;
  uint64_t drop_markers = 0;         // The writer said "packet lost".
  uint64_t unpatched_chunks = 0;     // Patches never completed.
  uint64_t incomplete_chunks_abandoned = 0;
  uint64_t patches_applied = 0;
  uint64_t patches_rejected = 0;     // Unknown chunk or out of bounds.
  uint64_t empty_packets = 0;        // Zero-size packets (skipped).
  uint64_t packets_emitted = 0;
  uint64_t bytes_emitted = 0;
};

class PacketReassembler {
 public:
  // Takes a chunk copy. Returns false (and counts) when it is rejected.
  bool AddChunk(SharedMemoryABI::ChunkCopy chunk);
  // Applies patches to a chunk still held; clears its needs-patching flag
  // when |patch.has_more_patches| is false. Returns false if the chunk is
  // not held (then nothing is applied).
  bool ApplyPatches(const CommitData::ChunkToPatch& patch);
  // Appends to |out| every packet that can be completed now.
  void ReadPackets(std::vector<ReassembledPacket>* out);
  // End of stream: reads what can be read, then discards (and counts)
  // whatever still waits for patches, completion or continuation.
  void Finish(std::vector<ReassembledPacket>* out);

  const ReassemblerStats& stats() const { return stats_; }
  size_t chunks_held() const;

 private:
  struct Entry {
    SharedMemoryABI::ChunkHeaderValues header;
    std::vector<uint8_t> payload;
    bool complete = true;
    bool started = false;         // Sequence checks done.
    uint32_t fragments_done = 0;  // Fragments already consumed.
    size_t offset = 0;            // Payload offset of the next fragment.
  };
  struct Sequence {
    std::deque<Entry> chunks;
    bool have_last_added = false;
    uint32_t last_added = 0;
    bool have_expected = false;
    uint32_t expected = 0;
    bool has_partial = false;
    bool skipping = false;  // Discarding the rest of a packet seen broken.
    std::vector<uint8_t> partial;
    bool loss_pending = false;
  };
  enum class FragmentResult { kOk, kAbandonChunk };

  void Process(uint16_t writer_id, Sequence* seq, bool final,
               std::vector<ReassembledPacket>* out);
  // Consumes fragments [entry->fragments_done, limit) of the front chunk.
  void ConsumeFragments(uint16_t writer_id, Sequence* seq, Entry* entry,
                        uint32_t limit, std::vector<ReassembledPacket>* out);
  void DiscardPartial(Sequence* seq);
  void Emit(uint16_t writer_id, Sequence* seq,
            std::vector<ReassembledPacket>* out);

  std::map<uint16_t, Sequence> sequences_;
  ReassemblerStats stats_;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_CORE_PACKET_REASSEMBLER_H_
