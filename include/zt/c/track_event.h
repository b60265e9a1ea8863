/* Track events in C, over the ABI (zt/c/abi/track_event_hl.h and _ll.h):
 *
 *   static struct ZtCCategory rendering = ZT_C_CATEGORY_INIT("rendering", "Frames");
 *   static struct ZtCCategory* const categories[] = {&rendering};
 *
 *   PerfettoProducerInit(...);                       (zt/c/abi/producer.h)
 *   ZtCTrackEventInit(categories, 1);
 *
 *   ZT_C_SLICE_BEGIN(rendering, "draw", ZT_C_ARG_INT("frame", n));
 *   ZT_C_SLICE_END(rendering);
 *   ZT_C_INSTANT(rendering, "vsync", ZT_C_ARG_STR("why", reason), ZT_C_FLOW(id));
 *   ZT_C_COUNTER(rendering, "fps", ZT_C_INT_VALUE(60));
 *   ZT_C_INSTANT(ZT_C_ANY_CATEGORY, "load", ZT_C_DYNAMIC_CATEGORY(plugin_name));
 *
 * An event takes, after its name, any number of extras: arguments
 * (ZT_C_ARG_*), flows, a track, a timestamp, a dynamic category. Names and
 * argument names are interned per thread by content, so any string will
 * do, and need live only for the call.
 *
 * Cost: while the category is off, an event is a load of the category's
 * flag pointer, a load of the flag and a branch; its arguments are not
 * evaluated. On, one call into the library (PerfettoTeHlEmitImpl) with the
 * extras built on the stack. A category is on for a session whose config
 * names it or one of its tags (track_event_config's enabled_categories or
 * enabled_tags, globs like "gfx*"); a category nothing names is off
 * (`ztrace record` without categories names "*" and disables the tags
 * "slow" and "debug"). Events cost about 1.5x the instructions of the C++
 * macros' (docs/benchmarks.md).
 *
 * Thread-safe: events from any thread; registering categories from any
 * thread, serialized by the library. Not async-signal-safe: an event in a
 * signal handler that lands inside another on the same thread is dropped,
 * but outside one it may take a path that allocates. C99 and C++ (the extras are compound
 * literals in C, temporaries in C++: both live until the end of the
 * statement). */
#ifndef ZT_C_TRACK_EVENT_H_
#define ZT_C_TRACK_EVENT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zt/c/abi/atomic.h"
#include "zt/c/abi/data_source.h"
#include "zt/c/abi/thread_utils.h"
#include "zt/c/abi/track_event.h"
#include "zt/c/abi/track_event_hl.h"

