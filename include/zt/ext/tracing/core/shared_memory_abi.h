// SharedMemoryABI: the binary layout of the shared memory buffer (SMB) a
// producer and the tracing service both map, and the only legal ways to move
// a chunk between its four states. Bit-exact with Perfetto's SMB (see
// docs/design/shared_memory_abi.md for the picture and the memory model).
//
// The object is a non-owning view over a caller-provided region. Producer and
// service never trust each other: every accessor the service uses validates
// indices, layouts and states against what it reads right now, and failures
// are reported by return value, never by aborting.
//
// Thread-safe: any number of threads (and processes) may call into views of
// the same region concurrently; exclusive ownership of a chunk's bytes is
// conveyed by the Chunk handle returned by a successful acquire.

#ifndef ZT_EXT_TRACING_CORE_SHARED_MEMORY_ABI_H_
#define ZT_EXT_TRACING_CORE_SHARED_MEMORY_ABI_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "zt/protozero/proto_utils.h"

namespace zt {

class SharedMemoryABI {
 public:
  static constexpr size_t kMinPageSize = 4096;
  static constexpr size_t kMaxPageSize = 65536;  // Chunk sizes fit 16 bits.
  static constexpr size_t kPageHeaderSize = 8;
  static constexpr size_t kChunkHeaderSize = 8;
  static constexpr size_t kMaxChunksPerPage = 14;
  // Every packet or fragment starts with its size as a varint; writers use
  // exactly 4 bytes (a redundant varint) so the size can be filled in later.
  static constexpr size_t kPacketHeaderSize = 4;
  // A fragment of this size means "the writer gave up on this packet".
  static constexpr uint32_t kPacketSizeDropPacket =
      static_cast<uint32_t>(protozero::proto_utils::kMaxMessageLength);
  static constexpr uint16_t kMaxPacketCount = (1u << 10) - 1;
  static constexpr uint16_t kMaxWriterId = 0xFFFF;  // 0 is not a writer.

  enum ChunkState : uint32_t {
    kChunkFree = 0,
    kChunkBeingWritten = 1,
    kChunkBeingRead = 2,
    kChunkComplete = 3,
  };

  enum PageLayout : uint32_t {
    kPageNotPartitioned = 0,
    kPageDiv1 = 1,
    kPageDiv2 = 2,
    kPageDiv4 = 3,
    kPageDiv7 = 4,
    kPageDiv14 = 5,
    // 6 and 7 are reserved: a page word carrying them is invalid.
    kNumPageLayouts = 8,
  };

  // Chunk header flags (6 bits above the 10-bit packet count).
  enum ChunkFlags : uint8_t {
    kFirstPacketContinuesFromPrevChunk = 1 << 0,
    kLastPacketContinuesOnNextChunk = 1 << 1,
    kChunkNeedsPatching = 1 << 2,
  };

  // Page header word bits.
  static constexpr uint32_t kLayoutShift = 28;
  static constexpr uint32_t kLayoutMask = 0x7u << kLayoutShift;
  static constexpr uint32_t kStateBits = 2;
  static constexpr uint32_t kStateMask = 0x3;
  static constexpr uint32_t kAllStatesMask = 0x0FFFFFFF;

  // In-SMB overlays. Only ever accessed through the atomics.
  struct PageHeader {
    std::atomic<uint32_t> header_word;
    uint32_t reserved;
  };
  struct ChunkHeader {
    std::atomic<uint32_t> chunk_id;
    std::atomic<uint16_t> writer_id;
    std::atomic<uint16_t> packets;  // count:10 | flags:6 (little-endian bits).
  };

  // Plain values of a chunk header, for passing around and validating.
  struct ChunkHeaderValues {
    uint32_t chunk_id = 0;
    uint16_t writer_id = 0;
    uint16_t packet_count = 0;  // 0..1023
    uint8_t flags = 0;          // 0..63

    uint16_t packed_packets() const {
      return static_cast<uint16_t>((packet_count & kMaxPacketCount) |
                                   (static_cast<uint16_t>(flags & 0x3F) << 10));
    }
    static ChunkHeaderValues Unpack(uint32_t chunk_id, uint16_t writer_id,
                                    uint16_t packets) {
      ChunkHeaderValues v;
      v.chunk_id = chunk_id;
      v.writer_id = writer_id;
      v.packet_count = static_cast<uint16_t>(packets & kMaxPacketCount);
      v.flags = static_cast<uint8_t>(packets >> 10);
      return v;
    }
  };

