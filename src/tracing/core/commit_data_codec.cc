// The CommitDataRequest codec (commit_data_codec.h), written for the
// producer socket's hot path: a commit batch is encoded and decoded once per
// SMB flush, so both directions work on plain buffers with no per-field
// machinery.
//
// The encoder writes the bytes protozero's generic writer (HeapBuffered<
// CommitDataRequest>) wrote before it, to the byte: fields in number order,
// scalars always present, has_more_patches and flush_request_id only when
// set, and every nested message's length as a 4-byte redundant varint (the
// writer's reservation), bytes fields with minimal lengths.
// commit_data_codec_unittest.cc holds it to that with random values.

#include "zt/ext/tracing/core/commit_data_codec.h"

#include <algorithm>

#include "zt/base/logging.h"
#include "zt/protozero/field.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace {

using protozero::ConstBytes;
using protozero::Field;
using protozero::ProtoDecoder;
using protozero::proto_utils::kMessageLengthFieldSize;
using protozero::proto_utils::MakeTagLengthDelimited;
using protozero::proto_utils::MakeTagVarInt;
using protozero::proto_utils::WriteRedundantVarInt4;
using protozero::proto_utils::WriteVarInt;
using ChunkToMove = CommitData::ChunkToMove;
using ChunkToPatch = CommitData::ChunkToPatch;
using Patch = CommitData::Patch;

// Field ids of protos/zt/common/commit_data_request.proto. All below 16, so
// every tag is one byte.
enum RequestField : uint32_t {
  kChunksToMove = 1,
  kChunksToPatch = 2,
  kFlushRequestId = 3,
  kWriterDrops = 901,  // zerotrace only (CommitData::WriterDrops).
};
enum WriterDropsField : uint32_t { kDropsTargetBuffer = 1, kDropsWriterId = 2, kDropsPackets = 3 };
enum MoveField : uint32_t { kMovePage = 1, kMoveChunk = 2, kMoveTargetBuffer = 3, kMoveData = 4 };
enum PatchChunkField : uint32_t {
  kPatchTargetBuffer = 1,
  kPatchWriterId = 2,
  kPatchChunkId = 3,
  kPatches = 4,
  kHasMorePatches = 5,
};
enum PatchField : uint32_t { kPatchOffset = 1, kPatchData = 2 };

constexpr size_t kPatchDataSize = sizeof(Patch::data);
// A nested message's tag and its reserved 4-byte length.
constexpr size_t kNestedHeaderSize = 1 + kMessageLengthFieldSize;

// The encoder writes into a buffer sized for the worst case and fills each
// nested message's 4-byte length once its body is written: one pass, no
// sizing of every field first.
constexpr size_t kMaxVarIntFieldSize = 1 + 5;  // A tag and a 32-bit value.
constexpr size_t kMaxMoveSize = kNestedHeaderSize + 3 * kMaxVarIntFieldSize;
constexpr size_t kMaxPatchSize = kNestedHeaderSize + kMaxVarIntFieldSize + 2 + kPatchDataSize;
constexpr size_t kMaxChunkToPatchSize = kNestedHeaderSize + 3 * kMaxVarIntFieldSize + 2;
constexpr size_t kMaxFlushRequestIdSize = 1 + 10;
// A two-byte tag, the length, two 32-bit fields and a 64-bit one.
constexpr size_t kMaxWriterDropsSize = 2 + kMessageLengthFieldSize + 2 * kMaxVarIntFieldSize + 11;

size_t MaxEncodedSize(const CommitData& commit) {
  size_t size = commit.chunks_to_move.size() * kMaxMoveSize + kMaxFlushRequestIdSize +
                commit.writer_drops.size() * kMaxWriterDropsSize;
  for (const ChunkToPatch& c : commit.chunks_to_patch)
    size += kMaxChunkToPatchSize + c.patches.size() * kMaxPatchSize;
  return size;
}

uint8_t* WriteVarIntField(uint32_t id, uint64_t value, uint8_t* dst) {
  *dst++ = static_cast<uint8_t>(MakeTagVarInt(id));
  return WriteVarInt(value, dst);
}

// Starts nested message |id| at |*dst|: returns where its length goes (see
// EndNested) and moves |*dst| to its body.
uint8_t* BeginNested(uint32_t id, uint8_t** dst) {
  uint8_t* length = *dst + 1;
  **dst = static_cast<uint8_t>(MakeTagLengthDelimited(id));
  *dst = length + kMessageLengthFieldSize;
  return length;
}

