#include "src/tracing/sdk/track_event_clock.h"

#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace zt {
namespace internal {

uint64_t BootTimeNs() {
  struct timespec ts = {};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

ZT_INITIAL_EXEC_TLS thread_local TrackEventClock::Anchor TrackEventClock::anchor_;

namespace {

constexpr uint64_t kCalibrationNs = 10 * 1000 * 1000;  // Before the first use.
constexpr uint64_t kMinAnchorNs = 1000 * 1000;
constexpr uint64_t kMaxAnchorNs = 1000 * 1000 * 1000;

bool HasInvariantTsc() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u)
    return false;
  if (!__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx))
    return false;
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

// The first clock pair: what the rate is measured from.
using Origin = ClockPair;

#if defined(__x86_64__)
uint64_t ReadTscForPair() { return TrackEventClock::ReadTsc(); }
Origin ReadTscClockPair() { return ReadClockPair(&ReadTscForPair, &BootTimeNs); }

const Origin& ProcessOrigin() {
  static const Origin origin = ReadTscClockPair();
  return origin;
}
#endif

}  // namespace

ClockPair ReadClockPair(uint64_t (*read_ticks)(), uint64_t (*read_ns)()) {
  ClockPair best{0, 0};
  uint64_t best_span = ~0ull;
  for (int attempt = 0; attempt < kClockPairAttempts; attempt++) {
    const uint64_t before = read_ticks();
    const uint64_t ns = read_ns();
    const uint64_t after = read_ticks();
    if (after - before < best_span) {
      best_span = after - before;
      best = ClockPair{before + (after - before) / 2, ns};
    }
    if (best_span <= kMaxClockPairSpanTicks)
      break;
  }
  return best;
}

bool TrackEventClock::UsesTimeStampCounter() {
  static const bool invariant = HasInvariantTsc();
  return invariant;
}

uint64_t TrackEventClock::NowSlow(Anchor& anchor, uint64_t ticks) {
#if defined(__x86_64__)
  (void)ticks;
  if (!UsesTimeStampCounter())
    return BootTimeNs();
  const Origin& origin = ProcessOrigin();
  const Origin now = ReadTscClockPair();
  const uint64_t elapsed_ns = now.ns - origin.ns;
  if (elapsed_ns < kCalibrationNs || now.ticks <= origin.ticks)
    return now.ns;  // Still measuring the rate: the anchor stays invalid.
  // Refine the rate over everything measured so far.
  const double ns_per_tick = static_cast<double>(elapsed_ns) /
                             static_cast<double>(now.ticks - origin.ticks);
  const uint64_t rate_q32 = static_cast<uint64_t>(ns_per_tick * 4294967296.0);
  uint64_t anchor_ns = elapsed_ns / 16;
  anchor_ns = anchor_ns < kMinAnchorNs ? kMinAnchorNs
              : anchor_ns > kMaxAnchorNs ? kMaxAnchorNs
                                         : anchor_ns;
  anchor.ticks = now.ticks;
  anchor.ns = now.ns;
  anchor.ns_per_tick_q32 = rate_q32;
  anchor.valid_ticks = static_cast<uint64_t>(static_cast<double>(anchor_ns) / ns_per_tick);
  return now.ns;
#else
  (void)anchor;
  (void)ticks;
  return BootTimeNs();
#endif
}

}  // namespace internal
}  // namespace zt
