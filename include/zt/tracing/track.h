// Tracks: the timelines track events are drawn on. An event goes on its
// thread's track unless it names another one.
//
//   TRACE_EVENT_BEGIN("net", "request", zt::Track(request_id));  // async
//   TRACE_EVENT_INSTANT("gfx", "vsync", zt::ProcessTrack());
//   TRACE_COUNTER("mem", zt::CounterTrack("heap", "bytes"), heap_bytes);
//
// A track's uuid is derived from the ids given and from this process, so
// two processes using the same ids get distinct tracks. Its descriptor (name,
// parent, unit) is written once per sequence that uses it, and again after
// incremental state is cleared. Values are small and trivially copyable:
// pass them by value. Constructing one costs a few instructions (a name's
// hash is computed at compile time when the name is a literal).
//
// Cost of including: <stdint.h>.

#ifndef ZT_TRACING_TRACK_H_
#define ZT_TRACING_TRACK_H_

#include <stdint.h>

namespace zt {
namespace internal {

// This process's uuid, random per process (the base of every track uuid).
uint64_t ProcessUuid();

constexpr uint64_t HashName(const char* name) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bits.
  for (; *name != '\0'; name++) {
    hash ^= static_cast<uint8_t>(*name);
    hash *= 1099511628211ull;
  }
  return hash;
}

constexpr uint64_t MixUuid(uint64_t id, uint64_t parent) {
  uint64_t x = id ^ (parent * 0x9E3779B97F4A7C15ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 29);
}

}  // namespace internal

// A track of events that do not nest on a thread: async operations,
// per-object timelines. |id| distinguishes tracks of this process (e.g. a
// request id); |name| is shown in viewers (a string literal, or any string
// that outlives the session: it is written, not copied, when first used).
class Track {
 public:
  enum class Kind : uint8_t { kCustom, kProcess, kThread, kCounter, kState };

  explicit Track(uint64_t id, const char* name = nullptr)
      : Track(Kind::kCustom, id, name, 0) {}
  // A child of |parent| (viewers nest it under the parent).
  Track(uint64_t id, const char* name, const Track& parent)
      : Track(Kind::kCustom, id, name, parent.uuid()) {}

  // The uuid written into the trace (out of line: it mixes in this
  // process's uuid, or this thread's id for ThreadTrack).
  uint64_t uuid() const;
  Kind kind() const { return kind_; }
  uint64_t id() const { return id_; }
  const char* name() const { return name_; }
  uint64_t parent_uuid() const { return parent_uuid_; }

 protected:
  Track(Kind kind, uint64_t id, const char* name, uint64_t parent_uuid)
      : kind_(kind), id_(id), name_(name), parent_uuid_(parent_uuid) {}

 private:
  Kind kind_;
  uint64_t id_;
  const char* name_;
  uint64_t parent_uuid_;  // 0: the process track.
};

// The process's own track (process-wide instants, process-scoped async
// slices).
class ProcessTrack : public Track {
 public:
  ProcessTrack() : Track(Kind::kProcess, 0, nullptr, 0) {}
  static ProcessTrack Current() { return ProcessTrack(); }
};

// The calling thread's track: where events go by default.
class ThreadTrack : public Track {
 public:
  ThreadTrack() : Track(Kind::kThread, 0, nullptr, 0) {}
  static ThreadTrack Current() { return ThreadTrack(); }
};

// A counter: values over time, drawn as a graph. |unit| is free text shown
// with the values ("bytes", "ms", "%"); null for none.
class CounterTrack : public Track {
 public:
  explicit CounterTrack(const char* counter_name, const char* counter_unit = nullptr)
      : Track(Kind::kCounter, 0, counter_name, 0),  // uuid(): from the name.
        unit_(counter_unit) {}
  const char* unit() const { return unit_; }

 private:
  const char* unit_;
};

// A state track: a named state over time ("idle", "connecting", ...),
// drawn as a strip of labelled spans, one track per name (and |id|, for
// several tracks of one name). TRACE_STATE sets its state. Readers from
// Perfetto v57 on show it; older ones skip its events.
class StateTrack : public Track {
 public:
  explicit StateTrack(const char* state_name, uint64_t id = 0)
      : Track(Kind::kState, internal::HashName(state_name) ^ id, state_name, 0) {}
};

}  // namespace zt

#endif  // ZT_TRACING_TRACK_H_
