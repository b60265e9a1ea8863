/* Custom data sources in C, over the ABI (zt/c/abi/data_source.h):
 *
 *   static struct ZtCDataSource my_source = ZT_C_DATA_SOURCE_INIT;
 *
 *   ZtCDataSourceRegister(&my_source, "com.example.my_source", NULL);
 *   ...
 *   ZT_C_DATA_SOURCE_TRACE(my_source, it) {        (skipped unless enabled)
 *     struct ZtCPacket packet;
 *     ZtCPacketBegin(&it, &packet);
 *     ZtCMsgAppendVarIntField(&packet.msg, 8, timestamp);   (TracePacket fields)
 *     ZtCPacketEnd(&it, &packet);
 *   }
 *
 * While no session records the data source, ZT_C_DATA_SOURCE_TRACE costs a
 * relaxed load and a branch. Callbacks (all optional) are upstream's, in
 * a struct of ours. Thread-safe as the ABI is. C99 and C++. */
#ifndef ZT_C_DATA_SOURCE_H_
#define ZT_C_DATA_SOURCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "zt/c/abi/atomic.h"
#include "zt/c/abi/data_source.h"
#include "zt/c/abi/heap_buffer.h"
#include "zt/c/pb_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ZtCDataSource {
  /* True while a session records it; &perfetto_atomic_false before. */
  ZT_C_ATOMIC(bool) * enabled;
  struct PerfettoDsImpl* impl;
};

#define ZT_C_DATA_SOURCE_INIT {&perfetto_atomic_false, NULL}

/* The callbacks and options of a data source; zero-initialize, then set
 * what you need. */
struct ZtCDataSourceCallbacks {
  PerfettoDsOnSetupCb on_setup;
  PerfettoDsOnStartCb on_start;
  PerfettoDsOnStopCb on_stop;
  PerfettoDsOnDestroyCb on_destroy;
  PerfettoDsOnFlushCb on_flush;
  PerfettoDsOnCreateCustomState on_create_tls;
  PerfettoDsOnDeleteCustomState on_delete_tls;
  PerfettoDsOnCreateCustomState on_create_incr;
  PerfettoDsOnDeleteCustomState on_delete_incr;
  PerfettoDsOnClearCustomState on_clear_incr;
  void* user_arg;
  /* An enum PerfettoDsBufferExhaustedPolicy (0: drop). */
  uint32_t buffer_exhausted_policy;
};

/* Registers `ds` as `name` (DataSourceDescriptor.name) with `callbacks`
 * (NULL: none). The backend must be initialized (zt/c/abi/producer.h).
 * False, with the reason on stderr, if registration failed. */
static inline bool ZtCDataSourceRegister(struct ZtCDataSource* ds, const char* name,
                                         const struct ZtCDataSourceCallbacks* callbacks) {
  struct PerfettoStreamWriter writer;
  struct PerfettoHeapBuffer* buffer = PerfettoHeapBufferCreate(&writer);
  struct ZtCMsg descriptor;
  size_t size;
  void* bytes;
  struct PerfettoDsImpl* impl;
  bool ok;
  ZtCMsgInit(&descriptor, &writer);
  ZtCMsgAppendCStrField(&descriptor, 1, name); /* DataSourceDescriptor.name */
  size = writer.written_previously + (size_t)(writer.write_ptr - writer.begin);
  bytes = malloc(size == 0 ? 1 : size);
  if (bytes == NULL) {
    PerfettoHeapBufferDestroy(buffer, &writer);
    return false;
  }
  PerfettoHeapBufferCopyInto(buffer, &writer, bytes, size);
  PerfettoHeapBufferDestroy(buffer, &writer);

  impl = PerfettoDsImplCreate();
  if (callbacks != NULL) {
    if (callbacks->on_setup) PerfettoDsSetOnSetupCallback(impl, callbacks->on_setup);
    if (callbacks->on_start) PerfettoDsSetOnStartCallback(impl, callbacks->on_start);
    if (callbacks->on_stop) PerfettoDsSetOnStopCallback(impl, callbacks->on_stop);
    if (callbacks->on_destroy) PerfettoDsSetOnDestroyCallback(impl, callbacks->on_destroy);
    if (callbacks->on_flush) PerfettoDsSetOnFlushCallback(impl, callbacks->on_flush);
    if (callbacks->on_create_tls) PerfettoDsSetOnCreateTls(impl, callbacks->on_create_tls);
    if (callbacks->on_delete_tls) PerfettoDsSetOnDeleteTls(impl, callbacks->on_delete_tls);
    if (callbacks->on_create_incr) PerfettoDsSetOnCreateIncr(impl, callbacks->on_create_incr);
    if (callbacks->on_delete_incr) PerfettoDsSetOnDeleteIncr(impl, callbacks->on_delete_incr);
    if (callbacks->on_clear_incr) PerfettoDsSetOnClearIncr(impl, callbacks->on_clear_incr);
    if (callbacks->user_arg) PerfettoDsSetCbUserArg(impl, callbacks->user_arg);
    if (callbacks->buffer_exhausted_policy)
      PerfettoDsSetBufferExhaustedPolicy(impl, callbacks->buffer_exhausted_policy);
  }
  ok = PerfettoDsImplRegister(impl, &ds->enabled, bytes, size);
  free(bytes);
  if (ok)
    ds->impl = impl;
  return ok;
}

/* The first instance this thread writes into, or tracer NULL; a relaxed
 * load when the data source is off. */
static inline struct PerfettoDsImplTracerIterator ZtCDataSourceTraceBegin(struct ZtCDataSource* ds) {
  struct PerfettoDsImplTracerIterator it;
  if (!ZT_C_ATOMIC_LOAD_RELAXED(ds->enabled)) {
    it.inst_id = 0;
    it.tls = NULL;
    it.tracer = NULL;
    return it;
  }
  return PerfettoDsImplTraceIterateBegin(ds->impl);
}

/* Runs the statement that follows once per instance, `IT` the iterator.
 * Leave it early only with ZT_C_DATA_SOURCE_TRACE_BREAK: a plain `break`
 * leaves the iteration open, and this thread's later trace points of the
 * data source are then ignored. */
#define ZT_C_DATA_SOURCE_TRACE(DS, IT)                                                   \
  for (struct PerfettoDsImplTracerIterator IT = ZtCDataSourceTraceBegin(&(DS)); (IT).tracer; \
       PerfettoDsImplTraceIterateNext((DS).impl, &(IT)))

#define ZT_C_DATA_SOURCE_TRACE_BREAK(DS, IT)          \
  PerfettoDsImplTraceIterateBreak((DS).impl, &(IT)); \
  break

/* A packet being written: its fields through `msg`. */
struct ZtCPacket {
  struct PerfettoStreamWriter writer;
  struct ZtCMsg msg; /* The TracePacket. */
};

static inline void ZtCPacketBegin(struct PerfettoDsImplTracerIterator* it, struct ZtCPacket* packet) {
  packet->writer = PerfettoDsTracerImplPacketBegin(it->tracer);
  ZtCMsgInit(&packet->msg, &packet->writer);
}

static inline void ZtCPacketEnd(struct PerfettoDsImplTracerIterator* it, struct ZtCPacket* packet) {
  ZtCMsgFinalize(&packet->msg);
  PerfettoDsTracerImplPacketEnd(it->tracer, &packet->writer);
}

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_DATA_SOURCE_H_ */
