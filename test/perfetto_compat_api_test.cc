// The parts of Perfetto's SDK API that its own examples lean on beyond the
// track event macros, built through zt/perfetto_compat.h and checked in
// process: session observers, track descriptors with names, a custom data
// source with the static-members macros, TrackEvent::Flush, PERFETTO_LOG.
// Traces are read back with libprotobuf. (The system backend side, and
// TracingInitArgs::enable_system_consumer, are in
// test/system/perfetto_compat_system_test.cc.)

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "zt/perfetto_compat.h"
#include "zt/trace/trace.pb.h"

PERFETTO_DEFINE_CATEGORIES(perfetto::Category("compat").SetDescription("API test events"));
PERFETTO_TRACK_EVENT_STATIC_STORAGE();

// A custom data source as Perfetto's SDK users write one.
class PayloadSource : public perfetto::DataSource<PayloadSource> {
 public:
  void OnSetup(const SetupArgs& args) override {
    std::lock_guard<std::mutex> lock(Calls().mutex);
    Calls().log.push_back("setup:" + (args.config ? args.config->legacy_config() : "?"));
  }
  void OnStart(const StartArgs&) override {
    std::lock_guard<std::mutex> lock(Calls().mutex);
    Calls().log.push_back("start");
  }
  void OnStop(const StopArgs&) override {
    std::lock_guard<std::mutex> lock(Calls().mutex);
    Calls().log.push_back("stop");
  }

  struct CallLog {
    std::mutex mutex;
    std::vector<std::string> log;
  };
  static CallLog& Calls() {
    static CallLog* calls = new CallLog();
    return *calls;
  }
};

PERFETTO_DECLARE_DATA_SOURCE_STATIC_MEMBERS(PayloadSource);
PERFETTO_DEFINE_DATA_SOURCE_STATIC_MEMBERS(PayloadSource);

namespace {

using zt::base::WaitFor;

void InitializeInProcess() {
  perfetto::TracingInitArgs args;
  args.backends = perfetto::kInProcessBackend;
  ASSERT_TRUE(perfetto::Tracing::Initialize(args));
  perfetto::TrackEvent::Register();
}

perfetto::TraceConfig TrackEventConfig() {
  perfetto::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(1024);
  cfg.add_data_sources()->mutable_config()->set_name("track_event");
  return cfg;
}

zt::protos::Trace Parse(const std::vector<char>& bytes) {
  zt::protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  return trace;
}

// Every track descriptor of |uuid| in the trace, in order.
std::vector<zt::protos::TrackDescriptor> DescriptorsOf(const zt::protos::Trace& trace,
                                                       uint64_t uuid) {
  std::vector<zt::protos::TrackDescriptor> found;
  for (const auto& packet : trace.packet()) {
    if (packet.has_track_descriptor() && packet.track_descriptor().uuid() == uuid)
      found.push_back(packet.track_descriptor());
  }
  return found;
}

// Records what each callback saw, in order.
class RecordingObserver : public perfetto::TrackEventSessionObserver {
 public:
  void OnSetup(const perfetto::DataSourceBase::SetupArgs& args) override {
    Record("setup", args.internal_instance_index);
  }
  void OnStart(const perfetto::DataSourceBase::StartArgs& args) override {
    Record("start", args.internal_instance_index);
  }
  void OnStop(const perfetto::DataSourceBase::StopArgs& args) override {
    Record("stop", args.internal_instance_index);
  }

  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }

 private:
  void Record(const char* what, uint32_t instance) {
    // Whether events record at this point, as the examples' waiters ask.
    const bool enabled = perfetto::TrackEvent::IsEnabled();
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.push_back(std::string(what) + "@" + std::to_string(instance) +
                     (enabled ? " enabled" : " disabled"));
  }

  std::mutex mutex_;
  std::vector<std::string> calls_;
};

