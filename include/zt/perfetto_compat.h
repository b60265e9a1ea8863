// Builds code written for Perfetto's C++ SDK against zerotrace: replace
// `#include <perfetto.h>` with `#include "zt/perfetto_compat.h"`, and link
// zerotrace::tracing (zerotrace::tracing_system for kSystemBackend).
// Perfetto's SDK examples (examples/sdk/example.cc, example_system_wide.cc,
// example_custom_data_source.cc) of its releases v14 and v58 build and run
// this way, unchanged but for that line; docs/perfetto_compat.md says how
// they were checked.
//
// What carries over:
//   * categories: PERFETTO_DEFINE_CATEGORIES(perfetto::Category("a")
//     .SetDescription(..).SetTags(..), ...) in a header (also the
//     _IN_NAMESPACE form) and PERFETTO_TRACK_EVENT_STATIC_STORAGE() in one
//     .cc. They take zerotrace's category slot PERFETTO_COMPAT_CATEGORY_SLOT
//     (15 unless defined before including this header): one such set per
//     program, whatever its namespace; other libraries of the program use
//     ZT_DECLARE_CATEGORIES in other slots;
//   * events: TRACE_EVENT, TRACE_EVENT_BEGIN, TRACE_EVENT_END,
//     TRACE_EVENT_INSTANT, TRACE_COUNTER, TRACE_EVENT_CATEGORY_ENABLED with
//     literal names, perfetto::DynamicString / StaticString, debug
//     annotations, flows, lambdas taking perfetto::EventContext (by value or
//     by reference), nested values written by lambdas taking
//     perfetto::TracedValue (WriteDictionary, WriteArray, Add, AddItem,
//     AddDictionary, AddArray, Append, AppendItem, ...);
//   * tracks: perfetto::Track (an id, optionally a parent),
//     ProcessTrack::Current(), ThreadTrack::Current(), CounterTrack; each
//     one's Serialize() gives its descriptor as zerotrace writes it, and
//     TrackEvent::SetTrackDescriptor(track, desc) makes the trace say what
//     desc says from then on (e.g. the process's name). The descriptor class
//     has the fields readers name and place tracks with
//     (zt/perfetto_compat/track_descriptor.h lists them); setting another
//     does not compile;
//   * perfetto::TrackEvent: Register() (a no-op: Initialize registers the
//     track event data source), IsEnabled(), Flush() (commits the calling
//     thread's events), AddSessionObserver / RemoveSessionObserver with
//     perfetto::TrackEventSessionObserver (OnSetup, OnStart, OnStop),
//     SetTrackDescriptor, EraseTrackDescriptor;
//   * sessions: perfetto::Tracing::Initialize / NewTrace, TracingInitArgs
//     (backends, shmem sizes, enable_system_consumer), kInProcessBackend,
//     kSystemBackend, perfetto::TraceConfig, perfetto::protos::gen config
//     classes (TrackEventConfig, ...), TracingSession's Setup, Start(Blocking),
//     Stop(Blocking), Flush(Blocking), ReadTrace(Blocking), GetTraceStats,
//     SetOnStopCallback, SetOnErrorCallback;
//   * custom data sources: perfetto::DataSource<T> (OnSetup, OnStart,
//     OnStop, OnFlush, Trace, TraceContext's NewTracePacket / Flush /
//     GetIncrementalState / GetCustomTlsState / GetDataSourceLocked),
//     perfetto::DataSourceDescriptor, perfetto::DataSourceBase,
//     PERFETTO_DECLARE_DATA_SOURCE_STATIC_MEMBERS /
//     PERFETTO_DEFINE_DATA_SOURCE_STATIC_MEMBERS (checks only: zerotrace's
//     template defines its static members itself); the TracePacket writer
//     with the for_testing payload is included, as perfetto.h includes it;
//   * PERFETTO_LOG, PERFETTO_ILOG, PERFETTO_DLOG, PERFETTO_ELOG,
//     PERFETTO_PLOG, PERFETTO_FATAL, PERFETTO_CHECK, PERFETTO_DCHECK, on
//     zerotrace's logging (zt/base/logging.h: one line on stderr each).
// Not covered (each fails to compile, never silently): category groups
// ("a,b"), interned data of your own (TrackEventInternedDataIndex), track
// descriptors' other fields, the public `uuid` member of upstream's tracks
// (zerotrace's is the uuid() method), CounterTrack's unit enums,
// TrackEventSessionObserver::WillClearIncrementalState (v58),
// Tracing::ActivateTriggers's ttl, the startup tracing API, Perfetto's
// console and other backends, and Perfetto's C API (zerotrace has its own
// libzerotrace_c for that). docs/perfetto_compat.md has the reasons.

