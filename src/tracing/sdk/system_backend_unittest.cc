// The SDK's system backend in one process: the "daemon" is a ServiceIpcHost
// on a thread of its own, listening on sockets in a temporary folder, and
// the SDK reaches it exactly as it reaches ztraced. Process-wide state
// (Tracing::Initialize), so its own binary; run under TSan too.

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "src/base/thread_task_runner.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "src/tracing/sdk/tracing_muxer_impl.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace {

std::atomic<int> g_starts{0};

class SystemSource : public DataSource<SystemSource> {
 public:
  void OnStart(const StartArgs&) override { g_starts++; }
};

// Stalls on a full SMB (for up to the SDK's stall timeout, 1 s) rather
// than drop.
class StallingSource : public DataSource<StallingSource> {
 public:
  static constexpr BufferExhaustedPolicy kBufferExhaustedPolicy =
      BufferExhaustedPolicy::kStallThenDrop;
  void OnStart(const StartArgs&) override { g_starts++; }
};

// A daemon on its own thread; destroying it is the daemon going away.
class Daemon {
 public:
  Daemon(const std::string& producer, const std::string& consumer)
      : runner_(new base::ThreadTaskRunner("test.daemon")) {
    runner_->PostTaskAndWait([&] {
      host_ = ServiceIpcHost::Listen(producer, consumer, runner_.get());
    });
  }
  ~Daemon() {
    runner_->PostTaskAndWait([&] { host_.reset(); });
  }
  bool ok() const { return host_ != nullptr; }

 private:
  std::unique_ptr<base::ThreadTaskRunner> runner_;
  std::unique_ptr<ServiceIpcHost> host_;
};

uint64_t CountTestPackets(const std::vector<char>& trace) {
  protos::pbzero::Trace_Decoder decoder(reinterpret_cast<const uint8_t*>(trace.data()),
                                        trace.size());
  uint64_t n = 0;
  for (auto it = decoder.packet(); it; ++it) {
    protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
    n += packet.has_for_testing();
  }
  return n;
}

protos::gen::TraceConfig Config() {
  protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(1024);
  config.add_data_sources()->mutable_config()->set_name("zt.test.system_backend");
  return config;
}

// Starts a session on the system backend, writes |packets|, stops it and
// returns how many of them the trace holds.
uint64_t RecordOnce(int packets) {
  const int starts = g_starts.load();
  std::unique_ptr<TracingSession> session = Tracing::NewTrace(kSystemBackend);
  if (!session)
    return 0;
  session->Setup(Config());
  session->StartBlocking();
  // Before the producer (re)connected the session has no instance.
  if (g_starts.load() == starts)
    return 0;
  for (int i = 0; i < packets; i++) {
    SystemSource::Trace([&](SystemSource::TraceContext ctx) {
      ctx.NewTracePacket()->set_for_testing()->set_counter(static_cast<uint64_t>(i));
    });
  }
  SystemSource::Trace([](SystemSource::TraceContext ctx) { ctx.Flush(); });
  session->StopBlocking();
  return CountTestPackets(session->ReadTraceBlocking());
}

class SystemBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char dir[] = "/tmp/zt_system_backend_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    producer_ = dir_ + "/producer.sock";
    consumer_ = dir_ + "/consumer.sock";
    setenv("PERFETTO_PRODUCER_SOCK_NAME", producer_.c_str(), 1);
    setenv("PERFETTO_CONSUMER_SOCK_NAME", consumer_.c_str(), 1);
  }
  static void TearDownTestSuite() {
    unlink(producer_.c_str());
    unlink(consumer_.c_str());
    rmdir(dir_.c_str());
  }
  static std::string dir_, producer_, consumer_;
};
std::string SystemBackendTest::dir_, SystemBackendTest::producer_,
    SystemBackendTest::consumer_;

