#include "zt/c/abi/tracing_session.h"

#include <atomic>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/c/abi/pb_decoder.h"
#include "zt/c/abi/producer.h"
#include "zt/config/trace_config.gen.h"

namespace {

struct Read {
  std::string bytes;
  int calls = 0;
  bool last_has_more = true;
};

void OnRead(PerfettoTracingSessionImpl*, const void* data, size_t size, bool has_more,
            void* arg) {
  Read* read = static_cast<Read*>(arg);
  read->bytes.append(static_cast<const char*>(data), size);
  read->calls++;
  read->last_has_more = has_more;
}

void OnStop(PerfettoTracingSessionImpl*, void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); }

std::string ConfigBytes() {
  zt::protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(256);
  config.add_data_sources()->mutable_config()->set_name("zt.test.no_such_source");
  return config.SerializeAsString();
}

// Counts the Trace's packets (field 1); -1 if the bytes are no Trace.
int CountPackets(const std::string& trace) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(trace.data());
  PerfettoPbDecoder d = {p, p + trace.size()};
  int packets = 0;
  for (;;) {
    PerfettoPbDecoderField f = PerfettoPbDecoderParseField(&d);
    if (f.status == PERFETTO_PB_DECODER_DONE)
      return packets;
    if (f.status != PERFETTO_PB_DECODER_OK || f.id != 1 || f.wire_type != 2)
      return -1;
    packets++;
  }
}

// One test: the backend is process-wide state.
TEST(CTracingSessionTest, InProcessLifecycle) {
  EXPECT_EQ(PerfettoTracingSessionInProcessCreate(), nullptr) << "before the backend exists";

  PerfettoProducerBackendInitArgs* args = PerfettoProducerBackendInitArgsCreate();
  PerfettoProducerBackendInitArgsSetShmemSizeHintKb(args, 512);
  PerfettoProducerInProcessInit(args);
  PerfettoProducerInProcessInit(args);  // Again: nothing changes.
  PerfettoProducerBackendInitArgsDestroy(args);

  PerfettoTracingSessionImpl* session = PerfettoTracingSessionInProcessCreate();
  ASSERT_NE(session, nullptr);
  std::atomic<int> stops{0};
  PerfettoTracingSessionSetStopCb(session, OnStop, &stops);
  std::string config = ConfigBytes();
  PerfettoTracingSessionSetup(session, &config[0], config.size());
  PerfettoTracingSessionStartBlocking(session);
  EXPECT_TRUE(PerfettoTracingSessionFlushBlocking(session, 5000));
  PerfettoTracingSessionStopBlocking(session);
  EXPECT_EQ(stops.load(), 1);
  Read read;
  PerfettoTracingSessionReadTraceBlocking(session, OnRead, &read);
  EXPECT_GE(read.calls, 1);
  EXPECT_FALSE(read.last_has_more);
  EXPECT_GT(CountPackets(read.bytes), 0) << "the service's own packets, as a Trace";
  PerfettoTracingSessionDestroy(session);

  // A config that does not parse: nothing starts, the stop is told, the
  // trace is empty.
  session = PerfettoTracingSessionInProcessCreate();
  ASSERT_NE(session, nullptr);
  std::atomic<int> bad_stops{0};
  PerfettoTracingSessionSetStopCb(session, OnStop, &bad_stops);
  uint8_t garbage[] = {0xff, 0xff, 0xff};
  PerfettoTracingSessionSetup(session, garbage, sizeof garbage);
  PerfettoTracingSessionStartBlocking(session);
  PerfettoTracingSessionStopBlocking(session);
  EXPECT_EQ(bad_stops.load(), 1);
  Read empty;
  PerfettoTracingSessionReadTraceBlocking(session, OnRead, &empty);
  EXPECT_EQ(empty.calls, 1);
  EXPECT_TRUE(empty.bytes.empty());
  PerfettoTracingSessionDestroy(session);
  EXPECT_EQ(bad_stops.load(), 1) << "told once, not again when destroyed";

  // Destroyed while tracing: stopped first, the stop told before it returns.
  session = PerfettoTracingSessionInProcessCreate();
  ASSERT_NE(session, nullptr);
  std::atomic<int> destroy_stops{0};
  PerfettoTracingSessionSetStopCb(session, OnStop, &destroy_stops);
  PerfettoTracingSessionSetup(session, &config[0], config.size());
  PerfettoTracingSessionStartBlocking(session);
  PerfettoTracingSessionDestroy(session);
  EXPECT_EQ(destroy_stops.load(), 1);

  // No system backend was initialized.
  EXPECT_EQ(PerfettoTracingSessionSystemCreate(), nullptr);
}

}  // namespace
