// Track events: slices, instants and counters on timelines, written in
// Perfetto's TrackEvent format.
//
//   #include "zt/tracing/track_event.h"
//   #include "mylib/trace_categories.h"  // ZT_DECLARE_CATEGORIES (category.h)
//
//   void Draw() {
//     TRACE_EVENT("gfx", "Draw");                  // A slice until scope end.
//     TRACE_EVENT_INSTANT("gfx", "Frame", "id", frame_id);
//     TRACE_COUNTER("gfx", zt::CounterTrack("fps"), fps);
//   }
//
// Sessions record them with a data source named "track_event" (registered
// by Tracing::Initialize); its TrackEventConfig picks the categories.
//
// Arguments after the name, all optional, in this order:
//   * a track (zt/tracing/track.h); default: the calling thread's;
//   * a timestamp (zt::TraceTimestamp{ns}, or a uint64_t, in ns on the
//     BOOTTIME clock); default: now;
//   * any number of: "key", value debug annotations (integers, bool,
//     double, const char*, std::string and anything with data()/size(),
//     pointers, and dictionaries and arrays written by a callable taking a
//     zt::TracedValue: zt/tracing/traced_value.h); zt::Flow /
//     zt::TerminatingFlow; a callable taking zt::EventContext& to write
//     typed fields (zt/tracing/track_event_args.h).
// Names: a string literal (interned: written once per sequence, then as a
// small id), zt::StaticString for a const char* that outlives the session,
// or zt::DynamicString for anything else (copied into each event).
//
// Costs. Disabled (no session records the category): one relaxed load of a
// byte and a branch at the call site; arguments are not evaluated. Enabled:
// one out-of-line call per event, which writes straight into the shared
// memory buffer; it allocates only for a thread's first event in a session
// (and when new names grow its intern tables). A call site with up to four
// annotations whose name and keys are literals spelled in the macro keeps
// them in a small table of its own (read-only data: 8 bytes and the
// names) and passes its address, not each literal's
// (zt/tracing/internal/track_event_site.h). Figures: docs/benchmarks.md.
//
// Thread-safety: any thread, any time, including while sessions start and
// stop. Not from a signal handler.
//
// Cost of including: <stddef.h>, <stdint.h> and ~2,000 lines of ours
// (preprocessed; docs/benchmarks.md, "header cost").

#ifndef ZT_TRACING_TRACK_EVENT_H_
#define ZT_TRACING_TRACK_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/base/compiler.h"
#include "zt/tracing/category.h"
#include "zt/tracing/internal/track_event_internal.h"
#include "zt/tracing/track.h"
#include "zt/tracing/track_event_args.h"

// The macros take the category, then (but for TRACE_EVENT_END) a name,
// then the optional arguments above. Written with __VA_ARGS__ only, so that
// they compile warning-free with -Wpedantic in C++17.

// A slice from here to the end of the enclosing scope.
#define TRACE_EVENT(category, ...)                                \
  ::zt::internal::ScopedSlice ZT_INTERNAL_CONCAT(zt_internal_scoped_, \
                                                 __COUNTER__)(        \
      ZT_INTERNAL_TRACK_EVENT_BEGIN_(category, __VA_ARGS__))

// A slice begun here, ended by TRACE_EVENT_END on the same track (the
// thread's unless a track is given; then give the same track to the end).
#define TRACE_EVENT_BEGIN(category, ...) \
  ((void)ZT_INTERNAL_TRACK_EVENT_BEGIN_(category, __VA_ARGS__))

// TRACE_EVENT_END(category[, track][, timestamp][, arguments...]).
#define TRACE_EVENT_END(...)                                                \
  ZT_INTERNAL_TRACK_EVENT_(EmitSliceEnd, ZT_INTERNAL_FIRST_(__VA_ARGS__), \
                           __VA_ARGS__)

// A zero-duration event.
#define TRACE_EVENT_INSTANT(category, ...)                                     \
  ZT_INTERNAL_TRACK_EVENT_SITE_(                                               \
      ZT_INTERNAL_CONCAT(zt_internal_category_, __COUNTER__),                  \
      ZT_INTERNAL_CONCAT(zt_internal_instances_, __COUNTER__), category, category, \
      __VA_ARGS__)

// TRACE_STATE(category, track, state[, timestamp][, arguments...]): sets
// the state of |track| (a zt::StateTrack or a string literal naming one)
// to |state|, a name as for events; nullptr returns it to "no state".
#define TRACE_STATE(category, ...) \
  ZT_INTERNAL_TRACK_EVENT_(EmitState, category, category, __VA_ARGS__)

// TRACE_COUNTER(category, track, value[, timestamp]): |track| is a
// zt::CounterTrack or a string literal naming one; |value| an integer or a
// floating-point number.
#define TRACE_COUNTER(category, ...) \
  ZT_INTERNAL_TRACK_EVENT_(EmitCounter, category, category, __VA_ARGS__)