// One test: Initialize() is once per process.
TEST_F(SystemBackendTest, NoDaemonThenADaemonThenARestartedOne) {
  // No daemon yet: Initialize still succeeds, tracing is off, nothing hangs.
  TracingInitArgs args;
  args.backends = kSystemBackend;
  ASSERT_TRUE(Tracing::Initialize(args));
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("zt.test.system_backend");
  ASSERT_TRUE(SystemSource::Register(descriptor));
  SystemSource::Trace([](SystemSource::TraceContext) { ADD_FAILURE() << "no session runs"; });

  // A session without a daemon ends at once with an error, not a hang.
  {
    std::unique_ptr<TracingSession> session = Tracing::NewTrace(kSystemBackend);
    ASSERT_NE(session, nullptr);
    std::atomic<bool> error{false};
    session->SetOnErrorCallback([&](const std::string&) { error = true; });
    session->Setup(Config());
    session->StartBlocking();  // Returns: the connection failed.
    EXPECT_TRUE(base::WaitFor([&] { return error.load(); }))
        << "no error for a session without a daemon";
  }

  // The daemon starts: the producer connects on its own (it retries).
  {
    Daemon daemon(producer_, consumer_);
    ASSERT_TRUE(daemon.ok());
    uint64_t recorded = 0;
    // Until the producer's retry reached the daemon, a session has no
    // instance of the data source; each try is bounded.
    ASSERT_TRUE(base::WaitFor([&] {
      recorded = RecordOnce(100);
      return recorded == 100;
    })) << "the producer never connected to the daemon (last session had "
        << recorded << " packets)";
  }

  // The daemon went away and comes back: the producer reconnects.
  {
    Daemon daemon(producer_, consumer_);
    ASSERT_TRUE(daemon.ok());
    uint64_t recorded = 0;
    ASSERT_TRUE(base::WaitFor([&] {
      recorded = RecordOnce(50);
      return recorded == 50;
    })) << "the producer never reconnected (last session had " << recorded << " packets)";
  }
  Tracing::Shutdown();
}

// Register() then at once NewTrace() + StartBlocking(), the SDK started
// just before: the producer's connection (and its registrations, on the
// producer socket) races the session (on the consumer socket). The data
// source must be recording when StartBlocking() returns, every time; it
// used not to be in about 1 run in 6 under load, and the trace was empty.
// Runs under CPU load (two spinning threads), 30 times, each bounded.
TEST_F(SystemBackendTest, DataSourcesRegisteredBeforeStartRecordFromTheStart) {
  Daemon daemon(producer_, consumer_);
  ASSERT_TRUE(daemon.ok());
  std::atomic<bool> stop_load{false};
  std::vector<std::thread> load;
  for (int i = 0; i < 2; i++) {
    load.emplace_back([&] {
      while (!stop_load.load()) {
      }
    });
  }
  int not_recording = 0;
  int runs = 0;
  for (; runs < 30; runs++) {
    TracingInitArgs args;
    args.backends = kSystemBackend;
    ASSERT_TRUE(Tracing::Initialize(args));
    protos::gen::DataSourceDescriptor descriptor;
    descriptor.set_name("zt.test.system_backend");
    ASSERT_TRUE(SystemSource::Register(descriptor));
    std::unique_ptr<TracingSession> session = Tracing::NewTrace(kSystemBackend);
    ASSERT_NE(session, nullptr);
    session->Setup(Config());
    session->StartBlocking();
    bool recording = false;
    for (int i = 0; i < 100; i++) {
      SystemSource::Trace([&](SystemSource::TraceContext ctx) {
        recording = true;
        ctx.NewTracePacket()->set_for_testing()->set_counter(static_cast<uint64_t>(i));
      });
    }
    SystemSource::Trace([](SystemSource::TraceContext ctx) { ctx.Flush(); });
    session->StopBlocking();
    const uint64_t recorded = CountTestPackets(session->ReadTraceBlocking());
    session.reset();
    Tracing::Shutdown();
    if (!recording || recorded != 100) {
      not_recording++;
      ADD_FAILURE() << "run " << runs << ": the data source was "
                    << (recording ? "recording" : "not recording")
                    << " when StartBlocking() returned; " << recorded << " of 100 packets";
      break;
    }
  }
  stop_load = true;
  for (std::thread& t : load)
    t.join();
  EXPECT_EQ(not_recording, 0) << "in " << runs << " runs";
}

