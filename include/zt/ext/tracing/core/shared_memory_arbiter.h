// SharedMemoryArbiter: the producer side of one shared memory buffer. It
// hands free chunks to TraceWriters, takes completed chunks and filled patch
// slots back, batches them into CommitData and delivers the batches, in
// order, to a CommitSink (the IPC channel to the service, or a test).
//
// Thread-safe. One mutex, taken only when a chunk is acquired or returned or
// patches are queued; never held while the sink runs.

#ifndef ZT_EXT_TRACING_CORE_SHARED_MEMORY_ARBITER_H_
#define ZT_EXT_TRACING_CORE_SHARED_MEMORY_ARBITER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "zt/ext/tracing/core/commit_data.h"
#include "zt/ext/tracing/core/patch_list.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/tracing/buffer_exhausted_policy.h"

namespace zt {

class TraceWriter;

class CommitSink {
 public:
  virtual ~CommitSink();
  // Called with batches in the order they were formed, one at a time (never
  // concurrently). May be called from any producer thread.
  virtual void OnCommit(CommitData data) = 0;
};

class SharedMemoryArbiter {
 public:
  struct Options {
    // How new pages are split (chunks of other pages are used as they are).
    SharedMemoryABI::PageLayout layout = SharedMemoryABI::kPageDiv1;
    // A batch is delivered once it names this many chunks (or on Flush(), or
    // when the buffer is found full). Every delivery may wake the service
    // thread, and a sleeping thread's wake-up costs it microseconds (5 us on
    // a 2-core VM; docs/benchmarks.md), so the default (0) is a quarter of
    // the SMB's chunks: 64 in the SDK's 1 MiB of 4 KiB pages. Larger batches hold more of
    // the SMB back from the writers. Clamped to [1, chunks in the SMB / 2].
    size_t commit_batch_chunks = 0;
    // Upper bound of one kStallThenDrop wait.
    std::chrono::milliseconds stall_timeout{100};
  };

  struct Stats {
    uint64_t chunks_acquired = 0;
    uint64_t chunks_returned = 0;
    uint64_t chunks_unavailable = 0;  // Requests that ended without a chunk.
    uint64_t stalls = 0;              // Requests that had to wait.
    uint64_t stall_timeouts = 0;      // ... and still got nothing.
    uint64_t stall_ns = 0;            // Time spent in those waits, all writers.
    uint64_t release_failures = 0;    // Chunks the page word disowned (peer).
    uint64_t commits = 0;
    // Times a batch due (full, or wanted by a stalled writer) was kept back
    // because the service had not started on the previous one yet.
    uint64_t commits_held_back = 0;
    uint64_t patches_sent = 0;
    uint64_t writer_ids_exhausted = 0;
  };

  // |start| .. |start + size| is the SMB (see SharedMemoryABI for the
  // geometry rules); |sink| must outlive the arbiter. The region is not
  // cleared: a fresh SMB is all zeros, which reads as all pages free.
  SharedMemoryArbiter(uint8_t* start, size_t size, size_t page_size,
                      CommitSink* sink, Options options);
  SharedMemoryArbiter(uint8_t* start, size_t size, size_t page_size,
                      CommitSink* sink)
      : SharedMemoryArbiter(start, size, page_size, sink, Options()) {}
  ~SharedMemoryArbiter();

  SharedMemoryArbiter(const SharedMemoryArbiter&) = delete;
  SharedMemoryArbiter& operator=(const SharedMemoryArbiter&) = delete;

  // A writer with a fresh id (1..65535), or null when all ids are in use
  // (counted). Writers must be destroyed before the arbiter.
  std::unique_ptr<TraceWriter> CreateTraceWriter(
      uint32_t target_buffer,
      BufferExhaustedPolicy policy = BufferExhaustedPolicy::kDrop);

  // Delivers what is pending now, even an empty batch when
  // |flush_request_id| is not 0 (the answer to a service flush).
  void FlushPendingCommitData(uint64_t flush_request_id = 0);

  Stats stats() const;
  SharedMemoryABI* abi() { return &abi_; }
  const Options& options() const { return options_; }