  // Exclusive handle on one chunk between an acquire and a release. Move-only.
  class Chunk {
   public:
    Chunk() = default;
    Chunk(Chunk&& other) noexcept { *this = std::move(other); }
    Chunk& operator=(Chunk&& other) noexcept {
      begin_ = other.begin_;
      size_ = other.size_;
      page_idx_ = other.page_idx_;
      chunk_idx_ = other.chunk_idx_;
      other.begin_ = nullptr;
      other.size_ = 0;
      return *this;
    }
    Chunk(const Chunk&) = delete;
    Chunk& operator=(const Chunk&) = delete;

    bool is_valid() const { return begin_ != nullptr; }
    uint8_t* begin() const { return begin_; }
    uint8_t* end() const { return begin_ + size_; }
    size_t size() const { return size_; }  // Header included.
    uint8_t* payload_begin() const { return begin_ + kChunkHeaderSize; }
    size_t payload_size() const { return size_ - kChunkHeaderSize; }
    uint32_t page_idx() const { return page_idx_; }
    uint8_t chunk_idx() const { return chunk_idx_; }

    ChunkHeader* header() const {
      return reinterpret_cast<ChunkHeader*>(begin_);
    }
    // Header as seen now (acquire on chunk_id then the rest).
    ChunkHeaderValues ReadHeader() const;

    // Producer only, by the owning thread. Raises the packet count by one
    // (release) and returns the new count; saturates at kMaxPacketCount.
    uint16_t IncrementPacketCount() {
      uint16_t p = header()->packets.load(std::memory_order_relaxed);
      if ((p & kMaxPacketCount) < kMaxPacketCount)
        ++p;
      header()->packets.store(p, std::memory_order_release);
      return static_cast<uint16_t>(p & kMaxPacketCount);
    }
    uint16_t packet_count() const {
      return static_cast<uint16_t>(
          header()->packets.load(std::memory_order_relaxed) & kMaxPacketCount);
    }
    uint8_t flags() const {
      return static_cast<uint8_t>(
          header()->packets.load(std::memory_order_relaxed) >> 10);
    }
    void SetFlags(uint8_t flags) {
      uint16_t p = header()->packets.load(std::memory_order_relaxed);
      p = static_cast<uint16_t>(p | (static_cast<uint16_t>(flags & 0x3F) << 10));
      header()->packets.store(p, std::memory_order_release);
    }

   private:
    friend class SharedMemoryABI;
    Chunk(uint8_t* begin, size_t size, uint32_t page_idx, uint8_t chunk_idx)
        : begin_(begin), size_(size), page_idx_(page_idx), chunk_idx_(chunk_idx) {}

    uint8_t* begin_ = nullptr;
    size_t size_ = 0;
    uint32_t page_idx_ = 0;
    uint8_t chunk_idx_ = 0;
  };

  // What the size header in front of a packet or fragment says. Writers
  // always write kPacketHeaderSize bytes (a redundant varint: the size can
  // be filled in after the data); readers accept any varint of 1 to
  // kPacketHeaderSize bytes, as upstream's readers do, and nothing longer.
  enum class PacketHeaderStatus : uint8_t {
    kOk,            // |size| bytes of data follow, all inside the chunk.
    kDropMarker,    // kPacketSizeDropPacket: the writer gave up the packet.
    kTruncated,     // The chunk ends before the varint does (or at once).
    kBadVarint,     // kPacketHeaderSize bytes and the varint goes on.
    kPastChunkEnd,  // A valid size, but the data would run past the chunk.
  };
  struct PacketHeader {
    PacketHeaderStatus status = PacketHeaderStatus::kTruncated;
    // Bytes of the varint (1..kPacketHeaderSize); 0 unless the status is
    // kOk, kDropMarker or kPastChunkEnd.
    uint8_t header_size = 0;
    uint32_t size = 0;  // The value, when header_size is set.
    bool ok() const { return status == PacketHeaderStatus::kOk; }
  };
  // The one parser of packet headers (the service's TraceBuffer, scraping
  // and the reference reader all use it). |begin| points at a header inside
  // a chunk's payload that ends at |end| (begin <= end; bytes are
  // untrusted). Reads only bytes in [begin, end) and each at most once, so
  // a peer rewriting them meanwhile cannot make the result inconsistent.
  // The drop marker wins over kPastChunkEnd (it is never a real size). O(1).
  static PacketHeader ParsePacketHeader(const uint8_t* begin,
                                        const uint8_t* end) {
    PacketHeader h;
    const size_t avail = static_cast<size_t>(end - begin);
    const size_t n = avail < kPacketHeaderSize ? avail : kPacketHeaderSize;
    uint32_t value = 0;
    for (size_t i = 0; i < n; i++) {
      const uint8_t byte = begin[i];
      value |= static_cast<uint32_t>(byte & 0x7F) << (7 * i);
      if (byte & 0x80)
        continue;
      h.header_size = static_cast<uint8_t>(i + 1);
      h.size = value;
      if (value == kPacketSizeDropPacket)
        h.status = PacketHeaderStatus::kDropMarker;
      else if (value > avail - h.header_size)
        h.status = PacketHeaderStatus::kPastChunkEnd;
      else
        h.status = PacketHeaderStatus::kOk;
      return h;
    }
    h.status = n < kPacketHeaderSize ? PacketHeaderStatus::kTruncated
                                     : PacketHeaderStatus::kBadVarint;
    return h;
  }

