// Internals of the track event macros (zt/tracing/track_event.h), public
// only because the macros expand to them. The templates here sort a
// macro's arguments at compile time and call the SDK's out-of-line writers
// (src/tracing/sdk/track_event_writer.cc); nothing here writes bytes.

#ifndef ZT_TRACING_INTERNAL_TRACK_EVENT_INTERNAL_H_
#define ZT_TRACING_INTERNAL_TRACK_EVENT_INTERNAL_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/base/compiler.h"
#include "zt/tracing/category.h"
#include "zt/tracing/internal/track_event_fast_args.h"
#include "zt/tracing/internal/track_event_site.h"
#include "zt/tracing/internal/type_traits.h"
#include "zt/tracing/track.h"
#include "zt/tracing/track_event_args.h"

namespace zt {
namespace internal {

// TrackEvent.Type values.
enum class EventType : uint8_t {
  kSliceBegin = 1,
  kSliceEnd = 2,
  kInstant = 3,
  kCounter = 4,
  kState = 5,
};

struct EventName {
  enum Kind : uint8_t { kNone, kStatic, kDynamic };
  const char* data = nullptr;
  size_t size = 0;
  Kind kind = kNone;
};

size_t StringLength(const char* str);

// A string literal (a const char array) and StaticString are interned by
// address; a writable char array and DynamicString are copied.
template <typename T>
EventName MakeEventName(T&& name) {
  using V = RemoveCvRef<T>;
  if constexpr (IsSame<V, StaticString>::value) {
    return EventName{name.value, 0, EventName::kStatic};
  } else if constexpr (IsSame<V, DynamicString>::value) {
    return EventName{name.value, name.length, EventName::kDynamic};
  } else if constexpr (IsConstCharArray<RemoveRef<T>>::value) {
    return EventName{name, sizeof(V) - 1, EventName::kStatic};
  } else if constexpr (IsCharArray<V>::value) {
    return EventName{name, StringLength(name), EventName::kDynamic};
  } else {
    static_assert(AlwaysFalse<T>::value,
                  "an event name must be a string literal, zt::StaticString{p} "
                  "(p outlives the session) or zt::DynamicString{s} (copied)");
    return EventName{};
  }
}

// Which session each instance an event went to belongs to: byte i is a
// tag of the session in instance slot i (its setup count, mod 256). A
// scoped slice's end goes only where the session is still the begin's, so
// that a session started in a reused slot never sees an end without its
// begin.
using SessionTags = uint64_t;

// Whether the arguments are exactly "literal key", integer (or enum).
template <typename... Args>
struct IsLiteralIntAnnotation {
  static constexpr bool value = false;
};
template <typename K, typename V>
struct IsLiteralIntAnnotation<K, V> {
  using Value = RemoveCvRef<V>;
  static constexpr bool value =
      IsConstCharArray<RemoveRef<K>>::value &&
      (IntegerKind<Value>::value != 0 || __is_enum(Value));
};
template <typename K, typename V>
SessionTags WriteIntAnnotated(uint32_t category, uint8_t instances, EventType type,
                              const char* name, const K& key, const V& value) {
  return WriteEventWithInt(category, instances, type, name, key,
                           static_cast<int64_t>(value),
                           IntegerKind<RemoveCvRef<V>>::value == 2);
}

// Whether the arguments are exactly "literal key", "string literal" (or
// another const char array) of at most 64 characters: written inline.
template <typename... Args>
struct IsLiteralStringAnnotation {
  static constexpr bool value = false;
};
template <typename K, typename V>
struct IsLiteralStringAnnotation<K, V> {
  static constexpr bool value = IsConstCharArray<RemoveRef<K>>::value &&
                                IsConstCharArray<RemoveRef<V>>::value &&
                                sizeof(RemoveRef<V>) <= 65;
};
// Its length: the string's, as a const char* argument's (the array may be
// longer than the string it holds, or have no NUL); compilers fold the loop
// for a literal.
template <size_t N>
ZT_ALWAYS_INLINE inline size_t StringLengthIn(const char (&array)[N]) {
  size_t size = 0;
  while (size < N && array[size] != '\0')
    size++;
  return size;
}
template <typename K, typename V>
SessionTags WriteStringAnnotated(uint32_t category, uint8_t instances, EventType type,
                                 const char* name, const K& key, const V& value) {
  return WriteEventWithString(category, instances, type, name, key, value,
                              StringLengthIn(value));
}

// Everything about one event except its arguments.
struct EventSpec {
  uint32_t category = 0;
  const char* dynamic_category = nullptr;  // For kDynamicCategoryId.
  EventType type = EventType::kInstant;
  EventName name;
  const Track* track = nullptr;  // Null: the thread's track.
  uint64_t track_uuid = 0;       // For ends of scoped slices on a track.
  bool has_timestamp = false;
  bool counter_is_double = false;
  uint64_t timestamp = 0;
  int64_t counter_int = 0;
  double counter_double = 0;
};

// The instances (bit i: session instance i) recording a category.
uint8_t DynamicCategoryInstances(const DynamicCategory& category);
template <typename C>
ZT_ALWAYS_INLINE inline uint8_t CategoryInstances(uint32_t id, const C& category) {
  if constexpr (IsDynamicCategory<C>::value) {
    (void)id;
    return DynamicCategoryInstances(category);
  } else {
    (void)category;
    return LoadCategoryState(id);
  }
}
template <typename C>
inline const char* DynamicCategoryName(const C& category) {
  if constexpr (IsDynamicCategory<C>::value) {
    return category.name;
  } else {
    (void)category;
    return nullptr;
  }
}


// The common case, out of line: no arguments, the thread's track, now.
SessionTags WriteEvent(uint32_t category, uint8_t instances, EventType type,
                       const char* static_name);
// The same for a named slice begin and a named instant: a function per
// type keeps their fast paths an argument shorter, and the call site
// passes the category and the type as one constant (NamedEventKey), the
// form the library's cache keys its entries by, so that the fast path
// compares it as it comes.
constexpr uint32_t NamedEventKey(uint32_t category, EventType type) {
  return category | static_cast<uint32_t>(type) << 16;
}
SessionTags WriteNamedSliceBegin(uint32_t event_key, uint8_t instances, const char* static_name);
void WriteNamedInstant(uint32_t event_key, uint8_t instances, const char* static_name);
// Common forms, out of line: one integer annotation with a literal name;
// a counter value without other arguments.
SessionTags WriteEventWithInt(uint32_t category, uint8_t instances, EventType type,
                              const char* static_name, const char* static_key,
                              int64_t value, bool is_unsigned);
// One string annotation with a literal name, its value at most 64 bytes.
SessionTags WriteEventWithString(uint32_t category, uint8_t instances, EventType type,
                                 const char* static_name, const char* static_key,
                                 const char* value, size_t size);
// A named event, no arguments, its name a DynamicString (written inline,
// as upstream writes one: nothing to intern, so no table grows with the
// number of names).
SessionTags WriteEventWithDynamicName(uint32_t category, uint8_t instances, EventType type,
                                      const char* name, size_t size);
// Up to four annotations and flows (track_event_fast_args.h), the packet
// known to fit (at most kFastEventRoom bytes).
SessionTags WriteEventWithArgs(uint32_t category, uint8_t instances, EventType type,
                               const char* static_name, const FastArgs& args);
// The same for a call site with a FastSiteTable (track_event_site.h),
// which gives the category, the name and the keys: |args| comes without
// keys (they are filled from the table when needed).
SessionTags WriteSiteEventWithArgs(uint8_t instances, EventType type, const char* table,
                                   FastArgs* args);
// The same arguments when they do not fit one fast packet (a string longer
// than kMaxFastString, or too many string bytes): written as the general
// path writes them, from the same FastArgs (strings at their full length).
SessionTags WriteEventWithLongArgs(uint32_t category, uint8_t instances, EventType type,
                                   const char* static_name, const FastArgs& args);
void WriteCounter(uint32_t category, uint8_t instances, const CounterTrack& track,
                  bool is_double, int64_t int_value, double double_value);
// The same on the track a literal names, without other arguments: the
// call site passes the name, not a CounterTrack it would build.
void WriteIntCounter(uint32_t category, uint8_t instances, const char* track_name,
                     int64_t value);
void WriteDoubleCounter(uint32_t category, uint8_t instances, const char* track_name,
                        double value);
// The end of a scoped slice, on the instances its begin went to, where
// the session is still the begin's. noexcept: it runs in a destructor,
// where an exception would end the program anyway (and a compiler would
// add a landing pad at every call site to say so).
void WriteSliceEnd(uint8_t instances, uint64_t track_uuid, SessionTags sessions) noexcept;
// The same on the thread's track (track_uuid 0), for a call site that
// knows it at compile time: an argument and a test fewer.
void WriteThreadSliceEnd(uint8_t instances, SessionTags sessions) noexcept;

// The general case: for each instance, BeginEvent opens the packet and the
// TrackEvent (false: nothing to write for this instance), the arguments
// are added, EndEvent closes both.
bool BeginEvent(uint32_t instance, const EventSpec& spec, EventContext* ctx);
void EndEvent(EventContext* ctx);

// What a slice's begin went to: the track (0: the thread's) and sessions.
struct SliceBegun {
  uint64_t track_uuid = 0;
  SessionTags sessions = 0;
};

struct SliceBeginResult {
  uint8_t instances = 0;
  SliceBegun begun;
};

// WriteThreadSliceEnd() where the compiler knows the track is the
// thread's (the begin had no track argument), else WriteSliceEnd().
ZT_ALWAYS_INLINE inline void EndSlice(uint8_t instances, uint64_t track_uuid,
                                      SessionTags sessions) {
  if (__builtin_constant_p(track_uuid) && track_uuid == 0)
    WriteThreadSliceEnd(instances, sessions);
  else
    WriteSliceEnd(instances, track_uuid, sessions);
}

class ScopedSlice {
 public:
  explicit ScopedSlice(SliceBeginResult begin) : begin_(begin) {}
  ScopedSlice(const ScopedSlice&) = delete;
  ScopedSlice& operator=(const ScopedSlice&) = delete;
  ~ScopedSlice() {
    if (ZT_UNLIKELY(begin_.instances != 0))
      EndSlice(begin_.instances, begin_.begun.track_uuid, begin_.begun.sessions);
  }

