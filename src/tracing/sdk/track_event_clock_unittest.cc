// ReadClockPair(): a pair read across an interruption is read again.

#include "src/tracing/sdk/track_event_clock.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace internal {
namespace {

// A counter that advances 100 ticks per read, plus each attempt's
// interruption between its two reads; the clock reads the attempt's number.
std::vector<uint64_t> g_interruptions;
uint64_t g_ticks = 0;
int g_attempt = 0;
bool g_after = false;

uint64_t FakeTicks() {
  g_ticks += 100;
  if (g_after) {
    const size_t i = static_cast<size_t>(g_attempt);
    g_ticks += i < g_interruptions.size() ? g_interruptions[i] : 0;
    g_attempt++;
  }
  g_after = !g_after;
  return g_ticks;
}
uint64_t FakeNs() { return 1000 + static_cast<uint64_t>(g_attempt); }

ClockPair ReadWith(std::vector<uint64_t> interruptions) {
  g_interruptions = std::move(interruptions);
  g_ticks = 0;
  g_attempt = 0;
  g_after = false;
  return ReadClockPair(&FakeTicks, &FakeNs);
}

TEST(TrackEventClockTest, APairReadAcrossAnInterruptionIsReadAgain) {
  // A signal handler of a few microseconds between the reads of the first
  // three attempts: the fourth, clean, is the pair.
  const ClockPair pair = ReadWith({5000, 8000, 3000});
  EXPECT_EQ(pair.ns, 1003u);
  EXPECT_EQ(g_attempt, 4);
  // Its ticks: the middle of its two reads.
  EXPECT_EQ(pair.ticks, g_ticks - 50);
}

TEST(TrackEventClockTest, ACleanPairIsTakenAtOnce) {
  const ClockPair pair = ReadWith({});
  EXPECT_EQ(pair.ns, 1000u);
  EXPECT_EQ(g_attempt, 1);
}

TEST(TrackEventClockTest, EveryAttemptInterruptedKeepsTheClosest) {
  std::vector<uint64_t> interruptions(kClockPairAttempts, 9000);
  interruptions[5] = kMaxClockPairSpanTicks;  // Still over the bound, the least.
  const ClockPair pair = ReadWith(interruptions);
  EXPECT_EQ(g_attempt, kClockPairAttempts);
  EXPECT_EQ(pair.ns, 1005u);
}

}  // namespace
}  // namespace internal
}  // namespace zt
