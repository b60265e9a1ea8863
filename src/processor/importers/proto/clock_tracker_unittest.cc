#include "src/processor/importers/proto/clock_tracker.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

using Status = ClockTracker::SnapshotStatus;

constexpr ClockId kRealtime = 1;
constexpr ClockId kMonotonic = 3;
constexpr ClockId kMonotonicRaw = 5;
constexpr ClockId kBoot = ClockTracker::kBootTime;

TEST(ClockTrackerTest, TraceClockIsIdentityWithoutSnapshots) {
  ClockTracker clocks;
  EXPECT_EQ(clocks.trace_clock(), kBoot);
  EXPECT_EQ(clocks.ToTraceTime(kBoot, 42), std::optional<int64_t>(42));
  EXPECT_EQ(clocks.ToTraceTime(kBoot, -7), std::optional<int64_t>(-7));
  EXPECT_EQ(clocks.conversion_failures(), 0u);
}

TEST(ClockTrackerTest, OneHop) {
  ClockTracker clocks;
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 1000}, {kMonotonic, 400}}),
            Status::kOk);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 400), 1000);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 450), 1050);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 1000000), 1000600);
  EXPECT_EQ(clocks.ToTraceTime(kBoot, 5), 5);
  EXPECT_EQ(clocks.conversion_failures(), 0u);
}

TEST(ClockTrackerTest, TwoHops) {
  ClockTracker clocks;
  // REALTIME meets BOOTTIME only through MONOTONIC.
  ASSERT_EQ(clocks.AddSnapshot({{kRealtime, 10000}, {kMonotonic, 100}}),
            Status::kOk);
  ASSERT_EQ(clocks.AddSnapshot({{kMonotonic, 200}, {kBoot, 1200}}),
            Status::kOk);
  // REALTIME 10050 -> MONOTONIC 150 -> (first snapshot: 150 < 200) BOOT 1150.
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 10050), 1150);
  // REALTIME 10300 -> MONOTONIC 400 -> BOOT 1400.
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 10300), 1400);
  // Again, from the cached route.
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 10301), 1401);
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 10050), 1150);
}

TEST(ClockTrackerTest, ThreeHopsAndShortcut) {
  ClockTracker clocks;
  clocks.AddSnapshot({{kRealtime, 0}, {kMonotonicRaw, 10}});
  clocks.AddSnapshot({{kMonotonicRaw, 10}, {kMonotonic, 20}});
  clocks.AddSnapshot({{kMonotonic, 20}, {kBoot, 40}});
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 5), 45);
  // A direct snapshot makes a one-hop path: it wins from then on.
  clocks.AddSnapshot({{kRealtime, 100}, {kBoot, 1000}});
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 105), 1005);
  // Before that snapshot the one hop uses it too (the first of its edge).
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 5), 905);
}

TEST(ClockTrackerTest, TimestampBeforeFirstSnapshotUsesFirst) {
  ClockTracker clocks;
  clocks.AddSnapshot({{kBoot, 1000}, {kMonotonic, 500}});
  clocks.AddSnapshot({{kBoot, 3000}, {kMonotonic, 2000}});
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 100), 600);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, -500), 0);
}

TEST(ClockTrackerTest, PicksLatestSnapshotAtOrBefore) {
  ClockTracker clocks;
  // Snapshot k: MONOTONIC = 1000 k, BOOT = 1000 k + 7 k (drifting offset).
  for (int64_t k = 0; k < 50; ++k)
    ASSERT_EQ(clocks.AddSnapshot({{kMonotonic, 1000 * k}, {kBoot, 1007 * k}}),
              Status::kOk);
  auto expected = [](int64_t ts) {
    int64_t k = ts / 1000;
    if (k > 49)
      k = 49;
    return ts + 7 * k;
  };
  // Exactly at a snapshot, between, at its end, after the last one.
  for (int64_t ts :
       {0, 1, 999, 1000, 1001, 25000, 25999, 48999, 49000, 49500, 100000}) {
    EXPECT_EQ(clocks.ToTraceTime(kMonotonic, ts), expected(ts)) << ts;
  }
  // Random order (binary search), then monotonic order (the hint).
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; ++i) {
    const int64_t ts = static_cast<int64_t>(rng() % 60000);
    ASSERT_EQ(clocks.ToTraceTime(kMonotonic, ts), expected(ts)) << ts;
  }
  for (int64_t ts = 0; ts < 60000; ts += 37)
    ASSERT_EQ(clocks.ToTraceTime(kMonotonic, ts), expected(ts)) << ts;
  EXPECT_EQ(clocks.conversion_failures(), 0u);
}

