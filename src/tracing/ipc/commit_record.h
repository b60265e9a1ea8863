// The commit queue's record format (docs/design/commit_queue.md): one
// CommitData in a fixed layout of 32-bit words in the machine's byte order
// (both ends share the machine), cheaper to write and to check than the
// protobuf a CommitData message carries (that codec was two thirds of the
// queue's user-space cost per batch). Both ends are zerotrace, but maybe of
// different versions: the layout has a version number, agreed at setup
// (ZtSetupCommitQueueRequest.record_version).
//
//   u32 chunks_to_move count   u32 chunks_to_patch count   u64 flush_request_id
//   per chunk to move:  u32 page, u32 chunk, u32 target_buffer
//   per chunk to patch: u32 target_buffer, u32 writer_id, u32 chunk_id,
//                       u32 patch count | (has_more_patches << 31),
//                       per patch: u32 offset, 4 bytes of data
//
// Thread-safety: stateless functions.

#ifndef ZT_SRC_TRACING_IPC_COMMIT_RECORD_H_
#define ZT_SRC_TRACING_IPC_COMMIT_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "zt/ext/tracing/core/commit_data.h"

namespace zt {

// The layout above. A service that does not know a producer's version
// refuses the queue, and the producer commits by messages.
constexpr uint32_t kCommitRecordVersion = 1;

// Replaces |out|'s contents with |data|'s record (its capacity is reused).
void EncodeCommitRecord(const CommitData& data, std::string* out);

// Decodes a whole record into |out| (its vectors' capacity reused). False if
// the bytes are not exactly one record: counts that overrun them, bytes
// left over, a writer id over 16 bits. |out| is unspecified then.
bool DecodeCommitRecord(const uint8_t* bytes, size_t size, CommitData* out);

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_COMMIT_RECORD_H_