#ifndef ZT_PERFETTO_COMPAT_H_
#define ZT_PERFETTO_COMPAT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "zt/base/logging.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.gen.h"
#include "zt/perfetto_compat/track_descriptor.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/track_event_control.h"
#include "zt/tracing/tracing.h"

#ifndef PERFETTO_COMPAT_CATEGORY_SLOT
#define PERFETTO_COMPAT_CATEGORY_SLOT 15
#endif

namespace perfetto {

// perfetto::protos::gen::X and perfetto::protos::pbzero::X name zerotrace's
// classes of the same schemas (same field names and numbers), but for the
// TrackDescriptor value classes declared in track_descriptor.h.
namespace protos {
namespace gen {
using namespace ::zt::protos::gen;  // NOLINT: the namespace is the API.
}  // namespace gen
namespace pbzero {
using namespace ::zt::protos::pbzero;  // NOLINT
}  // namespace pbzero
}  // namespace protos

using ::zt::BackendType;
using ::zt::Category;
using ::zt::DataSourceBase;
using ::zt::DefaultDataSourceTraits;
using ::zt::DynamicCategory;
using ::zt::DynamicString;
using ::zt::EventContext;
using ::zt::Flow;
using ::zt::kInProcessBackend;
using ::zt::kSystemBackend;
using ::zt::kUnspecifiedBackend;
using ::zt::StaticString;
using ::zt::TerminatingFlow;
using ::zt::TracedArray;
using ::zt::TracedDictionary;
using ::zt::TracedValue;
using ::zt::Tracing;
using ::zt::TracingInitArgs;
using ::zt::TracingSession;
using ::zt::TrackEventSessionObserver;
using DataSourceConfig = ::zt::protos::gen::DataSourceConfig;
using DataSourceDescriptor = ::zt::protos::gen::DataSourceDescriptor;
using TraceConfig = ::zt::protos::gen::TraceConfig;

template <typename DataSourceType, typename Traits = DefaultDataSourceTraits>
using DataSource = ::zt::DataSource<DataSourceType, Traits>;

namespace compat_internal {

inline protos::gen::TrackDescriptor DescriptorOf(const ::zt::Track& track) {
  protos::gen::TrackDescriptor desc;
  const bool parsed = desc.ParseFromString(::zt::DefaultTrackDescriptor(track));
  ZT_CHECK(parsed);  // The SDK's own encoding: anything else is a bug.
  return desc;
}

}  // namespace compat_internal

// A track of its own (async operations, per-object timelines): |id|
// distinguishes it among this process's tracks; |parent| nests it.
class Track : public ::zt::Track {
 public:
  using ::zt::Track::Track;
  Track(uint64_t id, const ::zt::Track& parent) : ::zt::Track(id, nullptr, parent) {}
  protos::gen::TrackDescriptor Serialize() const {
    return compat_internal::DescriptorOf(*this);
  }
};

class ProcessTrack : public ::zt::ProcessTrack {
 public:
  static ProcessTrack Current() { return ProcessTrack(); }
  protos::gen::TrackDescriptor Serialize() const {
    return compat_internal::DescriptorOf(*this);
  }
};

// The calling thread's track (zerotrace's thread tracks are always the
// calling thread's: pass ThreadTrack::Current() along, not across threads).
class ThreadTrack : public ::zt::ThreadTrack {
 public:
  static ThreadTrack Current() { return ThreadTrack(); }
  protos::gen::TrackDescriptor Serialize() const {
    return compat_internal::DescriptorOf(*this);
  }
};

// A counter: values over time, drawn as a graph, by name (and unit text).
class CounterTrack : public ::zt::CounterTrack {
 public:
  using ::zt::CounterTrack::CounterTrack;
  protos::gen::TrackDescriptor Serialize() const {
    return compat_internal::DescriptorOf(*this);
  }
};

class TrackEvent {
 public:
  static bool Register() { return true; }
  static bool IsEnabled() { return ::zt::TrackEventEnabled(); }
  static void Flush() { ::zt::FlushTrackEvents(); }