#ifdef __cplusplus
#include <initializer_list>
extern "C" {
#endif

/* A category: its descriptor, and once registered its flag and handle. */
struct ZtCCategory {
  ZT_C_ATOMIC(bool) * enabled; /* &perfetto_atomic_false until registered. */
  struct PerfettoTeCategoryImpl* impl;
  struct PerfettoTeCategoryDescriptor desc;
  uint64_t iid;
};

/* A category named NAME (a string literal), described by DESCRIPTION. */
#define ZT_C_CATEGORY_INIT(NAME, DESCRIPTION) \
  {&perfetto_atomic_false, NULL, {NAME, DESCRIPTION, NULL, 0}, 0}
/* The same with tags: TAGS is an array of const char* (static). */
#define ZT_C_CATEGORY_INIT_TAGS(NAME, DESCRIPTION, TAGS) \
  {&perfetto_atomic_false, NULL, {NAME, DESCRIPTION, TAGS, sizeof(TAGS) / sizeof((TAGS)[0])}, 0}

static inline void ZtCICategoriesCreate(struct ZtCCategory* const categories[], size_t count) {
  size_t i;
  for (i = 0; i < count; i++) {
    struct ZtCCategory* cat = categories[i];
    cat->impl = PerfettoTeCategoryImplCreate(&cat->desc);
    cat->iid = PerfettoTeCategoryImplGetIid(cat->impl);
    cat->enabled = PerfettoTeCategoryImplGetEnabled(cat->impl);
  }
}

/* Registers `count` categories and tells the service about them. Call after
 * ZtCTrackEventInit() for categories added later. */
static inline void ZtCCategoriesRegister(struct ZtCCategory* const categories[], size_t count) {
  ZtCICategoriesCreate(categories, count);
  PerfettoTePublishCategories();
}

/* Unregisters them: their events are off (and cost the check only) after. */
static inline void ZtCCategoriesUnregister(struct ZtCCategory* const categories[], size_t count) {
  size_t i;
  for (i = 0; i < count; i++) {
    struct ZtCCategory* cat = categories[i];
    cat->enabled = &perfetto_atomic_false;
    PerfettoTeCategoryImplDestroy(cat->impl);
    cat->impl = NULL;
    cat->iid = 0;
  }
  PerfettoTePublishCategories();
}

/* Registers the track event data source with `categories` (may be NULL
 * with `count` 0). Once per process, after PerfettoProducerInit(). */
static inline void ZtCTrackEventInit(struct ZtCCategory* const categories[], size_t count) {
  ZtCICategoriesCreate(categories, count);
  PerfettoTeInit();
}

/* What events with a dynamic category (ZT_C_DYNAMIC_CATEGORY) go through:
 * on whenever a session records track events. */
static inline struct ZtCCategory ZtCAnyCategory(void) {
  struct ZtCCategory any;
  any.enabled = perfetto_te_any_categories_enabled;
  any.impl = perfetto_te_any_categories;
  any.desc.name = NULL;
  any.desc.desc = NULL;
  any.desc.tags = NULL;
  any.desc.num_tags = 0;
  any.iid = 0;
  return any;
}
#define ZT_C_ANY_CATEGORY ZtCAnyCategory()

/* Track and flow ids, as the ABI defines them. */
static inline uint64_t ZtCProcessTrackUuid(void) { return perfetto_te_process_track_uuid; }
static inline uint64_t ZtCThreadTrackUuid(void) {
  return perfetto_te_process_track_uuid ^ (uint64_t)PerfettoGetThreadIdImpl();
}
/* A counter track's uuid (named `name`, under the process's track). */
static inline uint64_t ZtCCounterTrackUuid(const char* name) {
  uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a */
  for (; *name; name++)
    hash = (hash ^ (uint8_t)*name) * 0x100000001b3ull;
  return 0xb1a4a67d7970839eull ^ perfetto_te_process_track_uuid ^ hash;
}

/* ---- Internals of the macros below. ---- */
#ifndef __cplusplus
#define ZT_C_I_REF(TYPE, ...) ((struct PerfettoTeHlExtra*)&(struct TYPE)__VA_ARGS__)
#define ZT_C_I_PTR(TYPE, ...) (&(struct TYPE)__VA_ARGS__)
#define ZT_C_I_LIST(TYPE, ...) ((TYPE const[]){__VA_ARGS__})
#else
#define ZT_C_I_REF(TYPE, ...) \
  (reinterpret_cast<struct PerfettoTeHlExtra*>(&(TYPE{} = TYPE __VA_ARGS__)))
#define ZT_C_I_PTR(TYPE, ...) (&(TYPE{} = TYPE __VA_ARGS__))
#define ZT_C_I_LIST(TYPE, ...) ((std::initializer_list<TYPE>{__VA_ARGS__}).begin())
#endif

/* The check inline; the call only when on. `...`: the extras, then NULL. */
#define ZT_C_I_EMIT(CAT, TYPE, NAME, ...)                                         \
  do {                                                                           \
    if (__builtin_expect(!!ZT_C_ATOMIC_LOAD_RELAXED((CAT).enabled), 0))          \
      PerfettoTeHlEmitImpl((CAT).impl, TYPE, NAME,                               \
                           ZT_C_I_LIST(struct PerfettoTeHlExtra*, __VA_ARGS__)); \
  } while (0)
#define ZT_C_I_NAMED(CAT, TYPE, NAME, ...) ZT_C_I_EMIT(CAT, TYPE, NAME, __VA_ARGS__)
#define ZT_C_I_UNNAMED(CAT, TYPE, ...) ZT_C_I_EMIT(CAT, TYPE, NULL, __VA_ARGS__)
#define ZT_C_I_SLICE_BEGIN(CAT, ...) ZT_C_I_NAMED(CAT, PERFETTO_TE_TYPE_SLICE_BEGIN, __VA_ARGS__)
#define ZT_C_I_SLICE_END(CAT, ...) ZT_C_I_UNNAMED(CAT, PERFETTO_TE_TYPE_SLICE_END, __VA_ARGS__)
#define ZT_C_I_INSTANT(CAT, ...) ZT_C_I_NAMED(CAT, PERFETTO_TE_TYPE_INSTANT, __VA_ARGS__)

/* ---- Events. CAT is a struct ZtCCategory (not a pointer). ---- */

/* ZT_C_SLICE_BEGIN(cat, "name", extras...): a slice begins on the thread's
 * track (or the extras' track). */
#define ZT_C_SLICE_BEGIN(...) ZT_C_I_SLICE_BEGIN(__VA_ARGS__, NULL)
/* ZT_C_SLICE_END(cat, extras...): the innermost open slice of the track ends. */
#define ZT_C_SLICE_END(...) ZT_C_I_SLICE_END(__VA_ARGS__, NULL)
/* ZT_C_INSTANT(cat, "name", extras...). */
#define ZT_C_INSTANT(...) ZT_C_I_INSTANT(__VA_ARGS__, NULL)
/* ZT_C_COUNTER(cat, "track name", ZT_C_INT_VALUE(v) or ZT_C_DOUBLE_VALUE(v),
 * extras...): a value on the process's counter track of that name (a
 * string literal: the call site registers the track at its first event and
 * names it by a pointer after; see ZT_C_COUNTER_ON). ZT_C_COUNTER_DYNAMIC
 * takes any string, and describes the track at each event. The call site's
 * track is a static variable: C does not allow one in a non-static inline
 * function (use ZT_C_COUNTER_DYNAMIC there, or a static inline one). */
#define ZT_C_COUNTER(CAT, TRACK_NAME, ...)                                                   \
  do {                                                                                     \
    static struct ZtCCounterTrack zt_c_i_site_track = ZT_C_COUNTER_TRACK_INIT;             \
    if (__builtin_expect(!!ZT_C_ATOMIC_LOAD_RELAXED((CAT).enabled), 0)) {                  \
      if (__builtin_expect(__atomic_load_n(&zt_c_i_site_track.state, __ATOMIC_ACQUIRE) == 2, \
                           1)) {                                                           \
        PerfettoTeHlEmitImpl((CAT).impl, PERFETTO_TE_TYPE_COUNTER, NULL,                   \
                             ZT_C_I_LIST(struct PerfettoTeHlExtra*,                        \
                                         ZT_C_I_REGISTERED_TRACK(zt_c_i_site_track),       \
                                         __VA_ARGS__, NULL));                              \
      } else {                                                                             \
        ZtCICounterTrackRegisterOnce(&zt_c_i_site_track, "" TRACK_NAME "");                \
        PerfettoTeHlEmitImpl((CAT).impl, PERFETTO_TE_TYPE_COUNTER, NULL,                   \
                             ZT_C_I_LIST(struct PerfettoTeHlExtra*,                        \
                                         ZT_C_I_COUNTER_TRACK(TRACK_NAME), __VA_ARGS__,    \
                                         NULL));                                           \
      }                                                                                    \
    }                                                                                      \
  } while (0)
#define ZT_C_COUNTER_DYNAMIC(CAT, TRACK_NAME, ...)                                  \
  ZT_C_I_UNNAMED(CAT, PERFETTO_TE_TYPE_COUNTER, ZT_C_I_COUNTER_TRACK(TRACK_NAME), \
                 __VA_ARGS__, NULL)

/* A counter track registered once, its descriptor encoded then: the
 * cheaper form of ZT_C_COUNTER for a counter updated often (the event
 * names the track by a pointer; no hash, no fields built per event).
 *
 *   static struct ZtCCounterTrack queue = ZT_C_COUNTER_TRACK_INIT;
 *   ZtCCounterTrackRegister(&queue, "queue depth");    (after ZtCTrackEventInit)
 *   ZT_C_COUNTER_ON(app, queue, ZT_C_INT_VALUE(depth));
 *
 * The same track as ZT_C_COUNTER(app, "queue depth", ...) writes on. */
struct ZtCCounterTrack {
  struct PerfettoTeRegisteredTrackImpl impl;
  /* ZT_C_COUNTER's: 0 not registered, 1 being registered, 2 registered.
   * A plain int read and written with the compilers' __atomic builtins, as
   * zt/c/abi/atomic.h does in C99: the struct stays an aggregate in C++. */
  int state;
};
#define ZT_C_COUNTER_TRACK_INIT {{NULL, 0, 0}, 0}

static inline uint8_t* ZtCIPutVarInt(uint8_t* p, uint64_t value) {
  while (value >= 0x80) {
    *p++ = (uint8_t)(value | 0x80);
    value >>= 7;
  }
  *p++ = (uint8_t)value;
  return p;
}

/* Encodes the TrackDescriptor of the counter track named `name` (uuid,
 * name, the process as parent, a CounterDescriptor). False if out of
 * memory. */
static inline bool ZtCCounterTrackRegister(struct ZtCCounterTrack* track, const char* name) {
  const size_t size = strlen(name);
  uint8_t* bytes = (uint8_t*)malloc(size + 40);
  uint8_t* p = bytes;
  const uint64_t uuid = ZtCCounterTrackUuid(name);
  if (bytes == NULL)
    return false;
  *p++ = 1 << 3; /* uuid */
  p = ZtCIPutVarInt(p, uuid);
  *p++ = (2 << 3) | 2; /* name */
  p = ZtCIPutVarInt(p, size);
  memcpy(p, name, size);
  p += size;
  *p++ = 5 << 3; /* parent_uuid */
  p = ZtCIPutVarInt(p, perfetto_te_process_track_uuid);
  *p++ = (8 << 3) | 2; /* counter: empty */
  *p++ = 0;
  track->impl.descriptor = bytes;
  track->impl.descriptor_size = (size_t)(p - bytes);
  track->impl.uuid = uuid;
  return true;
}

/* ZT_C_COUNTER's: registers the call site's track once, whichever thread
 * gets there first; the others describe the track with their event until
 * it is registered. */
static inline void ZtCICounterTrackRegisterOnce(struct ZtCCounterTrack* track, const char* name) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&track->state, &expected, 1, 0, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
    return;
  __atomic_store_n(&track->state, ZtCCounterTrackRegister(track, name) ? 2 : 0, __ATOMIC_RELEASE);
}

