// The data path from producers into the session buffers: chunks moved out
// of a producer's SMB on commit, patches applied (per commit batch, so
// compiled for speed; tracing_service_scrape.cc has the cold side).

#include "src/tracing/service/tracing_service_impl.h"

#include <utility>

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
  // Before the flush's answer: a stop's stats then include them.
  for (const CommitData::WriterDrops& drops : data.writer_drops) {
    if (!producer->allowed_buffers.count(drops.target_buffer))
      continue;  // Not a buffer of this producer's sessions (any more).
    if (TraceBuffer* b = BufferById(drops.target_buffer))
      b->CountWriterPacketsDropped(drops.packets);
  }
  if (data.flush_request_id != 0)
    NotifyFlushComplete(producer_id, data.flush_request_id);
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
