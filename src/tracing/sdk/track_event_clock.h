// The clock of track event timestamps: BOOTTIME nanoseconds, read through
// the CPU's time-stamp counter where it is invariant (about 11 ns here
// instead of 27 ns for clock_gettime(CLOCK_BOOTTIME) through the vDSO; a
// slice reads the clock twice).
//
// How: each thread keeps an anchor (a counter value and the BOOTTIME read
// with it) and converts counter ticks since the anchor with a process-wide
// rate (ns per tick, fixed point). The anchor is renewed when it grows old:
// every 1/16 of the time the rate has been measured over, at least 1 ms
// apart and at most 1 s, so the error against BOOTTIME stays a small
// fraction of the time between two reads of the clock pair (tens of ns),
// whatever the rate's error. The rate is refined at each renewal. The
// first 10 ms after the first read use clock_gettime directly, while the
// rate is measured. Without an invariant counter (or off x86-64), every
// read is clock_gettime(CLOCK_BOOTTIME).
//
// Values from two threads are comparable to within that error; a thread's
// values never go back as long as its anchor is not renewed (the writer
// clamps across renewals: see TrackEventSequence). Thread-safe.

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_CLOCK_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_CLOCK_H_

#include <cstdint>

#include "zt/base/compiler.h"


namespace zt {
namespace internal {

uint64_t BootTimeNs();

// A (counter ticks, BOOTTIME ns) pair read together: the ticks the
// midpoint of two counter reads around the clock's. A signal handler or a
// preemption between the reads would skew the pair by its whole length
// (microseconds: readers would see events out of order), so a pair whose
// reads are more than kMaxClockPairSpanTicks apart (a clean one is about a
// hundred: the clock read through the vDSO) is read again, up to
// kClockPairAttempts times, and the closest kept. The readers are
// parameters for tests.
struct ClockPair {
  uint64_t ticks;
  uint64_t ns;
};
constexpr uint64_t kMaxClockPairSpanTicks = 2000;  // Under 1 us from 2 GHz on.
constexpr int kClockPairAttempts = 8;
ClockPair ReadClockPair(uint64_t (*read_ticks)(), uint64_t (*read_ns)());

class TrackEventClock {
 public:
#if defined(__x86_64__)
  __extension__ typedef unsigned __int128 Uint128;
#endif

#if defined(__x86_64__)
  // The time-stamp counter: the compiler's builtin (GCC and clang), which
  // is what <x86intrin.h>'s __rdtsc() calls. That header declares every
  // SIMD intrinsic: 55,000 lines, half of the preprocessed track-event
  // unit and about 0.5 s of CPU of its compile.
  static uint64_t ReadTsc() { return __builtin_ia32_rdtsc(); }
#endif

  // Each thread's anchor: the SDK's own thread-local (initial-exec, for
  // its hot path in executables), or one a caller keeps in a thread-local
  // of its own (the C ABI's, so that its shared object needs no static TLS).
  struct Anchor {
    uint64_t ticks = 0;
    uint64_t ns = 0;
    uint64_t ns_per_tick_q32 = 0;  // 32.32 fixed point.
    uint64_t valid_ticks = 0;      // 0: renew at the next read.
  };

  static uint64_t NowNs() { return NowNs(anchor_); }
  static uint64_t NowNs(Anchor& anchor) {
#if defined(__x86_64__)
    const uint64_t ticks = ReadTsc();
    if (ZT_LIKELY(ticks - anchor.ticks < anchor.valid_ticks)) {
      return anchor.ns + static_cast<uint64_t>(
                             (static_cast<Uint128>(ticks - anchor.ticks) *
                              anchor.ns_per_tick_q32) >> 32);
    }
    return NowSlow(anchor, ticks);
#else
    (void)anchor;
    return BootTimeNs();
#endif
  }

  // NowNs() when that is only a conversion with the thread's anchor (the
  // common case): sets *now and returns true. False when NowNs() would
  // renew the anchor or read clock_gettime: call it then. For paths that
  // must not make calls.
  static bool TryNowNs(uint64_t* now) { return TryNowNs(anchor_, now); }
  static bool TryNowNs(const Anchor& anchor, uint64_t* now) {
#if defined(__x86_64__)
    const uint64_t ticks = ReadTsc();
    if (ZT_LIKELY(ticks - anchor.ticks < anchor.valid_ticks)) {
      *now = anchor.ns + static_cast<uint64_t>(
                             (static_cast<Uint128>(ticks - anchor.ticks) *
                              anchor.ns_per_tick_q32) >> 32);
      return true;
    }
    return false;
#else
    (void)anchor;
    *now = BootTimeNs();
    return true;
#endif
  }

  // Whether NowNs() reads the time-stamp counter (false: clock_gettime).
  static bool UsesTimeStampCounter();

 private:
  static uint64_t NowSlow(Anchor& anchor, uint64_t ticks);
  ZT_INITIAL_EXEC_TLS static thread_local Anchor anchor_;
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_CLOCK_H_
