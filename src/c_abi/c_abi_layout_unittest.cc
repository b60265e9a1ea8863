// The ABI's layouts: sizes and field offsets of every struct a C program
// shares with the library, on LP64 (x86-64, arm64), as upstream's v58.2
// headers lay them out. A change here breaks programs built against those
// headers: never "fix" a number, fix the header.

#include <cstddef>
#include <type_traits>

#include <gtest/gtest.h>

#include "zt/c/abi/atomic.h"
#include "zt/c/abi/backend_type.h"
#include "zt/c/abi/data_source.h"
#include "zt/c/abi/heap_buffer.h"
#include "zt/c/abi/pb_decoder.h"
#include "zt/c/abi/producer.h"
#include "zt/c/abi/stream_writer.h"
#include "zt/c/abi/thread_utils.h"
#include "zt/c/abi/tracing_session.h"
#include "zt/c/abi/track_event.h"
#include "zt/c/abi/track_event_hl.h"
#include "zt/c/abi/track_event_ll.h"

namespace {

static_assert(sizeof(void*) == 8, "the numbers below are LP64's");

static_assert(sizeof(PerfettoStreamWriter) == 40, "");
static_assert(offsetof(PerfettoStreamWriter, impl) == 0, "");
static_assert(offsetof(PerfettoStreamWriter, begin) == 8, "");
static_assert(offsetof(PerfettoStreamWriter, end) == 16, "");
static_assert(offsetof(PerfettoStreamWriter, write_ptr) == 24, "");
static_assert(offsetof(PerfettoStreamWriter, written_previously) == 32, "");
static_assert(PERFETTO_STREAM_WRITER_PATCH_SIZE == 4, "");

static_assert(sizeof(PerfettoPbDecoder) == 16, "");
static_assert(offsetof(PerfettoPbDecoder, read_ptr) == 0, "");
static_assert(offsetof(PerfettoPbDecoder, end_ptr) == 8, "");
static_assert(sizeof(PerfettoPbDecoderDelimitedField) == 16, "");
static_assert(sizeof(PerfettoPbDecoderField) == 32, "");
static_assert(offsetof(PerfettoPbDecoderField, status) == 0, "");
static_assert(offsetof(PerfettoPbDecoderField, wire_type) == 4, "");
static_assert(offsetof(PerfettoPbDecoderField, id) == 8, "");
static_assert(offsetof(PerfettoPbDecoderField, value) == 16, "");
static_assert(PERFETTO_PB_DECODER_OK == 0 && PERFETTO_PB_DECODER_DONE == 1 &&
                  PERFETTO_PB_DECODER_ERROR == 2,
              "");

static_assert(PERFETTO_BACKEND_IN_PROCESS == 1 && PERFETTO_BACKEND_SYSTEM == 2, "");
static_assert(std::is_same<PerfettoBackendTypes, uint32_t>::value, "");
static_assert(std::is_same<PerfettoThreadId, pid_t>::value, "");

static_assert(sizeof(PerfettoDsImplTracerIterator) == 24, "");
static_assert(offsetof(PerfettoDsImplTracerIterator, inst_id) == 0, "");
static_assert(offsetof(PerfettoDsImplTracerIterator, tls) == 8, "");
static_assert(offsetof(PerfettoDsImplTracerIterator, tracer) == 16, "");
static_assert(sizeof(PerfettoDsTimestamp) == 16, "");
static_assert(offsetof(PerfettoDsTimestamp, clock_id) == 0, "");
static_assert(offsetof(PerfettoDsTimestamp, value) == 8, "");
static_assert(std::is_same<PerfettoDsInstanceIndex, uint32_t>::value, "");
static_assert(PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_DROP == 0 &&
                  PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_STALL_AND_ABORT == 1 &&
                  PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_STALL_AND_DROP == 2,
              "");
static_assert(PERFETTO_DS_CLOCK_MONOTONIC == 3 && PERFETTO_DS_CLOCK_BOOTTIME == 6, "");

// Track events: categories, timestamps, registered tracks, the low-level
// iterator, and the high-level ABI's extras and raw fields.
static_assert(sizeof(PerfettoTeCategoryDescriptor) == 32, "");
static_assert(offsetof(PerfettoTeCategoryDescriptor, name) == 0, "");
static_assert(offsetof(PerfettoTeCategoryDescriptor, desc) == 8, "");
static_assert(offsetof(PerfettoTeCategoryDescriptor, tags) == 16, "");
static_assert(offsetof(PerfettoTeCategoryDescriptor, num_tags) == 24, "");
static_assert(sizeof(PerfettoTeTimestamp) == 16, "");
static_assert(offsetof(PerfettoTeTimestamp, value) == 8, "");
static_assert(sizeof(PerfettoTeRegisteredTrackImpl) == 24, "");
static_assert(offsetof(PerfettoTeRegisteredTrackImpl, descriptor_size) == 8, "");
static_assert(offsetof(PerfettoTeRegisteredTrackImpl, uuid) == 16, "");
static_assert(PERFETTO_TE_TIMESTAMP_TYPE_MONOTONIC == 3 && PERFETTO_TE_TIMESTAMP_TYPE_BOOT == 6 &&
                  PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL == 64 &&
                  PERFETTO_TE_TIMESTAMP_TYPE_ABSOLUTE == 65,
              "");
static_assert(PERFETTO_TE_TYPE_SLICE_BEGIN == 1 && PERFETTO_TE_TYPE_SLICE_END == 2 &&
                  PERFETTO_TE_TYPE_INSTANT == 3 && PERFETTO_TE_TYPE_COUNTER == 4 &&
                  PERFETTO_TE_TYPE_STATE == 5,
              "");
static_assert(sizeof(PerfettoTeLlImplIterator) == 40, "");
static_assert(offsetof(PerfettoTeLlImplIterator, incr) == 24, "");
static_assert(offsetof(PerfettoTeLlImplIterator, tls) == 32, "");
static_assert(sizeof(PerfettoTeHlProtoField) == 8, "");
static_assert(offsetof(PerfettoTeHlProtoField, id) == 4, "");
static_assert(sizeof(PerfettoTeHlProtoFieldCstr) == 16, "");
static_assert(sizeof(PerfettoTeHlProtoFieldCstrInterned) == 24, "");
static_assert(offsetof(PerfettoTeHlProtoFieldCstrInterned, interned_type_id) == 16, "");
static_assert(sizeof(PerfettoTeHlProtoFieldBytes) == 24, "");
static_assert(offsetof(PerfettoTeHlProtoFieldBytes, len) == 16, "");
static_assert(sizeof(PerfettoTeHlProtoFieldNested) == 16, "");
static_assert(sizeof(PerfettoTeHlProtoFieldVarInt) == 16, "");
static_assert(sizeof(PerfettoTeHlProtoFieldFixed64) == 16, "");
static_assert(sizeof(PerfettoTeHlProtoFieldFixed32) == 12, "");
static_assert(sizeof(PerfettoTeHlProtoFieldDouble) == 16, "");
static_assert(sizeof(PerfettoTeHlProtoFieldFloat) == 12, "");
static_assert(sizeof(PerfettoTeHlProtoFieldUnion) == 24, "");
static_assert(PERFETTO_TE_HL_PROTO_TYPE_CSTR == 0 && PERFETTO_TE_HL_PROTO_TYPE_FLOAT == 7 &&
                  PERFETTO_TE_HL_PROTO_TYPE_CSTR_INTERNED == 8,
              "");
static_assert(sizeof(PerfettoTeHlExtra) == 4, "");
static_assert(sizeof(PerfettoTeHlExtraRegisteredTrack) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraNamedTrack) == 40, "");
static_assert(offsetof(PerfettoTeHlExtraNamedTrack, name) == 8, "");
static_assert(offsetof(PerfettoTeHlExtraNamedTrack, id) == 16, "");
static_assert(offsetof(PerfettoTeHlExtraNamedTrack, parent_uuid) == 24, "");
static_assert(offsetof(PerfettoTeHlExtraNamedTrack, is_name_static) == 32, "");
static_assert(sizeof(PerfettoTeHlExtraTimestamp) == 24, "");
static_assert(offsetof(PerfettoTeHlExtraTimestamp, timestamp) == 8, "");
static_assert(sizeof(PerfettoTeHlExtraDynamicCategory) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraCounterInt64) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraCounterDouble) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraCounterUnion) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraDebugArgBool) == 24, "");
static_assert(offsetof(PerfettoTeHlExtraDebugArgBool, value) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraDebugArgUint64) == 24, "");
static_assert(sizeof(PerfettoTeHlExtraDebugArgInt64) == 24, "");
static_assert(sizeof(PerfettoTeHlExtraDebugArgDouble) == 24, "");
static_assert(sizeof(PerfettoTeHlExtraDebugArgString) == 24, "");
static_assert(sizeof(PerfettoTeHlExtraDebugArgPointer) == 24, "");
static_assert(offsetof(PerfettoTeHlExtraDebugArgPointer, value) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraDebugArgUnion) == 24, "");
static_assert(sizeof(PerfettoTeHlExtraFlow) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraCorrelationId) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraCorrelationIdStr) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraCorrelationIdUnion) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraProtoFields) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraProtoTrack) == 24, "");
static_assert(offsetof(PerfettoTeHlExtraProtoTrack, uuid) == 8, "");
static_assert(offsetof(PerfettoTeHlExtraProtoTrack, fields) == 16, "");
static_assert(sizeof(PerfettoTeHlNestedTrack) == 4, "");
static_assert(sizeof(PerfettoTeHlNestedTrackNamed) == 56, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, name) == 8, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, id) == 16, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, is_name_static) == 24, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, sibling_order_rank) == 28, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, child_ordering) == 32, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, sibling_merge_behavior) == 36, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, sibling_merge_key_str) == 40, "");
static_assert(offsetof(PerfettoTeHlNestedTrackNamed, sibling_merge_key_int) == 48, "");
static_assert(sizeof(PerfettoTeHlNestedTrackProto) == 24, "");
static_assert(sizeof(PerfettoTeHlNestedTrackRegistered) == 16, "");
static_assert(sizeof(PerfettoTeHlExtraNestedTracks) == 16, "");
static_assert(PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK == 1 &&
                  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL == 7 &&
                  PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER == 12 &&
                  PERFETTO_TE_HL_EXTRA_TYPE_FLUSH == 15 &&
                  PERFETTO_TE_HL_EXTRA_TYPE_PROTO_FIELDS == 17 &&
                  PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID_STR == 21,
              "");
static_assert(PERFETTO_TE_HL_NESTED_TRACK_TYPE_NAMED == 1 &&
                  PERFETTO_TE_HL_NESTED_TRACK_TYPE_PROCESS == 5,
              "");
static_assert(PERFETTO_TE_HL_CHILD_ORDERING_EXPLICIT == 3 &&
                  PERFETTO_TE_HL_SIBLING_MERGE_BEHAVIOR_BY_SIBLING_MERGE_KEY == 3,
              "");

// The flags C code reads with plain loads (C99) or _Atomic ones (C11).
static_assert(sizeof(ZT_C_ATOMIC(bool)) == sizeof(bool) &&
                  alignof(ZT_C_ATOMIC(bool)) == alignof(bool),
              "");
static_assert(std::atomic<bool>::is_always_lock_free, "");

TEST(CAbiLayoutTest, ThreadIdIsTheKernels) {
  EXPECT_EQ(PerfettoGetThreadIdImpl(), static_cast<pid_t>(gettid()));
}

}  // namespace