 private:
  SliceBeginResult begin_;
};

// Argument sorting. Each overload peels the arguments it recognizes.
// A track: Track, or a class derived from it (ProcessTrack, ThreadTrack,
// CounterTrack, and the track types of zt/perfetto_compat.h), but a
// StateTrack, which only TRACE_STATE takes.
template <typename T>
struct IsTrackArg {
  static constexpr bool value =
      __is_class(T) && __is_base_of(Track, T) && !IsSame<T, StateTrack>::value;
};
template <typename T>
struct IsTimestampArg {
  static constexpr bool value = IsSame<T, TraceTimestamp>::value ||
                                IsSame<T, unsigned long>::value ||
                                IsSame<T, unsigned long long>::value;
};
template <typename F, typename = void>
struct IsEventCallback {
  static constexpr bool value = false;
};
template <typename F>
struct IsEventCallback<F, VoidT<decltype(DeclVal<F&>()(DeclVal<EventContext&>()))>> {
  static constexpr bool value = true;
};

inline void ApplyArgs(EventContext&) {}

template <typename First, typename... Rest>
void ApplyArgs(EventContext& ctx, First&& first, Rest&&... rest);

template <typename Value, typename... Rest>
void ApplyAnnotation(EventContext& ctx, const char* name, const Value& value,
                     Rest&&... rest) {
  ctx.AddDebugAnnotation(name, value);
  ApplyArgs(ctx, static_cast<Rest&&>(rest)...);
}
template <typename Value, typename... Rest>
void ApplyAnnotation(EventContext& ctx, DynamicString name, const Value& value,
                     Rest&&... rest) {
  ctx.AddDebugAnnotation(name, value);
  ApplyArgs(ctx, static_cast<Rest&&>(rest)...);
}
template <typename Name>
void ApplyAnnotation(EventContext&, const Name&) {
  static_assert(AlwaysFalse<Name>::value,
                "a debug annotation name must be followed by its value");
}

template <typename First, typename... Rest>
void ApplyArgs(EventContext& ctx, First&& first, Rest&&... rest) {
  using F = RemoveCvRef<First>;
  if constexpr (IsSame<F, Flow>::value) {
    ctx.AddFlow(first);
    ApplyArgs(ctx, static_cast<Rest&&>(rest)...);
  } else if constexpr (IsSame<F, TerminatingFlow>::value) {
    ctx.AddTerminatingFlow(first);
    ApplyArgs(ctx, static_cast<Rest&&>(rest)...);
  } else if constexpr (IsEventCallback<F>::value) {
    first(ctx);
    ApplyArgs(ctx, static_cast<Rest&&>(rest)...);
  } else if constexpr (IsTrackArg<F>::value || IsTimestampArg<F>::value) {
    static_assert(AlwaysFalse<F>::value,
                  "a track and a timestamp go first, in that order, before "
                  "annotations, flows and callbacks");
  } else {
    ApplyAnnotation(ctx, first, static_cast<Rest&&>(rest)...);
  }
}

// Returns the uuid of the track written to (0: the thread's).
template <typename... Args>
SliceBegun EmitBody(EventSpec& spec, uint8_t instances, Args&&... args) {
  SliceBegun begun;
  for (uint32_t i = 0; instances != 0; i++, instances >>= 1) {
    if (!(instances & 1))
      continue;
    EventContext ctx;
    if (!BeginEvent(i, spec, &ctx))
      continue;
    ApplyArgs(ctx, args...);
    begun.track_uuid = ctx.track_uuid();
    begun.sessions |= SessionTags{EventContextSessionTag(ctx)} << (8 * i);
    EndEvent(&ctx);
  }
  return begun;
}

template <typename... Args>
SliceBegun EmitAfterTrack(EventSpec& spec, uint8_t instances, Args&&... args) {
  return EmitBody(spec, instances, static_cast<Args&&>(args)...);
}
template <typename First, typename... Rest>
SliceBegun EmitAfterTrack(EventSpec& spec, uint8_t instances, First&& first,
                        Rest&&... rest) {
  using F = RemoveCvRef<First>;
  if constexpr (IsSame<F, TraceTimestamp>::value) {
    spec.has_timestamp = true;
    spec.timestamp = first.nanoseconds;
    return EmitBody(spec, instances, static_cast<Rest&&>(rest)...);
  } else if constexpr (IsTimestampArg<F>::value) {
    spec.has_timestamp = true;
    spec.timestamp = static_cast<uint64_t>(first);
    return EmitBody(spec, instances, static_cast<Rest&&>(rest)...);
  } else {
    return EmitBody(spec, instances, static_cast<First&&>(first),
                    static_cast<Rest&&>(rest)...);
  }
}

template <typename... Args>
SliceBegun EmitWithSpec(EventSpec& spec, uint8_t instances, Args&&... args) {
  return EmitBody(spec, instances, static_cast<Args&&>(args)...);
}
template <typename First, typename... Rest>
SliceBegun EmitWithSpec(EventSpec& spec, uint8_t instances, First&& first,
                      Rest&&... rest) {
  if constexpr (IsTrackArg<RemoveCvRef<First>>::value) {
    spec.track = &first;
    return EmitAfterTrack(spec, instances, static_cast<Rest&&>(rest)...);
  } else {
    return EmitAfterTrack(spec, instances, static_cast<First&&>(first),
                          static_cast<Rest&&>(rest)...);
  }
}

// The fast path of the argument lists IsFastArgList takes: one function
// per list of argument types, shared by every call site with that list
// (the call site passes the arguments; the packing is here). Too long for
// one packet (long strings): written from the same packed arguments.
template <EventType kType, typename... Ts>
ZT_NOINLINE SessionTags EmitFastArgs(uint32_t category, uint8_t instances, const char* name,
                                     FastParam<Ts>... args) {
  constexpr FastShape shape = FastShapeOf<Ts...>();
  static_assert(shape.fixed_bytes <= kFastEventRoom, "four varints fit");
  FastArgs packed;
  packed.shape = shape.code;
  packed.count = shape.count;
  const size_t strings = PackFastArgs(&packed, 0, args...);
  if (ZT_LIKELY(strings <= kFastEventRoom - shape.fixed_bytes))
    return WriteEventWithArgs(category, instances, kType, name, packed);
  return WriteEventWithLongArgs(category, instances, kType, name, packed);
}

// The same for a call site with a FastSiteTable (track_event_site.h): the
// table gives the category, the name and the keys; the call passes the
// values and flows only.
template <EventType kType, typename... Values>
ZT_NOINLINE SessionTags EmitFastSite(uint8_t instances, const char* table,
                                     FastParam<Values>... values) {
  constexpr FastShape shape = FastShapeOfValues<Values...>();
  static_assert(shape.ok && shape.fixed_bytes <= kFastEventRoom, "four varints fit");
  FastArgs packed;
  packed.shape = shape.code;
  packed.count = shape.count;
  const size_t strings = PackFastValues(&packed, values...);
  if (ZT_LIKELY(strings <= kFastEventRoom - shape.fixed_bytes))
    return WriteSiteEventWithArgs(instances, kType, table, &packed);
  FillFastSiteKeys(table, &packed);
  return WriteEventWithLongArgs(FastSiteCategory(table), instances, kType,
                                table + kFastSiteNameOffset, packed);
}

// Calls EmitFastSite with a call site's arguments but the keys. Each step
// takes the first of the kLeft arguments not yet sorted: a flow or a value
// moves behind the others, a key is dropped; the kept ones end up in order.
template <EventType kType, size_t kLeft, typename First, typename... Rest>
ZT_ALWAYS_INLINE inline SessionTags CallFastSite(uint8_t instances, const char* table,
                                                 const First& first, const Rest&... rest);
template <EventType kType, size_t kLeft, typename Value, typename... Rest>
ZT_ALWAYS_INLINE inline SessionTags CallFastSiteAfterKey(uint8_t instances, const char* table,
                                                         const Value& value,
                                                         const Rest&... rest) {
  return CallFastSite<kType, kLeft>(instances, table, rest..., value);
}
template <EventType kType, size_t kLeft, typename First, typename... Rest>
ZT_ALWAYS_INLINE inline SessionTags CallFastSite(uint8_t instances, const char* table,
                                                 const First& first, const Rest&... rest) {
  if constexpr (kLeft == 0) {
    return EmitFastSite<kType, First, Rest...>(instances, table, first, rest...);
  } else if constexpr (IsSame<First, Flow>::value || IsSame<First, TerminatingFlow>::value) {
    return CallFastSite<kType, kLeft - 1>(instances, table, rest..., first);
  } else {
    return CallFastSiteAfterKey<kType, kLeft - 2>(instances, table, rest...);
  }
}

// An end's name: none.
struct NoEventName {};
inline EventName MakeEventName(NoEventName) { return EventName(); }

// Whether a name is interned by address (a literal or StaticString; an
// end's none counts, as a null name): the forms below take those.
template <typename N>
struct IsStaticEventName {
  using V = RemoveCvRef<N>;
  static constexpr bool value = IsConstCharArray<RemoveRef<N>>::value ||
                                IsSame<V, StaticString>::value || IsSame<V, NoEventName>::value;
};
template <typename N>
ZT_ALWAYS_INLINE inline const char* StaticNameOf(const N& name) {
  if constexpr (IsSame<N, StaticString>::value) {
    return name.value;
  } else if constexpr (IsSame<N, NoEventName>::value) {
    return nullptr;
  } else {
    return name;
  }
}

// The general path: one function per category, name and argument types,
// out of line so that call sites stay small.
template <EventType type, typename C, typename N, typename... Args>
ZT_NOINLINE SliceBegun EmitGeneral(uint32_t category, uint8_t instances,
                                   const C& category_value, N&& name, Args&&... args) {
  EventSpec spec;
  spec.category = category;
  spec.dynamic_category = DynamicCategoryName(category_value);
  spec.type = type;
  spec.name = MakeEventName(static_cast<N&&>(name));
  return EmitWithSpec(spec, instances, static_cast<Args&&>(args)...);
}

// Picks the event's form at compile time; inlined into the call site,
// which then holds only the chosen call.
template <EventType type, typename C, typename N, typename... Args>
ZT_ALWAYS_INLINE inline SliceBegun EmitEvent(uint32_t category, uint8_t instances,
                                             const C& category_value, N&& name,
                                             Args&&... args) {
  if constexpr (!IsDynamicCategory<C>::value && IsStaticEventName<N>::value) {
    const char* static_name = StaticNameOf(name);
    if constexpr (sizeof...(Args) == 0) {
      return SliceBegun{0, WriteEvent(category, instances, type, static_name)};
    } else if constexpr (IsLiteralIntAnnotation<Args...>::value) {
      return SliceBegun{0, WriteIntAnnotated(category, instances, type, static_name,
                                             static_cast<Args&&>(args)...)};
    } else if constexpr (IsLiteralStringAnnotation<Args...>::value) {
      return SliceBegun{0, WriteStringAnnotated(category, instances, type, static_name,
                                                static_cast<Args&&>(args)...)};
    } else if constexpr (type != EventType::kSliceEnd && IsFastArgList<Args...>::value) {
      return SliceBegun{
          0, EmitFastArgs<type, RemoveRef<Args>...>(category, instances, static_name, args...)};
    }
  }
  if constexpr (!IsDynamicCategory<C>::value && sizeof...(Args) == 0 &&
                type != EventType::kSliceEnd &&
                IsSame<RemoveCvRef<N>, DynamicString>::value) {
    return SliceBegun{0, WriteEventWithDynamicName(category, instances, type, name.value,
                                                   name.length)};
  }
  return EmitGeneral<type>(category, instances, category_value, static_cast<N&&>(name),
                           static_cast<Args&&>(args)...);
}

// Whether a call site's arguments may take a FastSiteTable
// (track_event_site.h): a literal name and a fast argument list, not one
// of the single-annotation forms, which have writers of their own. Only
// such sites instantiate anything of their own; the others share
// EmitEvent's instantiations with every site of the same types.
template <typename C, typename N, typename... Args>
struct UsesFastSite {
  static constexpr bool value =
      !IsDynamicCategory<C>::value && IsConstCharArray<RemoveRef<N>>::value &&
      !IsLiteralIntAnnotation<Args...>::value && !IsLiteralStringAnnotation<Args...>::value &&
      IsFastArgList<Args...>::value;
};

// The macros spell a site's arguments from the category on: one piece
// before the name.
constexpr size_t kSiteSpellingPiecesBeforeName = 1;

// Whether such a site keeps a table: its spelling, as |site| returns it,
// agrees with its types.
template <typename C, typename N, typename... Args, typename Site>
constexpr bool TakesFastSiteTable(Site site) {
  if constexpr (UsesFastSite<C, N, Args...>::value) {
    return LayOutFastSite(site(), kSiteSpellingPiecesBeforeName,
                          SiteLiteralSizesFor<N, Args...>())
        .ok;
  } else {
    return false;
  }
}

// A site that may keep a table: the table (the spelling read once, at
// compile time, for this site alone), or the path that passes the keys
// when the spelling does not agree with the types.
template <EventType type, typename Site, typename C, typename N, typename... Args>
ZT_ALWAYS_INLINE inline SliceBegun EmitSiteEvent(Site site, uint32_t category, uint8_t instances,
                                                 const C& category_value, N&& name,
                                                 Args&&... args) {
  constexpr SiteLiteralSizes sizes = SiteLiteralSizesFor<N, Args...>();
  constexpr FastSiteLayout layout = LayOutFastSite(site(), kSiteSpellingPiecesBeforeName, sizes);
  if constexpr (layout.ok) {
    (void)category;
    (void)category_value;
    (void)name;
    static constexpr FastSiteTable<layout.size> table =
        BuildFastSiteTable<layout.size>(site(), layout, kSiteSpellingPiecesBeforeName, sizes);
    return SliceBegun{0, CallFastSite<type, sizeof...(Args)>(instances, table.bytes, args...)};
  } else {
    return EmitEvent<type>(category, instances, category_value, static_cast<N&&>(name),
                           static_cast<Args&&>(args)...);
  }
}

// The site lambda converted to this, by the sites that keep no table.
using SiteSpellingFunction = SiteSpelling (*)();

// What the macros call (see ZT_INTERNAL_TRACK_EVENT_ in track_event.h).
// A literal name and no arguments: the fast path's call, decided here at
// compile time so that nothing else is left at the call site to inline.
template <typename C, typename N, typename... Args>
struct IsPlainLiteralEvent {
  static constexpr bool value = sizeof...(Args) == 0 && !IsDynamicCategory<C>::value &&
                                IsConstCharArray<RemoveRef<N>>::value;
};
// The same with a StaticString name (interned by address like a literal).
template <typename C, typename N, typename... Args>
struct IsPlainStaticStringEvent {
  static constexpr bool value = sizeof...(Args) == 0 && !IsDynamicCategory<C>::value &&
                                IsSame<RemoveCvRef<N>, StaticString>::value;
};

// Each macro's call takes one of two overloads: a site that may keep a
// table takes its lambda as its own type; the others convert it to a
// function pointer (SiteSpellingFunction), so that their instantiations
// are shared by every site with the same argument types.
template <typename Site, typename C, typename N, typename... Args,
          typename = EnableIf<UsesFastSite<C, N, Args...>::value>>
ZT_ALWAYS_INLINE inline SliceBegun EmitSliceBegin(Site site, uint32_t category, uint8_t instances,
                                                  const C& category_value, N&& name,
                                                  Args&&... args) {
  return EmitSiteEvent<EventType::kSliceBegin>(site, category, instances, category_value,
                                               static_cast<N&&>(name),
                                               static_cast<Args&&>(args)...);
}
template <typename C, typename N, typename... Args,
          typename = EnableIf<!UsesFastSite<C, N, Args...>::value>>
ZT_ALWAYS_INLINE inline SliceBegun EmitSliceBegin(SiteSpellingFunction, uint32_t category,
                                                  uint8_t instances, const C& category_value,
                                                  N&& name, Args&&... args) {
  if constexpr (IsPlainLiteralEvent<C, N, Args...>::value) {
    (void)category_value;
    return SliceBegun{
        0, WriteNamedSliceBegin(NamedEventKey(category, EventType::kSliceBegin), instances, name)};
  } else if constexpr (IsPlainStaticStringEvent<C, N, Args...>::value) {
    (void)category_value;
    return SliceBegun{0, WriteNamedSliceBegin(NamedEventKey(category, EventType::kSliceBegin),
                                              instances, name.value)};
  } else {
    return EmitEvent<EventType::kSliceBegin>(category, instances, category_value,
                                             static_cast<N&&>(name),
                                             static_cast<Args&&>(args)...);
  }
}
template <typename Site, typename C, typename N, typename... Args,
          typename = EnableIf<UsesFastSite<C, N, Args...>::value>>
ZT_ALWAYS_INLINE inline void EmitInstant(Site site, uint32_t category, uint8_t instances,
                                         const C& category_value, N&& name, Args&&... args) {
  EmitSiteEvent<EventType::kInstant>(site, category, instances, category_value,
                                     static_cast<N&&>(name), static_cast<Args&&>(args)...);
}
template <typename C, typename N, typename... Args,
          typename = EnableIf<!UsesFastSite<C, N, Args...>::value>>
ZT_ALWAYS_INLINE inline void EmitInstant(SiteSpellingFunction, uint32_t category,
                                         uint8_t instances, const C& category_value, N&& name,
                                         Args&&... args) {
  if constexpr (IsPlainLiteralEvent<C, N, Args...>::value) {
    (void)category_value;
    WriteNamedInstant(NamedEventKey(category, EventType::kInstant), instances, name);
  } else if constexpr (IsPlainStaticStringEvent<C, N, Args...>::value) {
    (void)category_value;
    WriteNamedInstant(NamedEventKey(category, EventType::kInstant), instances, name.value);
  } else {
    EmitEvent<EventType::kInstant>(category, instances, category_value,
                                   static_cast<N&&>(name), static_cast<Args&&>(args)...);
  }
}
template <typename C, typename... Args>
ZT_ALWAYS_INLINE inline void EmitSliceEnd(uint32_t category, uint8_t instances,
                                          const C& category_value, Args&&... args) {
  EmitEvent<EventType::kSliceEnd>(category, instances, category_value, NoEventName(),
                                  static_cast<Args&&>(args)...);
}

inline const StateTrack& MakeStateTrack(const StateTrack& track) { return track; }
template <size_t N>
StateTrack MakeStateTrack(const char (&name)[N]) {
  return StateTrack(name);
}
template <typename S>
EventName MakeStateName(S&& state) {
  return MakeEventName(static_cast<S&&>(state));
}
inline EventName MakeStateName(decltype(nullptr)) { return EventName(); }

template <typename C, typename T, typename S, typename... Args>
void EmitState(uint32_t category, uint8_t instances, const C& category_value,
               const T& track_or_name, S&& state, Args&&... args) {
  const StateTrack& track = MakeStateTrack(track_or_name);
  EventSpec spec;
  spec.category = category;
  spec.dynamic_category = DynamicCategoryName(category_value);
  spec.type = EventType::kState;
  spec.name = MakeStateName(static_cast<S&&>(state));
  spec.track = &track;
  EmitAfterTrack(spec, instances, static_cast<Args&&>(args)...);
}

inline const CounterTrack& MakeCounterTrack(const CounterTrack& track) {
  return track;
}
template <size_t N>
CounterTrack MakeCounterTrack(const char (&name)[N]) {
  return CounterTrack(name);
}

template <typename C, typename T, typename Value, typename... Args>
void EmitCounter(uint32_t category, uint8_t instances, const C& category_value,
                 const T& track_or_name, const Value& value, Args&&... args) {
  using V = RemoveCvRef<Value>;
  if constexpr (sizeof...(Args) == 0 && !IsDynamicCategory<C>::value &&
                IsCharArray<T>::value) {
    if constexpr (IsFloat<V>::value) {
      WriteDoubleCounter(category, instances, track_or_name, static_cast<double>(value));
    } else {
      WriteIntCounter(category, instances, track_or_name, static_cast<int64_t>(value));
    }
    return;
  }
  const CounterTrack& track = MakeCounterTrack(track_or_name);
  if constexpr (sizeof...(Args) == 0 && !IsDynamicCategory<C>::value) {
    if constexpr (IsFloat<V>::value) {
      WriteCounter(category, instances, track, true, 0, static_cast<double>(value));
    } else {
      WriteCounter(category, instances, track, false, static_cast<int64_t>(value), 0);
    }
    return;
  }
  EventSpec spec;
  spec.category = category;
  spec.dynamic_category = DynamicCategoryName(category_value);
  spec.type = EventType::kCounter;
  spec.track = &track;
  if constexpr (IsFloat<V>::value) {
    spec.counter_is_double = true;
    spec.counter_double = static_cast<double>(value);
  } else {
    static_assert(IntegerKind<V>::value != 0 || __is_enum(V),
                  "a counter value must be an integer or a floating-point number");
    spec.counter_int = static_cast<int64_t>(value);
  }
  EmitAfterTrack(spec, instances, static_cast<Args&&>(args)...);
}

}  // namespace internal
}  // namespace zt

#endif  // ZT_TRACING_INTERNAL_TRACK_EVENT_INTERNAL_H_