  // --- For TraceWriter ---
  // A chunk in BeingWritten with |header| written, or an invalid chunk when
  // the policy gave up. A wait for one (kStallThenDrop) adds its duration
  // to |*stall_ns| if given, and to stats().stall_ns.
  SharedMemoryABI::Chunk GetNewChunk(
      const SharedMemoryABI::ChunkHeaderValues& header,
      BufferExhaustedPolicy policy, uint64_t* stall_ns = nullptr);
  // Marks |chunk| Complete, queues it for the service together with the
  // filled patches at the head of |patches| (removed from it; null: none).
  void ReturnCompletedChunk(SharedMemoryABI::Chunk chunk,
                            uint32_t target_buffer, uint16_t writer_id,
                            PatchList* patches);
  // Queues the filled patches at the head of |patches| alone.
  void SendPatches(uint32_t target_buffer, uint16_t writer_id,
                   PatchList* patches);
  void ReleaseWriterId(uint16_t id);
  // What a writer publishes of its drops, for the service's count (see
  // CommitData::WriterDrops): the writer stores its packets_dropped
  // (relaxed) and calls NoteDrops(); every batch delivered with |force|
  // (a flush, a stop's commit, a writer's own Flush()) reports each
  // writer's drops since the last report, so drops of a writer that went
  // quiet are counted at the next flush or stop.
  struct WriterDropsRecord {
    uint32_t target_buffer = 0;
    uint16_t writer_id = 0;
    std::atomic<uint64_t> dropped{0};  // Written by the writer's thread.
    uint64_t reported = 0;             // Under lock_.
  };
  void NoteDrops() { drops_unreported_.store(true, std::memory_order_release); }

 private:
  uint16_t AcquireWriterIdLocked();
  SharedMemoryABI::Chunk TryGetChunkLocked(
      const SharedMemoryABI::ChunkHeaderValues& header);
  void MovePatchesLocked(uint32_t target_buffer, uint16_t writer_id,
                         PatchList* patches);
  // Adds each writer's drops not reported yet to |pending_|.
  void CollectDropsLocked();
  // Adds |record|'s unreported drops to |pending_|.
  void ReportDropsLocked(WriterDropsRecord* record);
  // Delivers the pending batch when |force| or it is big enough. Takes the
  // caller's lock on |lock_| and returns with it released.
  void MaybeCommitAndUnlock(std::unique_lock<std::mutex>* lock, bool force,
                            uint64_t flush_request_id = 0);
  // Whether the service has yet to start on the last batch delivered: its
  // first chunk is still Complete, with the writer and chunk id it was sent
  // with.
  bool LastBatchUnstartedLocked() const;
  // A chunk just acquired where that first chunk was: the service has freed
  // it, so it started on the batch.
  void ForgetIfDelivered(size_t page, size_t chunk) {
    if (last_delivered_.valid && last_delivered_.page == page &&
        last_delivered_.chunk == chunk) {
      last_delivered_.valid = false;
    }
  }

  SharedMemoryABI abi_;
  CommitSink* const sink_;
  Options options_;

  mutable std::mutex lock_;
  // Serializes deliveries to the sink; taken before |lock_| is dropped so
  // batches cannot overtake each other.
  std::mutex commit_mutex_;
  CommitData pending_;
  // A chunk handed to the service: where it is and whose it was.
  struct SentChunk {
    bool valid = false;
    uint32_t page = 0;
    uint32_t chunk = 0;
    uint16_t writer_id = 0;
    uint32_t chunk_id = 0;
  };
  SentChunk first_queued_;    // The first chunk put in |pending_|.
  SentChunk last_delivered_;  // The first chunk of the last batch delivered.
  // Where the next chunk search starts: the page of the last chunk handed
  // out while it has free chunks left, else the page after it.
  size_t next_page_ = 0;
  std::vector<bool> writer_ids_;  // Index = id; true = in use.
  // One per live writer (stable addresses: writers hold them).
  std::vector<std::unique_ptr<WriterDropsRecord>> drop_records_;
  std::atomic<bool> drops_unreported_{false};
  uint16_t next_writer_id_ = 1;
  Stats stats_;
};

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_SHARED_MEMORY_ARBITER_H_