TEST(ClockTrackerTest, EqualValuesUseTheLaterSnapshot) {
  ClockTracker clocks;
  clocks.AddSnapshot({{kMonotonic, 100}, {kBoot, 1000}});
  clocks.AddSnapshot({{kMonotonic, 100}, {kBoot, 1005}});
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 100), 1005);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 99), 999);
}

TEST(ClockTrackerTest, NewSnapshotRefreshesCachedRange) {
  ClockTracker clocks;
  clocks.AddSnapshot({{kMonotonic, 0}, {kBoot, 100}});
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 5000), 5100);
  clocks.AddSnapshot({{kMonotonic, 1000}, {kBoot, 2000}});
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 5000), 6000);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 500), 600);
}

TEST(ClockTrackerTest, SequenceScopedIdsOfTwoSequencesDoNotClash) {
  EXPECT_TRUE(ClockTracker::IsSequenceScoped(64));
  EXPECT_TRUE(ClockTracker::IsSequenceScoped(127));
  EXPECT_FALSE(ClockTracker::IsSequenceScoped(63));
  EXPECT_FALSE(ClockTracker::IsSequenceScoped(128));
  EXPECT_EQ(ClockTracker::SequenceScopedClockId(1, 6), 6u);
  EXPECT_EQ(ClockTracker::SequenceScopedClockId(1, 200), 200u);
  const ClockId seq1 = ClockTracker::SequenceScopedClockId(1, 64);
  const ClockId seq2 = ClockTracker::SequenceScopedClockId(2, 64);
  EXPECT_NE(seq1, seq2);
  EXPECT_EQ(seq1, (uint64_t{1} << 32) | 64);

  ClockTracker clocks;
  clocks.AddSnapshot({{kBoot, 1000}, {seq1, 0}});
  clocks.AddSnapshot({{kBoot, 5000}, {seq2, 0}});
  EXPECT_EQ(clocks.ToTraceTime(seq1, 10), 1010);
  EXPECT_EQ(clocks.ToTraceTime(seq2, 10), 5010);
  EXPECT_EQ(clocks.ToTraceTime(seq1, 20), 1020);
  // The raw id is not a clock of its own.
  EXPECT_EQ(clocks.ToTraceTime(64, 10), std::nullopt);
}

TEST(ClockTrackerTest, DuplicateClockRefusedWhole) {
  ClockTracker clocks;
  EXPECT_EQ(clocks.AddSnapshot({{kMonotonic, 1}, {kBoot, 2}, {kMonotonic, 3}}),
            Status::kDuplicateClock);
  EXPECT_EQ(clocks.invalid_snapshots(), 1u);
  // Nothing of it was kept: no path.
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 1), std::nullopt);
  EXPECT_EQ(clocks.AddSnapshot({}), Status::kEmpty);
  EXPECT_EQ(clocks.invalid_snapshots(), 1u);
}

TEST(ClockTrackerTest, TraceClockGoingBackRefused) {
  ClockTracker clocks;
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 1000}, {kMonotonic, 100}}),
            Status::kOk);
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 999}, {kMonotonic, 200}}),
            Status::kTraceClockWentBack);
  EXPECT_EQ(clocks.invalid_snapshots(), 1u);
  // Refused whole: MONOTONIC 200 was not recorded either.
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 300), 1200);
  EXPECT_FALSE(clocks.IsNonMonotonic(kMonotonic));
  // Equal values are not going back.
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 1000}, {kMonotonic, 150}}),
            Status::kOk);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 300), 1150);
}

// Each writer snapshots its own clocks with BOOTTIME; the file holds the
// snapshots in the order they were read out, so a later sequence's snapshot
// may carry an earlier BOOTTIME. That is not the trace clock going back.
TEST(ClockTrackerTest, SnapshotsOfOtherSetsMayComeOutOfOrder) {
  ClockTracker clocks;
  const ClockId seq_a = ClockTracker::SequenceScopedClockId(1, 64);
  const ClockId seq_b = ClockTracker::SequenceScopedClockId(2, 64);
  const ClockId shared = kMonotonic;
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 2000}, {seq_a, 2000}, {shared, 20}}), Status::kOk);
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 1000}, {seq_b, 1000}, {shared, 10}}), Status::kOk);
  EXPECT_EQ(clocks.invalid_snapshots(), 0u);
  EXPECT_EQ(clocks.ToTraceTime(seq_a, 2500), 2500);
  EXPECT_EQ(clocks.ToTraceTime(seq_b, 1500), 1500);
  // The shared pair (BOOTTIME, MONOTONIC) got its points out of order; the
  // series stays sorted, so each time converts through its own point.
  EXPECT_EQ(clocks.ToTraceTime(shared, 15), 1005);
  EXPECT_EQ(clocks.ToTraceTime(shared, 25), 2005);
  EXPECT_FALSE(clocks.IsNonMonotonic(shared));
}

