/* Track events from C, shared part: categories registered at run time,
 * timestamps, registered tracks and event types. The high-level emit
 * (track_event_hl.h) and the low-level iteration (track_event_ll.h) build
 * on it.
 *
 * Track events travel on one data source, "track_event", registered by
 * PerfettoTeInit(). A category is enabled for a session when the session's
 * TrackEventConfig names it, or one of its tags, in enabled_categories or
 * enabled_tags (exact names first, then patterns with one trailing '*')
 * before any disabled_categories or disabled_tags match it. Unlike the C++
 * macros, a category nothing names is off.
 *
 * Each category has an atomic bool a trace point reads first (one load and
 * a branch when tracing is off) and a mask of the sessions it is on in.
 * Registering, publishing and destroying categories take a lock; reading
 * the flag takes none. C99 and C++. */
#ifndef ZT_C_ABI_TRACK_EVENT_H_
#define ZT_C_ABI_TRACK_EVENT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zt/c/abi/atomic.h"
#include "zt/c/abi/data_source.h"
#include "zt/c/abi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the "track_event" data source with the categories registered so
 * far. Call once, after PerfettoProducerInit(). */
ZT_C_EXPORT void PerfettoTeInit(void);

/* What a category is. Every string is NUL-terminated. */
struct PerfettoTeCategoryDescriptor {
  const char* name;
  /* Shown to whoever lists the data sources; may be NULL. */
  const char* desc;
  /* `num_tags` tag names; may be NULL when there are none. */
  const char** tags;
  size_t num_tags;
};

/* A registered category. Opaque. */
struct PerfettoTeCategoryImpl;

/* A category that is on whenever the track event data source has an
 * instance: what events with a dynamic category go through. */
extern ZT_C_EXPORT struct PerfettoTeCategoryImpl* perfetto_te_any_categories;
/* That category's flag. */
extern ZT_C_EXPORT ZT_C_ATOMIC(bool) * perfetto_te_any_categories_enabled;

/* Registers a category. `desc` and what it points to must stay valid until
 * PerfettoTeCategoryImplDestroy(). The service learns about it at the next
 * PerfettoTePublishCategories() (or PerfettoTeInit()); sessions already
 * running turn it on at once if their config enables it. */
ZT_C_EXPORT struct PerfettoTeCategoryImpl* PerfettoTeCategoryImplCreate(
    struct PerfettoTeCategoryDescriptor* desc);

/* Sends the current list of categories to the service (as the data
 * source's descriptor). Call after creating or destroying categories. */
ZT_C_EXPORT void PerfettoTePublishCategories(void);

/* The category's flag: true while at least one session has it on. Valid
 * until the category is destroyed. */
ZT_C_EXPORT ZT_C_ATOMIC(bool) *
    PerfettoTeCategoryImplGetEnabled(struct PerfettoTeCategoryImpl*);

/* Told when a session instance with the category on starts (`created`
 * true) or stops (false); `global_state_changed` when it was the first to
 * start or the last to stop. */
typedef void (*PerfettoTeCategoryImplCallback)(struct PerfettoTeCategoryImpl*,
                                               PerfettoDsInstanceIndex inst_id,
                                               bool created,
                                               bool global_state_changed,
                                               void* user_arg);

/* Sets (or, with NULL, clears) the category's callback. It is called at
 * once for each instance the category is already on in. */
ZT_C_EXPORT void PerfettoTeCategoryImplSetCallback(struct PerfettoTeCategoryImpl* cat,
                                                   PerfettoTeCategoryImplCallback cb,
                                                   void* user_arg);

/* The category's interning id, unique in this process, never 0. */
ZT_C_EXPORT uint64_t PerfettoTeCategoryImplGetIid(struct PerfettoTeCategoryImpl* cat);

/* Unregisters and frees a category. No trace point may use it afterwards. */
ZT_C_EXPORT void PerfettoTeCategoryImplDestroy(struct PerfettoTeCategoryImpl*);

/* Clocks of an event's timestamp: the data source clocks, and two of the
 * track event's own (delta-encoded on a thread's sequence; absolute in the
 * config's time unit). */
enum PerfettoTeTimestampType {
  PERFETTO_TE_TIMESTAMP_TYPE_MONOTONIC = PERFETTO_DS_CLOCK_MONOTONIC,
  PERFETTO_TE_TIMESTAMP_TYPE_BOOT = PERFETTO_DS_CLOCK_BOOTTIME,
  PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL = 64,
  PERFETTO_TE_TIMESTAMP_TYPE_ABSOLUTE = 65
};

/* Kept for source compatibility: the clock incremental timestamps count
 * on. New code asks PerfettoDsGetDefaultClockId(). */
enum { PERFETTO_I_CLOCK_INCREMENTAL_UNDERNEATH = PERFETTO_TE_TIMESTAMP_TYPE_BOOT };

struct PerfettoTeTimestamp {
  uint32_t clock_id; /* enum PerfettoTeTimestampType */
  uint64_t value;
};

/* Now, on the default clock. */
ZT_C_EXPORT struct PerfettoTeTimestamp PerfettoTeGetTimestamp(void);

/* A track whose descriptor the caller made: an encoded TrackDescriptor
 * (`descriptor`, malloc'ed, `descriptor_size` bytes) and its uuid. It is
 * written once per thread sequence, before the first event on it. */
struct PerfettoTeRegisteredTrackImpl {
  void* descriptor;
  size_t descriptor_size;
  uint64_t uuid;
};

/* This process's track uuid (set by PerfettoTeInit()). A thread's track is
 * this uuid XOR its thread id. */
extern ZT_C_EXPORT uint64_t perfetto_te_process_track_uuid;

enum PerfettoTeType {
  PERFETTO_TE_TYPE_SLICE_BEGIN = 1,
  PERFETTO_TE_TYPE_SLICE_END = 2,
  PERFETTO_TE_TYPE_INSTANT = 3,
  PERFETTO_TE_TYPE_COUNTER = 4,
  PERFETTO_TE_TYPE_STATE = 5
};

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_TRACK_EVENT_H_ */
