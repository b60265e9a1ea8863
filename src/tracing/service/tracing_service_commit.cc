// The data path from producers into the session buffers: chunks moved out
// of a producer's SMB on commit (and, at flush and stop, copied while still
// being written or complete but not yet committed), patches applied,
// writers mapped to their buffers.

#include "src/tracing/service/tracing_service_impl.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace zt {

using ABI = SharedMemoryABI;

void TracingServiceImpl::CommitData(uint32_t producer_id,
                                    const zt::CommitData& data) {
  auto it = producers_.find(producer_id);
  if (it == producers_.end())
    return;
  ProducerState* producer = it->second.get();
  // A batch's chunks mostly go to one buffer: look it up once per run of
  // equal targets (nothing here changes the producer's buffers).
  bool target_known = false;
  uint32_t target = 0;
  TraceBuffer* buffer = nullptr;
  for (const CommitData::ChunkToMove& move : data.chunks_to_move) {
    ABI::Chunk chunk =
        producer->abi.TryAcquireChunkForReading(move.page, move.chunk);
    if (!chunk.is_valid()) {
      chunks_discarded_++;
      continue;
    }
    if (!target_known || move.target_buffer != target) {
      target_known = true;
      target = move.target_buffer;
      buffer = producer->allowed_buffers.count(target) ? BufferById(target)
                                                       : nullptr;
    }
    if (buffer) {
      const ABI::ChunkHeaderValues header = chunk.ReadHeader();
      TraceBufferChunk copy;
      copy.producer_id = producer_id;
      copy.writer_id = header.writer_id;
      copy.chunk_id = header.chunk_id;
      copy.packet_count = header.packet_count;
      copy.flags = header.flags;
      copy.payload = chunk.payload_begin();
      copy.size = chunk.payload_size();
      buffer->CopyChunkUntrusted(copy);
    } else {
      chunks_discarded_++;
    }
    producer->abi.ReleaseChunkAsFree(std::move(chunk));
  }
  for (const CommitData::ChunkToPatch& patch : data.chunks_to_patch) {
    TraceBuffer* patched = nullptr;
    if (producer->allowed_buffers.count(patch.target_buffer))
      patched = BufferById(patch.target_buffer);
    if (!patched) {
      patches_discarded_++;
      continue;
    }
    patched->TryPatchChunkContents(producer_id, patch.writer_id, patch.chunk_id,
                                   patch.patches, patch.has_more_patches);
  }
  if (data.flush_request_id != 0)
    NotifyFlushComplete(producer_id, data.flush_request_id);
}

void TracingServiceImpl::RegisterTraceWriter(uint32_t producer_id,
                                             uint32_t writer_id,
                                             uint32_t target_buffer) {
  auto it = producers_.find(producer_id);
  if (it == producers_.end() || writer_id == 0 || writer_id > ABI::kMaxWriterId)
    return;
  it->second->writer_buffers[static_cast<uint16_t>(writer_id)] = target_buffer;
}

void TracingServiceImpl::UnregisterTraceWriter(uint32_t producer_id,
                                               uint32_t writer_id) {
  auto it = producers_.find(producer_id);
  if (it != producers_.end() && writer_id <= ABI::kMaxWriterId)
    it->second->writer_buffers.erase(static_cast<uint16_t>(writer_id));
}

