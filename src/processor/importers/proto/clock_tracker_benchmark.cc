// Clock conversion cost: the processor converts the timestamp of every
// packet (tens of millions per trace) to the trace clock, so the common
// case, monotonic timestamps of one clock one hop away from BOOTTIME, must
// cost a few nanoseconds (docs/design/trace_processor.md, "Clocks").
//
// BM_ToTraceTimeMonotonic converts 1M increasing timestamps spread over 100
// snapshots (so about 1% of the calls cross into the next snapshot);
// BM_ToTraceTimeRandom the same timestamps in random order (a binary search
// each time), BM_ToTraceTimeTwoSequences alternates two source clocks (the
// per-source route lookup).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "src/processor/importers/proto/clock_tracker.h"

namespace {

using zt::processor::ClockId;
using zt::processor::ClockTracker;

constexpr ClockId kMonotonic = 3;
constexpr int64_t kSnapshots = 100;
constexpr int64_t kConversions = 1000000;
constexpr int64_t kSpanNs = 10000000000;  // 10 s of trace.

void AddSnapshots(ClockTracker* clocks, ClockId source) {
  for (int64_t k = 0; k < kSnapshots; ++k) {
    const int64_t mono = k * (kSpanNs / kSnapshots);
    // BOOTTIME runs ahead by a second and drifts by 1 us per snapshot.
    if (clocks->AddSnapshot(
            {{ClockTracker::kBootTime, mono + 1000000000 + k * 1000},
             {source, mono}}) != ClockTracker::SnapshotStatus::kOk)
      abort();
  }
}

std::vector<int64_t> MonotonicTimestamps() {
  std::vector<int64_t> ts(kConversions);
  for (int64_t i = 0; i < kConversions; ++i)
    ts[static_cast<size_t>(i)] = i * (kSpanNs / kConversions);
  return ts;
}

int64_t ConvertAll(ClockTracker* clocks, ClockId source,
                   const std::vector<int64_t>& ts) {
  int64_t sum = 0;
  for (int64_t t : ts) {
    std::optional<int64_t> converted = clocks->ToTraceTime(source, t);
    sum += converted ? *converted : 0;
  }
  return sum;
}

void BM_ToTraceTimeMonotonic(benchmark::State& state) {
  ClockTracker clocks;
  AddSnapshots(&clocks, kMonotonic);
  const std::vector<int64_t> ts = MonotonicTimestamps();
  for (auto _ : state)
    benchmark::DoNotOptimize(ConvertAll(&clocks, kMonotonic, ts));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          kConversions);
  if (clocks.conversion_failures() != 0)
    state.SkipWithError("conversions failed");
}
BENCHMARK(BM_ToTraceTimeMonotonic)->Unit(benchmark::kMillisecond);

void BM_ToTraceTimeRandom(benchmark::State& state) {
  ClockTracker clocks;
  AddSnapshots(&clocks, kMonotonic);
  std::vector<int64_t> ts = MonotonicTimestamps();
  std::shuffle(ts.begin(), ts.end(), std::mt19937_64(1));
  for (auto _ : state)
    benchmark::DoNotOptimize(ConvertAll(&clocks, kMonotonic, ts));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          kConversions);
}
BENCHMARK(BM_ToTraceTimeRandom)->Unit(benchmark::kMillisecond);

void BM_ToTraceTimeTwoSequences(benchmark::State& state) {
  const ClockId seq1 = ClockTracker::SequenceScopedClockId(1, 64);
  const ClockId seq2 = ClockTracker::SequenceScopedClockId(2, 64);
  ClockTracker both;
  for (int64_t k = 0; k < kSnapshots; ++k) {
    const int64_t mono = k * (kSpanNs / kSnapshots);
    both.AddSnapshot(
        {{ClockTracker::kBootTime, mono + 1000000000}, {seq1, mono}});
    both.AddSnapshot(
        {{ClockTracker::kBootTime, mono + 1000000000}, {seq2, mono}});
  }
  const std::vector<int64_t> ts = MonotonicTimestamps();
  for (auto _ : state) {
    int64_t sum = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
      std::optional<int64_t> converted =
          both.ToTraceTime((i & 1) ? seq2 : seq1, ts[i]);
      sum += converted ? *converted : 0;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          kConversions);
}
BENCHMARK(BM_ToTraceTimeTwoSequences)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
