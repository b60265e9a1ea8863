/* PerfettoHeapBuffer: a growing in-memory byte stream to serialize a
 * protobuf message into (a data source's descriptor, a track descriptor)
 * through a PerfettoStreamWriter, then copy out.
 *
 *   struct PerfettoStreamWriter w;
 *   struct PerfettoHeapBuffer* buf = PerfettoHeapBufferCreate(&w);
 *   ... write through w ...
 *   size_t size = w.written_previously + (size_t)(w.write_ptr - w.begin);
 *   PerfettoHeapBufferCopyInto(buf, &w, dst, size);
 *   PerfettoHeapBufferDestroy(buf, &w);
 *
 * Memory: slices of 4 KiB and up, freed by Destroy. Thread-compatible.
 * C99 and C++. */
#ifndef ZT_C_ABI_HEAP_BUFFER_H_
#define ZT_C_ABI_HEAP_BUFFER_H_

#include <stddef.h>

#include "zt/c/abi/export.h"
#include "zt/c/abi/stream_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

struct PerfettoHeapBuffer;

/* Creates an empty buffer and sets up `*writer` (uninitialized memory the
 * caller owns) to write into it. */
ZT_C_EXPORT struct PerfettoHeapBuffer* PerfettoHeapBufferCreate(struct PerfettoStreamWriter* writer);

/* Copies the first `size` bytes written (at most what was written) to
 * `dst`. `writer` is the buffer's writer, as the caller left it. */
ZT_C_EXPORT void PerfettoHeapBufferCopyInto(struct PerfettoHeapBuffer*,
                                            struct PerfettoStreamWriter* writer, void* dst,
                                            size_t size);

/* Frees the buffer and its writer's state; both are unusable afterwards. */
ZT_C_EXPORT void PerfettoHeapBufferDestroy(struct PerfettoHeapBuffer*,
                                           struct PerfettoStreamWriter* writer);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_HEAP_BUFFER_H_ */
