#include "src/tracing/ipc/commit_record.h"

#include <cstring>

namespace zt {
namespace {

constexpr size_t kHeaderBytes = 16;  // Two counts and the flush id.
constexpr size_t kMoveBytes = 12;
constexpr size_t kPatchedChunkBytes = 16;
constexpr size_t kPatchBytes = 8;
constexpr uint32_t kHasMorePatches = 1u << 31;

// The machine's byte order: both ends are on it.
inline uint8_t* Put32(uint8_t* p, uint32_t v) {
  memcpy(p, &v, sizeof(v));
  return p + sizeof(v);
}
inline uint32_t Get32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace

void EncodeCommitRecord(const CommitData& data, std::string* out) {
  size_t size = kHeaderBytes + data.chunks_to_move.size() * kMoveBytes;
  for (const CommitData::ChunkToPatch& chunk : data.chunks_to_patch)
    size += kPatchedChunkBytes + chunk.patches.size() * kPatchBytes;
  out->resize(size);
  uint8_t* p = reinterpret_cast<uint8_t*>(&(*out)[0]);
  p = Put32(p, static_cast<uint32_t>(data.chunks_to_move.size()));
  p = Put32(p, static_cast<uint32_t>(data.chunks_to_patch.size()));
  memcpy(p, &data.flush_request_id, sizeof(uint64_t));
  p += sizeof(uint64_t);
  for (const CommitData::ChunkToMove& move : data.chunks_to_move) {
    p = Put32(p, move.page);
    p = Put32(p, move.chunk);
    p = Put32(p, move.target_buffer);
  }
  for (const CommitData::ChunkToPatch& chunk : data.chunks_to_patch) {
    p = Put32(p, chunk.target_buffer);
    p = Put32(p, chunk.writer_id);
    p = Put32(p, chunk.chunk_id);
    p = Put32(p, static_cast<uint32_t>(chunk.patches.size()) |
                     (chunk.has_more_patches ? kHasMorePatches : 0));
    for (const CommitData::Patch& patch : chunk.patches) {
      p = Put32(p, patch.offset);
      memcpy(p, patch.data.data(), patch.data.size());
      p += patch.data.size();
    }
  }
}

bool DecodeCommitRecord(const uint8_t* bytes, size_t size, CommitData* out) {
  if (size < kHeaderBytes)
    return false;
  const uint8_t* p = bytes;
  const uint8_t* const end = bytes + size;
  const uint32_t moves = Get32(p);
  const uint32_t patched_chunks = Get32(p + 4);
  memcpy(&out->flush_request_id, p + 8, sizeof(uint64_t));
  p += kHeaderBytes;
  // Counts are checked against the bytes before anything is sized by them.
  if (moves > static_cast<size_t>(end - p) / kMoveBytes)
    return false;
  out->chunks_to_move.resize(moves);
  for (CommitData::ChunkToMove& move : out->chunks_to_move) {
    move.page = Get32(p);
    move.chunk = Get32(p + 4);
    move.target_buffer = Get32(p + 8);
    p += kMoveBytes;
  }
  if (patched_chunks > static_cast<size_t>(end - p) / kPatchedChunkBytes)
    return false;
  out->chunks_to_patch.resize(patched_chunks);
  for (CommitData::ChunkToPatch& chunk : out->chunks_to_patch) {
    if (static_cast<size_t>(end - p) < kPatchedChunkBytes)
      return false;
    const uint32_t writer_id = Get32(p + 4);
    if (writer_id > 0xFFFF)
      return false;
    chunk.target_buffer = Get32(p);
    chunk.writer_id = static_cast<uint16_t>(writer_id);
    chunk.chunk_id = Get32(p + 8);
    const uint32_t count_and_flag = Get32(p + 12);
    const uint32_t patches = count_and_flag & ~kHasMorePatches;
    chunk.has_more_patches = (count_and_flag & kHasMorePatches) != 0;
    p += kPatchedChunkBytes;
    if (patches > static_cast<size_t>(end - p) / kPatchBytes)
      return false;
    chunk.patches.resize(patches);
    for (CommitData::Patch& patch : chunk.patches) {
      patch.offset = Get32(p);
      memcpy(patch.data.data(), p + 4, patch.data.size());
      p += kPatchBytes;
    }
  }
  return p == end;
}

}  // namespace zt
