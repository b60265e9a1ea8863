// The cold side of the data path (tracing_service_commit.cc is the hot
// one): writers mapped to their target buffers, and at flush and stop the
// chunks producers have not committed yet (still being written, or complete
// but held in a batch) copied out of their SMBs. Runs a few times per
// session, so it is compiled for size with the control plane.

#include "src/tracing/service/tracing_service_impl.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace zt {

using ABI = SharedMemoryABI;

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

}  // namespace zt
