/* Compiled as C99 -pedantic -Werror and as C11 (tools: src/c_abi/
 * CMakeLists.txt): every ABI header in one C translation unit, and a run
 * of the parts that need no tracing backend (a message written through a
 * heap buffer's stream writer, read back through the decoder). Exit
 * status 0 when the bytes are as expected. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zt/c/abi/atomic.h"
#include "zt/c/abi/backend_type.h"
#include "zt/c/abi/export.h"
#include "zt/c/abi/heap_buffer.h"
#include "zt/c/abi/pb_decoder.h"
#include "zt/c/abi/producer.h"
#include "zt/c/abi/stream_writer.h"
#include "zt/c/abi/thread_utils.h"
#include "zt/c/abi/tracing_session.h"

static void Append(struct PerfettoStreamWriter* w, const uint8_t* bytes, size_t size) {
  if ((size_t)(w->end - w->write_ptr) >= size) {
    memcpy(w->write_ptr, bytes, size);
    w->write_ptr += size;
  } else {
    PerfettoStreamWriterAppendBytesSlowpath(w, bytes, size);
  }
}

int main(void) {
  struct PerfettoStreamWriter w;
  struct PerfettoHeapBuffer* hb = PerfettoHeapBufferCreate(&w);
  /* 3000 fields "1: varint i" (2-3 bytes each): several 4 KiB slices. */
  uint8_t field[4];
  uint64_t i;
  size_t size;
  uint8_t* bytes;
  struct PerfettoPbDecoder decoder;
  uint64_t seen = 0;
  for (i = 0; i < 3000; i++) {
    size_t n = 0;
    uint64_t v = i;
    field[n++] = (1 << 3) | 0;
    do {
      field[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    } while (v != 0);
    Append(&w, field, n);
  }
  size = w.written_previously + (size_t)(w.write_ptr - w.begin);
  bytes = (uint8_t*)malloc(size);
  PerfettoHeapBufferCopyInto(hb, &w, bytes, size);
  PerfettoHeapBufferDestroy(hb, &w);

  decoder.read_ptr = bytes;
  decoder.end_ptr = bytes + size;
  for (;;) {
    struct PerfettoPbDecoderField f = PerfettoPbDecoderParseField(&decoder);
    if (f.status == PERFETTO_PB_DECODER_DONE)
      break;
    if (f.status != PERFETTO_PB_DECODER_OK || f.id != 1 || f.wire_type != 0 ||
        f.value.integer64 != seen) {
      fprintf(stderr, "field %lu: status %u id %u value %lu\n", (unsigned long)seen, f.status,
              f.id, (unsigned long)f.value.integer64);
      return 1;
    }
    seen++;
  }
  free(bytes);
  if (seen != 3000 || PerfettoGetThreadIdImpl() <= 0) {
    fprintf(stderr, "read %lu fields of 3000\n", (unsigned long)seen);
    return 1;
  }
  return 0;
}
