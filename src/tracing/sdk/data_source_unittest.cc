// DataSource<T> through the in-process backend: lifecycle callbacks,
// Trace() only while a session has the source, per-instance state,
// concurrent sessions, deferred stop.

#include "zt/tracing/data_source.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/common/trace_stats.gen.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/trace_config.pbzero.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/trigger.pbzero.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace {

using protos::pbzero::TracePacket_Decoder;

struct Events {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> log;
  void Add(const std::string& e) {
    std::lock_guard<std::mutex> lock(mutex);
    log.push_back(e);
    cv.notify_all();
  }
  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mutex);
    return log;
  }
  // Waits (bounded) until the log holds |n| events.
  bool WaitForSize(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return log.size() >= n; });
  }
};
Events g_events;

class TestSource : public DataSource<TestSource> {
 public:
  void OnSetup(const SetupArgs& args) override {
    g_events.Add("setup:" + args.config->name());
  }
  void OnStart(const StartArgs&) override { g_events.Add("start"); }
  void OnStop(const StopArgs&) override { g_events.Add("stop"); }
  int value = 42;
};

struct CountingState {
  int packets = 0;
};
struct IncrementalTraits : DefaultDataSourceTraits {
  using IncrementalStateType = CountingState;
};
class IncrementalSource : public DataSource<IncrementalSource, IncrementalTraits> {};

struct PerThread {
  int writes = 0;
};
struct TlsTraits : DefaultDataSourceTraits {
  using TlsStateType = PerThread;
};
class TlsSource : public DataSource<TlsSource, TlsTraits> {};

// Defers its stop until the test releases it.
class SlowStopSource : public DataSource<SlowStopSource> {
 public:
  void OnStop(const StopArgs& args) override {
    std::lock_guard<std::mutex> lock(mutex);
    finish = args.HandleStopAsynchronously();
    cv.notify_all();
  }
  static std::mutex mutex;
  static std::condition_variable cv;
  static std::function<void()> finish;
};
std::mutex SlowStopSource::mutex;
std::condition_variable SlowStopSource::cv;
std::function<void()> SlowStopSource::finish;

// Defers its flush answer until the test's thread has written and
// released it.
class SlowFlushSource : public DataSource<SlowFlushSource> {
 public:
  void OnFlush(const FlushArgs& args) override {
    std::lock_guard<std::mutex> lock(mutex);
    finish = args.HandleFlushAsynchronously();
    cv.notify_all();
  }
  static std::mutex mutex;
  static std::condition_variable cv;
  static std::function<void()> finish;
};
std::mutex SlowFlushSource::mutex;
std::condition_variable SlowFlushSource::cv;
std::function<void()> SlowFlushSource::finish;

// Writes its final state from OnFlush and OnStop (on the service thread,
// under the instance lock).
class FinalStateSource : public DataSource<FinalStateSource> {
 public:
  void OnFlush(const FlushArgs&) override { Write(555); }
  void OnStop(const StopArgs&) override { Write(777); }

 private:
  static void Write(uint64_t ts) {
    FinalStateSource::Trace([ts](FinalStateSource::TraceContext ctx) {
      EXPECT_TRUE(ctx.GetDataSourceLocked());  // Same thread: no deadlock.
      ctx.NewTracePacket()->set_timestamp(ts);
      ctx.Flush();
    });
  }
};

protos::gen::TraceConfig ConfigFor(const std::string& name) {
  protos::gen::TraceConfig cfg;
  auto* buf = cfg.add_buffers();
  buf->set_size_kb(1024);
  buf->set_fill_policy(protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  cfg.add_data_sources()->mutable_config()->set_name(name);
  return cfg;
}

// Timestamps of the packets on producer sequences, in trace order.
std::vector<uint64_t> Timestamps(const std::vector<char>& trace) {
  std::vector<uint64_t> out;
  protos::pbzero::Trace_Decoder d(reinterpret_cast<const uint8_t*>(trace.data()),
                                  trace.size());
  for (auto it = d.packet(); it; ++it) {
    const protozero::ConstBytes b = *it;
    TracePacket_Decoder p(b.data, b.size);
    if (p.trusted_packet_sequence_id() > 1 && p.has_timestamp())
      out.push_back(p.timestamp());
  }
  EXPECT_FALSE(d.parse_error());
  return out;
}

class DataSourceTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    TracingInitArgs args;
    Tracing::Initialize(args);
    protos::gen::DataSourceDescriptor d;
    d.set_name("test.source");
    ASSERT_TRUE(TestSource::Register(d));
    ASSERT_FALSE(TestSource::Register(d)) << "names are unique";
    d.set_name("test.incremental");
    ASSERT_TRUE(IncrementalSource::Register(d));
    d.set_name("test.slow_stop");
    ASSERT_TRUE(SlowStopSource::Register(d));
    d.set_name("test.final_state");
    ASSERT_TRUE(FinalStateSource::Register(d));
    d.set_name("test.tls");
    ASSERT_TRUE(TlsSource::Register(d));
    d.set_name("test.slow_flush");
    ASSERT_TRUE(SlowFlushSource::Register(d));
  }
};