// Ends the nested message whose length goes at |length|, its body ending
// at |end|: the 4-byte redundant varint protozero's writer reserves.
void EndNested(uint8_t* length, const uint8_t* end) {
  const size_t size = static_cast<size_t>(end - (length + kMessageLengthFieldSize));
  // HeapBuffered aborted on a nested message its 4-byte length cannot
  // describe; a commit that large (millions of patches) is a bug.
  ZT_CHECK(size <= protozero::proto_utils::kMaxMessageLength);
  WriteRedundantVarInt4(static_cast<uint32_t>(size), length);
}

// Requests are parsed twice over at most. First as every writer lays them
// out (the encoder above; upstream's protozero writes the same): fields in
// number order, each scalar once, repeated messages in a run. That reader
// needs no field table and no decoder object, and bytes in that layout mean
// to it what they mean to the generic one. Anything else, odd or malformed,
// goes to the generic reader, which decides.

// The entry of out->chunks_to_patch to fill next, |*used| of them filled,
// cleared: entries of a reused CommitData are reused, and their patch
// vectors keep their capacity.
ChunkToPatch* NextChunkToPatch(CommitData* out, size_t* used) {
  if (*used == out->chunks_to_patch.size())
    out->chunks_to_patch.emplace_back();
  ChunkToPatch* c = &out->chunks_to_patch[(*used)++];
  c->target_buffer = 0;
  c->writer_id = 0;
  c->chunk_id = 0;
  c->patches.clear();
  c->has_more_patches = false;
  return c;
}

// Reads the varint field tagged |tag| (one byte) at |*pos|, if it is there.
bool ReadVarIntField(uint32_t tag, const uint8_t** pos, const uint8_t* end, uint64_t* value) {
  const uint8_t* p = *pos;
  if (p == end || *p != tag)
    return false;
  if (end - p >= 2 && p[1] < 0x80) {  // Most values (ids, offsets) are one byte.
    *value = p[1];
    *pos = p + 2;
    return true;
  }
  const uint8_t* next = protozero::proto_utils::ParseVarInt(p + 1, end, value);
  if (next == p + 1)
    return false;  // Truncated, or longer than 10 bytes.
  *pos = next;
  return true;
}

// Reads the length-delimited field tagged |tag| at |*pos|, if it is there.
bool ReadBytesField(uint32_t tag, const uint8_t** pos, const uint8_t* end, ConstBytes* value) {
  uint64_t size;
  const uint8_t* p = *pos;
  if (!ReadVarIntField(tag, &p, end, &size) || size > static_cast<uint64_t>(end - p))
    return false;
  *value = ConstBytes{p, static_cast<size_t>(size)};
  *pos = p + size;
  return true;
}

bool ParseMoveInWriterLayout(ConstBytes bytes, ChunkToMove* out) {
  const uint8_t* p = bytes.data;
  const uint8_t* const end = p + bytes.size;
  uint64_t page, chunk, target_buffer;
  if (!ReadVarIntField(MakeTagVarInt(kMovePage), &p, end, &page) ||
      !ReadVarIntField(MakeTagVarInt(kMoveChunk), &p, end, &chunk) ||
      !ReadVarIntField(MakeTagVarInt(kMoveTargetBuffer), &p, end, &target_buffer) || p != end) {
    return false;
  }
  // Truncated to 32 bits, as Field::as_uint32() does.
  out->page = static_cast<uint32_t>(page);
  out->chunk = static_cast<uint32_t>(chunk);
  out->target_buffer = static_cast<uint32_t>(target_buffer);
  return true;
}

bool ParsePatchInWriterLayout(ConstBytes bytes, Patch* out) {
  const uint8_t* p = bytes.data;
  const uint8_t* const end = p + bytes.size;
  uint64_t offset;
  ConstBytes data;
  if (!ReadVarIntField(MakeTagVarInt(kPatchOffset), &p, end, &offset) ||
      !ReadBytesField(MakeTagLengthDelimited(kPatchData), &p, end, &data) || p != end ||
      data.size != kPatchDataSize) {
    return false;
  }
  out->offset = static_cast<uint32_t>(offset);
  std::copy(data.data, data.data + kPatchDataSize, out->data.begin());
  return true;
}

