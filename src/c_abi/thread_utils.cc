// PerfettoGetThreadIdImpl (zt/c/abi/thread_utils.h).

#include "zt/c/abi/thread_utils.h"

#include <sys/syscall.h>
#include <unistd.h>

PerfettoThreadId PerfettoGetThreadIdImpl(void) {
  return static_cast<PerfettoThreadId>(syscall(SYS_gettid));
}