TEST_F(DataSourceTest, TracesOnlyWhileASessionHasIt) {
  int calls = 0;
  TestSource::Trace([&](TestSource::TraceContext) { calls++; });
  EXPECT_EQ(calls, 0);

  auto session = Tracing::NewTrace();
  ASSERT_TRUE(session);
  session->Setup(ConfigFor("test.source"));
  session->StartBlocking();
  for (uint64_t i = 0; i < 1000; i++) {
    TestSource::Trace([&](TestSource::TraceContext ctx) {
      calls++;
      ctx.NewTracePacket()->set_timestamp(i);
      auto ds = ctx.GetDataSourceLocked();
      ASSERT_TRUE(ds);
      EXPECT_EQ(ds->value, 42);
    });
  }
  EXPECT_EQ(calls, 1000);
  // This thread keeps its chunk: the service scrapes it at stop, all but
  // the last packet (which could still grow). Flushing commits it whole.
  TestSource::Trace([](TestSource::TraceContext ctx) { ctx.Flush(); });
  session->StopBlocking();
  TestSource::Trace([&](TestSource::TraceContext) { calls++; });
  EXPECT_EQ(calls, 1000);

  // Stats, both ways.
  auto stats = session->GetTraceStatsBlocking();
  ASSERT_TRUE(stats.success);
  protos::gen::TraceStats decoded;
  ASSERT_TRUE(decoded.ParseFromArray(stats.trace_stats_data.data(),
                                     stats.trace_stats_data.size()));
  ASSERT_EQ(decoded.buffer_stats().size(), 1u);
  EXPECT_GT(decoded.buffer_stats()[0].bytes_written(), 1000u * 4);
  std::mutex m;
  std::condition_variable cv;
  bool got = false;
  session->GetTraceStats([&](TracingSession::GetTraceStatsCallbackArgs args) {
    std::lock_guard<std::mutex> lock(m);
    got = args.success && args.trace_stats_data == stats.trace_stats_data;
    cv.notify_all();
  });
  ASSERT_TRUE(base::WaitFor(m, cv, [&] { return got; }, base::kTestTimeoutMs))
      << "GetTraceStats() never answered";

  std::vector<uint64_t> ts = Timestamps(session->ReadTraceBlocking());
  ASSERT_EQ(ts.size(), 1000u);
  for (uint64_t i = 0; i < 1000; i++)
    EXPECT_EQ(ts[i], i);
  const std::vector<std::string> log = g_events.Get();
  ASSERT_GE(log.size(), 3u);
  EXPECT_EQ(log[log.size() - 3], "setup:test.source");
  EXPECT_EQ(log[log.size() - 2], "start");
  EXPECT_EQ(log[log.size() - 1], "stop");
}

TEST_F(DataSourceTest, TwoSessionsEachGetEveryPacket) {
  auto s1 = Tracing::NewTrace();
  auto s2 = Tracing::NewTrace();
  s1->Setup(ConfigFor("test.source"));
  s2->Setup(ConfigFor("test.source"));
  s1->StartBlocking();
  s2->StartBlocking();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([t] {
      for (uint64_t i = 0; i < 500; i++) {
        TestSource::Trace([&](TestSource::TraceContext ctx) {
          ctx.NewTracePacket()->set_timestamp(static_cast<uint64_t>(t) * 1000 + i);
        });
      }
    });
  }
  for (auto& t : threads)
    t.join();  // Thread exit returns each thread's chunks.
  s1->StopBlocking();
  s2->StopBlocking();
  for (auto* s : {s1.get(), s2.get()}) {
    std::vector<uint64_t> ts = Timestamps(s->ReadTraceBlocking());
    ASSERT_EQ(ts.size(), 2000u);
    std::vector<uint64_t> last(4, 0);
    std::vector<bool> seen(4, false);
    for (uint64_t v : ts) {  // Per thread, in order.
      const size_t t = static_cast<size_t>(v / 1000);
      ASSERT_LT(t, 4u);
      if (seen[t]) {
        EXPECT_GT(v, last[t]);
      }
      seen[t] = true;
      last[t] = v;
    }
  }
}