// Two sequences' own snapshots (BOOTTIME with each one's clock 64) in file
// order, which is not time order across sequences: the service stores a
// sequence that started later (a thread that exited early) before one that
// started earlier. Each is in order within its set of clocks: both count.
TEST(ClockTrackerTest, TraceClockMayGoBackAcrossSetsOfClocks) {
  ClockTracker clocks;
  const ClockId seq_a = ClockTracker::SequenceScopedClockId(7, 64);
  const ClockId seq_b = ClockTracker::SequenceScopedClockId(8, 64);
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 2000}, {seq_a, 500}}), Status::kOk);
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 1000}, {seq_b, 100}}), Status::kOk);
  EXPECT_EQ(clocks.invalid_snapshots(), 0u);
  EXPECT_EQ(clocks.ToTraceTime(seq_a, 510), 2010);
  EXPECT_EQ(clocks.ToTraceTime(seq_b, 150), 1050);
  // Within one set the rule holds.
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 999}, {seq_b, 200}}), Status::kTraceClockWentBack);
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 2500}, {seq_b, 300}}), Status::kOk);
  EXPECT_EQ(clocks.ToTraceTime(seq_b, 310), 2510);
  EXPECT_EQ(clocks.ToTraceTime(seq_a, 520), 2020);
}

TEST(ClockTrackerTest, OtherClockGoingBackCannotBeConvertedFrom) {
  ClockTracker clocks;
  clocks.AddSnapshot({{kBoot, 1000}, {kRealtime, 5000}});
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 5010), 1010);
  // REALTIME steps back an hour: accepted, but REALTIME is no source now.
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 2000}, {kRealtime, 10}}), Status::kOk);
  EXPECT_EQ(clocks.invalid_snapshots(), 0u);
  EXPECT_TRUE(clocks.IsNonMonotonic(kRealtime));
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 5010), std::nullopt);
  EXPECT_EQ(clocks.conversion_failures(), 1u);
}

TEST(ClockTrackerTest, NoPathIsNulloptAndCounted) {
  ClockTracker clocks;
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 1), std::nullopt);
  // Known clocks, but not connected to BOOTTIME.
  clocks.AddSnapshot({{kMonotonic, 1}, {kRealtime, 2}});
  clocks.AddSnapshot({{kMonotonicRaw, 5}});
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 1), std::nullopt);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonicRaw, 1), std::nullopt);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 2), std::nullopt);
  EXPECT_EQ(clocks.conversion_failures(), 4u);
  // A later snapshot joins them.
  clocks.AddSnapshot({{kRealtime, 12}, {kBoot, 100}});
  // MONOTONIC 1 -> REALTIME 2 -> BOOTTIME 100 + (2 - 12).
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 1), 90);
  EXPECT_EQ(clocks.conversion_failures(), 4u);
}

TEST(ClockTrackerTest, TraceClockChange) {
  ClockTracker clocks;
  EXPECT_FALSE(clocks.SetTraceClock(64));  // Unmapped sequence-scoped id.
  clocks.AddSnapshot({{kBoot, 1000}, {kMonotonic, 100}});
  ASSERT_TRUE(clocks.SetTraceClock(kMonotonic));
  EXPECT_EQ(clocks.trace_clock(), kMonotonic);
  EXPECT_EQ(clocks.ToTraceTime(kBoot, 1500), 600);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 7), 7);
  // After a conversion: the same clock is fine, another is refused.
  EXPECT_TRUE(clocks.SetTraceClock(kMonotonic));
  EXPECT_FALSE(clocks.SetTraceClock(kBoot));
  EXPECT_EQ(clocks.trace_clock(), kMonotonic);
  // The going-back rule now guards MONOTONIC, not BOOTTIME.
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 900}, {kMonotonic, 200}}), Status::kOk);
  EXPECT_EQ(clocks.AddSnapshot({{kBoot, 3000}, {kMonotonic, 150}}),
            Status::kTraceClockWentBack);
}

TEST(ClockTrackerTest, IdentityConversionAlsoFreezesTraceClock) {
  ClockTracker clocks;
  EXPECT_EQ(clocks.ToTraceTime(kBoot, 1), 1);
  EXPECT_FALSE(clocks.SetTraceClock(kMonotonic));
}

TEST(ClockTrackerTest, SnapshotOfManyClocksLinksEveryPair) {
  ClockTracker clocks;
  clocks.AddSnapshot({{kRealtime, 100},
                      {kMonotonic, 200},
                      {kMonotonicRaw, 300},
                      {kBoot, 400}});
  EXPECT_EQ(clocks.ToTraceTime(kRealtime, 110), 410);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonic, 210), 410);
  EXPECT_EQ(clocks.ToTraceTime(kMonotonicRaw, 310), 410);
  ASSERT_TRUE(clocks.SetTraceClock(kBoot));
}

