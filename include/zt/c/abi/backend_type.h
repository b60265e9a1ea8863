/* Where a process's tracing runs: bits of PerfettoBackendTypes.
 *
 * C99 and C++. */
#ifndef ZT_C_ABI_BACKEND_TYPE_H_
#define ZT_C_ABI_BACKEND_TYPE_H_

#include <stdint.h>

enum {
  /* The tracing service on a thread of this process; buffers in its memory. */
  PERFETTO_BACKEND_IN_PROCESS = (1 << 0),
  /* A tracing daemon (ztraced, or Perfetto's traced) over its UNIX sockets. */
  PERFETTO_BACKEND_SYSTEM = (1 << 1)
};

/* A bitwise or of PERFETTO_BACKEND_* values. */
typedef uint32_t PerfettoBackendTypes;

#endif /* ZT_C_ABI_BACKEND_TYPE_H_ */