static inline void ZtCCounterTrackUnregister(struct ZtCCounterTrack* track) {
  free(track->impl.descriptor);
  track->impl.descriptor = NULL;
  track->impl.descriptor_size = 0;
}

/* ZT_C_COUNTER_ON(cat, track, ZT_C_INT_VALUE(v) or ZT_C_DOUBLE_VALUE(v),
 * extras...): a value on a registered counter track (a struct
 * ZtCCounterTrack, not a pointer). */
#define ZT_C_COUNTER_ON(CAT, TRACK, ...) \
  ZT_C_I_UNNAMED(CAT, PERFETTO_TE_TYPE_COUNTER, ZT_C_I_REGISTERED_TRACK(TRACK), __VA_ARGS__, NULL)
#define ZT_C_I_REGISTERED_TRACK(TRACK)       \
  ZT_C_I_REF(PerfettoTeHlExtraRegisteredTrack, \
             {{PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK}, &(TRACK).impl})

/* ---- Extras. ---- */

/* Debug annotations ("args" in the UI). NAME any string. */
#define ZT_C_ARG_BOOL(NAME, VALUE) \
  ZT_C_I_REF(PerfettoTeHlExtraDebugArgBool, {{PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL}, NAME, VALUE})
#define ZT_C_ARG_INT(NAME, VALUE)                                                                 \
  ZT_C_I_REF(PerfettoTeHlExtraDebugArgInt64, {{PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_INT64}, NAME, \
                                              (int64_t)(VALUE)})