TEST(ClockTrackerTest, ExtremeValuesDoNotCrash) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  ClockTracker clocks;
  clocks.AddSnapshot({{kMonotonic, kMin}, {kBoot, kMax}});
  clocks.AddSnapshot({{kMonotonic, kMax}, {kBoot, kMax}});
  EXPECT_TRUE(clocks.ToTraceTime(kMonotonic, 0).has_value());
  EXPECT_TRUE(clocks.ToTraceTime(kMonotonic, kMax).has_value());
  EXPECT_TRUE(clocks.ToTraceTime(kMonotonic, kMin).has_value());
}

// Random snapshots over a tree of clocks (so the path is unique) against a
// direct reading of the contract: linear scans, no caches. Queries mix
// monotonic runs (the hint and the cached range) with random jumps.
TEST(ClockTrackerTest, MatchesReferenceOnRandomTree) {
  struct RefEdge {
    ClockId child, parent;
    std::vector<std::pair<int64_t, int64_t>> points;  // (child, parent).
  };
  // 7 -> 1 -> 3 -> 6 (three hops), 5 -> 6.
  std::vector<RefEdge> tree = {
      {3, kBoot, {}}, {1, 3, {}}, {5, kBoot, {}}, {7, 1, {}}};
  auto reference = [&](ClockId clock, int64_t ts) -> std::optional<int64_t> {
    while (clock != kBoot) {
      const RefEdge* up = nullptr;
      for (const RefEdge& edge : tree)
        if (edge.child == clock)
          up = &edge;
      if (up->points.empty())
        return std::nullopt;
      size_t k = 0;
      for (size_t i = 0; i < up->points.size(); ++i)
        if (up->points[i].first <= ts)
          k = i;
      ts = up->points[k].second + (ts - up->points[k].first);
      clock = up->parent;
    }
    return ts;
  };

  std::mt19937_64 rng(7);
  std::map<ClockId, int64_t> now = {
      {kBoot, 0}, {1, 500000}, {3, -300}, {5, 7}, {7, 1000}};
  ClockTracker clocks;
  int64_t cursor = 0;
  ClockId source = 7;
  for (int step = 0; step < 20000; ++step) {
    const uint64_t r = rng() % 100;
    if (r < 3) {
      RefEdge& edge = tree[rng() % tree.size()];
      now[edge.child] += static_cast<int64_t>(rng() % 1000);
      now[edge.parent] += static_cast<int64_t>(rng() % 1000);
      edge.points.emplace_back(now[edge.child], now[edge.parent]);
      ASSERT_EQ(clocks.AddSnapshot({{edge.child, now[edge.child]},
                                    {edge.parent, now[edge.parent]}}),
                Status::kOk);
      continue;
    }
    if (r < 8) {
      const ClockId sources[] = {1, 3, 5, 7};
      source = sources[rng() % 4];
      cursor = now[source] - 5000 + static_cast<int64_t>(rng() % 10000);
    } else {
      cursor += static_cast<int64_t>(rng() % 300);
    }
    ASSERT_EQ(clocks.ToTraceTime(source, cursor), reference(source, cursor))
        << "step " << step << " clock " << source << " ts " << cursor;
  }
}

TEST(ClockTrackerTest, LastRangeConvertsLikeToTraceTimeUntilTheEpochChanges) {
  ClockTracker clocks;
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 1000}, {kMonotonic, 400}}), Status::kOk);
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 2000}, {kMonotonic, 1300}}), Status::kOk);
  ClockTracker::Range range;
  EXPECT_FALSE(clocks.LastRange(kMonotonic, &range));  // Nothing converted yet.
  ASSERT_EQ(clocks.ToTraceTime(kMonotonic, 500), 1100);
  ASSERT_TRUE(clocks.LastRange(kMonotonic, &range));
  ClockTracker::Range other;
  EXPECT_FALSE(clocks.LastRange(kRealtime, &other));  // Not the last one converted.
  // The first snapshot serves everything before the second one's value.
  EXPECT_EQ(range.end, 1300);
  for (int64_t ts : {int64_t{-5}, int64_t{0}, int64_t{900}, range.end - 1})
    EXPECT_EQ(clocks.ToTraceTime(kMonotonic, ts), ts + range.offset) << ts;
  EXPECT_EQ(range.epoch, clocks.epoch());
  // The trace clock converts to itself everywhere.
  ASSERT_TRUE(clocks.LastRange(kBoot, &range));
  EXPECT_EQ(range.offset, 0);
  const uint64_t before = clocks.epoch();
  ASSERT_EQ(clocks.AddSnapshot({{kBoot, 3000}, {kMonotonic, 2000}}), Status::kOk);
  EXPECT_NE(clocks.epoch(), before);
}

}  // namespace
}  // namespace processor
}  // namespace zt