  // Outcome of a service-side copy of a chunk.
  struct ChunkCopy {
    ChunkHeaderValues header;
    std::vector<uint8_t> payload;  // Exactly the chunk's payload bytes.
    bool complete = true;          // False for a scraped (BeingWritten) chunk.
  };

  SharedMemoryABI() = default;
  // |start| must be 8-byte aligned; |page_size| a multiple of 4 KiB in
  // [4 KiB, 64 KiB]; |size| a non-zero multiple of |page_size|. Use
  // IsValidGeometry() first for untrusted values: a bad geometry gives an
  // invalid view (num_pages() == 0) on which every call fails.
  SharedMemoryABI(uint8_t* start, size_t size, size_t page_size);
  void Initialize(uint8_t* start, size_t size, size_t page_size);
  static bool IsValidGeometry(const void* start, size_t size, size_t page_size);

  bool is_valid() const { return num_pages_ > 0; }
  uint8_t* start() const { return start_; }
  size_t size() const { return size_; }
  size_t page_size() const { return page_size_; }
  size_t num_pages() const { return num_pages_; }

  // Geometry of layouts (0 for kPageNotPartitioned and the reserved ones).
  static constexpr uint32_t NumChunksForLayout(uint32_t layout) {
    constexpr uint32_t kChunks[kNumPageLayouts] = {0, 1, 2, 4, 7, 14, 0, 0};
    return layout < kNumPageLayouts ? kChunks[layout] : 0;
  }
  static constexpr size_t ChunkSizeFor(size_t page_size, uint32_t layout) {
    return NumChunksForLayout(layout) == 0
               ? 0
               : ((page_size - kPageHeaderSize) / NumChunksForLayout(layout)) &
                     ~static_cast<size_t>(3);
  }
  size_t chunk_size(uint32_t layout) const {
    return layout < kNumPageLayouts ? chunk_sizes_[layout] : 0;
  }

  // Header word helpers (pure functions of a word the caller loaded).
  static constexpr uint32_t LayoutOf(uint32_t word) {
    return (word & kLayoutMask) >> kLayoutShift;
  }
  static constexpr ChunkState StateOf(uint32_t word, size_t chunk_idx) {
    return static_cast<ChunkState>((word >> (chunk_idx * kStateBits)) &
                                   kStateMask);
  }

  // The chunks of |word|'s layout that are free, as bit 2*i for chunk i
  // (0 for a page not partitioned): a page scan tests a whole page with it.
  static constexpr uint32_t FreeChunkBits(uint32_t word) {
    // Bit 2i of (word | word >> 1) is set when chunk i's state is not 0.
    return ~(word | (word >> 1)) & 0x55555555u & LayoutStatesMask(LayoutOf(word));
  }

