// The bytes of the common track events, kept ready per sequence so that
// writing one is a copy and its value. Private to the SDK
// (track_event_writer.cc fills and uses the cache).
//
// A packet of a simple event is its timestamp (field 8, a varint) and then
// the bytes kept here: sequence_flags = SEQ_NEEDS_INCREMENTAL_STATE, and the
// TrackEvent (field 11) with a one-byte length: type, track_uuid (counters),
// category_iids, name_iid, and for the forms with a value the start of the
// value's field (an int or string annotation's DebugAnnotation {name_iid,
// then the int_value, uint_value or string_value tag}; a counter's counter_value or
// double_counter_value tag). The writer appends the value and sets the
// lengths, which depend on it.

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_BYTES_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "src/tracing/sdk/intern_table.h"
#include "zt/base/compiler.h"
#include "zt/protozero/proto_utils.h"
#include "zt/tracing/internal/track_event_internal.h"

namespace zt {
namespace internal {

// Direct-mapped by the name's address and the form; part of the incremental
// state, so an entry is only ever used while what it refers to (interned
// iids, a described counter track) is valid on the sequence.
struct EventBytesCache {
  enum Form : uint32_t {
    kPlain = 0,          // A named event without arguments.
    kIntAnnotation = 1,  // With one int annotation (literal key).
    kUintAnnotation = 2,
    kIntCounter = 3,     // A counter value (|name|: the track's name).
    kDoubleCounter = 4,
    kStringAnnotation = 5,  // With one string annotation (literal key).
  };
  static constexpr size_t kEntries = 64;
  // Copied whole (kPlain: the first kPlainBytes): the raw packet's room
  // is checked for it.
  static constexpr size_t kMaxBytes = 32;
  static constexpr size_t kPlainBytes = 16;
  static constexpr size_t kLengthOffset = 3;  // The TrackEvent's length.

  struct alignas(64) Entry {
    const char* name = nullptr;  // Null: empty.
    const char* key = nullptr;   // The annotation's key (annotation forms).
    uint32_t tag = 0;            // Tag(category, type, form).
    uint8_t size = 0;            // Bytes used.
    uint8_t annotation_length_offset = 0;  // Annotation forms: its length byte.
    uint8_t bytes[kMaxBytes] = {};
  };

  static constexpr uint32_t Tag(uint32_t category, EventType type, Form form) {
    return category | static_cast<uint32_t>(type) << 16 | static_cast<uint32_t>(form) << 24;
  }
  // A multiplicative hash whose odd multiplier is a sign-extended 32-bit
  // immediate: x86-64's imul takes it inline, where a 64-bit constant
  // would hold a register (the fast paths then saved two more).
  static constexpr uint64_t kHashMultiplier = 0xFFFFFFFF9E3779B1ull;
  Entry& EntryFor(const char* name, Form form) {
    const uint64_t x = (reinterpret_cast<uintptr_t>(name) + form) * kHashMultiplier;
    return entries[x >> 58];  // The top 6 bits: kEntries == 64.
  }