TEST(PerfettoCompatApiTest, SessionObserversSeeSetupStartStopInOrder) {
  InitializeInProcess();
  RecordingObserver observer;
  RecordingObserver removed;
  ASSERT_TRUE(perfetto::TrackEvent::AddSessionObserver(&observer));
  ASSERT_TRUE(perfetto::TrackEvent::AddSessionObserver(&removed));
  perfetto::TrackEvent::RemoveSessionObserver(&removed);
  EXPECT_FALSE(perfetto::TrackEvent::IsEnabled());

  auto session = perfetto::Tracing::NewTrace();
  session->Setup(TrackEventConfig());
  session->StartBlocking();
  // StartBlocking returns once the data source started: OnStart has run.
  EXPECT_EQ(observer.calls(),
            (std::vector<std::string>{"setup@0 disabled", "start@0 enabled"}));
  EXPECT_TRUE(perfetto::TrackEvent::IsEnabled());
  session->StopBlocking();
  EXPECT_EQ(observer.calls(), (std::vector<std::string>{"setup@0 disabled", "start@0 enabled",
                                                        "stop@0 enabled"}));
  EXPECT_FALSE(perfetto::TrackEvent::IsEnabled());
  EXPECT_TRUE(removed.calls().empty()) << "a removed observer was called";

  // Removed: a second session is not reported.
  perfetto::TrackEvent::RemoveSessionObserver(&observer);
  auto second = perfetto::Tracing::NewTrace();
  second->Setup(TrackEventConfig());
  second->StartBlocking();
  second->StopBlocking();
  EXPECT_EQ(observer.calls().size(), 3u);

  // At most 8 at once, as upstream.
  std::vector<std::unique_ptr<RecordingObserver>> many;
  for (int i = 0; i < 8; i++) {
    many.push_back(std::make_unique<RecordingObserver>());
    EXPECT_TRUE(perfetto::TrackEvent::AddSessionObserver(many.back().get()));
  }
  RecordingObserver ninth;
  EXPECT_FALSE(perfetto::TrackEvent::AddSessionObserver(&ninth));
  for (auto& o : many)
    perfetto::TrackEvent::RemoveSessionObserver(o.get());
}

TEST(PerfettoCompatApiTest, TrackDescriptorsNameProcessThreadAndCustomTracks) {
  InitializeInProcess();
  // Set before tracing: written at every sequence's start.
  perfetto::ProcessTrack process = perfetto::ProcessTrack::Current();
  perfetto::protos::gen::TrackDescriptor process_desc = process.Serialize();
  ASSERT_TRUE(process_desc.has_process());
  EXPECT_EQ(process_desc.process().pid(), static_cast<int32_t>(getpid()));
  EXPECT_GT(process_desc.process().cmdline_size(), 0);  // What zerotrace writes, kept.
  process_desc.mutable_process()->set_process_name("compat-process");
  perfetto::TrackEvent::SetTrackDescriptor(process, process_desc);

  auto session = perfetto::Tracing::NewTrace();
  session->Setup(TrackEventConfig());
  session->StartBlocking();
  TRACE_EVENT_INSTANT("compat", "before the thread is named");

  // Set while tracing, after this thread's sequence described its track:
  // written again at once.
  perfetto::ThreadTrack thread = perfetto::ThreadTrack::Current();
  perfetto::protos::gen::TrackDescriptor thread_desc = thread.Serialize();
  thread_desc.mutable_thread()->set_thread_name("compat-thread");
  perfetto::TrackEvent::SetTrackDescriptor(thread, thread_desc);

  // A track of its own, named, with an event on it; the uuid is filled in
  // when the descriptor has none.
  perfetto::Track custom(42);
  perfetto::protos::gen::TrackDescriptor custom_desc;
  custom_desc.set_name("compat-custom");
  custom_desc.set_description("a track named through SetTrackDescriptor");
  perfetto::TrackEvent::SetTrackDescriptor(custom, custom_desc);
  TRACE_EVENT_INSTANT("compat", "on the custom track", custom);

  // A counter: its unit, which the descriptor class has no accessor for,
  // is kept from Serialize().
  perfetto::CounterTrack counter("compat-counter", "items");
  perfetto::protos::gen::TrackDescriptor counter_desc = counter.Serialize();
  counter_desc.set_description("counted through the compat header");
  perfetto::TrackEvent::SetTrackDescriptor(counter, counter_desc);
  TRACE_COUNTER("compat", counter, 3);

  // Another thread's sequence starts after the process was named.
  std::thread([] { TRACE_EVENT_INSTANT("compat", "from a worker"); }).join();

  session->StopBlocking();
  const zt::protos::Trace trace = Parse(session->ReadTraceBlocking());

  const auto processes = DescriptorsOf(trace, process.uuid());
  ASSERT_EQ(processes.size(), 2u) << "one per sequence (main thread, worker)";
  for (const auto& desc : processes) {
    EXPECT_EQ(desc.process().process_name(), "compat-process");
    EXPECT_EQ(desc.process().pid(), static_cast<int32_t>(getpid()));
  }

  const auto threads = DescriptorsOf(trace, thread.uuid());
  ASSERT_EQ(threads.size(), 2u) << "the sequence's own, then the named one";
  EXPECT_NE(threads[0].thread().thread_name(), "compat-thread");
  EXPECT_EQ(threads[1].thread().thread_name(), "compat-thread");
  EXPECT_EQ(threads[1].thread().tid(), threads[0].thread().tid());
  EXPECT_EQ(threads[1].parent_uuid(), process.uuid());

  const auto customs = DescriptorsOf(trace, custom.uuid());
  ASSERT_EQ(customs.size(), 1u) << "written once, not again at first use";
  EXPECT_EQ(customs[0].name(), "compat-custom");
  EXPECT_EQ(customs[0].description(), "a track named through SetTrackDescriptor");
  const auto counters = DescriptorsOf(trace, counter.uuid());
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0].name(), "compat-counter");
  EXPECT_EQ(counters[0].counter().unit_name(), "items");
  EXPECT_EQ(counters[0].description(), "counted through the compat header");
  size_t on_custom = 0;
  for (const auto& packet : trace.packet())
    on_custom += packet.track_event().track_uuid() == custom.uuid();
  EXPECT_EQ(on_custom, 1u);

  // Erased: the next session describes the process as zerotrace does.
  perfetto::TrackEvent::EraseTrackDescriptor(process);
  auto second = perfetto::Tracing::NewTrace();
  second->Setup(TrackEventConfig());
  second->StartBlocking();
  TRACE_EVENT_INSTANT("compat", "after the erase");
  second->StopBlocking();
  const auto defaults = DescriptorsOf(Parse(second->ReadTraceBlocking()), process.uuid());
  ASSERT_EQ(defaults.size(), 1u);
  EXPECT_NE(defaults[0].process().process_name(), "compat-process");
}

