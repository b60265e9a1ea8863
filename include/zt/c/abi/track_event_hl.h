/* Track events from C, high level: one call per trace point,
 * PerfettoTeHlEmitImpl(), given the category, the event's type and name
 * and a NULL-terminated array of "extras" (arguments, track, timestamp,
 * counter value, flows, raw protobuf fields). The library writes the
 * event into every instance the category is on in, interning names.
 *
 * Little code at the call site, at the price of what extras can say; the
 * low-level ABI (track_event_ll.h) can say anything. Every extra struct
 * begins with `struct PerfettoTeHlExtra` (its type); pointers to them are
 * cast to `struct PerfettoTeHlExtra*`. Extras live only for the call.
 * C99 and C++. */
#ifndef ZT_C_ABI_TRACK_EVENT_HL_H_
#define ZT_C_ABI_TRACK_EVENT_HL_H_

#include <stdbool.h>
#include <stdint.h>

#include "zt/c/abi/track_event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raw protobuf fields (PERFETTO_TE_HL_EXTRA_TYPE_PROTO_FIELDS, proto
 * tracks): each begins with `struct PerfettoTeHlProtoField`. */
enum PerfettoTeHlProtoFieldType {
  PERFETTO_TE_HL_PROTO_TYPE_CSTR = 0,
  PERFETTO_TE_HL_PROTO_TYPE_BYTES = 1,
  PERFETTO_TE_HL_PROTO_TYPE_NESTED = 2,
  PERFETTO_TE_HL_PROTO_TYPE_VARINT = 3,
  PERFETTO_TE_HL_PROTO_TYPE_FIXED64 = 4,
  PERFETTO_TE_HL_PROTO_TYPE_FIXED32 = 5,
  PERFETTO_TE_HL_PROTO_TYPE_DOUBLE = 6,
  PERFETTO_TE_HL_PROTO_TYPE_FLOAT = 7,
  PERFETTO_TE_HL_PROTO_TYPE_CSTR_INTERNED = 8
};

struct PerfettoTeHlProtoField {
  enum PerfettoTeHlProtoFieldType type;
  uint32_t id; /* The field number. */
};

struct PerfettoTeHlProtoFieldCstr {
  struct PerfettoTeHlProtoField header;
  const char* str;
};

/* `str` is interned as an entry of InternedData field `interned_type_id`
 * (which must not be 0: a 0 drops the field) and the field holds its id. */
struct PerfettoTeHlProtoFieldCstrInterned {
  struct PerfettoTeHlProtoField header;
  const char* str;
  uint32_t interned_type_id;
};

struct PerfettoTeHlProtoFieldBytes {
  struct PerfettoTeHlProtoField header;
  const void* buf;
  size_t len;
};

struct PerfettoTeHlProtoFieldNested {
  struct PerfettoTeHlProtoField header;
  struct PerfettoTeHlProtoField* const* fields; /* NULL-terminated. */
};

struct PerfettoTeHlProtoFieldVarInt {
  struct PerfettoTeHlProtoField header;
  uint64_t value;
};

struct PerfettoTeHlProtoFieldFixed64 {
  struct PerfettoTeHlProtoField header;
  uint64_t value;
};

struct PerfettoTeHlProtoFieldFixed32 {
  struct PerfettoTeHlProtoField header;
  uint32_t value;
};

struct PerfettoTeHlProtoFieldDouble {
  struct PerfettoTeHlProtoField header;
  double value;
};

struct PerfettoTeHlProtoFieldFloat {
  struct PerfettoTeHlProtoField header;
  float value;
};

union PerfettoTeHlProtoFieldUnion {
  struct PerfettoTeHlProtoFieldCstr field_cstr;
  struct PerfettoTeHlProtoFieldBytes field_bytes;
  struct PerfettoTeHlProtoFieldNested field_nested;
  struct PerfettoTeHlProtoFieldVarInt field_varint;
  struct PerfettoTeHlProtoFieldFixed64 field_fixed64;
  struct PerfettoTeHlProtoFieldFixed32 field_fixed32;
  struct PerfettoTeHlProtoFieldDouble field_double;
  struct PerfettoTeHlProtoFieldFloat field_float;
  struct PerfettoTeHlProtoFieldCstrInterned field_cstr_interned;
};

