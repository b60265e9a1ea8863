#include "src/processor/importers/proto/slice_column_pager.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "zt/base/logging.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels answer EINVAL.
#endif

namespace zt {
namespace processor {

namespace {

// The kernel's page size (4 KiB on x86-64; 16 or 64 KiB on some arm64
// kernels: the sorter's 64 KiB blocks are whole pages either way).
uintptr_t PageSize() {
  static const uintptr_t size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return size;
}
uintptr_t PageUp(uintptr_t address) { return (address + PageSize() - 1) & ~(PageSize() - 1); }
uintptr_t PageDown(uintptr_t address) { return address & ~(PageSize() - 1); }

// Given pages held at most (a trace of counters only consumes its queue
// and appends no slice; what is over is unmapped at once).
constexpr size_t kMaxPoolBytes = size_t{16} << 20;

}  // namespace

SliceColumnPager::SliceColumnPager(SliceTable* table) {
  Add(&table->ts);
  Add(&table->dur);
  Add(&table->track_id);
  Add(&table->category);
  Add(&table->name);
  Add(&table->depth);
  Add(&table->parent_id);
  Add(&table->arg_set_id);
  ready_rows_ = table->size();
  // Pages are populated ahead for any column; given pages are moved only
  // into columns large enough to be mappings of their own.
  for (const Column& column : columns_) {
    if (column.capacity * column.elem < kMinColumnBytes)
      recycle_ = false;
  }
}

SliceColumnPager::~SliceColumnPager() { UnmapPool(); }

template <typename T>
void SliceColumnPager::Add(std::vector<T>* column) {
  char* data = reinterpret_cast<char*>(column->data());
  columns_.push_back(Column{data, sizeof(T), column->capacity(),
                            PageUp(reinterpret_cast<uintptr_t>(data + column->size() * sizeof(T)))});
}

void SliceColumnPager::Give(void* start, size_t bytes) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(start);
  ZT_CHECK(address % PageSize() == 0 && bytes % PageSize() == 0);
  if (!recycle_ || pool_bytes_ + bytes > kMaxPoolBytes) {
    munmap(start, bytes);
    counts_.bytes_unmapped += bytes;
    return;
  }
  pool_.emplace_back(address, bytes);
  pool_bytes_ += bytes;
}

void SliceColumnPager::ReadyNextChunk(uint64_t rows) {
  const uint64_t until = std::max(ready_rows_, rows) + kChunkRows;
  for (Column& column : columns_) {
    const uint64_t until_row = std::min(until, column.capacity);
    // Never a page that holds a row below `rows`: the writer may be there.
    const uintptr_t from =
        std::max(column.ready, PageUp(reinterpret_cast<uintptr_t>(column.data) + rows * column.elem));
    const uintptr_t to = PageDown(reinterpret_cast<uintptr_t>(column.data) + until_row * column.elem);
    if (to > from)
      Ready(from, to);
    column.ready = std::max(column.ready, to);
  }
  ready_rows_ = until;
}

void SliceColumnPager::Ready(uintptr_t from, uintptr_t to) {
  while (from < to && recycle_ && !pool_.empty()) {
    std::pair<uintptr_t, size_t>& range = pool_.back();
    const size_t bytes = std::min<size_t>(range.second, to - from);
    if (!Move(from, bytes))
      break;
    from += bytes;
  }
  if (from < to && populate_) {
    if (madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) == 0)
      counts_.bytes_populated += to - from;
    else
      populate_ = false;  // An older kernel: the writer's faults it is.
  }
}

bool SliceColumnPager::Move(uintptr_t to_address, size_t bytes) {
  std::pair<uintptr_t, size_t>& range = pool_.back();
  if (counts_.moves == kMaxMoves) {
    recycle_ = false;
    UnmapPool();
    return false;
  }
  void* moved = mremap(reinterpret_cast<void*>(range.first), bytes, bytes,
                       MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void*>(to_address));
  if (moved == MAP_FAILED) {
    // EINVAL: refused before anything changed (a destination the kernel
    // cannot split, as a huge-page mapping). Otherwise the destination may
    // have been unmapped before the move failed: fresh zero pages go there,
    // so that the column has no hole.
    if (errno != EINVAL) {
      void* fresh = mmap(reinterpret_cast<void*>(to_address), bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      ZT_CHECK(fresh != MAP_FAILED);
    }
    recycle_ = false;
    UnmapPool();
    return false;
  }
  counts_.moves++;
  counts_.bytes_moved += bytes;
  range.first += bytes;
  range.second -= bytes;
  pool_bytes_ -= bytes;
  if (range.second == 0)
    pool_.pop_back();
  return true;
}

void SliceColumnPager::UnmapPool() {
  for (const auto& range : pool_) {
    munmap(reinterpret_cast<void*>(range.first), range.second);
    counts_.bytes_unmapped += range.second;
  }
  pool_.clear();
  pool_bytes_ = 0;
}

SliceColumnPager::Counts SliceColumnPager::counts() const {
  Counts counts = counts_;
  counts.recycling = recycle_;
  return counts;
}

}  // namespace processor
}  // namespace zt
