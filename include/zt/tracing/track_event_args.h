// The values a track event macro takes besides its category: names,
// timestamps, flows and the EventContext a callback receives
// (zt/tracing/track_event.h explains the macros).
//
// Cost of including: <stddef.h> and <stdint.h>.

#ifndef ZT_TRACING_TRACK_EVENT_ARGS_H_
#define ZT_TRACING_TRACK_EVENT_ARGS_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/tracing/internal/type_traits.h"
#include "zt/tracing/traced_value.h"
#include "zt/tracing/track.h"

namespace zt {
namespace protos {
namespace pbzero {
class TrackEvent;
}  // namespace pbzero
}  // namespace protos

// An event name in a const char* that lives as long as every session that
// may record it (interned by address, like a literal).
struct StaticString {
  const char* value;
};

// An event name or annotation string with no lifetime guarantee: copied
// into every event that uses it.
struct DynamicString {
  explicit DynamicString(const char* str);
  DynamicString(const char* str, size_t size) : value(str), length(size) {}
  // Anything with data() and size() (std::string, std::string_view).
  template <typename S, typename = decltype(static_cast<const S*>(nullptr)->data()),
            typename = decltype(static_cast<const S*>(nullptr)->size())>
  explicit DynamicString(const S& str) : value(str.data()), length(str.size()) {}

  const char* value;
  size_t length;
};

// An explicit event time, in ns on the BOOTTIME clock (the trace clock).
struct TraceTimestamp {
  uint64_t nanoseconds;
};

// Flows connect slices across threads and tracks: a slice with Flow(id)
// points to the next slice with the same id. ProcessScoped ids are unique
// within this process; Global ids across the whole trace.
struct Flow {
  static Flow ProcessScoped(uint64_t id);
  static Flow Global(uint64_t id) { return Flow{id}; }
  uint64_t id;
};
// Like Flow, and ends the flow at this slice.
struct TerminatingFlow {
  static TerminatingFlow ProcessScoped(uint64_t id);
  static TerminatingFlow Global(uint64_t id) { return TerminatingFlow{id}; }
  uint64_t id;
};

// What a callback argument receives: the event being written, to add
// typed fields (include "zt/trace/track_event/track_event.pbzero.h" for
// TrackEvent's setters) or annotations. Valid during the callback only.
// A callback may take it by reference or by value.
class EventContext;
namespace internal {
uint8_t EventContextSessionTag(const EventContext& ctx);
}  // namespace internal

class EventContext {
 public:
  // Copies write into the same event (a callback may take it by value).
  EventContext() = default;

  protos::pbzero::TrackEvent* event() const { return event_; }
  // The uuid of the track the event is on (0: the thread's).
  uint64_t track_uuid() const { return track_uuid_; }

  // A debug annotation: |value| an integer, enum, bool, floating-point
  // number, const char*, string-like (data() and size()), DynamicString,
  // pointer, or a callable taking a zt::TracedValue that writes a nested
  // dictionary or array (zt/tracing/traced_value.h). |name| a string
  // literal (interned by address), or a DynamicString (copied inline).
  template <typename T>
  void AddDebugAnnotation(const char* name, const T& value) {
    AddDebugAnnotationTo(name, nullptr, value);
  }
  template <typename T>
  void AddDebugAnnotation(DynamicString name, const T& value) {
    AddDebugAnnotationTo(nullptr, &name, value);
  }

  void AddFlow(Flow flow);
  void AddTerminatingFlow(TerminatingFlow flow);

 private:
  friend struct EventContextAccess;  // The SDK's writer.
  friend uint8_t internal::EventContextSessionTag(const EventContext& ctx);

  template <typename T>
  void AddDebugAnnotationTo(const char* name, const DynamicString* dyn_name,
                            const T& value) {
    NewAnnotation(name, dyn_name).Write(value);
  }
  // A new annotation on the event, named by |name| (interned by address)
  // or |dyn_name| (inline).
  TracedValue NewAnnotation(const char* name, const DynamicString* dyn_name);

  void* sequence_ = nullptr;  // The SDK's state of the sequence written to.
  protos::pbzero::TrackEvent* event_ = nullptr;
  uint64_t track_uuid_ = 0;  // 0: the thread's track.
  uint8_t session_tag_ = 0;  // Of the session the event goes to.
};

namespace internal {
inline uint8_t EventContextSessionTag(const EventContext& ctx) { return ctx.session_tag_; }
}  // namespace internal

}  // namespace zt

#endif  // ZT_TRACING_TRACK_EVENT_ARGS_H_
