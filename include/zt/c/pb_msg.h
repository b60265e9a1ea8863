/* A protobuf message writer in C, over a PerfettoStreamWriter
 * (zt/c/abi/stream_writer.h): fields are appended in place, nested
 * messages get their size written when they end (a 4-byte redundant
 * varint reserved when they begin), across as many chunks as they span.
 *
 *   struct ZtCMsg packet;                       (a root: no size field)
 *   ZtCMsgInit(&packet, &writer);
 *   ZtCMsgAppendVarIntField(&packet, 8, timestamp);
 *   struct ZtCMsg event;
 *   ZtCMsgBeginNested(&packet, &event, 900);
 *   ZtCMsgAppendCStrField(&event, 1, "hello");
 *   ZtCMsgEndNested(&packet);
 *
 * Cost: a field is a few stores and a bounds check while the chunk has
 * room; the library is called only to change chunks. One open nested
 * message per parent at a time (the protobuf encoding needs it). Before
 * the writer leaves a chunk, every open message whose size field is in it
 * asks the library where to write its size instead
 * (PerfettoStreamWriterAnnotatePatch). Thread-compatible. C99 and C++. */
#ifndef ZT_C_PB_MSG_H_
#define ZT_C_PB_MSG_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zt/c/abi/stream_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ZtCMsg {
  /* Where this message's size goes when it ends (NULL: a root, or a size
   * nobody will read). */
  uint8_t* size_field;
  /* Bytes of this message so far. */
  uint32_t size;
  struct PerfettoStreamWriter* writer;
  struct ZtCMsg* nested; /* The open child, if any. */
  struct ZtCMsg* parent;
};

enum { ZT_C_PB_WIRE_VARINT = 0, ZT_C_PB_WIRE_FIXED64 = 1, ZT_C_PB_WIRE_DELIMITED = 2,
       ZT_C_PB_WIRE_FIXED32 = 5 };

static inline void ZtCMsgInit(struct ZtCMsg* msg, struct PerfettoStreamWriter* writer) {
  msg->size_field = NULL;
  msg->size = 0;
  msg->writer = writer;
  msg->nested = NULL;
  msg->parent = NULL;
}

/* Before the writer leaves its chunk: the size fields in it move. */
static inline void ZtCMsgPatchOpenSizes(struct ZtCMsg* msg) {
  struct PerfettoStreamWriter* w = msg->writer;
  for (; msg != NULL; msg = msg->parent) {
    if (msg->size_field != NULL && msg->size_field >= w->begin && msg->size_field < w->end)
      msg->size_field = PerfettoStreamWriterAnnotatePatch(w, msg->size_field);
  }
}

static inline void ZtCMsgAppendBytes(struct ZtCMsg* msg, const uint8_t* bytes, size_t size) {
  struct PerfettoStreamWriter* w = msg->writer;
  if (size <= (size_t)(w->end - w->write_ptr)) {
    if (size != 0)
      memcpy(w->write_ptr, bytes, size);
    w->write_ptr += size;
  } else {
    ZtCMsgPatchOpenSizes(msg);
    PerfettoStreamWriterAppendBytesSlowpath(w, bytes, size);
  }
  msg->size += (uint32_t)size;
}

/* Encodes `value` as a varint at `out`; returns the byte after it. */
static inline uint8_t* ZtCEncodeVarInt(uint64_t value, uint8_t* out) {
  while (value >= 0x80) {
    *out++ = (uint8_t)(value | 0x80);
    value >>= 7;
  }
  *out++ = (uint8_t)value;
  return out;
}

static inline void ZtCMsgAppendVarIntField(struct ZtCMsg* msg, uint32_t id, uint64_t value) {
  uint8_t buf[20];
  uint8_t* end = ZtCEncodeVarInt(((uint64_t)id << 3) | ZT_C_PB_WIRE_VARINT, buf);
  end = ZtCEncodeVarInt(value, end);
  ZtCMsgAppendBytes(msg, buf, (size_t)(end - buf));
}

/* sint32/sint64 fields (zigzag). */
static inline void ZtCMsgAppendSIntField(struct ZtCMsg* msg, uint32_t id, int64_t value) {
  ZtCMsgAppendVarIntField(msg, id, ((uint64_t)value << 1) ^ (uint64_t)(value >> 63));
}

