#include "src/processor/importers/proto/packet_sorter.h"

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

using Drained = std::tuple<int64_t, uint64_t, uint64_t, uint32_t>;

std::vector<Drained> DrainAll(PacketSorter* sorter) {
  std::vector<Drained> out;
  sorter->Drain(
      [&](int64_t ts, uint64_t offset, uint64_t size, uint32_t generation, uint64_t hint) {
        EXPECT_EQ(hint, 0u);  // A sorter without hints hands back 0.
        out.emplace_back(ts, offset, size, generation);
      },
      [](uint64_t, uint64_t) {});
  return out;
}

TEST(PacketSorterTest, MergesQueuesByTimeThenOffset) {
  PacketSorter sorter;
  sorter.Push(0, 10, 100, 5, 1);
  sorter.Push(1, 5, 200, 6, 2);
  sorter.Push(0, 20, 300, 7, 1);
  sorter.Push(1, 20, 150, 8, 3);  // Same time as offset 300: offset decides.
  EXPECT_EQ(sorter.size(), 4u);
  EXPECT_EQ(DrainAll(&sorter), (std::vector<Drained>{{5, 200, 6, 2},
                                                     {10, 100, 5, 1},
                                                     {20, 150, 8, 3},
                                                     {20, 300, 7, 1}}));
  EXPECT_EQ(sorter.size(), 0u);
  EXPECT_EQ(sorter.unsorted_queues(), 0u);
}

TEST(PacketSorterTest, UnsortedQueueKeepsEachEventsGeneration) {
  PacketSorter sorter;
  sorter.Push(0, 30, 10, 1, 7);
  sorter.Push(0, 10, 20, 1, 8);  // Went back, under a new generation.
  sorter.Push(0, 20, 30, 1, 8);
  EXPECT_EQ(DrainAll(&sorter),
            (std::vector<Drained>{{10, 20, 1, 8}, {20, 30, 1, 8}, {30, 10, 1, 7}}));
  EXPECT_EQ(sorter.unsorted_queues(), 1u);
}

TEST(PacketSorterTest, HugeEventsAndFarOffsetsAreSpilledNotTruncated) {
  PacketSorter sorter;
  const uint64_t huge = uint64_t{1} << 30;
  const uint64_t far = uint64_t{1} << 45;
  sorter.Push(0, 1, 64, huge, 0);
  sorter.Push(0, 2, far, 9, 0);
  sorter.Push(0, 3, 128, 16, 0);
  EXPECT_EQ(DrainAll(&sorter), (std::vector<Drained>{{1, 64, huge, 0},
                                                     {2, far, 9, 0},
                                                     {3, 128, 16, 0}}));
}

// The input's 2 MiB regions are reported once each, when their last event
// has been drained (those without events at once).
TEST(PacketSorterTest, RegionsAreDoneWhenTheirLastEventIs) {
  constexpr uint64_t kRegion = uint64_t{1} << PacketSorter::kRegionShift;
  PacketSorter sorter;
  sorter.Push(0, 10, 100, 1, 0);                 // Region 0.
  sorter.Push(0, 30, 2 * kRegion + 5, 1, 0);     // Region 2.
  sorter.Push(1, 20, 2 * kRegion + 50, 1, 0);    // Region 2.
  std::vector<std::pair<std::string, uint64_t>> log;
  sorter.Drain(
      [&](int64_t ts, uint64_t, uint64_t, uint32_t, uint64_t) { log.emplace_back("event", ts); },
      [&](uint64_t offset, uint64_t length) {
        EXPECT_EQ(length, kRegion);
        log.emplace_back("done", offset / kRegion);
      });
  EXPECT_EQ(log, (std::vector<std::pair<std::string, uint64_t>>{{"done", 1},
                                                                {"event", 10},
                                                                {"done", 0},
                                                                {"event", 20},
                                                                {"event", 30},
                                                                {"done", 2}}));
}

// Many events across block boundaries and generations, in random
// interleavings, against a plain sort.
// Few queues are merged by scanning their heads, many through a heap:
// both must give a full sort's order.
class PacketSorterMergeTest : public testing::TestWithParam<uint32_t> {};