  // --- Queries (both sides). All return "nothing" for bad indices. ---
  // Acquire load of the page word (0 for a bad index). Inline: the
  // arbiter's page scan calls it for every page it passes.
  uint32_t GetPageHeaderWord(size_t page_idx) const {
    if (page_idx >= num_pages_)
      return 0;
    return page_header(page_idx)->header_word.load(std::memory_order_acquire);
  }
  // kPageNotPartitioned for a bad index or a reserved layout value.
  PageLayout GetPageLayout(size_t page_idx) const;
  // kChunkFree for a bad page/chunk index or a chunk outside the layout.
  ChunkState GetChunkState(size_t page_idx, size_t chunk_idx) const;
  bool is_page_free(size_t page_idx) const {
    return GetPageHeaderWord(page_idx) == 0;
  }
  bool IsPageComplete(size_t page_idx) const;
  // Bit i set when chunk i exists in the layout and is (not) free.
  uint32_t GetFreeChunks(size_t page_idx) const;
  uint32_t GetUsedChunks(size_t page_idx) const;
  // The header of a chunk as seen now (acquire on chunk_id), whoever owns
  // it; zeros for a bad index or a chunk outside the page's layout. A hint
  // for a caller that does not own the chunk: it may change at any time.
  ChunkHeaderValues PeekChunkHeader(size_t page_idx, size_t chunk_idx) const;

  // --- Producer side ---
  // A hint: starts fetching the page's header line for writing, so that the
  // next acquire on it does not wait for the line to come back from the core
  // that freed it. No effect on state; a bad index is ignored.
  void PrefetchPageForWriting(size_t page_idx) const {
#if defined(__GNUC__) || defined(__clang__)
    if (page_idx < num_pages_)
      __builtin_prefetch(page_header(page_idx), 1);
#else
    (void)page_idx;
#endif
  }
  // Free (word == 0) page -> partitioned with |layout| (1..5), all chunks
  // Free. False if the page was not free or the arguments are bad.
  bool TryPartitionPage(size_t page_idx, PageLayout layout);
  // Free (word == 0) page -> partitioned with |layout|, chunk 0
  // BeingWritten and |header| written into it, in one CAS: the common case
  // of a writer moving on to a fresh page. Invalid chunk if the page is not
  // free or the arguments are bad.
  Chunk TryPartitionPageAndAcquireFirstChunk(size_t page_idx,
                                             PageLayout layout,
                                             const ChunkHeaderValues& header);
  // Free -> BeingWritten, then writes |header| into the chunk. Invalid chunk
  // if the page is not partitioned, the index is outside the layout or the
  // chunk is not Free.
  Chunk TryAcquireChunkForWriting(size_t page_idx, size_t chunk_idx,
                                  const ChunkHeaderValues& header);
  // BeingWritten -> Complete. False (chunk left as is) if the page no longer
  // matches the chunk (hostile service) or the state is not BeingWritten.
  bool ReleaseChunkAsComplete(Chunk chunk);

  // --- Service side ---
  // Both run once per chunk committed: inline, one load and one CAS when
  // the page word is as expected and nothing else changes it meanwhile;
  // anything else (a race with another chunk of the page, a mismatch) is
  // left to the out-of-line path, which retries or fails.
  // Complete -> BeingRead. Invalid chunk on any mismatch.
  Chunk TryAcquireChunkForReading(size_t page_idx, size_t chunk_idx) {
    if (page_idx < num_pages_) {
      std::atomic<uint32_t>& word_ref = page_header(page_idx)->header_word;
      uint32_t word = word_ref.load(std::memory_order_acquire);
      const uint32_t layout = LayoutOf(word);
      if (chunk_idx < NumChunksForLayout(layout) &&
          StateOf(word, chunk_idx) == kChunkComplete &&
          word_ref.compare_exchange_strong(
              word, WithState(word, chunk_idx, kChunkBeingRead),
              std::memory_order_acq_rel, std::memory_order_acquire)) {
        return Chunk(chunk_begin(page_idx, layout, chunk_idx),
                     chunk_sizes_[layout], static_cast<uint32_t>(page_idx),
                     static_cast<uint8_t>(chunk_idx));
      }
    }
    return TryAcquireChunkForReadingSlow(page_idx, chunk_idx);
  }
  // Clears the header, then BeingRead -> Free; the page word becomes 0 when
  // no chunk is left in use. False on a state mismatch.
  bool ReleaseChunkAsFree(Chunk chunk) {
    if (chunk.is_valid() && chunk.page_idx() < num_pages_) {
      std::atomic<uint32_t>& word_ref =
          page_header(chunk.page_idx())->header_word;
      uint32_t word = word_ref.load(std::memory_order_acquire);
      const uint32_t layout = LayoutOf(word);
      if (chunk_sizes_[layout] == chunk.size() &&
          chunk.chunk_idx() < NumChunksForLayout(layout) &&
          StateOf(word, chunk.chunk_idx()) == kChunkBeingRead) {
        ClearHeader(chunk);
        uint32_t next = WithState(word, chunk.chunk_idx(), kChunkFree);
        if ((next & LayoutStatesMask(layout)) == 0)
          next = 0;  // Last chunk in use gone: the page can be re-split.
        if (word_ref.compare_exchange_strong(word, next,
                                             std::memory_order_acq_rel,
                                             std::memory_order_acquire)) {
          return true;
        }
      }
    }
    return ReleaseChunkAsFreeSlow(std::move(chunk));
  }
  // Copies an owned chunk (from TryAcquireChunkForReading) out of the SMB.
  static void CopyChunk(const Chunk& chunk, ChunkCopy* out);
  // Copies the complete packets of a BeingWritten chunk without changing its
  // state (flush / disconnect scraping): packets 1..count-1, whose bytes the
  // writer no longer touches. False when the chunk is not BeingWritten, has
  // no header yet (writer_id 0) or its fragments do not parse.
  bool ScrapeChunk(size_t page_idx, size_t chunk_idx, ChunkCopy* out) const;
  // Copies a Complete chunk without taking it (flush / disconnect scraping
  // of a chunk whose commit has not come yet: its producer's arbiter still
  // holds it in a batch, or the commit is on its way). The commit then
  // brings a second copy of the same chunk, which readers must take as
  // one. False when the chunk is not Complete, has no header (writer_id 0),
  // or changed state or id while it was copied.
  bool PeekCompleteChunk(size_t page_idx, size_t chunk_idx,
                         ChunkCopy* out) const;

