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

// The flags C code reads with plain loads (C99) or _Atomic ones (C11).
static_assert(sizeof(ZT_C_ATOMIC(bool)) == sizeof(bool) &&
                  alignof(ZT_C_ATOMIC(bool)) == alignof(bool),
              "");
static_assert(std::atomic<bool>::is_always_lock_free, "");

TEST(CAbiLayoutTest, ThreadIdIsTheKernels) {
  EXPECT_EQ(PerfettoGetThreadIdImpl(), static_cast<pid_t>(gettid()));
}

}  // namespace