  Entry entries[kEntries];
};

// Writers of a cached event at |p| (after the timestamp); each returns the
// end. They write past the end (up to the copy's size): the caller has
// that room.
inline uint8_t* WriteCachedPlainEvent(uint8_t* p, const EventBytesCache::Entry& entry) {
  memcpy(p, entry.bytes, EventBytesCache::kPlainBytes);
  return p + entry.size;
}

// Sets the TrackEvent's length, and the annotation's for the annotation
// forms (|kAnnotation|: known where the form is; counters have none).
template <bool kAnnotation = true>
inline uint8_t* SetCachedEventLengths(uint8_t* p, const EventBytesCache::Entry& entry,
                                      uint8_t* end) {
  constexpr size_t kEventStart = EventBytesCache::kLengthOffset + 1;
  p[EventBytesCache::kLengthOffset] = static_cast<uint8_t>(end - (p + kEventStart));
  if (kAnnotation && entry.annotation_length_offset) {
    uint8_t* length = p + entry.annotation_length_offset;
    *length = static_cast<uint8_t>(end - (length + 1));
  }
  return end;
}

// The annotation forms and kIntCounter (|kAnnotation| false: a counter).
template <bool kAnnotation = true>
inline uint8_t* WriteCachedVarIntEvent(uint8_t* p, const EventBytesCache::Entry& entry,
                                       uint64_t value) {
  memcpy(p, entry.bytes, EventBytesCache::kMaxBytes);
  return SetCachedEventLengths<kAnnotation>(
      p, entry, protozero::proto_utils::WriteVarInt(value, p + entry.size));
}

// kStringAnnotation: the string's length (at most kMaxInlineString, one
// byte) and bytes after the cached ones.
constexpr size_t kMaxInlineString = 64;
inline uint8_t* WriteCachedStringEvent(uint8_t* p, const EventBytesCache::Entry& entry,
                                       const char* value, size_t size) {
  memcpy(p, entry.bytes, EventBytesCache::kMaxBytes);
  uint8_t* q = p + entry.size;
  *q++ = static_cast<uint8_t>(size);
  memcpy(q, value, size);
  return SetCachedEventLengths(p, entry, q + size);
}

inline uint8_t* WriteCachedDoubleEvent(uint8_t* p, const EventBytesCache::Entry& entry,
                                       double value) {
  memcpy(p, entry.bytes, EventBytesCache::kMaxBytes);
  memcpy(p + entry.size, &value, sizeof(value));
  return SetCachedEventLengths<false>(p, entry, p + entry.size + sizeof(value));
}

// Events with arguments (FastArgs, track_event_fast_args.h): per entry, the
// event's bytes up to its first argument, and per argument the bytes before
// its value (a DebugAnnotation's tag, length, name_iid and value tag; a
// flow id's tag). The writer copies each piece whole (a fixed-size copy),
// appends each value and sets the lengths.
struct ArgsEventCache {
  static constexpr size_t kEntries = 32;
  static constexpr size_t kHeadBytes = 16;    // At most 15 used.
  static constexpr size_t kPrefixBytes = kFastArgPrefixBytes;
  static_assert(kPrefixBytes == 8, "a prefix is one 8-byte copy");

  struct alignas(64) Entry {
    const char* name = nullptr;  // Null: empty.
    const char* keys[kMaxFastArgs] = {};
    uint64_t tag = 0;  // Tag(category, type, shape).
    uint8_t head_size = 0;
    // Bits of the string arguments, and the bytes their values may take
    // together (the packet's room less the longest the rest may take).
    uint8_t string_mask = 0;
    uint8_t string_room = 0;
    uint8_t prefix_size[kMaxFastArgs] = {};
    uint8_t head[kHeadBytes] = {};
    uint8_t prefix[kMaxFastArgs][kPrefixBytes] = {};
  };

  static constexpr uint64_t Tag(uint32_t category, EventType type, uint32_t shape) {
    return category | static_cast<uint64_t>(type) << 16 | static_cast<uint64_t>(shape) << 24;
  }
  Entry& EntryFor(const char* name, uint32_t shape) {
    const uint64_t x = (reinterpret_cast<uintptr_t>(name) + shape) *
                       EventBytesCache::kHashMultiplier;
    return entries[x >> 59];  // The top 5 bits: kEntries == 32.
  }

