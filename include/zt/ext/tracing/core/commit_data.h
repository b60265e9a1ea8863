// CommitData: the content of a CommitDataRequest (protos/zt/common/
// commit_data_request.proto) as plain values. The producer-side arbiter
// builds these and, in process, the service takes them as they are; the
// wire codec is apart (commit_data_codec.h), for transports that send them
// as bytes.

#ifndef ZT_EXT_TRACING_CORE_COMMIT_DATA_H_
#define ZT_EXT_TRACING_CORE_COMMIT_DATA_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace zt {

struct CommitData {
  struct ChunkToMove {
    uint32_t page = 0;
    uint32_t chunk = 0;
    uint32_t target_buffer = 0;
    bool operator==(const ChunkToMove& o) const {
      return page == o.page && chunk == o.chunk &&
             target_buffer == o.target_buffer;
    }
  };
  struct Patch {
    uint32_t offset = 0;  // From the start of the chunk payload.
    std::array<uint8_t, 4> data{};
    bool operator==(const Patch& o) const {
      return offset == o.offset && data == o.data;
    }
  };
  struct ChunkToPatch {
    uint32_t target_buffer = 0;
    uint16_t writer_id = 0;
    uint32_t chunk_id = 0;
    std::vector<Patch> patches;
    bool has_more_patches = false;
    bool operator==(const ChunkToPatch& o) const {
      return target_buffer == o.target_buffer && writer_id == o.writer_id &&
             chunk_id == o.chunk_id && patches == o.patches &&
             has_more_patches == o.has_more_patches;
    }
  };

  // Packets one writer dropped (no free chunk, or given up by its caller)
  // since its last report: the service counts them in TraceStats whether
  // or not a later packet of the writer carries the loss mark (a writer
  // that drops and then writes nothing more leaves none). zerotrace only:
  // CommitDataRequest field 901, which upstream's services ignore.
  struct WriterDrops {
    uint32_t target_buffer = 0;
    uint16_t writer_id = 0;
    uint64_t packets = 0;
    bool operator==(const WriterDrops& o) const {
      return target_buffer == o.target_buffer && writer_id == o.writer_id &&
             packets == o.packets;
    }
  };

  std::vector<ChunkToMove> chunks_to_move;
  std::vector<ChunkToPatch> chunks_to_patch;
  uint64_t flush_request_id = 0;
  std::vector<WriterDrops> writer_drops;

  bool empty() const {
    return chunks_to_move.empty() && chunks_to_patch.empty() &&
           flush_request_id == 0 && writer_drops.empty();
  }
  bool operator==(const CommitData& o) const {
    return chunks_to_move == o.chunks_to_move &&
           chunks_to_patch == o.chunks_to_patch &&
           flush_request_id == o.flush_request_id && writer_drops == o.writer_drops;
  }
};

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_COMMIT_DATA_H_
