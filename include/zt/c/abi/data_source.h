/* Data source types defined at run time from C: callbacks for an
 * instance's life (setup, start, stop, flush, destroy), per-thread custom
 * and incremental state, and iteration over the instances a thread writes
 * packets into.
 *
 * A type is made with PerfettoDsImplCreate(), given its callbacks, and
 * registered once with PerfettoDsImplRegister(), which points the caller's
 * flag pointer at an atomic bool that is true while any session has an
 * instance of the type started. Tracing then goes:
 *
 *   if (atomic load of *enabled, relaxed) {             (the only cost when off)
 *     struct PerfettoDsImplTracerIterator it = PerfettoDsImplTraceIterateBegin(ds);
 *     for (; it.tracer; PerfettoDsImplTraceIterateNext(ds, &it)) {
 *       struct PerfettoStreamWriter w = PerfettoDsTracerImplPacketBegin(it.tracer);
 *       ... a TracePacket's fields through w ...
 *       PerfettoDsTracerImplPacketEnd(it.tracer, &w);
 *     }
 *   }
 *
 * Up to 8 instances of a type at once (one per session), up to 128 types
 * per process. Callbacks come from the library's tracing thread; iteration
 * and packets from any thread, each thread with writers of its own.
 * C99 and C++. */
#ifndef ZT_C_ABI_DATA_SOURCE_H_
#define ZT_C_ABI_DATA_SOURCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zt/c/abi/atomic.h"
#include "zt/c/abi/export.h"
#include "zt/c/abi/stream_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A data source type. Opaque. */
struct PerfettoDsImpl;
/* A thread's state for a type. Opaque. */
struct PerfettoDsTlsImpl;
/* A thread's writer for one instance of a type. Opaque. */
struct PerfettoDsTracerImpl;

/* Always false: where a type's flag pointer points before registration. */
extern ZT_C_EXPORT ZT_C_ATOMIC(bool) perfetto_atomic_false;

/* Which of a type's instances (0..7). */
typedef uint32_t PerfettoDsInstanceIndex;

ZT_C_EXPORT struct PerfettoDsImpl* PerfettoDsImplCreate(void);

/* Reserved (NULL) arguments of the callbacks. */
struct PerfettoDsOnSetupArgs;
struct PerfettoDsOnStartArgs;

/* An instance is set up: `ds_config` is its encoded DataSourceConfig,
 * `ds_config_size` bytes (valid during the call). What it returns is the
 * instance's context, `inst_ctx` in the other callbacks. */
typedef void* (*PerfettoDsOnSetupCb)(struct PerfettoDsImpl*, PerfettoDsInstanceIndex inst_id,
                                     void* ds_config, size_t ds_config_size, void* user_arg,
                                     struct PerfettoDsOnSetupArgs* args);

/* The instance starts: packets written from now on are kept. */
typedef void (*PerfettoDsOnStartCb)(struct PerfettoDsImpl*, PerfettoDsInstanceIndex inst_id,
                                    void* user_arg, void* inst_ctx,
                                    struct PerfettoDsOnStartArgs* args);

/* Lets a stop callback finish the stop later. */
struct PerfettoDsOnStopArgs;
struct PerfettoDsAsyncStopper;
/* From within the stop callback: the instance stops only when
 * PerfettoDsStopDone() is called with the returned handle (the session
 * waits up to its stop timeout). */
ZT_C_EXPORT struct PerfettoDsAsyncStopper* PerfettoDsOnStopArgsPostpone(struct PerfettoDsOnStopArgs*);
/* Ends a postponed stop; from any thread, once. */
ZT_C_EXPORT void PerfettoDsStopDone(struct PerfettoDsAsyncStopper*);

/* The instance stops. Packets may still be written during the call (and
 * until a postponed stop is done). */
typedef void (*PerfettoDsOnStopCb)(struct PerfettoDsImpl*, PerfettoDsInstanceIndex inst_id,
                                   void* user_arg, void* inst_ctx,
                                   struct PerfettoDsOnStopArgs* args);

/* The instance is gone: `inst_ctx` may be freed. */
typedef void (*PerfettoDsOnDestroyCb)(struct PerfettoDsImpl*, void* user_arg, void* inst_ctx);

/* Lets a flush callback answer the flush later. */
struct PerfettoDsOnFlushArgs;
struct PerfettoDsAsyncFlusher;
/* From within the flush callback: the session's flush completes only when
 * PerfettoDsFlushDone() is called with the returned handle (or fails at
 * its timeout). */