  // At most 8 observers at once (false beyond that).
  static bool AddSessionObserver(TrackEventSessionObserver* observer) {
    return ::zt::AddTrackEventSessionObserver(observer);
  }
  static void RemoveSessionObserver(TrackEventSessionObserver* observer) {
    ::zt::RemoveTrackEventSessionObserver(observer);
  }

  // |desc| describes |track| from now on. A descriptor of another track (a
  // uuid that is not track.uuid()) would rename that one in every trace:
  // refused (aborts). Without a uuid, it gets |track|'s.
  static void SetTrackDescriptor(const ::zt::Track& track,
                                 const protos::gen::TrackDescriptor& desc) {
    const uint64_t uuid = track.uuid();
    ZT_CHECK(!desc.has_uuid() || desc.uuid() == uuid);
    if (desc.has_uuid()) {
      ::zt::SetTrackDescriptor(track, desc.SerializeAsString());
      return;
    }
    protos::gen::TrackDescriptor with_uuid = desc;
    with_uuid.set_uuid(uuid);
    ::zt::SetTrackDescriptor(track, with_uuid.SerializeAsString());
  }
  static void EraseTrackDescriptor(const ::zt::Track& track) {
    ::zt::SetTrackDescriptor(track, std::string());
  }
};

namespace compat_internal {

// What PERFETTO_{DECLARE,DEFINE}_DATA_SOURCE_STATIC_MEMBERS check.
template <typename DataSourceType, typename... Traits>
struct IsDataSourceType {
  static constexpr bool value = __is_base_of(::zt::DataSourceBase, DataSourceType);
};

}  // namespace compat_internal
}  // namespace perfetto

// Categories. The namespace forms ignore the namespace (see above).
#define PERFETTO_DEFINE_CATEGORIES(...)                                       \
  ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(PERFETTO_COMPAT_CATEGORY_SLOT),      \
                        __VA_ARGS__)
#define PERFETTO_TRACK_EVENT_STATIC_STORAGE() \
  ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(PERFETTO_COMPAT_CATEGORY_SLOT))
#define PERFETTO_DEFINE_CATEGORIES_IN_NAMESPACE(ns, ...) \
  PERFETTO_DEFINE_CATEGORIES(__VA_ARGS__)
#define PERFETTO_TRACK_EVENT_STATIC_STORAGE_IN_NAMESPACE(ns) \
  PERFETTO_TRACK_EVENT_STATIC_STORAGE()
#define PERFETTO_USE_CATEGORIES_FROM_NAMESPACE(ns) static_assert(true, "")

// zerotrace's DataSource<T> defines its static members in the template:
// these only check that the type is a data source.
#define PERFETTO_DECLARE_DATA_SOURCE_STATIC_MEMBERS(...)                        \
  static_assert(::perfetto::compat_internal::IsDataSourceType<__VA_ARGS__>::value, \
                "not a perfetto::DataSource")
#define PERFETTO_DEFINE_DATA_SOURCE_STATIC_MEMBERS(...) \
  PERFETTO_DECLARE_DATA_SOURCE_STATIC_MEMBERS(__VA_ARGS__)

// Logging and checks, on zerotrace's (printf formats, one line on stderr).
#define PERFETTO_LOG(...) ZT_ILOG(__VA_ARGS__)
#define PERFETTO_ILOG(...) ZT_ILOG(__VA_ARGS__)
#define PERFETTO_DLOG(...) ZT_DLOG(__VA_ARGS__)
#define PERFETTO_ELOG(...) ZT_ELOG(__VA_ARGS__)
#define PERFETTO_PLOG(...) ZT_PLOG(__VA_ARGS__)
#define PERFETTO_FATAL(...) ZT_FATAL(__VA_ARGS__)
#define PERFETTO_CHECK(cond) ZT_CHECK(cond)
#define PERFETTO_DCHECK(cond) ZT_DCHECK(cond)

#endif  // ZT_PERFETTO_COMPAT_H_
