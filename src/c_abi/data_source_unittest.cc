#include "zt/c/abi/data_source.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/c_abi/c_message_writer_for_testing.h"
#include "zt/c/abi/producer.h"
#include "zt/c/abi/tracing_session.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace {

using zt::c_abi::CMessageWriter;

struct Counts {
  std::atomic<int> setups{0}, starts{0}, stops{0}, destroys{0}, tls_made{0}, tls_freed{0},
      incr_made{0};
  std::string config_name;
};
Counts g_counts;
int g_ctx_object;  // What setup returns as the instance's context.

void* OnSetup(PerfettoDsImpl*, PerfettoDsInstanceIndex, void* config, size_t size, void* user_arg,
              PerfettoDsOnSetupArgs*) {
  Counts* counts = static_cast<Counts*>(user_arg);
  zt::protos::gen::DataSourceConfig parsed;
  EXPECT_TRUE(parsed.ParseFromArray(config, size));
  counts->config_name = parsed.name();
  counts->setups++;
  return &g_ctx_object;
}
void OnStart(PerfettoDsImpl*, PerfettoDsInstanceIndex, void* user_arg, void* ctx,
             PerfettoDsOnStartArgs*) {
  EXPECT_EQ(ctx, &g_ctx_object);
  static_cast<Counts*>(user_arg)->starts++;
}
void OnStop(PerfettoDsImpl*, PerfettoDsInstanceIndex, void* user_arg, void* ctx,
            PerfettoDsOnStopArgs*) {
  EXPECT_EQ(ctx, &g_ctx_object);
  static_cast<Counts*>(user_arg)->stops++;
}
void OnDestroy(PerfettoDsImpl*, void* user_arg, void* ctx) {
  EXPECT_EQ(ctx, &g_ctx_object);
  static_cast<Counts*>(user_arg)->destroys++;
}
// Postponed flushes: the flusher handed out, for the test to answer.
std::mutex g_flush_mutex;
std::condition_variable g_flush_cv;
PerfettoDsAsyncFlusher* g_flusher = nullptr;
void OnFlush(PerfettoDsImpl*, PerfettoDsInstanceIndex, void*, void* ctx,
             PerfettoDsOnFlushArgs* args) {
  EXPECT_EQ(ctx, &g_ctx_object);
  std::lock_guard<std::mutex> lock(g_flush_mutex);
  g_flusher = PerfettoDsOnFlushArgsPostpone(args);
  g_flush_cv.notify_all();
}
PerfettoDsAsyncFlusher* TakeFlusher(bool wait) {
  std::unique_lock<std::mutex> lock(g_flush_mutex);
  if (wait)
    g_flush_cv.wait_for(lock, std::chrono::seconds(30), [] { return g_flusher != nullptr; });
  PerfettoDsAsyncFlusher* flusher = g_flusher;
  g_flusher = nullptr;
  return flusher;
}

void* MakeTls(PerfettoDsImpl*, PerfettoDsInstanceIndex, PerfettoDsTracerImpl*, void* user_arg) {
  static_cast<Counts*>(user_arg)->tls_made++;
  return new int(7);
}
void FreeTls(void* obj) {
  g_counts.tls_freed++;
  delete static_cast<int*>(obj);
}
void* MakeIncr(PerfettoDsImpl*, PerfettoDsInstanceIndex, PerfettoDsTracerImpl*, void* user_arg) {
  static_cast<Counts*>(user_arg)->incr_made++;
  return new int(0);
}
void FreeIncr(void* obj) { delete static_cast<int*>(obj); }

std::string Descriptor(const char* name) {
  zt::protos::gen::DataSourceDescriptor desc;
  desc.set_name(name);
  return desc.SerializeAsString();
}

std::string Config(const char* name) {
  zt::protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(4096);
  config.add_data_sources()->mutable_config()->set_name(name);
  return config.SerializeAsString();
}

void OnRead(PerfettoTracingSessionImpl*, const void* data, size_t size, bool, void* arg) {
  static_cast<std::string*>(arg)->append(static_cast<const char*>(data), size);
}

