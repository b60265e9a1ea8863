#include "zt/ext/tracing/core/shared_memory_arbiter.h"

#include <algorithm>
#include <cassert>
#include <thread>
#include <utility>

#include "zt/ext/tracing/core/trace_writer.h"

namespace zt {

using ABI = SharedMemoryABI;

CommitSink::~CommitSink() = default;

SharedMemoryArbiter::SharedMemoryArbiter(uint8_t* start, size_t size,
                                         size_t page_size, CommitSink* sink,
                                         Options options)
    : abi_(start, size, page_size),
      sink_(sink),
      options_(options),
      writer_ids_(static_cast<size_t>(ABI::kMaxWriterId) + 1, false) {
  const size_t chunks_in_smb =
      abi_.num_pages() * ABI::NumChunksForLayout(options_.layout);
  if (options_.commit_batch_chunks == 0)
    options_.commit_batch_chunks = chunks_in_smb / 4;
  options_.commit_batch_chunks = std::max<size_t>(
      1, std::min(options_.commit_batch_chunks, chunks_in_smb / 2));
}

SharedMemoryArbiter::~SharedMemoryArbiter() = default;

std::unique_ptr<TraceWriter> SharedMemoryArbiter::CreateTraceWriter(
    uint32_t target_buffer, BufferExhaustedPolicy policy) {
  uint16_t id;
  WriterDropsRecord* drops = nullptr;
  {
    std::lock_guard<std::mutex> guard(lock_);
    id = AcquireWriterIdLocked();
    if (id == 0)
      return nullptr;
    drop_records_.emplace_back(new WriterDropsRecord());
    drops = drop_records_.back().get();
    drops->target_buffer = target_buffer;
    drops->writer_id = id;
  }
  return std::unique_ptr<TraceWriter>(
      new TraceWriter(this, id, target_buffer, policy, &drops->dropped));
}

uint16_t SharedMemoryArbiter::AcquireWriterIdLocked() {
  // Round robin, so a recently released id is not reused at once (the
  // service may still hold chunks of the previous writer with that id).
  for (uint32_t i = 0; i < ABI::kMaxWriterId; i++) {
    const uint16_t id = next_writer_id_;
    next_writer_id_ = next_writer_id_ == ABI::kMaxWriterId
                          ? 1
                          : static_cast<uint16_t>(next_writer_id_ + 1);
    if (!writer_ids_[id]) {
      writer_ids_[id] = true;
      return id;
    }
  }
  stats_.writer_ids_exhausted++;
  return 0;
}

void SharedMemoryArbiter::ReleaseWriterId(uint16_t id) {
  std::lock_guard<std::mutex> guard(lock_);
  writer_ids_[id] = false;
  // Its last drops (the writer published them before) go with the next
  // batch; the record goes now.
  for (auto it = drop_records_.begin(); it != drop_records_.end(); ++it) {
    if ((*it)->writer_id == id) {
      ReportDropsLocked(it->get());
      drop_records_.erase(it);
      break;
    }
  }
}

void SharedMemoryArbiter::ReportDropsLocked(WriterDropsRecord* record) {
  const uint64_t dropped = record->dropped.load(std::memory_order_relaxed);
  if (dropped <= record->reported)
    return;
  CommitData::WriterDrops report;
  report.target_buffer = record->target_buffer;
  report.writer_id = record->writer_id;
  report.packets = dropped - record->reported;
  record->reported = dropped;
  pending_.writer_drops.push_back(report);
}

void SharedMemoryArbiter::CollectDropsLocked() {
  // Acquire: the counts published before the flag was set are seen; one
  // published after it is cleared sets it again.
  if (!drops_unreported_.exchange(false, std::memory_order_acquire))
    return;
  for (auto& record : drop_records_)
    ReportDropsLocked(record.get());
}

SharedMemoryArbiter::Stats SharedMemoryArbiter::stats() const {
  std::lock_guard<std::mutex> guard(lock_);
  return stats_;
}

ABI::Chunk SharedMemoryArbiter::TryGetChunkLocked(
    const ABI::ChunkHeaderValues& header) {
  const size_t num_pages = abi_.num_pages();
  auto after = [num_pages](size_t p) { return p + 1 < num_pages ? p + 1 : 0; };
  size_t page = next_page_;
  for (size_t i = 0; i < num_pages; i++, page = after(page)) {
    uint32_t word = abi_.GetPageHeaderWord(page);
    if (word == 0) {
      // Fresh page: partition it and take its first chunk in one step.
      ABI::Chunk chunk = abi_.TryPartitionPageAndAcquireFirstChunk(
          page, options_.layout, header);
      if (chunk.is_valid()) {
        ForgetIfDelivered(page, 0);
        const bool more = ABI::NumChunksForLayout(options_.layout) > 1;
        next_page_ = more ? page : after(page);
        abi_.PrefetchPageForWriting(after(page));
        stats_.chunks_acquired++;
        return chunk;
      }
      // Another arbiter over the same SMB got there first: the page is split
      // now (or in use), so look at its chunks.
      word = abi_.GetPageHeaderWord(page);
    }
    // A full buffer is scanned on every retry of a stalled writer: one
    // test per page, not one per chunk.
    for (uint32_t free = ABI::FreeChunkBits(word); free != 0; free &= free - 1) {
      const uint32_t c = static_cast<uint32_t>(__builtin_ctz(free)) / ABI::kStateBits;
      ABI::Chunk chunk = abi_.TryAcquireChunkForWriting(page, c, header);
      if (chunk.is_valid()) {
        ForgetIfDelivered(page, c);
        // Keep filling this page while it has free chunks: pages complete
        // sooner and the service can move them whole.
        const bool more = (free & (free - 1)) != 0;
        next_page_ = more ? page : after(page);
        stats_.chunks_acquired++;
        return chunk;
      }
    }
  }
  return ABI::Chunk();
}

ABI::Chunk SharedMemoryArbiter::GetNewChunk(
    const ABI::ChunkHeaderValues& header, BufferExhaustedPolicy policy, uint64_t* stall_ns) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline{};
  Clock::time_point stall_start{};
  // Called with lock_ held, at the end of a wait.
  auto count_stall = [&] {
    const uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - stall_start).count());
    stats_.stall_ns += ns;
    if (stall_ns)
      *stall_ns += ns;
  };
  for (uint32_t attempt = 0;; attempt++) {
    std::unique_lock<std::mutex> lock(lock_);
    ABI::Chunk chunk = TryGetChunkLocked(header);
    if (chunk.is_valid()) {
      if (attempt > 0)
        count_stall();
      return chunk;
    }
    const bool give_up = policy == BufferExhaustedPolicy::kDrop ||
                         (attempt > 0 && Clock::now() >= deadline);
    if (give_up) {
      stats_.chunks_unavailable++;
      if (policy != BufferExhaustedPolicy::kDrop) {
        stats_.stall_timeouts++;
        count_stall();
      }
    } else if (attempt == 0) {
      stats_.stalls++;
      stall_start = Clock::now();
      deadline = stall_start + options_.stall_timeout;
    }
    // Whatever is complete but not yet announced is what the service needs
    // to free chunks: deliver it now, unless the service has not started
    // on the previous batch yet. Then these chunks wait, and go in one batch
    // with those returned meanwhile once it has: a service slower than its
    // writers would otherwise get a batch (a task, a wake-up) per chunk as
    // soon as they stall, and grow slower still (docs/benchmarks.md,
    // "Ingest"). Giving up delivers them whatever the service is doing.
    const bool pending =
        !pending_.chunks_to_move.empty() || !pending_.chunks_to_patch.empty();
    const bool hold_back = pending && !give_up && LastBatchUnstartedLocked();
    if (hold_back)
      stats_.commits_held_back++;
    if (pending && !hold_back)
      MaybeCommitAndUnlock(&lock, /*force=*/true);
    else
      lock.unlock();
    if (give_up)
      return ABI::Chunk();
    if (attempt < 16) {
      std::this_thread::yield();
    } else {
      const uint32_t shift = std::min<uint32_t>(attempt - 16, 4);
      std::this_thread::sleep_for(std::chrono::microseconds(100u << shift));
    }
  }
}