static inline void ZtCMsgAppendFixed64Field(struct ZtCMsg* msg, uint32_t id, uint64_t value) {
  uint8_t buf[18];
  uint8_t* end = ZtCEncodeVarInt(((uint64_t)id << 3) | ZT_C_PB_WIRE_FIXED64, buf);
  int i;
  for (i = 0; i < 8; i++)
    *end++ = (uint8_t)(value >> (8 * i));
  ZtCMsgAppendBytes(msg, buf, (size_t)(end - buf));
}

static inline void ZtCMsgAppendFixed32Field(struct ZtCMsg* msg, uint32_t id, uint32_t value) {
  uint8_t buf[14];
  uint8_t* end = ZtCEncodeVarInt(((uint64_t)id << 3) | ZT_C_PB_WIRE_FIXED32, buf);
  int i;
  for (i = 0; i < 4; i++)
    *end++ = (uint8_t)(value >> (8 * i));
  ZtCMsgAppendBytes(msg, buf, (size_t)(end - buf));
}

static inline void ZtCMsgAppendDoubleField(struct ZtCMsg* msg, uint32_t id, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  ZtCMsgAppendFixed64Field(msg, id, bits);
}

static inline void ZtCMsgAppendFloatField(struct ZtCMsg* msg, uint32_t id, float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  ZtCMsgAppendFixed32Field(msg, id, bits);
}

/* A bytes or string field. */
static inline void ZtCMsgAppendBytesField(struct ZtCMsg* msg, uint32_t id, const void* data,
                                          size_t size) {
  uint8_t buf[20];
  uint8_t* end = ZtCEncodeVarInt(((uint64_t)id << 3) | ZT_C_PB_WIRE_DELIMITED, buf);
  end = ZtCEncodeVarInt((uint64_t)size, end);
  ZtCMsgAppendBytes(msg, buf, (size_t)(end - buf));
  ZtCMsgAppendBytes(msg, (const uint8_t*)data, size);
}

static inline void ZtCMsgAppendCStrField(struct ZtCMsg* msg, uint32_t id, const char* str) {
  ZtCMsgAppendBytesField(msg, id, str, strlen(str));
}

/* Opens `child` as field `id` of `parent`; close it with
 * ZtCMsgEndNested(parent) before writing to `parent` again. */
static inline void ZtCMsgBeginNested(struct ZtCMsg* parent, struct ZtCMsg* child, uint32_t id) {
  uint8_t tag[10];
  uint8_t* end = ZtCEncodeVarInt(((uint64_t)id << 3) | ZT_C_PB_WIRE_DELIMITED, tag);
  struct PerfettoStreamWriter* w = parent->writer;
  ZtCMsgAppendBytes(parent, tag, (size_t)(end - tag));
  ZtCMsgInit(child, w);
  if ((size_t)(w->end - w->write_ptr) < 4) {
    ZtCMsgPatchOpenSizes(parent);
    PerfettoStreamWriterReserveBytesSlowpath(w, 4);
    child->size_field = w->write_ptr - 4;
  } else {
    child->size_field = w->write_ptr;
    w->write_ptr += 4;
  }
  child->parent = parent;
  parent->size += 4;
  parent->nested = child;
}

/* Writes the size of a message's open children, then its own (if it has a
 * size field); returns its size. */
static inline uint32_t ZtCMsgFinalize(struct ZtCMsg* msg);

static inline void ZtCMsgEndNested(struct ZtCMsg* parent) {
  if (parent->nested != NULL) {
    parent->size += ZtCMsgFinalize(parent->nested);
    parent->nested = NULL;
  }
}

static inline uint32_t ZtCMsgFinalize(struct ZtCMsg* msg) {
  ZtCMsgEndNested(msg);
  if (msg->size_field != NULL) {
    uint32_t v = msg->size;
    int i;
    for (i = 0; i < 4; i++) {
      msg->size_field[i] = (uint8_t)((v & 0x7f) | (i < 3 ? 0x80 : 0));
      v >>= 7;
    }
    msg->size_field = NULL;
  }
  return msg->size;
}

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_PB_MSG_H_ */
