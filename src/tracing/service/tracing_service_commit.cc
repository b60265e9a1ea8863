// The data path from producers into the session buffers: chunks moved out
// of a producer's SMB on commit (and scraped while still being written, at
// flush and stop), patches applied, writers mapped to their buffers.

#include "src/tracing/service/tracing_service_impl.h"

#include <set>
#include <utility>

namespace zt {

using ABI = SharedMemoryABI;

void TracingServiceImpl::CommitData(uint32_t producer_id,
                                    const zt::CommitData& data) {
  auto it = producers_.find(producer_id);
  if (it == producers_.end())
    return;
  ProducerState* producer = it->second.get();
  for (const CommitData::ChunkToMove& move : data.chunks_to_move) {
    ABI::Chunk chunk = producer->abi.TryAcquireChunkForReading(move.page, move.chunk);
    if (!chunk.is_valid()) {
      chunks_discarded_++;
      continue;
    }
    TraceBuffer* buffer = nullptr;
    if (producer->allowed_buffers.count(move.target_buffer))
      buffer = BufferById(move.target_buffer);
    if (buffer) {
      const ABI::ChunkHeaderValues header = chunk.ReadHeader();
      buffer->CopyChunkUntrusted(producer_id, producer->options.uid,
                                 producer->options.pid, header.writer_id,
                                 header.chunk_id, header.packet_count,
                                 header.flags, /*complete=*/true,
                                 chunk.payload_begin(), chunk.payload_size());
    } else {
      chunks_discarded_++;
    }
    producer->abi.ReleaseChunkAsFree(std::move(chunk));
  }
  for (const CommitData::ChunkToPatch& patch : data.chunks_to_patch) {
    TraceBuffer* buffer = nullptr;
    if (producer->allowed_buffers.count(patch.target_buffer))
      buffer = BufferById(patch.target_buffer);
    if (!buffer) {
      patches_discarded_++;
      continue;
    }
    buffer->TryPatchChunkContents(producer_id, patch.writer_id, patch.chunk_id,
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
  SharedMemoryABI::ChunkCopy copy;
  for (uint32_t producer_id : producer_ids) {
    auto it = producers_.find(producer_id);
    if (it == producers_.end())
      continue;
    ProducerState* producer = it->second.get();
    for (size_t page = 0; page < producer->abi.num_pages(); page++) {
      const uint32_t layout = producer->abi.GetPageLayout(page);
      const uint32_t chunks = ABI::NumChunksForLayout(layout);
      for (uint32_t c = 0; c < chunks; c++) {
        if (producer->abi.GetChunkState(page, c) != ABI::kChunkBeingWritten ||
            !producer->abi.ScrapeChunk(page, c, &copy)) {
          continue;
        }
        auto w = producer->writer_buffers.find(copy.header.writer_id);
        if (w == producer->writer_buffers.end() || !buffers.count(w->second) ||
            !producer->allowed_buffers.count(w->second)) {
          continue;
        }
        // The last packet counted is still being written: not readable.
        if (copy.header.packet_count < 2)
          continue;
        // Stored at the chunk's full size, so that the complete chunk, when
        // it is committed, replaces this copy.
        copy.payload.resize(producer->abi.chunk_size(layout) -
                            ABI::kChunkHeaderSize, 0);
        BufferById(w->second)->CopyChunkUntrusted(
            producer_id, producer->options.uid, producer->options.pid,
            copy.header.writer_id, copy.header.chunk_id,
            static_cast<uint16_t>(copy.header.packet_count - 1),
            // Only the first packet's flag holds for the prefix taken: the
            // writer may already have set the others for its last packet.
            copy.header.flags & ABI::kFirstPacketContinuesFromPrevChunk,
            /*complete=*/false, copy.payload.data(), copy.payload.size());
      }
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