void TracingServiceImpl::ScrapeSharedMemoryBuffers(Session* session) {
  std::set<uint32_t> producer_ids;
  for (const DataSourceInstance& inst : session->instances)
    producer_ids.insert(inst.producer_id);
  const std::set<uint32_t> buffers(session->buffer_ids.begin(),
                                   session->buffer_ids.end());
  // What the producer has not handed over yet: the chunks its writers are
  // writing, and the complete ones whose commit has not come (its arbiter
  // still holds them in a batch, or the commit is queued behind this task).
  // Both are copied, in chunk-id order per writer: a buffer reads a
  // sequence in that order and would otherwise take a chunk not yet copied
  // for lost. A complete chunk copied here is copied again by its commit;
  // the buffer takes the two as one.
  struct Uncommitted {
    uint16_t writer_id;
    uint32_t order;  // Chunk id relative to the writer's oldest here.
    uint32_t page;
    uint32_t chunk;
  };
  std::vector<Uncommitted> found;
  SharedMemoryABI::ChunkCopy copy;
  for (uint32_t producer_id : producer_ids) {
    auto it = producers_.find(producer_id);
    if (it == producers_.end())
      continue;
    ProducerState* producer = it->second.get();
    found.clear();
    std::map<uint16_t, uint32_t> oldest;  // Writer -> its oldest chunk id.
    for (size_t page = 0; page < producer->abi.num_pages(); page++) {
      const uint32_t word = producer->abi.GetPageHeaderWord(page);
      const uint32_t chunks = ABI::NumChunksForLayout(ABI::LayoutOf(word));
      for (uint32_t c = 0; c < chunks; c++) {
        const ABI::ChunkState state = ABI::StateOf(word, c);
        if (state != ABI::kChunkBeingWritten && state != ABI::kChunkComplete)
          continue;
        const ABI::ChunkHeaderValues h = producer->abi.PeekChunkHeader(page, c);
        auto w = producer->writer_buffers.find(h.writer_id);
        if (h.writer_id == 0 || w == producer->writer_buffers.end() ||
            !buffers.count(w->second) ||
            !producer->allowed_buffers.count(w->second)) {
          continue;
        }
        found.push_back(
            {h.writer_id, h.chunk_id, static_cast<uint32_t>(page), c});
        auto o = oldest.emplace(h.writer_id, h.chunk_id).first;
        if (static_cast<int32_t>(o->second - h.chunk_id) > 0)
          o->second = h.chunk_id;
      }
    }
    for (Uncommitted& u : found)
      u.order -= oldest[u.writer_id];
    std::sort(found.begin(), found.end(),
              [](const Uncommitted& a, const Uncommitted& b) {
                return a.writer_id != b.writer_id ? a.writer_id < b.writer_id
                                                  : a.order < b.order;
              });
    for (const Uncommitted& u : found) {
      TraceBufferChunk scraped;
      scraped.producer_id = producer_id;
      if (producer->abi.PeekCompleteChunk(u.page, u.chunk, &copy)) {
        scraped.packet_count = copy.header.packet_count;
        scraped.flags = copy.header.flags;
        scraped.complete = true;
      } else if (producer->abi.ScrapeChunk(u.page, u.chunk, &copy)) {
        // The last packet counted is still being written: not readable.
        if (copy.header.packet_count < 2)
          continue;
        // Stored at the chunk's full size, so that the complete chunk, when
        // it is committed, replaces this copy.
        copy.payload.resize(
            producer->abi.chunk_size(producer->abi.GetPageLayout(u.page)) -
                ABI::kChunkHeaderSize,
            0);
        scraped.packet_count =
            static_cast<uint16_t>(copy.header.packet_count - 1);
        // Only the first packet's flag holds for the prefix taken: the
        // writer may already have set the others for its last packet.
        scraped.flags =
            copy.header.flags & ABI::kFirstPacketContinuesFromPrevChunk;
        scraped.complete = false;
      } else {
        continue;  // Committed, freed or changed since it was listed.
      }
      // Its writer's buffer, as now written in the chunk (it may have been
      // reused by another writer since it was listed).
      auto w = producer->writer_buffers.find(copy.header.writer_id);
      if (w == producer->writer_buffers.end() || !buffers.count(w->second) ||
          !producer->allowed_buffers.count(w->second)) {
        continue;
      }
      scraped.writer_id = copy.header.writer_id;
      scraped.chunk_id = copy.header.chunk_id;
      scraped.payload = copy.payload.data();
      scraped.size = copy.payload.size();
      BufferById(w->second)->CopyChunkUntrusted(scraped);
    }
  }
}

TraceBuffer* TracingServiceImpl::BufferById(uint32_t buffer_id) {
  auto it = buffers_.find(buffer_id);
  return it == buffers_.end() ? nullptr : it->second.get();
}

uint32_t TracingServiceImpl::SequenceIdFor(uint32_t producer_id,
                                           uint16_t writer_id) {
  auto key = std::make_pair(producer_id, writer_id);
  auto it = sequence_ids_.find(key);
  if (it != sequence_ids_.end())
    return it->second;
  const uint32_t id = next_sequence_id_++;
  sequence_ids_[key] = id;
  return id;
}

}  // namespace zt