 private:
  PageHeader* page_header(size_t page_idx) const {
    return reinterpret_cast<PageHeader*>(start_ + page_idx * page_size_);
  }
  uint8_t* chunk_begin(size_t page_idx, uint32_t layout,
                       size_t chunk_idx) const {
    return start_ + page_idx * page_size_ + kPageHeaderSize +
           chunk_idx * chunk_sizes_[layout];
  }
  // The start of chunk |chunk_idx| of page |page_idx| if the page word (an
  // acquire load) shows it in |state|, with the page's layout; null if it
  // is not (or the indices are out of range).
  const uint8_t* ChunkInState(size_t page_idx, size_t chunk_idx,
                              ChunkState state, uint32_t* layout) const;
  static constexpr uint32_t WithState(uint32_t word, size_t chunk_idx,
                                      ChunkState state) {
    return (word & ~(kStateMask << (chunk_idx * kStateBits))) |
           (static_cast<uint32_t>(state) << (chunk_idx * kStateBits));
  }
  // Bits of the page word that hold the states of the chunks of |layout|.
  static constexpr uint32_t LayoutStatesMask(uint32_t layout) {
    return NumChunksForLayout(layout) == 0
               ? 0
               : (1u << (NumChunksForLayout(layout) * kStateBits)) - 1;
  }
  // Zeroes the header of a chunk about to be freed, so that a scraper that
  // later sees it BeingWritten reads zeros or the next writer's header.
  static void ClearHeader(const Chunk& chunk) {
    ChunkHeader* hdr = chunk.header();
    hdr->writer_id.store(0, std::memory_order_relaxed);
    hdr->packets.store(0, std::memory_order_relaxed);
    hdr->chunk_id.store(0, std::memory_order_relaxed);
  }
  Chunk TryAcquireChunkForReadingSlow(size_t page_idx, size_t chunk_idx);
  bool ReleaseChunkAsFreeSlow(Chunk chunk);
  // Writes |header| into a chunk just made BeingWritten and returns it.
  Chunk StartChunk(size_t page_idx, uint32_t layout, size_t chunk_idx,
                   const ChunkHeaderValues& header);
  // Moves chunk |chunk_idx| of |page_idx| from |from| to |to| if the page
  // layout is |layout|. Retries only while other chunks' bits change.
  bool TransitionChunk(size_t page_idx, uint32_t layout, size_t chunk_idx,
                       ChunkState from, ChunkState to, bool free_page_if_empty,
                       uint32_t* old_word);

  uint8_t* start_ = nullptr;
  size_t size_ = 0;
  size_t page_size_ = 0;
  size_t num_pages_ = 0;
  std::array<size_t, kNumPageLayouts> chunk_sizes_{};
};

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_SHARED_MEMORY_ABI_H_
