// Tracing while the process exits: a session still running, no
// Tracing::Shutdown(), events written from a static destructor and from
// other threads while exit() runs the C++ teardown (thread_local and static
// destructors). Each case runs in a child process (a threadsafe death test:
// fork and exec of this binary) that must exit with status 0: before the
// fix, a TRACE_EVENT in a static destructor used this thread's track event
// sequence after its thread_local state was destroyed, and crashed in
// SharedMemoryArbiter::GetNewChunk through a freed TraceWriter.

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0), zt::Category{"exit"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace zt {
namespace {

constexpr char kSourceName[] = "zt.test.exit";

class ExitSource : public DataSource<ExitSource> {};

// Enough packets (and bytes) that each call takes new chunks, so that the
// writer reaches the arbiter.
void TraceBurst(uint32_t tag) {
  const std::string payload(512, 'x');
  for (uint32_t i = 0; i < 64; i++) {
    TRACE_EVENT("exit", "burst", "i", i);
    ExitSource::Trace([&](ExitSource::TraceContext ctx) {
      auto packet = ctx.NewTracePacket();
      auto* event = packet->set_for_testing();
      event->set_seq_value(tag);
      event->set_counter(i);
      event->set_str(payload);
    });
  }
}

// Starts an in-process session recording both data sources and leaks it:
// it is still running when the process exits.
void StartLeakedSession() {
  if (!Tracing::Initialize(TracingInitArgs()))
    abort();
  protos::gen::DataSourceDescriptor desc;
  desc.set_name(kSourceName);
  if (!ExitSource::Register(desc))
    abort();
  protos::gen::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(4096);
  cfg.add_data_sources()->mutable_config()->set_name(kSourceName);
  cfg.add_data_sources()->mutable_config()->set_name("track_event");
  std::unique_ptr<TracingSession> session = Tracing::NewTrace();
  session->Setup(cfg);
  session->StartBlocking();
  session.release();  // Never stopped, never destroyed.
}

// Traces from its destructor, which runs after the exiting thread's
// thread_local destructors.
struct TracesWhenDestroyed {
  ~TracesWhenDestroyed() { TraceBurst(3); }
};

// A thread that traces until the process ends; returns once it has
// traced at least once.
void StartTracingThread(uint32_t tag) {
  static std::atomic<bool> traced{false};
  std::thread([tag] {
    for (;;) {
      TraceBurst(tag);
      traced.store(true);
    }
  }).detach();
  while (!traced.load())
    std::this_thread::yield();
}

TEST(TracingExitTest, StaticDestructorTracesWhileASessionRuns) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto scenario = [] {
    StartLeakedSession();
    static TracesWhenDestroyed traces_at_exit;  // Destroyed by exit().
    TraceBurst(1);  // This thread's writers and sequences exist.
    StartTracingThread(2);
    exit(0);
  };
  EXPECT_EXIT(scenario(), ::testing::ExitedWithCode(0), "");
}

TEST(TracingExitTest, AnotherThreadCallsExitWhileThisOneTraces) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto scenario = [] {
    StartLeakedSession();
    static TracesWhenDestroyed traces_at_exit;
    TraceBurst(1);
    std::atomic<bool> go{false};
    std::thread([&go] {
      TraceBurst(4);  // Its own writers, destroyed by its exit() call.
      while (!go.load())
        std::this_thread::yield();
      exit(0);
    }).detach();
    for (;;) {
      TraceBurst(1);
      go.store(true);
    }
  };
  EXPECT_EXIT(scenario(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace zt
