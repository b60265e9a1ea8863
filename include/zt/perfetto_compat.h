// Builds code instrumented for Perfetto's SDK against zerotrace: replace
// `#include <perfetto.h>` with `#include "zt/perfetto_compat.h"`.
//
// What carries over unchanged (the forms of Perfetto's track event guide):
//   * PERFETTO_DEFINE_CATEGORIES(perfetto::Category("a").SetDescription(..)
//     .SetTags(..), ...) in a header and PERFETTO_TRACK_EVENT_STATIC_STORAGE()
//     in one .cc: zerotrace slot PERFETTO_COMPAT_CATEGORY_SLOT (15 unless
//     defined before including this header), so one such file set per
//     program; other libraries use ZT_DECLARE_CATEGORIES in other slots;
//   * TRACE_EVENT, TRACE_EVENT_BEGIN, TRACE_EVENT_END, TRACE_EVENT_INSTANT,
//     TRACE_COUNTER, TRACE_EVENT_CATEGORY_ENABLED with literal names,
//     perfetto::DynamicString / StaticString, debug annotations, tracks
//     (perfetto::Track, ProcessTrack::Current(), ThreadTrack::Current(),
//     CounterTrack), flows, lambdas taking perfetto::EventContext (by
//     value or by reference), and nested annotation values written by
//     lambdas taking perfetto::TracedValue (WriteDictionary, WriteArray,
//     Add, AddItem, AddDictionary, AddArray, Append, AppendItem, ...);
//   * perfetto::Tracing::Initialize / NewTrace, TracingInitArgs,
//     kInProcessBackend, perfetto::TraceConfig and
//     perfetto::protos::gen::TrackEventConfig, TracingSession's
//     Setup/StartBlocking/StopBlocking/ReadTraceBlocking;
//   * perfetto::TrackEvent::Register() (zerotrace registers the track event
//     data source in Initialize: a no-op) and perfetto::TrackEvent::Flush()
//     (a no-op: a stop takes every finished event of every thread).
// Not covered: category groups ("a,b"), PERFETTO_DEFINE_CATEGORIES_IN_NAMESPACE,
// interned data of your own, TrackEvent session observers, the system
// backend (until ztraced), Perfetto's C API.

#ifndef ZT_PERFETTO_COMPAT_H_
#define ZT_PERFETTO_COMPAT_H_

#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.gen.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

#ifndef PERFETTO_COMPAT_CATEGORY_SLOT
#define PERFETTO_COMPAT_CATEGORY_SLOT 15
#endif

namespace perfetto {

namespace protos = ::zt::protos;

using ::zt::BackendType;
using ::zt::Category;
using ::zt::CounterTrack;
using ::zt::DynamicCategory;
using ::zt::DynamicString;
using ::zt::EventContext;
using ::zt::Flow;
using ::zt::kInProcessBackend;
using ::zt::kSystemBackend;
using ::zt::ProcessTrack;
using ::zt::StaticString;
using ::zt::TerminatingFlow;
using ::zt::ThreadTrack;
using ::zt::TracedArray;
using ::zt::TracedDictionary;
using ::zt::TracedValue;
using ::zt::Track;
using ::zt::Tracing;
using ::zt::TracingInitArgs;
using ::zt::TracingSession;
using TraceConfig = ::zt::protos::gen::TraceConfig;

class TrackEvent {
 public:
  static bool Register() { return true; }
  static void Flush() {}
};

}  // namespace perfetto

#define PERFETTO_DEFINE_CATEGORIES(...)                                       \
  ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(PERFETTO_COMPAT_CATEGORY_SLOT),      \
                        __VA_ARGS__)
#define PERFETTO_TRACK_EVENT_STATIC_STORAGE() \
  ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(PERFETTO_COMPAT_CATEGORY_SLOT))

#endif  // ZT_PERFETTO_COMPAT_H_