// The enclosing function's name as a slice (its full signature with
// TRACE_FUNCTION_SIGNATURE, written inline: long template names cost
// bytes per event).
// (The name is read here, outside the macros' lambda, whose own name
// __func__ would otherwise be.)
#define TRACE_FUNCTION(category)               \
  ZT_INTERNAL_TRACE_FUNCTION_(category, __func__, \
                              ZT_INTERNAL_CONCAT(zt_internal_function_, __COUNTER__))
#define TRACE_FUNCTION_SIGNATURE(category)                \
  ZT_INTERNAL_TRACE_FUNCTION_(category, __PRETTY_FUNCTION__, \
                              ZT_INTERNAL_CONCAT(zt_internal_function_, __COUNTER__))
#define ZT_INTERNAL_TRACE_FUNCTION_(category, function_name, variable) \
  const char* const variable = function_name;                          \
  TRACE_EVENT(category, ::zt::StaticString{variable})

// Whether any session records |category| now.
#define TRACE_EVENT_CATEGORY_ENABLED(category)                          \
  (::zt::internal::CategoryInstances(ZT_INTERNAL_CATEGORY_ID(category), \
                                     category) != 0)

// Internals. The category check is inline; everything else is out of line.
#define ZT_INTERNAL_FIRST_(...) ZT_INTERNAL_FIRST_HELPER_(__VA_ARGS__, unused)
#define ZT_INTERNAL_FIRST_HELPER_(first, ...) first

// |emit| gets the category's id and instances, then the macro's arguments.
// The locals' names are unique per expansion: a macro in a callback passed
// to another would otherwise shadow the outer one's (-Wshadow).
#define ZT_INTERNAL_TRACK_EVENT_(emit, category, ...)                      \
  ZT_INTERNAL_TRACK_EVENT_NAMED_(                                          \
      ZT_INTERNAL_CONCAT(zt_internal_category_, __COUNTER__),              \
      ZT_INTERNAL_CONCAT(zt_internal_instances_, __COUNTER__), emit, category, \
      __VA_ARGS__)
#define ZT_INTERNAL_TRACK_EVENT_NAMED_(id, instances, emit, category, ...)         \
  do {                                                                             \
    constexpr uint32_t id = ZT_INTERNAL_CATEGORY_ID(category);                     \
    const uint8_t instances = ::zt::internal::CategoryInstances(id, category);     \
    if (ZT_UNLIKELY(instances != 0))                                               \
      ::zt::internal::emit(id, instances, __VA_ARGS__);                            \
  } while (0)

// The same for an instant, which also passes the site's spelling of its
// arguments (from the category on) and its category id, for the table that
// holds its literal name and keys (zt/tracing/internal/track_event_site.h).
#define ZT_INTERNAL_TRACK_EVENT_SITE_(id, instances, category, ...)                  \
  do {                                                                               \
    constexpr uint32_t id = ZT_INTERNAL_CATEGORY_ID(category);                       \
    const uint8_t instances = ::zt::internal::CategoryInstances(id, category);       \
    if (ZT_UNLIKELY(instances != 0))                                                 \
      ::zt::internal::EmitInstant(ZT_INTERNAL_SITE_SPELLING_(id, __VA_ARGS__), id,   \
                                  instances, __VA_ARGS__);                           \
  } while (0)
// A captureless lambda returning the call site's spelling of its arguments
// (from the category on) and its category id. Only sites that may keep a
// table take it as its own type (and instantiate templates for it alone);
// the others take it converted to a function pointer, which they ignore.
#define ZT_INTERNAL_SITE_SPELLING_(id, ...)                                          \
  [] {                                                                               \
    return ::zt::internal::SiteSpelling{#__VA_ARGS__, sizeof(#__VA_ARGS__) - 1, id};  \
  }

// Evaluates to what the begin went to, for ScopedSlice.
#define ZT_INTERNAL_TRACK_EVENT_BEGIN_(category, ...)                  \
  ZT_INTERNAL_TRACK_EVENT_BEGIN_NAMED_(                                \
      ZT_INTERNAL_CONCAT(zt_internal_category_, __COUNTER__),          \
      ZT_INTERNAL_CONCAT(zt_internal_instances_, __COUNTER__), category, \
      __VA_ARGS__)
#define ZT_INTERNAL_TRACK_EVENT_BEGIN_NAMED_(id, instances, category, ...)           \
  [&]() ZT_ALWAYS_INLINE -> ::zt::internal::SliceBeginResult {                       \
    constexpr uint32_t id = ZT_INTERNAL_CATEGORY_ID(category);                       \
    const uint8_t instances = ::zt::internal::CategoryInstances(id, category);       \
    if (ZT_LIKELY(instances == 0))                                                   \
      return ::zt::internal::SliceBeginResult{};                                     \
    return ::zt::internal::SliceBeginResult{                                         \
        instances, ::zt::internal::EmitSliceBegin(                                    \
                       ZT_INTERNAL_SITE_SPELLING_(id, category, __VA_ARGS__),          \
                                                  id, instances, category, __VA_ARGS__)};   \
  }()

#endif  // ZT_TRACING_TRACK_EVENT_H_