ZT_C_EXPORT struct PerfettoDsAsyncFlusher* PerfettoDsOnFlushArgsPostpone(struct PerfettoDsOnFlushArgs*);
/* Answers a postponed flush; from any thread, once. */
ZT_C_EXPORT void PerfettoDsFlushDone(struct PerfettoDsAsyncFlusher*);

/* The session asks for what was written so far. */
typedef void (*PerfettoDsOnFlushCb)(struct PerfettoDsImpl*, PerfettoDsInstanceIndex inst_id,
                                    void* user_arg, void* inst_ctx,
                                    struct PerfettoDsOnFlushArgs* args);

/* Makes a thread's custom or incremental state for an instance (from
 * within iteration, on the writing thread). */
typedef void* (*PerfettoDsOnCreateCustomState)(struct PerfettoDsImpl*,
                                               PerfettoDsInstanceIndex inst_id,
                                               struct PerfettoDsTracerImpl* tracer,
                                               void* user_arg);
/* Frees such a state. */
typedef void (*PerfettoDsOnDeleteCustomState)(void* obj);
/* Clears an incremental state in place (true), or asks for it to be
 * deleted and made again (false). */
typedef bool (*PerfettoDsOnClearCustomState)(void* obj, void* user_arg);

/* Setters: before PerfettoDsImplRegister() only. */
ZT_C_EXPORT void PerfettoDsSetOnSetupCallback(struct PerfettoDsImpl*, PerfettoDsOnSetupCb);
ZT_C_EXPORT void PerfettoDsSetOnStartCallback(struct PerfettoDsImpl*, PerfettoDsOnStartCb);
ZT_C_EXPORT void PerfettoDsSetOnStopCallback(struct PerfettoDsImpl*, PerfettoDsOnStopCb);
ZT_C_EXPORT void PerfettoDsSetOnDestroyCallback(struct PerfettoDsImpl*, PerfettoDsOnDestroyCb);
ZT_C_EXPORT void PerfettoDsSetOnFlushCallback(struct PerfettoDsImpl*, PerfettoDsOnFlushCb);
ZT_C_EXPORT void PerfettoDsSetOnCreateTls(struct PerfettoDsImpl*, PerfettoDsOnCreateCustomState);
ZT_C_EXPORT void PerfettoDsSetOnDeleteTls(struct PerfettoDsImpl*, PerfettoDsOnDeleteCustomState);
ZT_C_EXPORT void PerfettoDsSetOnCreateIncr(struct PerfettoDsImpl*, PerfettoDsOnCreateCustomState);
ZT_C_EXPORT void PerfettoDsSetOnDeleteIncr(struct PerfettoDsImpl*, PerfettoDsOnDeleteCustomState);
ZT_C_EXPORT void PerfettoDsSetOnClearIncr(struct PerfettoDsImpl*, PerfettoDsOnClearCustomState);
/* `user_arg` of every callback. */
ZT_C_EXPORT void PerfettoDsSetCbUserArg(struct PerfettoDsImpl*, void* user_arg);

enum PerfettoDsBufferExhaustedPolicy {
  /* No free chunk: the packet is dropped (counted and marked). */
  PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_DROP = 0,
  /* Upstream: wait for a chunk, abort the process if none comes in a few
   * seconds. Here the same as STALL_AND_DROP: a lost packet is counted and
   * marked in the trace, the process goes on. */
  PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_STALL_AND_ABORT = 1,
  /* Wait for a chunk (up to 1 s); drop (counted, marked) if none comes. */
  PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_STALL_AND_DROP = 2
};

/* `policy`: an enum PerfettoDsBufferExhaustedPolicy. Before registration;
 * false for an unknown policy. */
ZT_C_EXPORT bool PerfettoDsSetBufferExhaustedPolicy(struct PerfettoDsImpl*, uint32_t policy);
/* Whether a session's DataSourceConfig may choose the policy: not
 * supported yet, so `true` is refused (false, a warning on stderr). */
ZT_C_EXPORT bool PerfettoDsSetBufferExhaustedPolicyConfigurable(struct PerfettoDsImpl*,
                                                                bool configurable);

/* Registers the type under `descriptor` (an encoded DataSourceDescriptor,
 * `descriptor_size` bytes, read during the call) and sets `*enabled_ptr`
 * to the type's flag. False, with the reason on stderr, if the backend is
 * not initialized, the descriptor does not parse or has no name, the name
 * is taken, or the process has 128 types already: the type is then freed
 * (`ds_impl` is invalid; make a new one to try again). */
ZT_C_EXPORT bool PerfettoDsImplRegister(struct PerfettoDsImpl* ds_impl,
                                        ZT_C_ATOMIC(bool) * *enabled_ptr, const void* descriptor,
                                        size_t descriptor_size);

