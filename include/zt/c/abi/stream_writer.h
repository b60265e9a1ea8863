/* PerfettoStreamWriter: the window of a protobuf byte stream that C code
 * writes into directly.
 *
 *   begin              write_ptr                 end
 *   |  bytes written   |  room for more bytes     |
 *
 * The bytes between `begin` and `write_ptr` are written; `write_ptr` to
 * `end` is free. Writing inside the window costs a memcpy and a pointer
 * bump, with no call into the library; when the window is full, one of the
 * slow paths below moves to the next range (a heap slice, a shared memory
 * chunk). Whoever holds the writer may change only `write_ptr`, and only
 * within [begin, end].
 *
 * Thread-compatible: a writer belongs to the thread that writes a packet.
 * C99 and C++. */
#ifndef ZT_C_ABI_STREAM_WRITER_H_
#define ZT_C_ABI_STREAM_WRITER_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/c/abi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's side of a writer. Opaque. */
struct PerfettoStreamWriterImpl;

/* 40 bytes on LP64; the order and types of the fields are the ABI. */
struct PerfettoStreamWriter {
  struct PerfettoStreamWriterImpl* impl;
  /* The current range: [begin, end). */
  uint8_t* begin;
  uint8_t* end;
  /* The first byte not yet written, in [begin, end]. */
  uint8_t* write_ptr;
  /* Bytes written in the ranges before this one. */
  size_t written_previously;
};

/* Tells the library how far the current range is written (after C code
 * moved write_ptr), without changing range. */
ZT_C_EXPORT void PerfettoStreamWriterUpdateWritePtr(struct PerfettoStreamWriter*);

/* Leaves the current range (written up to write_ptr) for the next one. */
ZT_C_EXPORT void PerfettoStreamWriterNewChunk(struct PerfettoStreamWriter*);

/* Appends `size` bytes from `src`, over as many ranges as they need: the
 * slow path of an append that does not fit the window. */
ZT_C_EXPORT void PerfettoStreamWriterAppendBytesSlowpath(struct PerfettoStreamWriter*,
                                                         const uint8_t* src, size_t size);

/* Bytes of a size field that PerfettoStreamWriterAnnotatePatch() handles. */
#define PERFETTO_STREAM_WRITER_PATCH_SIZE 4

/* `patch_addr` (in the current range) holds the size field of a message
 * that is still open, and the writer is about to leave the range. Returns
 * where the PERFETTO_STREAM_WRITER_PATCH_SIZE bytes of the size are to be
 * written once known, which may be elsewhere (the range may belong to the
 * tracing service by then), or NULL: then nothing is to be written. The
 * value written must have a non-zero first byte (a redundant varint's
 * always has). */
ZT_C_EXPORT uint8_t* PerfettoStreamWriterAnnotatePatch(struct PerfettoStreamWriter*,
                                                       uint8_t* patch_addr);

/* Moves to a range with room for `size` contiguous bytes and takes them:
 * afterwards they are [write_ptr - size, write_ptr). `size` is at most
 * 1024 (a larger one aborts with a message: it might fit no range). */
ZT_C_EXPORT void PerfettoStreamWriterReserveBytesSlowpath(struct PerfettoStreamWriter*,
                                                          size_t size);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_STREAM_WRITER_H_ */
