#include "zt/ext/tracing/core/shared_memory_abi.h"

#include <cstring>
#include <thread>

namespace zt {

static_assert(sizeof(SharedMemoryABI::PageHeader) == 8, "page header is 8 B");
static_assert(sizeof(SharedMemoryABI::ChunkHeader) == 8, "chunk header is 8 B");
static_assert(sizeof(std::atomic<uint32_t>) == 4 &&
                  sizeof(std::atomic<uint16_t>) == 2,
              "atomics must overlay plain integers");
static_assert(std::atomic<uint32_t>::is_always_lock_free &&
                  std::atomic<uint16_t>::is_always_lock_free,
              "SMB atomics must be lock-free (they are shared across processes)");
static_assert(SharedMemoryABI::kChunkFree == 0,
              "zeroed memory must read as free chunks");

namespace {

constexpr int kMaxCasAttempts = 64;

uint32_t StateBitsMask(size_t chunk_idx) {
  return SharedMemoryABI::kStateMask
         << (chunk_idx * SharedMemoryABI::kStateBits);
}

uint32_t StateBits(SharedMemoryABI::ChunkState state, size_t chunk_idx) {
  return static_cast<uint32_t>(state) << (chunk_idx * SharedMemoryABI::kStateBits);
}

}  // namespace

SharedMemoryABI::ChunkHeaderValues SharedMemoryABI::Chunk::ReadHeader() const {
  // chunk_id is stored last (release) by the acquiring producer: loading it
  // first with acquire makes the other two fields at least as new.
  const uint32_t id = header()->chunk_id.load(std::memory_order_acquire);
  const uint16_t writer = header()->writer_id.load(std::memory_order_relaxed);
  const uint16_t packets = header()->packets.load(std::memory_order_acquire);
  return ChunkHeaderValues::Unpack(id, writer, packets);
}

SharedMemoryABI::SharedMemoryABI(uint8_t* start, size_t size,
                                 size_t page_size) {
  Initialize(start, size, page_size);
}

bool SharedMemoryABI::IsValidGeometry(const void* start, size_t size,
                                      size_t page_size) {
  return start != nullptr && reinterpret_cast<uintptr_t>(start) % 8 == 0 &&
         page_size >= kMinPageSize && page_size <= kMaxPageSize &&
         page_size % kMinPageSize == 0 && size != 0 && size % page_size == 0;
}

void SharedMemoryABI::Initialize(uint8_t* start, size_t size,
                                 size_t page_size) {
  start_ = nullptr;
  size_ = page_size_ = num_pages_ = 0;
  chunk_sizes_.fill(0);
  if (!IsValidGeometry(start, size, page_size))
    return;
  start_ = start;
  size_ = size;
  page_size_ = page_size;
  num_pages_ = size / page_size;
  for (uint32_t layout = 0; layout < kNumPageLayouts; layout++)
    chunk_sizes_[layout] = ChunkSizeFor(page_size, layout);
}

SharedMemoryABI::PageLayout SharedMemoryABI::GetPageLayout(
    size_t page_idx) const {
  const uint32_t layout = LayoutOf(GetPageHeaderWord(page_idx));
  return NumChunksForLayout(layout) ? static_cast<PageLayout>(layout)
                                    : kPageNotPartitioned;
}

SharedMemoryABI::ChunkState SharedMemoryABI::GetChunkState(
    size_t page_idx, size_t chunk_idx) const {
  const uint32_t word = GetPageHeaderWord(page_idx);
  if (chunk_idx >= NumChunksForLayout(LayoutOf(word)))
    return kChunkFree;
  return StateOf(word, chunk_idx);
}

bool SharedMemoryABI::IsPageComplete(size_t page_idx) const {
  const uint32_t word = GetPageHeaderWord(page_idx);
  const uint32_t n = NumChunksForLayout(LayoutOf(word));
  if (n == 0)
    return false;
  for (uint32_t i = 0; i < n; i++) {
    if (StateOf(word, i) != kChunkComplete)
      return false;
  }
  return true;
}

uint32_t SharedMemoryABI::GetFreeChunks(size_t page_idx) const {
  const uint32_t word = GetPageHeaderWord(page_idx);
  const uint32_t n = NumChunksForLayout(LayoutOf(word));
  uint32_t bits = 0;
  for (uint32_t i = 0; i < n; i++)
    bits |= (StateOf(word, i) == kChunkFree ? 1u : 0u) << i;
  return bits;
}

uint32_t SharedMemoryABI::GetUsedChunks(size_t page_idx) const {
  const uint32_t word = GetPageHeaderWord(page_idx);
  const uint32_t n = NumChunksForLayout(LayoutOf(word));
  uint32_t bits = 0;
  for (uint32_t i = 0; i < n; i++)
    bits |= (StateOf(word, i) != kChunkFree ? 1u : 0u) << i;
  return bits;
}

SharedMemoryABI::ChunkHeaderValues SharedMemoryABI::PeekChunkHeader(
    size_t page_idx, size_t chunk_idx) const {
  const uint32_t layout = LayoutOf(GetPageHeaderWord(page_idx));
  if (page_idx >= num_pages_ || chunk_idx >= NumChunksForLayout(layout))
    return ChunkHeaderValues();
  const auto* hdr = reinterpret_cast<const ChunkHeader*>(
      chunk_begin(page_idx, layout, chunk_idx));
  const uint32_t id = hdr->chunk_id.load(std::memory_order_acquire);
  const uint16_t writer = hdr->writer_id.load(std::memory_order_relaxed);
  const uint16_t packets = hdr->packets.load(std::memory_order_relaxed);
  return ChunkHeaderValues::Unpack(id, writer, packets);
}

bool SharedMemoryABI::TryPartitionPage(size_t page_idx, PageLayout layout) {
  if (page_idx >= num_pages_ || layout < kPageDiv1 || layout > kPageDiv14)
    return false;
  uint32_t expected = 0;
  const uint32_t desired = static_cast<uint32_t>(layout) << kLayoutShift;
  return page_header(page_idx)->header_word.compare_exchange_strong(
      expected, desired, std::memory_order_acq_rel, std::memory_order_acquire);
}

bool SharedMemoryABI::TransitionChunk(size_t page_idx, uint32_t layout,
                                      size_t chunk_idx, ChunkState from,
                                      ChunkState to, bool free_page_if_empty,
                                      uint32_t* old_word) {
  std::atomic<uint32_t>& word_ref = page_header(page_idx)->header_word;
  uint32_t word = word_ref.load(std::memory_order_acquire);
  for (int attempt = 0; attempt < kMaxCasAttempts; attempt++) {
    // The page must still carry the layout the chunk was derived from, and
    // the chunk must be in |from|: otherwise this is not a race with another
    // chunk of the page but a real mismatch, and we fail.
    if (LayoutOf(word) != layout || StateOf(word, chunk_idx) != from)
      return false;
    uint32_t next = (word & ~StateBitsMask(chunk_idx)) | StateBits(to, chunk_idx);
    if (free_page_if_empty && (next & LayoutStatesMask(layout)) == 0)
      next = 0;  // Last chunk in use gone: the page can be re-partitioned.
    if (word_ref.compare_exchange_strong(word, next, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
      if (old_word)
        *old_word = word;
      return true;
    }
    if (attempt > 8)
      std::this_thread::yield();
  }
  return false;  // Pathological contention (or a peer flipping bits).
}

SharedMemoryABI::Chunk SharedMemoryABI::TryAcquireChunkForWriting(
    size_t page_idx, size_t chunk_idx, const ChunkHeaderValues& header) {
  if (page_idx >= num_pages_)
    return Chunk();
  const uint32_t layout = LayoutOf(GetPageHeaderWord(page_idx));
  if (chunk_idx >= NumChunksForLayout(layout))
    return Chunk();
  if (!TransitionChunk(page_idx, layout, chunk_idx, kChunkFree,
                       kChunkBeingWritten, false, nullptr)) {
    return Chunk();
  }
  return StartChunk(page_idx, layout, chunk_idx, header);
}

SharedMemoryABI::Chunk SharedMemoryABI::TryPartitionPageAndAcquireFirstChunk(
    size_t page_idx, PageLayout layout, const ChunkHeaderValues& header) {
  if (page_idx >= num_pages_ || layout < kPageDiv1 || layout > kPageDiv14)
    return Chunk();
  uint32_t expected = 0;
  const uint32_t desired = (static_cast<uint32_t>(layout) << kLayoutShift) |
                           StateBits(kChunkBeingWritten, 0);
  if (!page_header(page_idx)->header_word.compare_exchange_strong(
          expected, desired, std::memory_order_acq_rel,
          std::memory_order_acquire)) {
    return Chunk();
  }
  return StartChunk(page_idx, layout, 0, header);
}

SharedMemoryABI::Chunk SharedMemoryABI::StartChunk(
    size_t page_idx, uint32_t layout, size_t chunk_idx,
    const ChunkHeaderValues& header) {
  Chunk chunk(chunk_begin(page_idx, layout, chunk_idx), chunk_sizes_[layout],
              static_cast<uint32_t>(page_idx), static_cast<uint8_t>(chunk_idx));
  ChunkHeader* hdr = chunk.header();
  hdr->packets.store(header.packed_packets(), std::memory_order_relaxed);
  hdr->writer_id.store(header.writer_id, std::memory_order_relaxed);
  hdr->chunk_id.store(header.chunk_id, std::memory_order_release);
  return chunk;
}

bool SharedMemoryABI::ReleaseChunkAsComplete(Chunk chunk) {
  if (!chunk.is_valid() || chunk.page_idx() >= num_pages_)
    return false;
  const uint32_t layout = LayoutOf(GetPageHeaderWord(chunk.page_idx()));
  if (chunk_sizes_[layout & 7] != chunk.size() ||
      chunk.chunk_idx() >= NumChunksForLayout(layout)) {
    return false;
  }
  return TransitionChunk(chunk.page_idx(), layout, chunk.chunk_idx(),
                         kChunkBeingWritten, kChunkComplete, false, nullptr);
}

SharedMemoryABI::Chunk SharedMemoryABI::TryAcquireChunkForReadingSlow(
    size_t page_idx, size_t chunk_idx) {
  if (page_idx >= num_pages_)
    return Chunk();
  const uint32_t layout = LayoutOf(GetPageHeaderWord(page_idx));
  if (chunk_idx >= NumChunksForLayout(layout))
    return Chunk();
  if (!TransitionChunk(page_idx, layout, chunk_idx, kChunkComplete,
                       kChunkBeingRead, false, nullptr)) {
    return Chunk();
  }
  return Chunk(chunk_begin(page_idx, layout, chunk_idx), chunk_sizes_[layout],
               static_cast<uint32_t>(page_idx),
               static_cast<uint8_t>(chunk_idx));
}

bool SharedMemoryABI::ReleaseChunkAsFreeSlow(Chunk chunk) {
  if (!chunk.is_valid() || chunk.page_idx() >= num_pages_)
    return false;
  const uint32_t layout = LayoutOf(GetPageHeaderWord(chunk.page_idx()));
  if (chunk_sizes_[layout & 7] != chunk.size() ||
      chunk.chunk_idx() >= NumChunksForLayout(layout)) {
    return false;
  }
  ClearHeader(chunk);
  return TransitionChunk(chunk.page_idx(), layout, chunk.chunk_idx(),
                         kChunkBeingRead, kChunkFree, true, nullptr);
}

void SharedMemoryABI::CopyChunk(const Chunk& chunk, ChunkCopy* out) {
  out->header = chunk.ReadHeader();
  out->payload.assign(chunk.payload_begin(), chunk.end());
  out->complete = true;
}

const uint8_t* SharedMemoryABI::ChunkInState(size_t page_idx,
                                             size_t chunk_idx,
                                             ChunkState state,
                                             uint32_t* layout) const {
  if (page_idx >= num_pages_)
    return nullptr;
  const uint32_t word = GetPageHeaderWord(page_idx);
  *layout = LayoutOf(word);
  if (chunk_idx >= NumChunksForLayout(*layout) ||
      StateOf(word, chunk_idx) != state) {
    return nullptr;
  }
  return chunk_begin(page_idx, *layout, chunk_idx);
}

bool SharedMemoryABI::PeekCompleteChunk(size_t page_idx, size_t chunk_idx,
                                        ChunkCopy* out) const {
  uint32_t layout = 0;
  const uint8_t* begin = ChunkInState(page_idx, chunk_idx, kChunkComplete, &layout);
  if (!begin)
    return false;
  const auto* hdr = reinterpret_cast<const ChunkHeader*>(begin);
  // The page word's acquire load above makes the writer's last bytes
  // (released with Complete) visible.
  const uint32_t id = hdr->chunk_id.load(std::memory_order_relaxed);
  const uint16_t writer = hdr->writer_id.load(std::memory_order_relaxed);
  const uint16_t packets = hdr->packets.load(std::memory_order_relaxed);
  if (writer == 0)
    return false;
  out->header = ChunkHeaderValues::Unpack(id, writer, packets);
  out->payload.assign(begin + kChunkHeaderSize, begin + chunk_sizes_[layout]);
  out->complete = true;
  // Taken (and maybe reused) meanwhile: the bytes may be another chunk's.
  const uint32_t word_after = GetPageHeaderWord(page_idx);
  if (LayoutOf(word_after) != layout ||
      StateOf(word_after, chunk_idx) != kChunkComplete ||
      hdr->chunk_id.load(std::memory_order_acquire) != id) {
    out->payload.clear();
    return false;
  }
  return true;
}

bool SharedMemoryABI::ScrapeChunk(size_t page_idx, size_t chunk_idx,
                                  ChunkCopy* out) const {
  uint32_t layout = 0;
  const uint8_t* begin =
      ChunkInState(page_idx, chunk_idx, kChunkBeingWritten, &layout);
  if (!begin)
    return false;
  const size_t payload_size = chunk_sizes_[layout] - kChunkHeaderSize;
  const auto* hdr = reinterpret_cast<const ChunkHeader*>(begin);
  const uint32_t id = hdr->chunk_id.load(std::memory_order_acquire);
  const uint16_t writer = hdr->writer_id.load(std::memory_order_relaxed);
  const uint16_t packets = hdr->packets.load(std::memory_order_acquire);
  ChunkHeaderValues values = ChunkHeaderValues::Unpack(id, writer, packets);
  if (values.writer_id == 0)
    return false;  // Not written yet (or cleared): nothing to take.
  // Packets 1..count-1 are finished; walk their sizes to find the prefix.
  const uint8_t* payload = begin + kChunkHeaderSize;
  size_t offset = 0;
  for (uint32_t i = 0; i + 1 < values.packet_count; i++) {
    const PacketHeader h =
        ParsePacketHeader(payload + offset, payload + payload_size);
    if (h.status == PacketHeaderStatus::kDropMarker) {
      offset += h.header_size;
      break;  // Everything after a drop marker is void.
    }
    if (!h.ok())
      return false;
    offset += h.header_size + size_t{h.size};
  }
  out->header = values;
  out->payload.assign(payload, payload + offset);
  out->complete = false;
  // The chunk may have been completed (or even freed and reused) while we
  // copied: only a copy taken while it stayed BeingWritten with the same id
  // can be trusted to be the prefix we parsed.
  const uint32_t word_after = GetPageHeaderWord(page_idx);
  if (StateOf(word_after, chunk_idx) != kChunkBeingWritten ||
      LayoutOf(word_after) != layout ||
      hdr->chunk_id.load(std::memory_order_acquire) != id) {
    out->payload.clear();
    return false;
  }
  return true;
}

}  // namespace zt