enum PerfettoTeHlExtraType {
  PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK = 1,
  PERFETTO_TE_HL_EXTRA_TYPE_NAMED_TRACK = 2,
  PERFETTO_TE_HL_EXTRA_TYPE_TIMESTAMP = 3,
  PERFETTO_TE_HL_EXTRA_TYPE_DYNAMIC_CATEGORY = 4,
  PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_INT64 = 5,
  PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_DOUBLE = 6,
  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL = 7,
  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_UINT64 = 8,
  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_INT64 = 9,
  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_DOUBLE = 10,
  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_STRING = 11,
  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER = 12,
  PERFETTO_TE_HL_EXTRA_TYPE_FLOW = 13,
  PERFETTO_TE_HL_EXTRA_TYPE_TERMINATING_FLOW = 14,
  PERFETTO_TE_HL_EXTRA_TYPE_FLUSH = 15,
  PERFETTO_TE_HL_EXTRA_TYPE_NO_INTERN = 16,
  PERFETTO_TE_HL_EXTRA_TYPE_PROTO_FIELDS = 17,
  PERFETTO_TE_HL_EXTRA_TYPE_PROTO_TRACK = 18,
  PERFETTO_TE_HL_EXTRA_TYPE_NESTED_TRACKS = 19,
  PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID = 20,
  PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID_STR = 21
};

struct PerfettoTeHlExtra {
  uint32_t type; /* enum PerfettoTeHlExtraType */
};

/* The event goes on a registered track (its descriptor written once per
 * sequence). */
struct PerfettoTeHlExtraRegisteredTrack {
  struct PerfettoTeHlExtra header;
  const struct PerfettoTeRegisteredTrackImpl* track;
};

/* The event goes on the track named `name` with `id` under `parent_uuid`
 * (uuid: parent_uuid ^ FNV-1a(name) ^ id); `is_name_static` writes the
 * name as static_name. */
struct PerfettoTeHlExtraNamedTrack {
  struct PerfettoTeHlExtra header;
  const char* name;
  uint64_t id;
  uint64_t parent_uuid;
  bool is_name_static;
};

struct PerfettoTeHlExtraTimestamp {
  struct PerfettoTeHlExtra header;
  struct PerfettoTeTimestamp timestamp;
};

/* With perfetto_te_any_categories: the event's category, matched against
 * each session's config at the trace point (the answer cached). */
struct PerfettoTeHlExtraDynamicCategory {
  struct PerfettoTeHlExtra header;
  const struct PerfettoTeCategoryDescriptor* desc;
};

struct PerfettoTeHlExtraCounterInt64 {
  struct PerfettoTeHlExtra header;
  int64_t value;
};

struct PerfettoTeHlExtraCounterDouble {
  struct PerfettoTeHlExtra header;
  double value;
};

union PerfettoTeHlExtraCounterUnion {
  struct PerfettoTeHlExtraCounterInt64 counter_int64;
  struct PerfettoTeHlExtraCounterDouble counter_double;
};

/* Debug annotations: `name` is interned per sequence. */
struct PerfettoTeHlExtraDebugArgBool {
  struct PerfettoTeHlExtra header;
  const char* name;
  bool value;
};

struct PerfettoTeHlExtraDebugArgUint64 {
  struct PerfettoTeHlExtra header;
  const char* name;
  uint64_t value;
};

struct PerfettoTeHlExtraDebugArgInt64 {
  struct PerfettoTeHlExtra header;
  const char* name;
  int64_t value;
};

struct PerfettoTeHlExtraDebugArgDouble {
  struct PerfettoTeHlExtra header;
  const char* name;
  double value;
};

struct PerfettoTeHlExtraDebugArgString {
  struct PerfettoTeHlExtra header;
  const char* name;
  const char* value;
};

struct PerfettoTeHlExtraDebugArgPointer {
  struct PerfettoTeHlExtra header;
  const char* name;
  uintptr_t value;
};

union PerfettoTeHlExtraDebugArgUnion {
  struct PerfettoTeHlExtraDebugArgBool arg_bool;
  struct PerfettoTeHlExtraDebugArgUint64 arg_uint64;
  struct PerfettoTeHlExtraDebugArgInt64 arg_int64;
  struct PerfettoTeHlExtraDebugArgDouble arg_double;
  struct PerfettoTeHlExtraDebugArgString arg_string;
  struct PerfettoTeHlExtraDebugArgPointer arg_pointer;
};

/* FLOW starts or continues flow `id`; TERMINATING_FLOW ends it. */
struct PerfettoTeHlExtraFlow {
  struct PerfettoTeHlExtra header;
  uint64_t id;
};

/* Ties events of one logical operation together (not causally, unlike a
 * flow): TrackEvent.correlation_id or correlation_id_str. */
struct PerfettoTeHlExtraCorrelationId {
  struct PerfettoTeHlExtra header;
  uint64_t id;
};

struct PerfettoTeHlExtraCorrelationIdStr {
  struct PerfettoTeHlExtra header;
  const char* str;
};