/* Replaces the registered descriptor (an encoded DataSourceDescriptor of
 * the same name, read during the call) in every connected service: what
 * their QueryServiceState lists. Another name, or bytes that do not parse,
 * change nothing (an error on stderr). */
ZT_C_EXPORT void PerfettoDsImplUpdateDescriptor(struct PerfettoDsImpl* ds_impl,
                                                const void* descriptor, size_t descriptor_size);

/* The context instance `inst_id`'s setup returned, with the instance
 * locked (it cannot stop meanwhile) until PerfettoDsImplReleaseInstanceLocked;
 * NULL (and nothing locked) if the instance is gone or its context is NULL. */
ZT_C_EXPORT void* PerfettoDsImplGetInstanceLocked(struct PerfettoDsImpl* ds_impl,
                                                  PerfettoDsInstanceIndex inst_id);
ZT_C_EXPORT void PerfettoDsImplReleaseInstanceLocked(struct PerfettoDsImpl* ds_impl,
                                                     PerfettoDsInstanceIndex inst_id);

/* This thread's custom state for the instance (made on first use with the
 * OnCreateTls callback). */
ZT_C_EXPORT void* PerfettoDsImplGetCustomTls(struct PerfettoDsImpl* ds_impl,
                                             struct PerfettoDsTracerImpl* tracer,
                                             PerfettoDsInstanceIndex inst_id);
/* This thread's incremental state for the instance (made on first use, and
 * again after the session asked to clear incremental state). */
ZT_C_EXPORT void* PerfettoDsImplGetIncrementalState(struct PerfettoDsImpl* ds_impl,
                                                    struct PerfettoDsTracerImpl* tracer,
                                                    PerfettoDsInstanceIndex inst_id);

/* An iteration over the instances this thread writes into: 24 bytes on
 * LP64. Done when `tracer` is NULL. */
struct PerfettoDsImplTracerIterator {
  PerfettoDsInstanceIndex inst_id;
  struct PerfettoDsTlsImpl* tls;
  struct PerfettoDsTracerImpl* tracer;
};

ZT_C_EXPORT struct PerfettoDsImplTracerIterator PerfettoDsImplTraceIterateBegin(struct PerfettoDsImpl* ds_impl);
ZT_C_EXPORT void PerfettoDsImplTraceIterateNext(struct PerfettoDsImpl* ds_impl,
                                                struct PerfettoDsImplTracerIterator* iterator);
/* Ends an iteration before its end. Required when leaving the loop early:
 * while an iteration is open, trace points of the same type on this
 * thread are ignored (so that a trace point reached from inside one, or
 * from an OnCreateTls/OnCreateIncr callback, writes nothing rather than a
 * packet inside a packet). */
ZT_C_EXPORT void PerfettoDsImplTraceIterateBreak(struct PerfettoDsImpl* ds_impl,
                                                 struct PerfettoDsImplTracerIterator* iterator);

/* Starts a packet on the tracer; write its TracePacket fields through the
 * returned writer, then PerfettoDsTracerImplPacketEnd() with it. One packet
 * at a time per tracer. */
ZT_C_EXPORT struct PerfettoStreamWriter PerfettoDsTracerImplPacketBegin(struct PerfettoDsTracerImpl* tracer);
ZT_C_EXPORT void PerfettoDsTracerImplPacketEnd(struct PerfettoDsTracerImpl* tracer,
                                               struct PerfettoStreamWriter* writer);

typedef void (*PerfettoDsTracerOnFlushCb)(void* user_arg);

enum PerfettoDsClockId {
  /* BuiltinClock ids of the trace format. */
  PERFETTO_DS_CLOCK_MONOTONIC = 3,
  PERFETTO_DS_CLOCK_BOOTTIME = 6
};

/* The clock timestamps are taken with by default (boot time on Linux). */
ZT_C_EXPORT uint32_t PerfettoDsGetDefaultClockId(void);

struct PerfettoDsTimestamp {
  uint32_t clock_id; /* enum PerfettoDsClockId: set TracePacket.timestamp_clock_id */
  uint64_t value;
};

/* Now, on the default clock. */
ZT_C_EXPORT struct PerfettoDsTimestamp PerfettoDsGetTimestamp(void);

/* Hands this thread's written packets for the tracer's instance to the
 * service now; `cb(user_arg)` (if not NULL) runs later on the library's
 * thread, after the commit was sent (never if tracing shuts down first).
 * Not between PacketBegin and PacketEnd. */
ZT_C_EXPORT void PerfettoDsTracerImplFlush(struct PerfettoDsTracerImpl* tracer,
                                           PerfettoDsTracerOnFlushCb cb, void* user_arg);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_DATA_SOURCE_H_ */
