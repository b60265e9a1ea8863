/* PerfettoPbDecoder: reads the fields of one protobuf message, in place,
 * from a contiguous buffer.
 *
 *   struct PerfettoPbDecoder d = {bytes, bytes + size};
 *   for (;;) {
 *     struct PerfettoPbDecoderField f = PerfettoPbDecoderParseField(&d);
 *     if (f.status != PERFETTO_PB_DECODER_OK) break;  (DONE or ERROR)
 *     ... f.id, f.wire_type, f.value ...
 *   }
 *
 * Nothing is copied or allocated; a delimited field's bytes point into the
 * buffer. Bad input (a varint longer than 10 bytes or cut short, a field
 * or a length past the end, a field id over 32 bits, the group wire types
 * 3 and 4 or the unused 6 and 7) is an ERROR and does not move the
 * decoder. Thread-compatible. C99 and C++. */
#ifndef ZT_C_ABI_PB_DECODER_H_
#define ZT_C_ABI_PB_DECODER_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/c/abi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

struct PerfettoPbDecoder {
  /* Where the next field starts. */
  const uint8_t* read_ptr;
  /* One past the buffer's last byte. */
  const uint8_t* end_ptr;
};

enum PerfettoPbDecoderStatus {
  /* A field was read, and more bytes follow it. */
  PERFETTO_PB_DECODER_OK = 0,
  /* Nothing is left to read (the field returned is not valid). */
  PERFETTO_PB_DECODER_DONE = 1,
  /* The bytes at read_ptr are not a whole field; read_ptr did not move. */
  PERFETTO_PB_DECODER_ERROR = 2
};

/* A length-delimited field's bytes (wire type 2). */
struct PerfettoPbDecoderDelimitedField {
  const uint8_t* start;
  size_t len;
};

/* One field: 32 bytes on LP64, the value at offset 16. */
struct PerfettoPbDecoderField {
  uint32_t status;    /* enum PerfettoPbDecoderStatus */
  uint32_t wire_type; /* 0 varint, 1 fixed64, 2 delimited, 5 fixed32 */
  uint32_t id;
  union {
    struct PerfettoPbDecoderDelimitedField delimited; /* wire type 2 */
    uint64_t integer64;                               /* wire types 0 and 1 */
    uint32_t integer32;                               /* wire type 5 */
    double double_val;                                /* wire type 1 */
    float float_val;                                  /* wire type 5 */
  } value;
};

/* Reads the field at read_ptr and moves past it (unless ERROR or DONE). */
ZT_C_EXPORT struct PerfettoPbDecoderField PerfettoPbDecoderParseField(struct PerfettoPbDecoder* decoder);

/* Moves past the field at read_ptr; returns an enum PerfettoPbDecoderStatus. */
ZT_C_EXPORT uint32_t PerfettoPbDecoderSkipField(struct PerfettoPbDecoder* decoder);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_PB_DECODER_H_ */
