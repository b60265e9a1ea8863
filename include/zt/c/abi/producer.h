/* Connecting the process to a tracing backend: the in-process service,
 * a tracing daemon, or both.
 *
 *   struct PerfettoProducerBackendInitArgs* args =
 *       PerfettoProducerBackendInitArgsCreate();
 *   PerfettoProducerSystemInit(args);
 *   PerfettoProducerBackendInitArgsDestroy(args);
 *
 * Each Init may be called more than once (also one of each): the first
 * call of a kind sets the backend up, later calls of it change nothing.
 * Thread-safe. C99 and C++. */
#ifndef ZT_C_ABI_PRODUCER_H_
#define ZT_C_ABI_PRODUCER_H_

#include <stdint.h>

#include "zt/c/abi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of the backend's initialization. Opaque. */
struct PerfettoProducerBackendInitArgs;

ZT_C_EXPORT struct PerfettoProducerBackendInitArgs* PerfettoProducerBackendInitArgsCreate(void);

/* The shared memory buffer between this process and the service, in KiB:
 * a multiple of 4 up to 32768; other values are ignored (the default
 * stays). */
ZT_C_EXPORT void PerfettoProducerBackendInitArgsSetShmemSizeHintKb(
    struct PerfettoProducerBackendInitArgs*, uint32_t size_kb);

/* The machine this process's data is attributed to (0: this host).
 * Upstream's in-process backend reads it; here a non-zero id is ignored
 * with a warning on stderr (not supported yet). */
ZT_C_EXPORT void PerfettoProducerBackendInitArgsSetMachineId(
    struct PerfettoProducerBackendInitArgs*, uint32_t machine_id);

ZT_C_EXPORT void PerfettoProducerBackendInitArgsDestroy(struct PerfettoProducerBackendInitArgs*);

/* Connects to the tracing daemon (and reconnects if it restarts). `args`
 * is read during the call only. */
ZT_C_EXPORT void PerfettoProducerSystemInit(const struct PerfettoProducerBackendInitArgs* args);

/* Starts the in-process tracing service. `args` is read during the call
 * only. */
ZT_C_EXPORT void PerfettoProducerInProcessInit(const struct PerfettoProducerBackendInitArgs* args);

/* Fires the named triggers (`trigger_names`: NULL-terminated array of C
 * strings) on every backend connected now. Returns at once. Upstream also
 * sends them to backends that connect within `ttl_ms`; here `ttl_ms` is
 * not supported yet (a backend not connected now does not get them). */
ZT_C_EXPORT void PerfettoProducerActivateTriggers(const char* trigger_names[], uint32_t ttl_ms);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_PRODUCER_H_ */