// A second Initialize() adds the backend it names (the C ABI initializes
// one backend per call: PerfettoProducerInit with both bits calls
// InProcessInit, then SystemInit). A data source registered before the
// system backend existed records on both.
TEST_F(SystemBackendTest, ASecondInitializeAddsTheSystemBackend) {
  Daemon daemon(producer_, consumer_);
  ASSERT_TRUE(daemon.ok());
  TracingInitArgs in_process;
  in_process.backends = kInProcessBackend;
  ASSERT_TRUE(Tracing::Initialize(in_process));
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("zt.test.system_backend");
  ASSERT_TRUE(SystemSource::Register(descriptor));
  EXPECT_EQ(Tracing::NewTrace(kSystemBackend), nullptr) << "no system backend yet";

  TracingInitArgs system;
  system.backends = kSystemBackend;
  ASSERT_TRUE(Tracing::Initialize(system));
  uint64_t recorded = 0;
  // The producer connects in the background: bounded retries.
  for (int attempt = 0; attempt < 50 && recorded == 0; attempt++)
    recorded = RecordOnce(10);
  EXPECT_EQ(recorded, 10u) << "the data source records through the added system backend";

  // The in-process backend still records.
  std::unique_ptr<TracingSession> session = Tracing::NewTrace(kInProcessBackend);
  ASSERT_NE(session, nullptr);
  session->Setup(Config());
  session->StartBlocking();
  SystemSource::Trace([](SystemSource::TraceContext ctx) {
    ctx.NewTracePacket()->set_for_testing()->set_counter(1);
    ctx.Flush();
  });
  session->StopBlocking();
  EXPECT_EQ(CountTestPackets(session->ReadTraceBlocking()), 1u);
  session.reset();
  // A third call naming both adds nothing and succeeds.
  TracingInitArgs both;
  both.backends = kInProcessBackend | kSystemBackend;
  EXPECT_TRUE(Tracing::Initialize(both));
  Tracing::Shutdown();
}

// A writer's batches reach the daemon through the commit queue from the
// writer's own thread (docs/design/commit_queue.md, "Committing from the
// writer's thread"), not through a task of the SDK's thread: with that
// thread held busy, one writer writes four times its SMB, stalling on it,
// and loses nothing. Through the SDK's thread, each stall would end in a
// drop a second later (bounded here: 10 s of writing at most).
TEST_F(SystemBackendTest, WritersCommitWhileTheSdkThreadIsBusy) {
  Daemon daemon(producer_, consumer_);
  ASSERT_TRUE(daemon.ok());
  TracingInitArgs args;
  args.backends = kSystemBackend;
  args.shmem_size_hint_kb = 256;
  ASSERT_TRUE(Tracing::Initialize(args));
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("zt.test.stalling");
  ASSERT_TRUE(StallingSource::Register(descriptor));
  protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(4096);
  config.add_data_sources()->mutable_config()->set_name("zt.test.stalling");
  std::unique_ptr<TracingSession> session;
  // The producer connects in the background: until it has, a session has
  // no instance of the data source (bounded retries).
  for (int attempt = 0; attempt < 50; attempt++) {
    const int starts = g_starts.load();
    session = Tracing::NewTrace(kSystemBackend);
    ASSERT_NE(session, nullptr);
    session->Setup(config);
    session->StartBlocking();
    if (g_starts.load() != starts)
      break;
    session.reset();
  }
  ASSERT_NE(session, nullptr) << "the producer never reached the daemon";

  // Shared with the task: it may outlive this test's frame if an ASSERT
  // returns early.
  auto sdk_thread_held = std::make_shared<std::atomic<bool>>(false);
  auto release = std::make_shared<std::atomic<bool>>(false);
  internal::TracingMuxerImpl::instance()->task_runner()->PostTask([sdk_thread_held, release] {
    *sdk_thread_held = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!release->load() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  ASSERT_TRUE(base::WaitFor([&] { return sdk_thread_held->load(); }));

  constexpr int kPackets = 1024;  // 1 MiB of 1 KiB packets: four SMBs.
  const std::string payload(1000, 'x');
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int written = 0;
  for (; written < kPackets && std::chrono::steady_clock::now() < give_up; written++) {
    StallingSource::Trace([&](StallingSource::TraceContext ctx) {
      auto packet = ctx.NewTracePacket();
      auto* event = packet->set_for_testing();
      event->set_counter(static_cast<uint64_t>(written));
      event->set_str(payload);
    });
  }
  StallingSource::Trace([](StallingSource::TraceContext ctx) { ctx.Flush(); });
  *release = true;
  session->StopBlocking();
  EXPECT_EQ(written, kPackets) << "the writer stalled for seconds";
  EXPECT_EQ(CountTestPackets(session->ReadTraceBlocking()), static_cast<uint64_t>(written))
      << "packets were dropped while the SDK's thread was busy";
  session.reset();
  Tracing::Shutdown();
}

}  // namespace
}  // namespace zt