bool ParseChunkToPatchInWriterLayout(ConstBytes bytes, ChunkToPatch* out) {
  const uint8_t* p = bytes.data;
  const uint8_t* const end = p + bytes.size;
  uint64_t target_buffer, writer_id, chunk_id, has_more = 0;
  if (!ReadVarIntField(MakeTagVarInt(kPatchTargetBuffer), &p, end, &target_buffer) ||
      !ReadVarIntField(MakeTagVarInt(kPatchWriterId), &p, end, &writer_id) ||
      !ReadVarIntField(MakeTagVarInt(kPatchChunkId), &p, end, &chunk_id) ||
      static_cast<uint32_t>(writer_id) > 0xFFFF) {
    return false;
  }
  ConstBytes patch;
  while (ReadBytesField(MakeTagLengthDelimited(kPatches), &p, end, &patch)) {
    out->patches.emplace_back();
    if (!ParsePatchInWriterLayout(patch, &out->patches.back()))
      return false;
  }
  if (p != end && !ReadVarIntField(MakeTagVarInt(kHasMorePatches), &p, end, &has_more))
    return false;
  if (p != end)
    return false;
  out->target_buffer = static_cast<uint32_t>(target_buffer);
  out->writer_id = static_cast<uint16_t>(writer_id);
  out->chunk_id = static_cast<uint32_t>(chunk_id);
  out->has_more_patches = has_more != 0;
  return true;
}

bool ParseInWriterLayout(const uint8_t* p, const uint8_t* end, CommitData* out) {
  size_t patched = 0;
  ConstBytes entry;
  while (ReadBytesField(MakeTagLengthDelimited(kChunksToMove), &p, end, &entry)) {
    out->chunks_to_move.emplace_back();
    if (!ParseMoveInWriterLayout(entry, &out->chunks_to_move.back()))
      return false;
  }
  while (ReadBytesField(MakeTagLengthDelimited(kChunksToPatch), &p, end, &entry)) {
    if (!ParseChunkToPatchInWriterLayout(entry, NextChunkToPatch(out, &patched)))
      return false;
  }
  if (p != end && !ReadVarIntField(MakeTagVarInt(kFlushRequestId), &p, end, &out->flush_request_id))
    return false;
  out->chunks_to_patch.resize(patched);
  return p == end;
}

// The generic reader reads each field as protozero's generated decoders did
// (the last occurrence of a scalar wins; a scalar read from a length-
// delimited field, or bytes from a scalar one, is 0 or empty; ids the schema
// lacks are skipped), so exactly the same inputs are accepted.

bool ParseChunkToMove(ConstBytes bytes, ChunkToMove* out) {
  ProtoDecoder decoder(bytes);
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    switch (f.id()) {
      case kMovePage:
        out->page = f.as_uint32();
        break;
      case kMoveChunk:
        out->chunk = f.as_uint32();
        break;
      case kMoveTargetBuffer:
        out->target_buffer = f.as_uint32();
        break;
      case kMoveData:
        return false;  // Inline chunk data: not supported (see the header).
      default:
        break;
    }
  }
  return !decoder.parse_error();
}

bool ParsePatch(ConstBytes bytes, Patch* out) {
  ProtoDecoder decoder(bytes);
  uint32_t offset = 0;
  ConstBytes data;
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() == kPatchOffset)
      offset = f.as_uint32();
    else if (f.id() == kPatchData)
      data = f.as_bytes();
  }
  if (decoder.parse_error() || data.size != kPatchDataSize)
    return false;
  out->offset = offset;
  std::copy(data.data, data.data + kPatchDataSize, out->data.begin());
  return true;
}

bool ParseChunkToPatch(ConstBytes bytes, ChunkToPatch* out) {
  uint32_t writer_id = 0;
  ProtoDecoder decoder(bytes);
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    switch (f.id()) {
      case kPatchTargetBuffer:
        out->target_buffer = f.as_uint32();
        break;
      case kPatchWriterId:
        writer_id = f.as_uint32();  // Checked once the last one is known.
        break;
      case kPatchChunkId:
        out->chunk_id = f.as_uint32();
        break;
      case kPatches:
        out->patches.emplace_back();
        if (!ParsePatch(f.as_bytes(), &out->patches.back()))
          return false;
        break;
      case kHasMorePatches:
        out->has_more_patches = f.as_bool();
        break;
      default:
        break;
    }
  }
  if (decoder.parse_error() || writer_id > 0xFFFF)
    return false;
  out->writer_id = static_cast<uint16_t>(writer_id);
  return true;
}

bool ParseWriterDrops(ConstBytes bytes, CommitData::WriterDrops* out) {
  uint32_t writer_id = 0;
  ProtoDecoder decoder(bytes);
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() == kDropsTargetBuffer)
      out->target_buffer = f.as_uint32();
    else if (f.id() == kDropsWriterId)
      writer_id = f.as_uint32();
    else if (f.id() == kDropsPackets)
      out->packets = f.as_uint64();
  }
  if (decoder.parse_error() || writer_id > 0xFFFF)
    return false;
  out->writer_id = static_cast<uint16_t>(writer_id);
  return true;
}

