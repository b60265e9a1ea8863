#include "zt/ext/tracing/core/commit_data_codec.h"

#include <algorithm>
#include <utility>

#include "zt/common/commit_data_request.pbzero.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {

using protos::pbzero::CommitDataRequest;
using protos::pbzero::CommitDataRequest_ChunksToMove_Decoder;
using protos::pbzero::CommitDataRequest_ChunkToPatch_Decoder;
using protos::pbzero::CommitDataRequest_ChunkToPatch_Patch_Decoder;
using protos::pbzero::CommitDataRequest_Decoder;

std::string SerializeCommitData(const CommitData& commit) {
  using ChunkToMove = CommitData::ChunkToMove;
  using ChunkToPatch = CommitData::ChunkToPatch;
  protozero::HeapBuffered<CommitDataRequest> msg;
  for (const ChunkToMove& c : commit.chunks_to_move) {
    auto* m = msg->add_chunks_to_move();
    m->set_page(c.page);
    m->set_chunk(c.chunk);
    m->set_target_buffer(c.target_buffer);
  }
  for (const ChunkToPatch& c : commit.chunks_to_patch) {
    auto* m = msg->add_chunks_to_patch();
    m->set_target_buffer(c.target_buffer);
    m->set_writer_id(c.writer_id);
    m->set_chunk_id(c.chunk_id);
    for (const CommitData::Patch& p : c.patches) {
      auto* pm = m->add_patches();
      pm->set_offset(p.offset);
      pm->set_data(p.data.data(), p.data.size());
    }
    if (c.has_more_patches)
      m->set_has_more_patches(true);
  }
  if (commit.flush_request_id)
    msg->set_flush_request_id(commit.flush_request_id);
  return msg.SerializeAsString();
}

bool ParseCommitData(const uint8_t* data, size_t size, CommitData* out) {
  *out = CommitData();
  CommitDataRequest_Decoder req(data, size);
  if (req.parse_error())
    return false;
  // Counted first (a scan of the field tags): one allocation per vector,
  // not a regrowth every few entries.
  size_t moves = 0, patched = 0;
  for (auto it = req.chunks_to_move(); it; ++it)
    moves++;
  for (auto it = req.chunks_to_patch(); it; ++it)
    patched++;
  out->chunks_to_move.reserve(moves);
  out->chunks_to_patch.reserve(patched);
  for (auto it = req.chunks_to_move(); it; ++it) {
    CommitDataRequest_ChunksToMove_Decoder m(*it);
    if (m.parse_error() || m.has_data())
      return false;
    out->chunks_to_move.push_back({m.page(), m.chunk(), m.target_buffer()});
  }
  for (auto it = req.chunks_to_patch(); it; ++it) {
    CommitDataRequest_ChunkToPatch_Decoder m(*it);
    if (m.parse_error() || m.writer_id() > 0xFFFF)
      return false;
    CommitData::ChunkToPatch c;
    c.target_buffer = m.target_buffer();
    c.writer_id = static_cast<uint16_t>(m.writer_id());
    c.chunk_id = m.chunk_id();
    c.has_more_patches = m.has_more_patches();
    for (auto pit = m.patches(); pit; ++pit) {
      CommitDataRequest_ChunkToPatch_Patch_Decoder p(*pit);
      if (p.parse_error() || p.data().size != 4)
        return false;
      CommitData::Patch patch;
      patch.offset = p.offset();
      std::copy(p.data().data, p.data().data + 4, patch.data.begin());
      c.patches.push_back(patch);
    }
    out->chunks_to_patch.push_back(std::move(c));
  }
  out->flush_request_id = req.flush_request_id();
  return true;
}

}  // namespace zt
