/* Track events from C, low level: the caller iterates the track event
 * instances a category is on in and writes each TracePacket itself, with
 * the library keeping per-thread sequence state (seen tracks, interning).
 * More code per trace point than the high-level emit, and every field of
 * TrackEvent within reach.
 *
 *   struct PerfettoTeLlImplIterator it = PerfettoTeLlImplBegin(cat, ts);
 *   for (; it.ds.tracer; PerfettoTeLlImplNext(cat, ts, &it)) {
 *     ... PerfettoDsTracerImplPacketBegin(it.ds.tracer), fields, PacketEnd ...
 *   }
 *
 * Begin also writes the sequence's first packets (clock and defaults, the
 * thread's and process's track descriptors) when the thread's state for
 * an instance is new or was cleared. Leaving a loop early needs
 * PerfettoTeLlImplBreak(). C99 and C++. */
#ifndef ZT_C_ABI_TRACK_EVENT_LL_H_
#define ZT_C_ABI_TRACK_EVENT_LL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zt/c/abi/data_source.h"
#include "zt/c/abi/track_event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A thread's incremental (interning) state for one instance. Opaque. */
struct PerfettoTeLlImplIncr;
/* A thread's other state for one instance. Opaque. */
struct PerfettoTeLlImplTls;

struct PerfettoTeLlImplIterator {
  struct PerfettoDsImplTracerIterator ds;
  struct PerfettoTeLlImplIncr* incr;
  struct PerfettoTeLlImplTls* tls;
};

/* The first instance `cat` is on in for this thread, or ds.tracer NULL. */
ZT_C_EXPORT struct PerfettoTeLlImplIterator PerfettoTeLlImplBegin(
    struct PerfettoTeCategoryImpl* cat, struct PerfettoTeTimestamp ts);

/* Moves to the next one; ds.tracer NULL when there is none. */
ZT_C_EXPORT void PerfettoTeLlImplNext(struct PerfettoTeCategoryImpl* cat,
                                      struct PerfettoTeTimestamp ts,
                                      struct PerfettoTeLlImplIterator* iterator);

/* Ends an iteration before its end. */
ZT_C_EXPORT void PerfettoTeLlImplBreak(struct PerfettoTeCategoryImpl*,
                                       struct PerfettoTeLlImplIterator*);

/* Whether the instance (`tracer`, `inst_id` from the iterator) enables
 * `dyn_cat`, a category described at the trace point, not registered. The
 * answer is cached per thread and instance. */
ZT_C_EXPORT bool PerfettoTeLlImplDynCatEnabled(struct PerfettoDsTracerImpl* tracer,
                                               PerfettoDsInstanceIndex inst_id,
                                               const struct PerfettoTeCategoryDescriptor* dyn_cat);

/* True if this sequence saw track `uuid` before (and its descriptor was
 * written); records it as seen otherwise. */
ZT_C_EXPORT bool PerfettoTeLlImplTrackSeen(struct PerfettoTeLlImplIncr*, uint64_t uuid);

/* The interning id of `data_size` bytes at `data` among the sequence's
 * entries of `type` (an InternedData field number). `*seen` is false when
 * the id is new: the caller then writes the entry into the packet's
 * interned_data. Ids of a type start at 1. */
ZT_C_EXPORT uint64_t PerfettoTeLlImplIntern(struct PerfettoTeLlImplIncr* incr,
                                            int32_t type,
                                            const void* data,
                                            size_t data_size,
                                            bool* seen);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_TRACK_EVENT_LL_H_ */