union PerfettoTeHlExtraCorrelationIdUnion {
  struct PerfettoTeHlExtraCorrelationId correlation_id;
  struct PerfettoTeHlExtraCorrelationIdStr correlation_id_str;
};

/* Raw fields appended to the TrackEvent. */
struct PerfettoTeHlExtraProtoFields {
  struct PerfettoTeHlExtra header;
  struct PerfettoTeHlProtoField* const* fields; /* NULL-terminated. */
};

/* The event goes on track `uuid`, whose descriptor is `uuid` plus `fields`
 * (written once per sequence). */
struct PerfettoTeHlExtraProtoTrack {
  struct PerfettoTeHlExtra header;
  uint64_t uuid;
  struct PerfettoTeHlProtoField* const* fields; /* NULL-terminated. */
};

/* A path of tracks, outermost first: each is a child of the one before. */
enum PerfettoTeHlNestedTrackType {
  PERFETTO_TE_HL_NESTED_TRACK_TYPE_NAMED = 1,
  PERFETTO_TE_HL_NESTED_TRACK_TYPE_PROTO = 2,
  PERFETTO_TE_HL_NESTED_TRACK_TYPE_REGISTERED = 3,
  PERFETTO_TE_HL_NESTED_TRACK_TYPE_THREAD = 4,
  PERFETTO_TE_HL_NESTED_TRACK_TYPE_PROCESS = 5
};

struct PerfettoTeHlNestedTrack {
  uint32_t type; /* enum PerfettoTeHlNestedTrackType */
};

/* TrackDescriptor.ChildTracksOrdering; 0 leaves it unset. */
enum PerfettoTeHlChildOrdering {
  PERFETTO_TE_HL_CHILD_ORDERING_UNKNOWN = 0,
  PERFETTO_TE_HL_CHILD_ORDERING_LEXICOGRAPHIC = 1,
  PERFETTO_TE_HL_CHILD_ORDERING_CHRONOLOGICAL = 2,
  PERFETTO_TE_HL_CHILD_ORDERING_EXPLICIT = 3
};

/* TrackDescriptor.SiblingMergeBehavior; 0 leaves it unset. */
enum PerfettoTeHlSiblingMergeBehavior {
  PERFETTO_TE_HL_SIBLING_MERGE_BEHAVIOR_UNSPECIFIED = 0,
  PERFETTO_TE_HL_SIBLING_MERGE_BEHAVIOR_BY_TRACK_NAME = 1,
  PERFETTO_TE_HL_SIBLING_MERGE_BEHAVIOR_NONE = 2,
  PERFETTO_TE_HL_SIBLING_MERGE_BEHAVIOR_BY_SIBLING_MERGE_KEY = 3
};

/* A named track under the previous one (uuid as for a named track). The
 * ordering and merge fields go into its descriptor when not 0; the merge
 * key only with BY_SIBLING_MERGE_KEY, the string one if not NULL, else the
 * integer one. */
struct PerfettoTeHlNestedTrackNamed {
  struct PerfettoTeHlNestedTrack header;
  const char* name;
  uint64_t id;
  bool is_name_static;
  int32_t sibling_order_rank;
  uint32_t child_ordering;         /* enum PerfettoTeHlChildOrdering */
  uint32_t sibling_merge_behavior; /* enum PerfettoTeHlSiblingMergeBehavior */
  const char* sibling_merge_key_str;
  uint64_t sibling_merge_key_int;
};

/* A track under the previous one with uuid `id` ^ the parent's uuid and a
 * descriptor of raw fields. */
struct PerfettoTeHlNestedTrackProto {
  struct PerfettoTeHlNestedTrack header;
  uint64_t id;
  struct PerfettoTeHlProtoField* const* fields; /* NULL-terminated. */
};

struct PerfettoTeHlNestedTrackRegistered {
  struct PerfettoTeHlNestedTrack header;
  const struct PerfettoTeRegisteredTrackImpl* track;
};

struct PerfettoTeHlExtraNestedTracks {
  struct PerfettoTeHlExtra header;
  struct PerfettoTeHlNestedTrack* const* tracks; /* NULL-terminated. */
};

/* Writes one event into every instance `cat` is on in (for this thread).
 * `type` is an enum PerfettoTeType; `name` may be NULL (and is ignored for
 * SLICE_END); `extra_data` is a NULL-terminated array (never NULL itself).
 * Extras of a type the library does not know are ignored. */
ZT_C_EXPORT void PerfettoTeHlEmitImpl(struct PerfettoTeCategoryImpl* cat,
                                      int32_t type,
                                      const char* name,
                                      struct PerfettoTeHlExtra* const* extra_data);

#ifdef __cplusplus
}
#endif

#endif /* ZT_C_ABI_TRACK_EVENT_HL_H_ */