#define ZT_C_ARG_UINT(NAME, VALUE)                                        \
  ZT_C_I_REF(PerfettoTeHlExtraDebugArgUint64,                             \
             {{PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_UINT64}, NAME, (uint64_t)(VALUE)})
#define ZT_C_ARG_DOUBLE(NAME, VALUE)                                      \
  ZT_C_I_REF(PerfettoTeHlExtraDebugArgDouble,                             \
             {{PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_DOUBLE}, NAME, (double)(VALUE)})
#define ZT_C_ARG_STR(NAME, VALUE)                                                                   \
  ZT_C_I_REF(PerfettoTeHlExtraDebugArgString, {{PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_STRING}, NAME, \
                                               VALUE})
#define ZT_C_ARG_PTR(NAME, VALUE)                                         \
  ZT_C_I_REF(PerfettoTeHlExtraDebugArgPointer,                            \
             {{PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER}, NAME, (uintptr_t)(VALUE)})

/* A counter's value (ZT_C_COUNTER). */
#define ZT_C_INT_VALUE(VALUE) \
  ZT_C_I_REF(PerfettoTeHlExtraCounterInt64, {{PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_INT64}, (int64_t)(VALUE)})
#define ZT_C_DOUBLE_VALUE(VALUE)                                          \
  ZT_C_I_REF(PerfettoTeHlExtraCounterDouble,                              \
             {{PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_DOUBLE}, (double)(VALUE)})