TEST(PerfettoCompatApiTest, DescriptorOfAnotherTrackIsRefused) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  perfetto::Track mine(1);
  perfetto::protos::gen::TrackDescriptor other = perfetto::Track(2).Serialize();
  EXPECT_DEATH(perfetto::TrackEvent::SetTrackDescriptor(mine, other), "CHECK failed");
}

TEST(PerfettoCompatApiTest, CustomDataSourceWritesPackets) {
  InitializeInProcess();
  perfetto::DataSourceDescriptor descriptor;
  descriptor.set_name("com.example.compat_payload");
  ASSERT_TRUE(PayloadSource::Register(descriptor));

  perfetto::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(1024);
  auto* ds = cfg.add_data_sources()->mutable_config();
  ds->set_name("com.example.compat_payload");
  ds->set_legacy_config("from the config");
  auto session = perfetto::Tracing::NewTrace();
  session->Setup(cfg);
  session->StartBlocking();
  PayloadSource::Trace([](PayloadSource::TraceContext ctx) {
    auto packet = ctx.NewTracePacket();
    packet->set_timestamp(1234);
    packet->set_for_testing()->set_str("compat payload");
  });
  PayloadSource::Trace([](PayloadSource::TraceContext ctx) { ctx.Flush(); });
  session->StopBlocking();

  const zt::protos::Trace trace = Parse(session->ReadTraceBlocking());
  std::vector<std::string> payloads;
  for (const auto& packet : trace.packet()) {
    if (packet.has_for_testing()) {
      payloads.push_back(packet.for_testing().str());
      EXPECT_EQ(packet.timestamp(), 1234u);
    }
  }
  EXPECT_EQ(payloads, std::vector<std::string>{"compat payload"});
  std::lock_guard<std::mutex> lock(PayloadSource::Calls().mutex);
  EXPECT_EQ(PayloadSource::Calls().log,
            (std::vector<std::string>{"setup:from the config", "start", "stop"}));
}

// TrackEvent::Flush hands the thread's events to the service while the
// session runs: a read then finds them (without it, they would wait in
// the thread's chunk until the stop).
TEST(PerfettoCompatApiTest, FlushCommitsTheThreadsEvents) {
  InitializeInProcess();
  auto session = perfetto::Tracing::NewTrace();
  session->Setup(TrackEventConfig());
  session->StartBlocking();
  TRACE_EVENT_INSTANT("compat", "flushed");
  perfetto::TrackEvent::Flush();

  std::vector<char> read;
  auto has_event = [&] {
    const std::vector<char> more = session->ReadTraceBlocking();
    read.insert(read.end(), more.begin(), more.end());
    const zt::protos::Trace trace = Parse(read);
    for (const auto& packet : trace.packet()) {
      for (const auto& name : packet.interned_data().event_names()) {
        if (name.name() == "flushed")
          return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(WaitFor(has_event)) << "the flushed event never reached the service";
  session->StopBlocking();
}

TEST(PerfettoCompatApiTest, PerfettoLogWritesALine) {
  char path[] = "/tmp/zt_compat_log_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  FILE* file = fdopen(fd, "w");
  ASSERT_NE(file, nullptr);
  zt::base::SetLogFile(file);
  PERFETTO_LOG("compat log %d of %s", 1, "two");
  PERFETTO_ELOG("compat error");
  PERFETTO_CHECK(path[0] == '/');
  zt::base::SetLogFile(nullptr);
  fclose(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  EXPECT_NE(text.str().find(" I perfetto_compat_api_test.cc:"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("compat log 1 of two\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find(" E perfetto_compat_api_test.cc:"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("compat error\n"), std::string::npos) << text.str();
}

}  // namespace