TEST_P(PacketSorterMergeTest, MatchesAFullSort) {
  const uint32_t queues = GetParam();
  std::mt19937_64 random(42);
  PacketSorter sorter;
  std::vector<Drained> expected;
  std::vector<int64_t> clock(queues, 0);
  std::vector<uint32_t> generation(queues, 0);
  uint64_t offset = 0;
  for (int i = 0; i < 30000; i++) {
    const uint32_t queue = static_cast<uint32_t>(random() % queues);
    clock[queue] += static_cast<int64_t>(random() % 100);
    if (random() % 1000 == 0)
      generation[queue]++;
    if (queue == queues - 1 && random() % 50 == 0)
      clock[queue] -= 500;  // This writer's clock sometimes goes back.
    offset += 1 + random() % 50;
    sorter.Push(queue, clock[queue], offset, i % 300, generation[queue] * 100 + queue);
    expected.emplace_back(clock[queue], offset, i % 300, generation[queue] * 100 + queue);
  }
  std::stable_sort(expected.begin(), expected.end(), [](const Drained& a, const Drained& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                            : std::get<1>(a) < std::get<1>(b);
  });
  EXPECT_EQ(DrainAll(&sorter), expected);
  EXPECT_EQ(sorter.unsorted_queues(), 1u);
}

INSTANTIATE_TEST_SUITE_P(QueueCounts, PacketSorterMergeTest,
                         testing::Values(2u, 5u, PacketSorter::kScannedHeadsMax,
                                         PacketSorter::kScannedHeadsMax + 1, 40u));

TEST(PacketSorterTest, HintsTravelWithTheirEventsThroughSortAndMerge) {
  PacketSorter sorter(/*with_hints=*/true);
  // Queue 0 out of time order (sorted at Drain), queue 1 in order; the hint
  // of each event is its offset + 1000.
  sorter.Push(0, 30, 10, 1, 7, 1010);
  sorter.Push(0, 10, 20, 1, 7, 1020);
  sorter.Push(1, 20, 30, 1, 8, 1030);
  sorter.Push(0, 40, 40, 1, 9, 1040);
  std::vector<std::pair<uint64_t, uint64_t>> got;  // (offset, hint)
  sorter.Drain(
      [&](int64_t, uint64_t offset, uint64_t, uint32_t, uint64_t hint) {
        got.emplace_back(offset, hint);
      },
      [](uint64_t, uint64_t) {});
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{
                     {20, 1020}, {30, 1030}, {10, 1010}, {40, 1040}}));
}

TEST(PacketSorterTest, AHintTakesThePlaceOfTheSizeAndLargeEventsKeepTheirs) {
  PacketSorter sorter(/*with_hints=*/true);
  const uint64_t big = uint64_t{1} << 23;  // Too large to pack: spilled.
  sorter.Push(0, 10, 100, 7, 1, PacketSorter::kMaxHint);
  sorter.Push(0, 20, 200, 9, 1, 0);
  sorter.Push(0, 30, 300, big, 1, 5);
  sorter.Push(0, 40, 400, big + 1, 1, 0);
  std::vector<std::vector<uint64_t>> got;  // (offset, size, hint)
  sorter.Drain(
      [&](int64_t, uint64_t offset, uint64_t size, uint32_t, uint64_t hint) {
        got.push_back({offset, size, hint});
      },
      [](uint64_t, uint64_t) {});
  EXPECT_EQ(got, (std::vector<std::vector<uint64_t>>{{100, 0, PacketSorter::kMaxHint},
                                                      {200, 9, 0},
                                                      {300, 0, 5},
                                                      {400, big + 1, 0}}));
}

TEST(PacketSorterTest, AHintAboveTheMaximumIsRefused) {
  PacketSorter sorter(/*with_hints=*/true);
  EXPECT_DEATH(sorter.Push(0, 10, 100, 7, 1, PacketSorter::kMaxHint + 1), "");
}

}  // namespace
}  // namespace processor
}  // namespace zt