/* Flows link events: ZT_C_FLOW(id) on each event of the chain, the last
 * with ZT_C_TERMINATING_FLOW(id). The ids are this process's; the GLOBAL
 * variants link events of several processes. */
#define ZT_C_FLOW(ID) ZT_C_GLOBAL_FLOW((uint64_t)(ID) ^ perfetto_te_process_track_uuid)
#define ZT_C_TERMINATING_FLOW(ID) \
  ZT_C_GLOBAL_TERMINATING_FLOW((uint64_t)(ID) ^ perfetto_te_process_track_uuid)
#define ZT_C_GLOBAL_FLOW(ID) \
  ZT_C_I_REF(PerfettoTeHlExtraFlow, {{PERFETTO_TE_HL_EXTRA_TYPE_FLOW}, (uint64_t)(ID)})
#define ZT_C_GLOBAL_TERMINATING_FLOW(ID) \
  ZT_C_I_REF(PerfettoTeHlExtraFlow, {{PERFETTO_TE_HL_EXTRA_TYPE_TERMINATING_FLOW}, (uint64_t)(ID)})

/* The event goes on the process's track named NAME (a string literal) with
 * id ID, not the thread's: slices that outlive a call, overlap, or move
 * between threads. */
#define ZT_C_TRACK(NAME, ID)                                                  \
  ZT_C_I_REF(PerfettoTeHlExtraNamedTrack, {{PERFETTO_TE_HL_EXTRA_TYPE_NAMED_TRACK}, NAME, \
                                           (uint64_t)(ID), perfetto_te_process_track_uuid, true})
/* The event's time (a struct PerfettoTeTimestamp), not now. */
#define ZT_C_TIMESTAMP(TS) \
  ZT_C_I_REF(PerfettoTeHlExtraTimestamp, {{PERFETTO_TE_HL_EXTRA_TYPE_TIMESTAMP}, TS})
/* With ZT_C_ANY_CATEGORY: the event's category, named at the call. */
#define ZT_C_DYNAMIC_CATEGORY(NAME)                                               \
  ZT_C_I_REF(PerfettoTeHlExtraDynamicCategory,                                    \
             {{PERFETTO_TE_HL_EXTRA_TYPE_DYNAMIC_CATEGORY},                       \
              ZT_C_I_PTR(PerfettoTeCategoryDescriptor, {NAME, NULL, NULL, 0})})
/* Writes the thread's buffered events to the service after this one. */
#define ZT_C_FLUSH() ZT_C_I_REF(PerfettoTeHlExtra, {PERFETTO_TE_HL_EXTRA_TYPE_FLUSH})

/* The counter track ZT_C_COUNTER writes on: named, with a
 * CounterDescriptor, under the process. */
#define ZT_C_I_COUNTER_TRACK(NAME)                                                         \
  ZT_C_I_REF(                                                                              \
      PerfettoTeHlExtraProtoTrack,                                                         \
      {{PERFETTO_TE_HL_EXTRA_TYPE_PROTO_TRACK},                                            \
       ZtCCounterTrackUuid(NAME),                                                          \
       ZT_C_I_LIST(struct PerfettoTeHlProtoField*,                                         \
                   (struct PerfettoTeHlProtoField*)ZT_C_I_PTR(                             \
                       PerfettoTeHlProtoFieldCstr, {{PERFETTO_TE_HL_PROTO_TYPE_CSTR, 2}, NAME}), \
                   (struct PerfettoTeHlProtoField*)ZT_C_I_PTR(                             \
                       PerfettoTeHlProtoFieldVarInt,                                \
                       {{PERFETTO_TE_HL_PROTO_TYPE_VARINT, 5}, perfetto_te_process_track_uuid}), \
                   (struct PerfettoTeHlProtoField*)ZT_C_I_PTR(                             \
                       PerfettoTeHlProtoFieldNested,                                \
                       {{PERFETTO_TE_HL_PROTO_TYPE_NESTED, 8},                             \
                        ZT_C_I_LIST(struct PerfettoTeHlProtoField*, NULL)}),               \
                   NULL)})

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_TRACK_EVENT_H_ */
