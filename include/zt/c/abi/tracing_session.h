/* A tracing session controlled from this process: configured with an
 * encoded perfetto.protos.TraceConfig, started, stopped, read.
 *
 *   struct PerfettoTracingSessionImpl* s = PerfettoTracingSessionInProcessCreate();
 *   PerfettoTracingSessionSetup(s, config_bytes, config_size);
 *   PerfettoTracingSessionStartBlocking(s);
 *   ... traced work ...
 *   PerfettoTracingSessionStopBlocking(s);
 *   PerfettoTracingSessionReadTraceBlocking(s, on_piece, user_arg);
 *   PerfettoTracingSessionDestroy(s);
 *
 * Create returns NULL when that backend was not initialized (see
 * producer.h). Callbacks run on the library's tracing thread: keep them
 * short and do not call the Blocking functions from them. A config that
 * does not parse ends the session with an error (logged on stderr): Start
 * then starts nothing and the trace read is empty. Thread-safe.
 * C99 and C++. */
#ifndef ZT_C_ABI_TRACING_SESSION_H_
#define ZT_C_ABI_TRACING_SESSION_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zt/c/abi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

struct PerfettoTracingSessionImpl;

ZT_C_EXPORT struct PerfettoTracingSessionImpl* PerfettoTracingSessionSystemCreate(void);
ZT_C_EXPORT struct PerfettoTracingSessionImpl* PerfettoTracingSessionInProcessCreate(void);

/* `cfg_begin`: an encoded TraceConfig, `cfg_len` bytes, read during the
 * call only. Before Start. */
ZT_C_EXPORT void PerfettoTracingSessionSetup(struct PerfettoTracingSessionImpl*, void* cfg_begin,
                                             size_t cfg_len);

typedef void (*PerfettoTracingSessionStopCb)(struct PerfettoTracingSessionImpl*, void* user_arg);

/* `cb(session, user_arg)` when the session stops (Stop, its duration, an
 * error). */
ZT_C_EXPORT void PerfettoTracingSessionSetStopCb(struct PerfettoTracingSessionImpl*,
                                                 PerfettoTracingSessionStopCb cb, void* user_arg);

ZT_C_EXPORT void PerfettoTracingSessionStartAsync(struct PerfettoTracingSessionImpl*);
/* Returns once the data sources started (or the session ended). */
ZT_C_EXPORT void PerfettoTracingSessionStartBlocking(struct PerfettoTracingSessionImpl*);
ZT_C_EXPORT void PerfettoTracingSessionStopAsync(struct PerfettoTracingSessionImpl*);
/* Returns once the session stopped; its trace stays readable. */
ZT_C_EXPORT void PerfettoTracingSessionStopBlocking(struct PerfettoTracingSessionImpl*);

typedef void (*PerfettoTracingSessionFlushCb)(struct PerfettoTracingSessionImpl*, bool success,
                                              void* user_arg);

/* Asks every data source to commit what it wrote; `cb(session, success,
 * user_arg)` once all did (success) or `timeout_ms` passed (0: the config's
 * flush_timeout_ms, else 5 s). */
ZT_C_EXPORT void PerfettoTracingSessionFlushAsync(struct PerfettoTracingSessionImpl*,
                                                  uint32_t timeout_ms,
                                                  PerfettoTracingSessionFlushCb cb, void* user_arg);
ZT_C_EXPORT bool PerfettoTracingSessionFlushBlocking(struct PerfettoTracingSessionImpl*,
                                                     uint32_t timeout_ms);

typedef void (*PerfettoTracingSessionReadCb)(struct PerfettoTracingSessionImpl*, const void* data,
                                             size_t size, bool has_more, void* user_arg);

/* Calls `cb` with the trace read so far, encoded as a Trace message (a
 * trace file's bytes), in pieces; the last call has `has_more` false. On
 * the calling thread, before returning. */
ZT_C_EXPORT void PerfettoTracingSessionReadTraceBlocking(struct PerfettoTracingSessionImpl*,
                                                         PerfettoTracingSessionReadCb cb,
                                                         void* user_arg);

/* Stops the session if it is still tracing, then frees it. */
ZT_C_EXPORT void PerfettoTracingSessionDestroy(struct PerfettoTracingSessionImpl*);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_TRACING_SESSION_H_ */
