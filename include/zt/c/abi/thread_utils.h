/* The id of the calling thread, as the trace records it (on Linux the
 * kernel's thread id, gettid()). C99 and C++. */
#ifndef ZT_C_ABI_THREAD_UTILS_H_
#define ZT_C_ABI_THREAD_UTILS_H_

#include <stdint.h>

#include "zt/c/abi/export.h"

#if defined(__linux__) || defined(__ANDROID__)
#include <sys/types.h>
typedef pid_t PerfettoThreadId;
#elif defined(__APPLE__) || defined(_WIN32) || defined(__FreeBSD__)
typedef uint64_t PerfettoThreadId;
#else
#include <pthread.h>
typedef pthread_t PerfettoThreadId;
#endif

#ifdef __cplusplus
extern "C" {
#endif

ZT_C_EXPORT PerfettoThreadId PerfettoGetThreadIdImpl(void);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_THREAD_UTILS_H_ */