TEST_F(DataSourceTest, IncrementalStateIsPerInstanceAndThread) {
  auto session = Tracing::NewTrace();
  session->Setup(ConfigFor("test.incremental"));
  session->StartBlocking();
  int seen = 0;
  for (int i = 0; i < 10; i++) {
    IncrementalSource::Trace([&](IncrementalSource::TraceContext ctx) {
      seen = ++ctx.GetIncrementalState()->packets;
    });
  }
  EXPECT_EQ(seen, 10);
  std::thread other([&] {
    IncrementalSource::Trace([&](IncrementalSource::TraceContext ctx) {
      seen = ++ctx.GetIncrementalState()->packets;
    });
  });
  other.join();
  EXPECT_EQ(seen, 1);
  session->StopBlocking();
}

TEST_F(DataSourceTest, DeferredStopHoldsTheSessionUntilReleased) {
  auto session = Tracing::NewTrace();
  auto cfg = ConfigFor("test.slow_stop");
  cfg.set_data_source_stop_timeout_ms(60 * 1000);
  session->Setup(cfg);
  session->StartBlocking();
  std::atomic<bool> stopped{false};
  session->SetOnStopCallback([&] { stopped = true; });
  session->Stop();
  std::function<void()> finish;
  ASSERT_TRUE(base::WaitFor(SlowStopSource::mutex, SlowStopSource::cv,
                            [] { return bool(SlowStopSource::finish); },
                            base::kTestTimeoutMs))
      << "the data source was never told to stop";
  {
    std::lock_guard<std::mutex> lock(SlowStopSource::mutex);
    finish = SlowStopSource::finish;
  }
  EXPECT_FALSE(stopped.load());  // Waiting for the data source.
  std::thread([finish] { finish(); }).join();
  session->StopBlocking();
  EXPECT_TRUE(stopped.load());
}

// A flush a data source answers later completes only then: with the
// answer never given, the flush fails at its timeout; given from another
// thread after it wrote, the flush succeeds and the packet is in the trace.
TEST_F(DataSourceTest, DeferredFlushIsAnsweredWhenTheDataSourceSaysSo) {
  auto session = Tracing::NewTrace();
  session->Setup(ConfigFor("test.slow_flush"));
  session->StartBlocking();
  EXPECT_FALSE(session->FlushBlocking(300)) << "answered before the data source did";
  std::function<void()> first;
  {
    std::lock_guard<std::mutex> lock(SlowFlushSource::mutex);
    first = SlowFlushSource::finish;
    SlowFlushSource::finish = nullptr;
  }
  ASSERT_TRUE(first) << "the data source was never asked to flush";
  first();  // Late: the timed-out request's answer goes nowhere.

  std::thread answerer([] {
    std::function<void()> finish;
    {
      std::unique_lock<std::mutex> lock(SlowFlushSource::mutex);
      if (!SlowFlushSource::cv.wait_for(lock, std::chrono::milliseconds(base::kTestTimeoutMs),
                                        [] { return bool(SlowFlushSource::finish); })) {
        return;  // The test fails below: the flush was never asked for.
      }
      finish = SlowFlushSource::finish;
    }
    SlowFlushSource::Trace([](SlowFlushSource::TraceContext ctx) {
      ctx.NewTracePacket()->set_timestamp(4242);
      ctx.Flush();
    });
    finish();
    finish();  // A second call is ignored.
  });
  EXPECT_TRUE(session->FlushBlocking(base::kTestTimeoutMs));
  answerer.join();
  session->StopBlocking();
  std::vector<uint64_t> ts = Timestamps(session->ReadTraceBlocking());
  EXPECT_EQ(ts, (std::vector<uint64_t>{4242}));
}

TEST_F(DataSourceTest, CallbacksCanWriteTheirFinalState) {
  auto session = Tracing::NewTrace();
  session->Setup(ConfigFor("test.final_state"));
  session->StartBlocking();
  EXPECT_TRUE(session->FlushBlocking(5000));
  session->StopBlocking();
  std::vector<uint64_t> ts = Timestamps(session->ReadTraceBlocking());
  EXPECT_EQ(ts, (std::vector<uint64_t>{555, 777}));
}