void SharedMemoryArbiter::MovePatchesLocked(uint32_t target_buffer,
                                            uint16_t writer_id,
                                            PatchList* patches) {
  CommitData::ChunkToPatch* last = nullptr;
  while (!patches->empty() && patches->front().is_filled()) {
    const PendingPatch& p = patches->front();
    if (!last || last->chunk_id != p.chunk_id || last->writer_id != writer_id ||
        last->target_buffer != target_buffer) {
      auto& entries = pending_.chunks_to_patch;
      if (!entries.empty() && entries.back().writer_id == writer_id &&
          entries.back().chunk_id == p.chunk_id &&
          entries.back().target_buffer == target_buffer) {
        last = &entries.back();
      } else {
        entries.emplace_back();
        last = &entries.back();
        last->target_buffer = target_buffer;
        last->writer_id = writer_id;
        last->chunk_id = p.chunk_id;
      }
    }
    CommitData::Patch out;
    out.offset = p.offset;
    std::copy(p.data, p.data + 4, out.data.begin());
    last->patches.push_back(out);
    stats_.patches_sent++;
    patches->pop_front();
  }
  if (last) {
    // Slots of the same chunk still waiting: the service must keep holding
    // the chunk's last packet back.
    last->has_more_patches =
        !patches->empty() && patches->front().chunk_id == last->chunk_id;
  }
}

