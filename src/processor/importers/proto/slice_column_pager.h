// Readies the pages of the slice columns ahead of the rows pass 2 appends,
// reusing the pages of the sort queue pass 2 has consumed.
//
// Pass 1 fills the sort queue (16 bytes an event); pass 2 consumes it while
// it appends slice rows (40 bytes a slice) to columns reserved, not yet
// touched. Left to themselves, the kernel would free each consumed page of
// the queue (munmap) and zero, charge and map a fresh one for every page of
// the columns (a fault each): together about a fifth of the import's CPU
// time. Instead the queue's consumed blocks are handed here, and moved
// (mremap) into the columns' reserved capacity just ahead of the writer:
// a move rewrites page-table entries, no page is freed, zeroed or charged.
// What the queue cannot supply is populated in one call a chunk
// (MADV_POPULATE_WRITE, Linux 5.14 and later), not faulted page by page.
//
// Safety. A page is replaced only if no row below the caller's bound lives
// in it, so no row written or being written is ever touched; the columns'
// bytes past their size are unspecified to their owner anyway (reserved
// capacity), and moved pages hold old queue entries there. Moving a page
// into the middle of a mapping splits it, so the moves are bounded
// (kMaxMoves, far below the kernel's map-count limit); a move that fails
// turns recycling off (after ENOMEM it maps fresh zero pages where it was
// to go, so the columns' address range is never left with a hole; EINVAL,
// a destination the kernel cannot split, changed nothing). Pages are moved
// only into columns of at least kMinColumnBytes, which glibc always maps
// on their own (a smaller buffer may share pages with other heap data);
// smaller ones are only populated ahead.
//
// Thread-compatible: Give() and RowsComing() on one thread (pass 2's
// merging thread, or the only one); the writer may append rows on another
// thread concurrently, below the bound RowsComing() was last given.
#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_SLICE_COLUMN_PAGER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_SLICE_COLUMN_PAGER_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "src/processor/storage/trace_storage.h"
#include "zt/base/compiler.h"

namespace zt {
namespace processor {

class SliceColumnPager {
 public:
  // Takes the columns' addresses and capacities now: the table's vectors
  // must not be reallocated while the pager is used (reserve() first).
  explicit SliceColumnPager(SliceTable* table);
  // Unmaps the given pages it did not use.
  ~SliceColumnPager();
  SliceColumnPager(const SliceColumnPager&) = delete;
  SliceColumnPager& operator=(const SliceColumnPager&) = delete;

  // Pages nobody uses any more: page-aligned, whole pages, mapped private
  // and anonymous. The pager owns them from now on (it moves them into the
  // columns or unmaps them).
  void Give(void* start, size_t bytes);

  // `rows`: no row at or past it has been written or is being written.
  // Readies the columns' pages for about kAheadRows rows past it, a chunk
  // at a time. Cheap when nothing is due (one compare).
  void RowsComing(uint64_t rows) {
    if (ZT_LIKELY(rows + kAheadRows <= ready_rows_))
      return;
    ReadyNextChunk(rows);
  }

  // What was done, for tests and benchmarks.
  struct Counts {
    uint64_t bytes_moved = 0;      // Given pages moved into the columns.
    uint64_t bytes_populated = 0;  // Fresh pages populated in a call.
    uint64_t bytes_unmapped = 0;   // Given pages not needed.
    uint64_t moves = 0;
    bool recycling = false;        // Given pages are (still) moved into the columns.
  };
  Counts counts() const;

  static constexpr uint64_t kChunkRows = uint64_t{1} << 17;  // 1 MiB of ts.
  static constexpr uint64_t kAheadRows = uint64_t{1} << 16;
  static constexpr size_t kMinColumnBytes = size_t{64} << 20;
  static constexpr uint64_t kMaxMoves = 16384;

 private:
  struct Column {
    char* data;
    size_t elem;
    uint64_t capacity;
    uintptr_t ready;  // Page-aligned: pages below it need nothing more.
  };
  template <typename T>
  void Add(std::vector<T>* column);
  void ReadyNextChunk(uint64_t rows);
  // Readies [from, to) (page-aligned): moved pages first, then populated.
  void Ready(uintptr_t from, uintptr_t to);
  bool Move(uintptr_t to_address, size_t bytes);
  void UnmapPool();

  std::vector<Column> columns_;
  // Given ranges not used yet; the front of the last one is used first.
  std::vector<std::pair<uintptr_t, size_t>> pool_;
  size_t pool_bytes_ = 0;
  uint64_t ready_rows_ = 0;
  bool recycle_ = true;
  bool populate_ = true;
  Counts counts_;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_SLICE_COLUMN_PAGER_H_