bool ParseGeneric(const uint8_t* data, size_t size, CommitData* out) {
  size_t patched = 0;
  ProtoDecoder req(data, size);
  for (Field f = req.ReadField(); f.valid(); f = req.ReadField()) {
    switch (f.id()) {
      case kChunksToMove:
        out->chunks_to_move.emplace_back();
        if (!ParseChunkToMove(f.as_bytes(), &out->chunks_to_move.back()))
          return false;
        break;
      case kChunksToPatch:
        if (!ParseChunkToPatch(f.as_bytes(), NextChunkToPatch(out, &patched)))
          return false;
        break;
      case kFlushRequestId:
        out->flush_request_id = f.as_uint64();
        break;
      case kWriterDrops:
        out->writer_drops.emplace_back();
        if (!ParseWriterDrops(f.as_bytes(), &out->writer_drops.back()))
          return false;
        break;
      default:
        break;  // A newer producer's field: skipped.
    }
  }
  out->chunks_to_patch.resize(patched);
  return !req.parse_error();
}

}  // namespace

void SerializeCommitData(const CommitData& commit, std::string* out) {
  const size_t max_size = MaxEncodedSize(commit);
  out->resize(max_size);  // Within the capacity of a reused string: no allocation.
  uint8_t* const begin = reinterpret_cast<uint8_t*>(&(*out)[0]);
  uint8_t* p = begin;
  for (const ChunkToMove& c : commit.chunks_to_move) {
    uint8_t* length = BeginNested(kChunksToMove, &p);
    p = WriteVarIntField(kMovePage, c.page, p);
    p = WriteVarIntField(kMoveChunk, c.chunk, p);
    p = WriteVarIntField(kMoveTargetBuffer, c.target_buffer, p);
    EndNested(length, p);
  }
  for (const ChunkToPatch& c : commit.chunks_to_patch) {
    uint8_t* length = BeginNested(kChunksToPatch, &p);
    p = WriteVarIntField(kPatchTargetBuffer, c.target_buffer, p);
    p = WriteVarIntField(kPatchWriterId, c.writer_id, p);
    p = WriteVarIntField(kPatchChunkId, c.chunk_id, p);
    for (const Patch& patch : c.patches) {
      uint8_t* patch_length = BeginNested(kPatches, &p);
      p = WriteVarIntField(kPatchOffset, patch.offset, p);
      *p++ = static_cast<uint8_t>(MakeTagLengthDelimited(kPatchData));
      *p++ = kPatchDataSize;  // A one-byte varint.
      p = std::copy(patch.data.begin(), patch.data.end(), p);
      EndNested(patch_length, p);
    }
    if (c.has_more_patches)
      p = WriteVarIntField(kHasMorePatches, 1, p);
    EndNested(length, p);
  }
  if (commit.flush_request_id)
    p = WriteVarIntField(kFlushRequestId, commit.flush_request_id, p);
  // After the fields above: the fast reader stops at it and hands the
  // request to the generic one.
  for (const CommitData::WriterDrops& d : commit.writer_drops) {
    p = WriteVarInt(MakeTagLengthDelimited(kWriterDrops), p);
    uint8_t* length = p;
    p += kMessageLengthFieldSize;
    p = WriteVarIntField(kDropsTargetBuffer, d.target_buffer, p);
    p = WriteVarIntField(kDropsWriterId, d.writer_id, p);
    p = WriteVarIntField(kDropsPackets, d.packets, p);
    EndNested(length, p);
  }
  const size_t size = static_cast<size_t>(p - begin);
  ZT_CHECK(size <= max_size);
  out->resize(size);
}

std::string SerializeCommitData(const CommitData& commit) {
  std::string bytes;
  SerializeCommitData(commit, &bytes);
  return bytes;
}

bool ParseCommitData(const uint8_t* data, size_t size, CommitData* out) {
  // Cleared, not reassigned: a CommitData parsed into again and again (the
  // port keeps one per producer) allocates nothing once its vectors, and
  // those of its patched chunks, are big enough.
  out->chunks_to_move.clear();
  out->flush_request_id = 0;
  out->writer_drops.clear();
  if (ParseInWriterLayout(data, data + size, out))
    return true;
  out->chunks_to_move.clear();
  out->flush_request_id = 0;
  return ParseGeneric(data, size, out);
}

}  // namespace zt