  Entry entries[kEntries];
};

// Copies |size| bytes (at most 127) without a call for short strings:
// overlapping fixed-size copies, never reading or writing past either end.
inline void CopyShortString(uint8_t* dst, const char* src, size_t size) {
  if (size >= 8) {
    if (size > 16) {
      memcpy(dst, src, size);
      return;
    }
    uint64_t head, tail;
    memcpy(&head, src, 8);
    memcpy(&tail, src + size - 8, 8);
    memcpy(dst, &head, 8);
    memcpy(dst + size - 8, &tail, 8);
  } else if (size >= 4) {
    uint32_t head, tail;
    memcpy(&head, src, 4);
    memcpy(&tail, src + size - 4, 4);
    memcpy(dst, &head, 4);
    memcpy(dst + size - 4, &tail, 4);
  } else if (size != 0) {
    dst[0] = static_cast<uint8_t>(src[0]);
    dst[size / 2] = static_cast<uint8_t>(src[size / 2]);
    dst[size - 1] = static_cast<uint8_t>(src[size - 1]);
  }
}

// Writes an event with arguments at |p| (after the timestamp) from its
// entry; returns the end. Writes up to 8 bytes past it (a prefix's copy).
inline uint8_t* WriteCachedArgsEvent(uint8_t* p, const ArgsEventCache::Entry& entry,
                                     const FastArgs& args) {
  memcpy(p, entry.head, ArgsEventCache::kHeadBytes);
  uint8_t* q = p + entry.head_size;
  uint32_t shape = args.shape;
  for (uint32_t i = 0; shape != 0; i++, shape >>= 4) {
    // A fixed-size value's annotation length is in the prefix already.
    memcpy(q, entry.prefix[i], ArgsEventCache::kPrefixBytes);
    uint8_t* length = q + 1;
    q += entry.prefix_size[i];
    switch (static_cast<FastArgKind>(shape & 15)) {
      case FastArgKind::kBool:
        *q++ = static_cast<uint8_t>(args.values[i]);
        break;
      case FastArgKind::kDouble:
      case FastArgKind::kFlow:
      case FastArgKind::kTerminatingFlow:
        memcpy(q, &args.values[i], 8);
        q += 8;
        break;
      case FastArgKind::kString: {
        const uint32_t size = static_cast<uint32_t>(args.sizes[i]);
        *length = static_cast<uint8_t>(*length + size);  // The prefix has the rest.
        *q++ = static_cast<uint8_t>(size);
        CopyShortString(q, reinterpret_cast<const char*>(args.values[i]), size);
        q += size;
        break;
      }
      default:  // The varints.
        q = protozero::proto_utils::WriteVarInt(args.values[i], q);
        *length = static_cast<uint8_t>(q - (length + 1));
        break;
    }
  }
  p[EventBytesCache::kLengthOffset] =
      static_cast<uint8_t>(q - (p + EventBytesCache::kLengthOffset + 1));
  return q;
}

// Fills |entry| for an event with |args| (the iids given, already interned
// on the sequence; |key_iids| one per argument, 0 for flows).
void EncodeCachedArgsEvent(ArgsEventCache::Entry* entry, EventType type,
                           uint64_t category_iid, uint32_t name_iid, const FastArgs& args,
                           const uint32_t* key_iids);

// Fills |entry| (the ids given as their varints, already interned on the
// sequence): |track_uuid| for the counter forms, |name| for the others,
// |key| for the annotation forms. Any category iid below 2^14.
void EncodeCachedEvent(EventBytesCache::Entry* entry, EventBytesCache::Form form,
                       EventType type, uint64_t category_iid, uint64_t track_uuid,
                       IidVarint name, IidVarint key);

// The entries' first 8 bytes for a category iid below 128 (the common
// case; EncodeCachedEvent() takes the others): sequence_flags (13) =
// SEQ_NEEDS_INCREMENTAL_STATE; track_event (11) with a one-byte length;
// type (9); category_iids (3) and its one-byte varint.
inline uint64_t ShortCategoryEventHead(EventType type, uint64_t category_iid, size_t size) {
  return 0x68 | uint64_t{2} << 8 | uint64_t{0x5a} << 16 |
         uint64_t{size - (EventBytesCache::kLengthOffset + 1)} << 24 | uint64_t{0x48} << 32 |
         uint64_t{static_cast<uint8_t>(type)} << 40 | uint64_t{0x18} << 48 | category_iid << 56;
}

// Fills |entry| for kPlain from its first 8 bytes with a zero length
// (ShortCategoryEventHead(type, category_iid, kLengthOffset + 1)) and the
// name's varint as the intern table keeps it (at most 12 bytes): two 8-byte
// stores.
inline void ComposeCachedPlainEvent(EventBytesCache::Entry* entry, uint64_t head,
                                    IidVarint name) {
  const size_t size = 9 + VarintSize(name);
  // The length byte (byte 3, 0 in |head|): the varint's size is already
  // there in |name|'s top byte, so one add places it (no carry: at most 8).
  head += (uint64_t{name} & 0xFF000000) +
          (uint64_t{9 - (EventBytesCache::kLengthOffset + 1)} << 24);
  const uint64_t name_field = 0x50 | uint64_t{VarintBytes(name)} << 8;  // name_iid (10).
  memcpy(entry->bytes, &head, 8);
  memcpy(entry->bytes + 8, &name_field, 8);
  entry->size = static_cast<uint8_t>(size);
  entry->annotation_length_offset = 0;
}

// Fills |entry| for kPlain from the name's varint. Inline: the fast path's
// miss (more names than entries) fills an entry per event.
inline void EncodeCachedPlainEvent(EventBytesCache::Entry* entry, EventType type,
                                   uint64_t category_iid, IidVarint name) {
  if (ZT_UNLIKELY(category_iid >= 128)) {
    EncodeCachedEvent(entry, EventBytesCache::kPlain, type, category_iid, 0, name, 0);
    return;
  }
  ComposeCachedPlainEvent(
      entry, ShortCategoryEventHead(type, category_iid, EventBytesCache::kLengthOffset + 1),
      name);
}

// Fills |entry| for kIntAnnotation or kUintAnnotation from its first 8
// bytes with a zero length (as ComposeCachedPlainEvent) and the name's and
// key's varints: the plain form's bytes, then the DebugAnnotation's tag,
// length (set by the writer), name_iid and value tag (at most 19 bytes):
// three 8-byte stores.
inline void ComposeCachedIntAnnotationEvent(EventBytesCache::Entry* entry, uint64_t head,
                                            EventBytesCache::Form form, IidVarint name,
                                            IidVarint key) {
  const size_t annotation_start = 9 + VarintSize(name);
  const size_t size = annotation_start + 4 + VarintSize(key);
  head |= uint64_t{size - (EventBytesCache::kLengthOffset + 1)} << 24;
  const uint64_t name_field = 0x50 | uint64_t{VarintBytes(name)} << 8;  // name_iid (10).
  // debug_annotations (4), length-delimited (one byte, 0 here); name_iid
  // (1); int_value (4) or uint_value (3)'s tag.
  const uint64_t value_tag = form == EventBytesCache::kIntAnnotation ? 0x20 : 0x18;
  const uint64_t annotation = 0x22 | uint64_t{0x08} << 16 | uint64_t{VarintBytes(key)} << 24 |
                              value_tag << (24 + 8 * VarintSize(key));
  memcpy(entry->bytes, &head, 8);
  memcpy(entry->bytes + 8, &name_field, 8);
  memcpy(entry->bytes + annotation_start, &annotation, 8);
  entry->size = static_cast<uint8_t>(size);
  entry->annotation_length_offset = static_cast<uint8_t>(annotation_start + 1);
}

// The same from the type and category. Inline, as EncodeCachedPlainEvent.
inline void EncodeCachedIntAnnotationEvent(EventBytesCache::Entry* entry,
                                           EventBytesCache::Form form, EventType type,
                                           uint64_t category_iid, IidVarint name,
                                           IidVarint key) {
  if (ZT_UNLIKELY(category_iid >= 128)) {
    EncodeCachedEvent(entry, form, type, category_iid, 0, name, key);
    return;
  }
  ComposeCachedIntAnnotationEvent(
      entry, ShortCategoryEventHead(type, category_iid, EventBytesCache::kLengthOffset + 1),
      form, name, key);
}


}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_BYTES_H_