// One packet: for_testing { str: "packet N", payload { str: "nested" x strings } }.
void WritePacket(PerfettoDsTracerImpl* tracer, int n, int strings, size_t* patches) {
  PerfettoStreamWriter w = PerfettoDsTracerImplPacketBegin(tracer);
  CMessageWriter msg(&w);
  msg.BeginNested(900);  // TracePacket.for_testing
  msg.StringField(1, "packet " + std::to_string(n));
  msg.BeginNested(5);  // TestEvent.payload
  for (int i = 0; i < strings; i++)
    msg.StringField(1, "nested");
  msg.EndNested();
  msg.EndNested();
  PerfettoDsTracerImplPacketEnd(tracer, &w);
  *patches += msg.patches_asked();
}

// One test: the backend and the types are process-wide.
TEST(CDataSourceTest, RecordsPacketsWithNestedMessagesAcrossChunks) {
  PerfettoDsImpl* ds = PerfettoDsImplCreate();
  ZT_C_ATOMIC(bool)* enabled = &perfetto_atomic_false;
  const std::string descriptor = Descriptor("zt.test.c_source");
  EXPECT_FALSE(PerfettoDsImplRegister(ds, &enabled, descriptor.data(), descriptor.size()))
      << "no backend yet";
  EXPECT_EQ(enabled, &perfetto_atomic_false);
  // The refused type was freed (the ABI: it is invalid): a new one.
  ds = PerfettoDsImplCreate();

  PerfettoProducerInProcessInit(nullptr);
  PerfettoDsSetOnSetupCallback(ds, OnSetup);
  PerfettoDsSetOnStartCallback(ds, OnStart);
  PerfettoDsSetOnStopCallback(ds, OnStop);
  PerfettoDsSetOnDestroyCallback(ds, OnDestroy);
  PerfettoDsSetOnFlushCallback(ds, OnFlush);
  PerfettoDsSetOnCreateTls(ds, MakeTls);
  PerfettoDsSetOnDeleteTls(ds, FreeTls);
  PerfettoDsSetOnCreateIncr(ds, MakeIncr);
  PerfettoDsSetOnDeleteIncr(ds, FreeIncr);
  PerfettoDsSetCbUserArg(ds, &g_counts);
  ASSERT_TRUE(PerfettoDsImplRegister(ds, &enabled, descriptor.data(), descriptor.size()));
  EXPECT_FALSE(enabled->load());
  const uint8_t junk[] = {0xff};
  EXPECT_FALSE(PerfettoDsImplRegister(PerfettoDsImplCreate(), &enabled, junk, sizeof junk));
  EXPECT_FALSE(PerfettoDsImplRegister(PerfettoDsImplCreate(), &enabled, descriptor.data(),
                                      descriptor.size()))
      << "the name is taken";
  EXPECT_EQ(PerfettoDsImplTraceIterateBegin(ds).tracer, nullptr) << "no session";
  // A new descriptor of the same name goes to the service (another name,
  // or junk, is refused with a message and changes nothing).
  PerfettoDsImplUpdateDescriptor(ds, descriptor.data(), descriptor.size());
  const std::string other = Descriptor("zt.test.other_name");
  PerfettoDsImplUpdateDescriptor(ds, other.data(), other.size());
  PerfettoDsImplUpdateDescriptor(ds, junk, sizeof junk);

  PerfettoTracingSessionImpl* session = PerfettoTracingSessionInProcessCreate();
  ASSERT_NE(session, nullptr);
  std::string config = Config("zt.test.c_source");
  PerfettoTracingSessionSetup(session, &config[0], config.size());
  PerfettoTracingSessionStartBlocking(session);
  EXPECT_TRUE(enabled->load());
  EXPECT_EQ(g_counts.setups.load(), 1);
  EXPECT_EQ(g_counts.starts.load(), 1);
  EXPECT_EQ(g_counts.config_name, "zt.test.c_source");

  size_t patches = 0;
  int instances = 0;
  for (int n = 0; n < 20; n++) {
    for (PerfettoDsImplTracerIterator it = PerfettoDsImplTraceIterateBegin(ds); it.tracer;
         PerfettoDsImplTraceIterateNext(ds, &it)) {
      instances += n == 0;
      EXPECT_EQ(*static_cast<int*>(PerfettoDsImplGetCustomTls(ds, it.tracer, it.inst_id)), 7);
      EXPECT_NE(PerfettoDsImplGetIncrementalState(ds, it.tracer, it.inst_id), nullptr);
      // Every fourth packet holds 1,000 strings (8 KB): over two 4 KiB chunks.
      WritePacket(it.tracer, n, n % 4 == 0 ? 1000 : 3, &patches);
      // A trace point of the same type from inside is ignored (it used to
      // open a packet inside the packet and abort).
      EXPECT_EQ(PerfettoDsImplTraceIterateBegin(ds).tracer, nullptr);
    }
  }
  // Left early with Break: the next trace point is not ignored.
  PerfettoDsImplTracerIterator early = PerfettoDsImplTraceIterateBegin(ds);
  ASSERT_NE(early.tracer, nullptr);
  PerfettoDsImplTraceIterateBreak(ds, &early);
  PerfettoDsImplTracerIterator again = PerfettoDsImplTraceIterateBegin(ds);
  ASSERT_NE(again.tracer, nullptr);
  PerfettoDsImplTraceIterateNext(ds, &again);
  EXPECT_EQ(again.tracer, nullptr);
  EXPECT_EQ(instances, 1);
  EXPECT_GT(patches, 0u) << "the big packets' size fields were patched";
  EXPECT_EQ(g_counts.tls_made.load(), 1);
  EXPECT_EQ(g_counts.incr_made.load(), 1);
  EXPECT_EQ(PerfettoDsImplGetInstanceLocked(ds, 0), &g_ctx_object);
  PerfettoDsImplReleaseInstanceLocked(ds, 0);

  // A postponed flush: unanswered, it fails at its timeout; answered from
  // another thread, it succeeds.
  EXPECT_FALSE(PerfettoTracingSessionFlushBlocking(session, 300));
  PerfettoDsAsyncFlusher* late = TakeFlusher(false);
  ASSERT_NE(late, nullptr) << "the flush callback was not called";
  PerfettoDsFlushDone(late);
  std::thread answerer([] {
    if (PerfettoDsAsyncFlusher* flusher = TakeFlusher(true))
      PerfettoDsFlushDone(flusher);
  });
  EXPECT_TRUE(PerfettoTracingSessionFlushBlocking(session, 30000));
  answerer.join();

  PerfettoTracingSessionStopBlocking(session);
  EXPECT_FALSE(enabled->load());
  EXPECT_EQ(g_counts.stops.load(), 1);
  EXPECT_EQ(g_counts.destroys.load(), 1);
  EXPECT_EQ(PerfettoDsImplGetInstanceLocked(ds, 0), nullptr) << "the instance is gone";

  std::string trace;
  PerfettoTracingSessionReadTraceBlocking(session, OnRead, &trace);
  PerfettoTracingSessionDestroy(session);

  zt::protos::pbzero::Trace_Decoder decoder(reinterpret_cast<const uint8_t*>(trace.data()),
                                            trace.size());
  int packets = 0;
  for (auto it = decoder.packet(); it; ++it) {
    zt::protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
    if (!packet.has_for_testing())
      continue;
    zt::protos::pbzero::TestEvent_Decoder event(packet.for_testing());
    EXPECT_EQ(std::string(event.str()), "packet " + std::to_string(packets));
    zt::protos::pbzero::TestEvent_TestPayload_Decoder payload(event.payload());
    int strings = 0;
    for (auto s = payload.str(); s; ++s) {
      EXPECT_EQ(std::string(*s), "nested");
      strings++;
    }
    EXPECT_EQ(strings, packets % 4 == 0 ? 1000 : 3) << "packet " << packets;
    packets++;
  }
  EXPECT_EQ(packets, 20);
}

}  // namespace
