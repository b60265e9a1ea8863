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
#include "zt/c/abi/track_event.h"
#include "zt/c/abi/track_event_hl.h"
#include "zt/c/abi/track_event_ll.h"
#include "zt/c/data_source.h"
#include "zt/c/pb_msg.h"
#include "zt/c/track_event.h"

static void Append(struct PerfettoStreamWriter* w, const uint8_t* bytes, size_t size) {
  if ((size_t)(w->end - w->write_ptr) >= size) {
    memcpy(w->write_ptr, bytes, size);
    w->write_ptr += size;
  } else {
    PerfettoStreamWriterAppendBytesSlowpath(w, bytes, size);
  }
}

/* Every track event macro, expanded as this C dialect sees it. The
 * category is never registered: each is its inline check only, and
 * nothing is called. */
static const char* check_tags[] = {"debug"};
static struct ZtCCategory check_category = ZT_C_CATEGORY_INIT("check", "headers check");
static struct ZtCCategory check_tagged = ZT_C_CATEGORY_INIT_TAGS("tagged", "headers check", check_tags);
static struct ZtCCounterTrack check_counter = ZT_C_COUNTER_TRACK_INIT;

static void UseTrackEventMacros(int n) {
  ZT_C_SLICE_BEGIN(check_category, "slice", ZT_C_ARG_INT("i", n), ZT_C_ARG_UINT("u", 1u),
                   ZT_C_ARG_BOOL("b", true), ZT_C_ARG_DOUBLE("d", 0.5), ZT_C_ARG_STR("s", "x"),
                   ZT_C_ARG_PTR("p", &n), ZT_C_FLOW(n), ZT_C_TRACK("track", 1));
  ZT_C_SLICE_END(check_category);
  ZT_C_INSTANT(check_tagged, "instant");
  ZT_C_INSTANT(check_tagged, "instant", ZT_C_TERMINATING_FLOW(n), ZT_C_GLOBAL_FLOW(2),
               ZT_C_GLOBAL_TERMINATING_FLOW(3), ZT_C_TIMESTAMP(PerfettoTeGetTimestamp()),
               ZT_C_FLUSH());
  ZT_C_COUNTER(check_category, "counter", ZT_C_INT_VALUE(n));
  ZT_C_COUNTER(check_category, "ratio", ZT_C_DOUBLE_VALUE(0.5));
  {
    const char* dynamic_name = n > 0 ? "positive" : "other";
    ZT_C_COUNTER_DYNAMIC(check_category, dynamic_name, ZT_C_INT_VALUE(n));
  }
  ZT_C_COUNTER_ON(check_category, check_counter, ZT_C_INT_VALUE(n));
  ZT_C_INSTANT(ZT_C_ANY_CATEGORY, "dynamic", ZT_C_DYNAMIC_CATEGORY("dyn"));
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
  UseTrackEventMacros(1);
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
