#include "src/processor/importers/proto/slice_column_pager.h"

#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/importers/proto/packet_sorter.h"

namespace zt {
namespace processor {
namespace {

// Enough rows that every column (the narrowest has 4 bytes a row) passes
// kMinColumnBytes: reserved address space, touched only as rows come.
constexpr uint64_t kBigRows = SliceColumnPager::kMinColumnBytes / 4 + 1;

// Pages as the sorter hands them over: mapped, populated, full of bytes
// that are not rows.
void* MapJunk(size_t bytes) {
  void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT_NE(pages, MAP_FAILED);
  memset(pages, 0xA5, bytes);
  return pages;
}

void AppendRow(SliceTable* table, uint64_t i) {
  table->ts.push_back(static_cast<int64_t>(i) * 3);
  table->dur.push_back(static_cast<int64_t>(i) + 7);
  table->track_id.push_back(static_cast<uint32_t>(i % 13));
  table->category.push_back(static_cast<StringId>(i % 5));
  table->name.push_back(static_cast<StringId>(i % 11));
  table->depth.push_back(static_cast<uint32_t>(i % 3));
  table->parent_id.push_back(static_cast<uint32_t>(i ^ 1));
  table->arg_set_id.push_back(static_cast<uint32_t>(i + 1));
}

// Every row as AppendRow() wrote it: a moved page never lands on a row.
void ExpectRows(const SliceTable& table, uint64_t rows) {
  ASSERT_EQ(table.size(), rows);
  for (uint64_t i = 0; i < rows; i++) {
    if (table.ts[i] != static_cast<int64_t>(i) * 3 ||
        table.dur[i] != static_cast<int64_t>(i) + 7 || table.track_id[i] != i % 13 ||
        table.category[i] != i % 5 || table.name[i] != i % 11 || table.depth[i] != i % 3 ||
        table.parent_id[i] != (i ^ 1) || table.arg_set_id[i] != i + 1) {
      FAIL() << "row " << i << " is not what was written";
    }
  }
}

TEST(SliceColumnPagerTest, MovesGivenPagesIntoTheColumnsAheadOfTheRows) {
  SliceTable table;
  table.reserve(kBigRows);
  for (uint64_t i = 0; i < 1000; i++)
    AppendRow(&table, i);  // Rows before the pager: never touched.
  SliceColumnPager pager(&table);
  pager.Give(MapJunk(1 << 20), 1 << 20);  // Before the first row comes.
  const uint64_t rows = 3 * SliceColumnPager::kChunkRows;
  for (uint64_t i = 1000; i < rows; i++) {
    if (i % 50000 == 0)
      pager.Give(MapJunk(1 << 20), 1 << 20);
    pager.RowsComing(i);
    AppendRow(&table, i);
  }
  ExpectRows(table, rows);
  const SliceColumnPager::Counts counts = pager.counts();
  EXPECT_TRUE(counts.recycling);
  EXPECT_GT(counts.moves, 0u);
  EXPECT_GT(counts.bytes_moved, 0u);
  EXPECT_EQ(counts.bytes_moved % 4096, 0u);
}

TEST(SliceColumnPagerTest, NeverReplacesAPageHoldingARowBelowTheBound) {
  SliceTable table;
  table.reserve(kBigRows);
  SliceColumnPager pager(&table);
  // The bound jumps ahead of the rows written so far, as the merging thread
  // runs ahead of the applying one; the rows written must stay intact.
  uint64_t written = 0;
  for (int round = 0; round < 6; round++) {
    pager.Give(MapJunk(4 << 20), 4 << 20);
    const uint64_t bound = written + SliceColumnPager::kChunkRows / 2 + 123;
    pager.RowsComing(bound);
    for (; written < bound; written++)
      AppendRow(&table, written);
  }
  ExpectRows(table, written);
  EXPECT_GT(pager.counts().bytes_moved, 0u);
}

TEST(SliceColumnPagerTest, SmallColumnsArePopulatedNotGivenPages) {
  SliceTable table;
  table.reserve(1000);
  SliceColumnPager pager(&table);
  pager.Give(MapJunk(1 << 16), 1 << 16);
  for (uint64_t i = 0; i < 1000; i++) {
    pager.RowsComing(i);
    AppendRow(&table, i);
  }
  ExpectRows(table, 1000);
  const SliceColumnPager::Counts counts = pager.counts();
  EXPECT_EQ(counts.moves, 0u);
  EXPECT_FALSE(counts.recycling);
  EXPECT_EQ(counts.bytes_unmapped, uint64_t{1} << 16);
}

TEST(SliceColumnPagerTest, HoldsABoundedPoolOfGivenPages) {
  SliceTable table;
  table.reserve(kBigRows);
  SliceColumnPager pager(&table);
  // No row comes (a trace of counters): pages beyond the pool's bound are
  // unmapped as they are given, the rest when the pager goes.
  for (int i = 0; i < 40; i++)
    pager.Give(MapJunk(1 << 20), 1 << 20);
  EXPECT_GE(pager.counts().bytes_unmapped, uint64_t{24} << 20);
  EXPECT_EQ(pager.counts().moves, 0u);
}

TEST(SliceColumnPagerTest, StopsRecyclingAfterItsMoveBudgetAndStillReadiesPages) {
  SliceTable table;
  table.reserve(kBigRows);
  SliceColumnPager pager(&table);
  // One page a range: every move is a page, and the budget runs out.
  const uint64_t pages = SliceColumnPager::kMaxMoves + 64;
  uint64_t written = 0;
  uint64_t given = 0;
  while (given < pages) {
    for (int i = 0; i < 1024 && given < pages; i++, given++)
      pager.Give(MapJunk(4096), 4096);
    const uint64_t bound = written + SliceColumnPager::kChunkRows;
    pager.RowsComing(bound);
    for (; written < bound; written++)
      AppendRow(&table, written);
  }
  ExpectRows(table, written);
  const SliceColumnPager::Counts counts = pager.counts();
  EXPECT_EQ(counts.moves, SliceColumnPager::kMaxMoves);
  EXPECT_FALSE(counts.recycling);
}

TEST(SliceColumnPagerTest, TakesTheSortersConsumedBlocks) {
  PacketSorter sorter;
  constexpr uint64_t kEvents = 1 << 20;  // 16 MiB of queue, 256 blocks.
  for (uint64_t i = 0; i < kEvents; i++)
    sorter.Push(0, static_cast<int64_t>(i), i * 8, 8, 1);
  SliceTable table;
  table.reserve(kBigRows);
  SliceColumnPager pager(&table);
  sorter.GiveConsumedBlocksTo([&pager](void* pages, size_t bytes) { pager.Give(pages, bytes); });
  uint64_t drained = 0;
  sorter.Drain(
      [&](int64_t ts, uint64_t, uint64_t, uint32_t, uint64_t) {
        EXPECT_EQ(ts, static_cast<int64_t>(drained));
        pager.RowsComing(drained);
        AppendRow(&table, drained++);
      },
      [](uint64_t, uint64_t) {});
  EXPECT_EQ(drained, kEvents);
  ExpectRows(table, kEvents);
  const SliceColumnPager::Counts counts = pager.counts();
  EXPECT_GT(counts.bytes_moved, uint64_t{8} << 20);
}

// The two-thread import's shape: this thread readies pages and grants
// rows; a writer appends only rows granted. Every row must survive.
TEST(SliceColumnPagerTest, AWriterOnAnotherThreadKeepsEveryRow) {
  SliceTable table;
  table.reserve(kBigRows);
  SliceColumnPager pager(&table);
  constexpr uint64_t kRows = 6 * SliceColumnPager::kChunkRows;
  std::atomic<uint64_t> granted{0};
  std::atomic<bool> timed_out{false};
  std::thread writer([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (uint64_t i = 0; i < kRows; i++) {
      while (granted.load(std::memory_order_acquire) <= i) {
        if (std::chrono::steady_clock::now() > deadline) {
          timed_out = true;
          return;
        }
        std::this_thread::yield();
      }
      AppendRow(&table, i);
    }
  });
  for (uint64_t rows = 0; rows < kRows;) {
    if (rows % 100000 == 0)
      pager.Give(MapJunk(2 << 20), 2 << 20);
    rows = std::min(kRows, rows + 1000);
    pager.RowsComing(rows);
    granted.store(rows, std::memory_order_release);
  }
  writer.join();
  ASSERT_FALSE(timed_out) << "the writer waited 60 s for rows";
  ExpectRows(table, kRows);
  EXPECT_GT(pager.counts().bytes_moved, 0u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