TEST_F(DataSourceTest, DeferredStartSetsUpFirstAndStartsOnStart) {
  auto session = Tracing::NewTrace();
  auto cfg = ConfigFor("test.source");
  cfg.set_deferred_start(true);
  const size_t before = g_events.Get().size();
  session->Setup(cfg);  // Sets the data sources up, asynchronously.
  ASSERT_TRUE(g_events.WaitForSize(before + 1)) << "never set up";
  std::vector<std::string> log = g_events.Get();
  ASSERT_EQ(log.size(), before + 1);
  EXPECT_EQ(log.back(), "setup:test.source");
  int calls = 0;
  TestSource::Trace([&](TestSource::TraceContext) { calls++; });
  EXPECT_EQ(calls, 0);  // Set up, not started.
  session->StartBlocking();
  EXPECT_EQ(g_events.Get().back(), "start");
  TestSource::Trace([&](TestSource::TraceContext) { calls++; });
  EXPECT_EQ(calls, 1);
  session->StopBlocking();
}

TEST_F(DataSourceTest, DestroyingASessionFromItsCallbackAbortsWithAMessage) {
  // The child must start its own tracing threads: re-run, don't just fork.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto session = Tracing::NewTrace();
        session->Setup(ConfigFor("test.source"));
        TracingSession* raw = session.release();
        raw->SetOnStopCallback([raw] { delete raw; });
        raw->StartBlocking();
        raw->StopBlocking();
      },
      "~TracingSession\\(\\) called on the tracing thread");
}

// Calls |on_start| from its OnStart (a data source callback).
class CallbackSource : public DataSource<CallbackSource> {
 public:
  void OnStart(const StartArgs&) override {
    if (on_start)
      on_start();
  }
  static std::function<void()> on_start;
};
std::function<void()> CallbackSource::on_start;

// Every blocking call, made from a session callback or a data source
// callback (both on the tracing thread), aborts with a message saying so:
// it would wait for itself (StopBlocking and FlushBlocking used to hang the
// tracing thread, and with it every later tracing call in the process).
TEST_F(DataSourceTest, BlockingCallsFromCallbacksAbortWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  using Call = std::function<void(TracingSession*)>;
  const std::vector<std::pair<std::string, Call>> calls = {
      {"StartBlocking", [](TracingSession* s) { s->StartBlocking(); }},
      {"StopBlocking", [](TracingSession* s) { s->StopBlocking(); }},
      {"FlushBlocking", [](TracingSession* s) { s->FlushBlocking(); }},
      {"ReadTraceBlocking", [](TracingSession* s) { s->ReadTraceBlocking(); }},
      {"GetTraceStatsBlocking", [](TracingSession* s) { s->GetTraceStatsBlocking(); }},
  };
  auto from_stop_callback = [](const Call& call) {
    auto session = Tracing::NewTrace();
    session->Setup(ConfigFor("test.source"));
    TracingSession* raw = session.get();
    session->SetOnStopCallback([raw, call] { call(raw); });
    session->StartBlocking();
    session->StopBlocking();
  };
  auto from_on_start = [](const Call& call) {
    protos::gen::DataSourceDescriptor d;
    d.set_name("test.callback");
    CallbackSource::Register(d);
    auto session = Tracing::NewTrace();
    session->Setup(ConfigFor("test.callback"));
    TracingSession* raw = session.get();
    CallbackSource::on_start = [raw, call] { call(raw); };
    session->StartBlocking();
  };
  for (const auto& call : calls) {
    const std::string expected = call.first + "\\(\\) called on the tracing thread";
    EXPECT_DEATH(from_stop_callback(call.second), expected)
        << call.first << " from a session callback";
    EXPECT_DEATH(from_on_start(call.second), expected)
        << call.first << " from a data source callback";
  }
}

TEST_F(DataSourceTest, CustomThreadLocalStateIsPerThreadAndInstance) {
  auto a = Tracing::NewTrace();
  auto b = Tracing::NewTrace();
  a->Setup(ConfigFor("test.tls"));
  b->Setup(ConfigFor("test.tls"));
  a->StartBlocking();
  b->StartBlocking();
  std::vector<int> seen;
  for (int i = 0; i < 3; i++) {
    TlsSource::Trace([&](TlsSource::TraceContext ctx) {
      seen.push_back(++ctx.GetCustomTlsState().writes);
    });
  }
  // Two instances, each with its own counter on this thread.
  EXPECT_EQ(seen, (std::vector<int>{1, 1, 2, 2, 3, 3}));
  int other = 0;
  std::thread([&] {
    TlsSource::Trace([&](TlsSource::TraceContext ctx) {
      other = ++ctx.GetCustomTlsState().writes;
    });
  }).join();
  EXPECT_EQ(other, 1);
  a->StopBlocking();
  b->StopBlocking();
}