void SharedMemoryArbiter::ReturnCompletedChunk(ABI::Chunk chunk,
                                               uint32_t target_buffer,
                                               uint16_t writer_id,
                                               PatchList* patches) {
  std::unique_lock<std::mutex> lock(lock_);
  const uint32_t page = chunk.page_idx();
  const uint32_t index = chunk.chunk_idx();
  // Ours until released: the id it goes out with.
  const uint32_t chunk_id =
      chunk.header()->chunk_id.load(std::memory_order_relaxed);
  if (abi_.ReleaseChunkAsComplete(std::move(chunk))) {
    stats_.chunks_returned++;
    if (pending_.chunks_to_move.empty())
      first_queued_ = {true, page, index, writer_id, chunk_id};
    pending_.chunks_to_move.push_back({page, index, target_buffer});
  } else {
    stats_.release_failures++;  // The page word changed under us: a peer bug.
  }
  if (patches)
    MovePatchesLocked(target_buffer, writer_id, patches);
  MaybeCommitAndUnlock(&lock, /*force=*/false);
}

void SharedMemoryArbiter::SendPatches(uint32_t target_buffer,
                                      uint16_t writer_id, PatchList* patches) {
  std::unique_lock<std::mutex> lock(lock_);
  MovePatchesLocked(target_buffer, writer_id, patches);
  MaybeCommitAndUnlock(&lock, /*force=*/false);
}

void SharedMemoryArbiter::FlushPendingCommitData(uint64_t flush_request_id) {
  std::unique_lock<std::mutex> lock(lock_);
  MaybeCommitAndUnlock(&lock, /*force=*/true, flush_request_id);
}

void SharedMemoryArbiter::MaybeCommitAndUnlock(
    std::unique_lock<std::mutex>* lock, bool force, uint64_t flush_request_id) {
  if (force)
    CollectDropsLocked();
  const bool big_enough =
      pending_.chunks_to_move.size() >= options_.commit_batch_chunks;
  if (!(force || big_enough) || (pending_.empty() && flush_request_id == 0)) {
    lock->unlock();
    return;
  }
  // Big enough, but the service has not started on the previous batch yet:
  // it has work queued, and this batch grows until it does. At most one
  // batch waits while another is being handled, sized by the service's
  // pace: a service that falls behind gets fewer, larger batches (fewer
  // tasks and wake-ups per chunk) instead of more, smaller ones, and one
  // that keeps up finds the next batch queued when it finishes.
  if (!force && LastBatchUnstartedLocked()) {
    stats_.commits_held_back++;
    lock->unlock();
    return;
  }
  CommitData batch = std::move(pending_);
  pending_ = CommitData();
  if (!batch.chunks_to_move.empty())
    last_delivered_ = first_queued_;
  batch.flush_request_id = flush_request_id;
  stats_.commits++;
  // Hand over hand: whoever formed the earlier batch delivers it first.
  std::lock_guard<std::mutex> commit_guard(commit_mutex_);
  lock->unlock();
  sink_->OnCommit(std::move(batch));
}

bool SharedMemoryArbiter::LastBatchUnstartedLocked() const {
  const SentChunk& c = last_delivered_;
  if (!c.valid || abi_.GetChunkState(c.page, c.chunk) != ABI::kChunkComplete)
    return false;
  const ABI::ChunkHeaderValues h = abi_.PeekChunkHeader(c.page, c.chunk);
  return h.writer_id == c.writer_id && h.chunk_id == c.chunk_id;
}

}  // namespace zt