TEST_F(DataSourceTest, AtMostEightInstancesAtOnce) {
  std::vector<std::unique_ptr<TracingSession>> sessions;
  for (int i = 0; i < 9; i++) {
    sessions.push_back(Tracing::NewTrace());
    sessions.back()->Setup(ConfigFor("test.tls"));
    sessions.back()->StartBlocking();
  }
  int calls = 0;
  TlsSource::Trace([&](TlsSource::TraceContext ctx) {
    calls++;
    ctx.NewTracePacket()->set_timestamp(1);
    ctx.Flush();
  });
  EXPECT_EQ(calls, 8);  // The ninth session goes without it...
  for (auto& s : sessions)
    s->StopBlocking();  // ...and still stops normally.
  size_t with_packet = 0;
  for (auto& s : sessions)
    with_packet += Timestamps(s->ReadTraceBlocking()) == std::vector<uint64_t>{1};
  EXPECT_EQ(with_packet, 8u);
  // Slots are free again: a new session gets one.
  auto again = Tracing::NewTrace();
  again->Setup(ConfigFor("test.tls"));
  again->StartBlocking();
  calls = 0;
  TlsSource::Trace([&](TlsSource::TraceContext) { calls++; });
  EXPECT_EQ(calls, 1);
  again->StopBlocking();
}

// A session waiting for a start trigger sets its data sources up and starts
// them on Tracing::ActivateTriggers; the trace records the trigger.
TEST_F(DataSourceTest, ATriggerStartsASessionWaitingForIt) {
  auto session = Tracing::NewTrace();
  auto cfg = ConfigFor("test.source");
  protozero::HeapBuffered<protos::pbzero::TraceConfig_TriggerConfig> triggers;
  triggers->set_trigger_mode(protos::pbzero::TraceConfig_TriggerConfig::START_TRACING);
  triggers->set_trigger_timeout_ms(600000);
  triggers->add_triggers()->set_name("go");
  cfg.set_trigger_config_raw(triggers.SerializeAsString());
  const size_t before = g_events.Get().size();
  session->Setup(cfg);
  session->Start();
  ASSERT_TRUE(g_events.WaitForSize(before + 1)) << "never set up";
  EXPECT_EQ(g_events.Get().back(), "setup:test.source");
  Tracing::ActivateTriggers({"go"});
  ASSERT_TRUE(g_events.WaitForSize(before + 2)) << "the trigger did not start it";
  EXPECT_EQ(g_events.Get().back(), "start");
  TestSource::Trace([](TestSource::TraceContext ctx) {
    ctx.NewTracePacket()->set_timestamp(42);
    ctx.Flush();  // Committed whole (a scrape keeps a last packet back).
  });
  session->StopBlocking();
  const std::vector<char> trace = session->ReadTraceBlocking();
  EXPECT_EQ(Timestamps(trace), std::vector<uint64_t>{42});
  std::vector<std::string> names;
  protos::pbzero::Trace_Decoder d(reinterpret_cast<const uint8_t*>(trace.data()), trace.size());
  for (auto it = d.packet(); it; ++it) {
    TracePacket_Decoder p((*it).data, (*it).size);
    if (p.has_trigger())
      names.emplace_back(protos::pbzero::Trigger_Decoder(p.trigger()).trigger_name());
  }
  EXPECT_EQ(names, std::vector<std::string>{"go"});
}

TEST_F(DataSourceTest, RefusedConfigsReportAnError) {
  auto session = Tracing::NewTrace();
  protos::gen::TraceConfig cfg;  // No buffers.
  std::string error;
  session->SetOnErrorCallback([&](const std::string& e) { error = e; });
  session->Setup(cfg);
  session->StartBlocking();
  session->StopBlocking();
  EXPECT_NE(error.find("no buffers"), std::string::npos);

  // Started without a config at all: said so.
  auto unset = Tracing::NewTrace();
  error.clear();
  unset->SetOnErrorCallback([&](const std::string& e) { error = e; });
  unset->StartBlocking();
  unset->StopBlocking();
  EXPECT_NE(error.find("without Setup()"), std::string::npos) << error;
}

}  // namespace
}  // namespace zt
