// The process-level life of the SDK: which backends Initialize() accepts,
// what Setup() does with the caller's fd, and Shutdown() followed by a new
// Initialize(). A binary of its own: these tests initialize and tear down the
// process-wide SDK, which the other SDK tests keep for their whole run.

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/common/trace_stats.pbzero.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace {

constexpr char kSourceName[] = "zt.test.lifecycle";

class LifecycleSource : public DataSource<LifecycleSource> {
 public:
  static constexpr BufferExhaustedPolicy kBufferExhaustedPolicy =
      BufferExhaustedPolicy::kStallThenDrop;
};

bool RegisterSource() {
  protos::gen::DataSourceDescriptor desc;
  desc.set_name(kSourceName);
  return LifecycleSource::Register(desc);
}

// Writes |count| test packets, then hands this thread's chunk to the
// service (a stop takes every packet of a chunk still being written but its
// last, which could still grow; the flush makes the counts below exact).
void WritePackets(uint32_t tag, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    LifecycleSource::Trace([&](LifecycleSource::TraceContext ctx) {
      auto packet = ctx.NewTracePacket();
      auto* event = packet->set_for_testing();
      event->set_seq_value(tag);
      event->set_counter(i);
    });
  }
  LifecycleSource::Trace([](LifecycleSource::TraceContext ctx) { ctx.Flush(); });
}

protos::gen::TraceConfig FileConfig() {
  protos::gen::TraceConfig cfg;
  auto* buffer = cfg.add_buffers();
  buffer->set_size_kb(1024);
  buffer->set_fill_policy(protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  cfg.add_data_sources()->mutable_config()->set_name(kSourceName);
  return cfg;
}

// A temporary file, removed when the test ends.
class TempFile {
 public:
  TempFile() {
    char path[] = "/tmp/zt_lifecycle_XXXXXX";
    fd_ = mkstemp(path);
    path_ = path;
  }
  ~TempFile() {
    if (fd_ >= 0)
      close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  void CloseFd() {
    close(fd_);
    fd_ = -1;
  }
  std::string Read() const {
    std::string bytes;
    const int in = open(path_.c_str(), O_RDONLY);
    if (in < 0)
      return bytes;
    char buf[65536];
    for (ssize_t n; (n = read(in, buf, sizeof(buf))) > 0;)
      bytes.append(buf, static_cast<size_t>(n));
    close(in);
    return bytes;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

struct TraceSummary {
  bool valid = false;
  uint64_t test_packets = 0;
  std::vector<uint32_t> tags;  // seq_value of each test packet, in order.
  bool ends_with_stats = false;
};

TraceSummary Summarize(const std::string& bytes) {
  TraceSummary summary;
  protos::pbzero::Trace_Decoder trace(bytes);
  bool last_is_stats = false;
  for (auto it = trace.packet(); it; ++it) {
    protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
    last_is_stats = packet.has_trace_stats();
    if (packet.has_for_testing()) {
      protos::pbzero::TestEvent_Decoder event(packet.for_testing());
      summary.test_packets++;
      summary.tags.push_back(event.seq_value());
    }
  }
  summary.valid = !trace.parse_error();
  summary.ends_with_stats = last_is_stats;
  return summary;
}

size_t OpenFdCount() {
  size_t n = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir)
    return 0;
  while (readdir(dir))
    n++;
  closedir(dir);
  return n;
}

// Each test starts and ends with the SDK torn down.
class TracingLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override { Tracing::Shutdown(); }
  void TearDown() override { Tracing::Shutdown(); }
};

TEST_F(TracingLifecycleTest, InitializeNeedsAnAvailableBackend) {
  TracingInitArgs none;
  none.backends = kUnspecifiedBackend;
  EXPECT_FALSE(Tracing::Initialize(none));
  EXPECT_FALSE(Tracing::IsInitialized());
  EXPECT_EQ(Tracing::NewTrace(), nullptr);

  // This binary does not link zerotrace::tracing_system, so it cannot
  // name kSystemBackend (that fails to link: test/system_backend_link/).
  // Its bit set otherwise (a number from a config) is refused at run time
  // with a message naming the library.
  TracingInitArgs system_only;
  system_only.backends = internal::kSystemBackendBit;
  EXPECT_FALSE(Tracing::Initialize(system_only));
  EXPECT_FALSE(Tracing::IsInitialized());

  TracingInitArgs in_process_only;
  in_process_only.backends = kInProcessBackend;
  EXPECT_TRUE(Tracing::Initialize(in_process_only));
  EXPECT_TRUE(Tracing::IsInitialized());
  EXPECT_EQ(Tracing::NewTrace(internal::kSystemBackendBit), nullptr);
  EXPECT_NE(Tracing::NewTrace(kInProcessBackend), nullptr);
  EXPECT_NE(Tracing::NewTrace(), nullptr);
  // Later calls do nothing and report success, whatever they ask.
  EXPECT_TRUE(Tracing::Initialize(none));
}

// This binary never calls Tracing::ActivateTriggers, so nothing could fire
// a trigger: a trigger config is refused with the reason, not left waiting.
TEST_F(TracingLifecycleTest, TriggerConfigsNeedAProgramThatCanActivateTriggers) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(64);
  config.set_trigger_config_raw(std::string("\x08\x01\x18\xe8\x07", 5));  // START, 1 s.
  std::string error;
  auto session = Tracing::NewTrace();
  session->SetOnErrorCallback([&error](const std::string& e) { error = e; });
  session->Setup(config);
  session->StartBlocking();
  session->StopBlocking();
  EXPECT_NE(error.find("cannot activate triggers"), std::string::npos) << error;
}

TEST_F(TracingLifecycleTest, SetupKeepsTheCallersFdOpen) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  TempFile file;
  ASSERT_GE(file.fd(), 0);
  {
    auto session = Tracing::NewTrace();
    session->Setup(FileConfig(), file.fd());
    session->StartBlocking();
    WritePackets(1, 100);
    session->StopBlocking();
  }
  // The session is gone and the fd is still the caller's.
  EXPECT_NE(fcntl(file.fd(), F_GETFD), -1) << "the session closed the caller's fd";
  const TraceSummary summary = Summarize(file.Read());
  EXPECT_TRUE(summary.valid);
  EXPECT_EQ(summary.test_packets, 100u);
  EXPECT_TRUE(summary.ends_with_stats);
}

// A session destroyed while it traces is stopped the way StopBlocking()
// stops it: everything written is in the file, which ends with the stats
// (a reported loss: 27 of 100 packets in the file, or the tail of 5,000).
TEST_F(TracingLifecycleTest, DestroyingALiveSessionKeepsEverythingWritten) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  for (uint32_t count : {100u, 5000u}) {
    TempFile file;
    {
      auto session = Tracing::NewTrace();
      session->Setup(FileConfig(), file.fd());
      session->StartBlocking();
      WritePackets(1, count);
    }  // No StopBlocking(): the destructor stops it.
    const TraceSummary summary = Summarize(file.Read());
    EXPECT_TRUE(summary.valid) << count;
    EXPECT_EQ(summary.test_packets, count);
    EXPECT_TRUE(summary.ends_with_stats) << count;
  }
}

// No flush: the threads' chunks are still being written when the session
// ends, and the service scrapes them. Each thread's last packet used to be
// left out (a scrape skips a chunk's last counted packet, which may be in
// progress) and counted nowhere.
TEST_F(TracingLifecycleTest, DestroyingALiveSessionKeepsEachThreadsLastPacket) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  auto write_unflushed = [](uint32_t tag, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
      LifecycleSource::Trace([&](LifecycleSource::TraceContext ctx) {
        auto packet = ctx.NewTracePacket();
        auto* event = packet->set_for_testing();
        event->set_seq_value(tag);
        event->set_counter(i);
      });
    }
  };
  TempFile file;
  std::mutex mutex;
  std::condition_variable cv;
  bool written = false;
  bool session_gone = false;
  std::thread other;
  {
    auto session = Tracing::NewTrace();
    session->Setup(FileConfig(), file.fd());
    session->StartBlocking();
    write_unflushed(1, 7);
    // Another thread that writes and stays alive (its writer too) until the
    // session is gone.
    other = std::thread([&] {
      write_unflushed(2, 5);
      std::unique_lock<std::mutex> lock(mutex);
      written = true;
      cv.notify_all();
      ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return session_gone; }));
    });
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return written; }));
  }  // No Stop, no flush: the destructor stops it.
  {
    std::lock_guard<std::mutex> lock(mutex);
    session_gone = true;
    cv.notify_all();
  }
  other.join();
  const TraceSummary summary = Summarize(file.Read());
  EXPECT_TRUE(summary.valid);
  EXPECT_EQ(summary.test_packets, 12u) << "7 from this thread, 5 from the other";
}

// Drop mode (the default policy): a writer whose shared memory is full
// drops packets, and one that then writes nothing more leaves no packet to
// carry the loss mark. Every drop is still counted in the trace's stats
// (BufferStats.writer_packets_dropped, reported by the writer's arbiter at
// the stop): packets in the trace + packets counted = packets written.
class DroppingSource : public DataSource<DroppingSource> {};

TEST_F(TracingLifecycleTest, EveryDroppedPacketIsCountedInTheStats) {
  TracingInitArgs args;
  args.shmem_size_hint_kb = 16;  // A few chunks: the writer outruns the service.
  ASSERT_TRUE(Tracing::Initialize(args));
  protos::gen::DataSourceDescriptor desc;
  desc.set_name("zt.test.lifecycle.drop");
  ASSERT_TRUE(DroppingSource::Register(desc));
  protos::gen::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(64 * 1024);  // The service keeps all it gets.
  cfg.add_data_sources()->mutable_config()->set_name("zt.test.lifecycle.drop");
  const std::string payload(2000, 'p');
  // Drops depend on the service thread's pace: a few tries, bounded.
  for (int attempt = 0; attempt < 5; attempt++) {
    TempFile file;
    uint64_t written = 0;
    uint64_t dropped = 0;
    {
      auto session = Tracing::NewTrace();
      session->Setup(cfg, file.fd());
      session->StartBlocking();
      for (uint32_t i = 0; i < 5000; i++) {
        DroppingSource::Trace([&](DroppingSource::TraceContext ctx) {
          auto packet = ctx.NewTracePacket();
          auto* event = packet->set_for_testing();
          event->set_seq_value(9);
          event->set_counter(i);
          event->set_str(payload);
          written++;
        });
      }
      DroppingSource::Trace([&](DroppingSource::TraceContext ctx) {
        dropped = ctx.writer_packets_dropped();
      });
    }  // Stopped with this thread's writer alive, unflushed.
    const std::string bytes = file.Read();
    const TraceSummary summary = Summarize(bytes);
    ASSERT_TRUE(summary.valid);
    uint64_t counted = 0;
    protos::pbzero::Trace_Decoder trace(bytes);
    for (auto it = trace.packet(); it; ++it) {
      protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
      if (!packet.has_trace_stats())
        continue;
      protos::pbzero::TraceStats_Decoder stats(packet.trace_stats());
      uint64_t in_this = 0;
      for (auto b = stats.buffer_stats(); b; ++b)
        in_this += protos::pbzero::TraceStats_BufferStats_Decoder(*b).writer_packets_dropped();
      counted = in_this;  // The last stats packet has the totals.
    }
    ASSERT_EQ(written, 5000u);
    EXPECT_EQ(counted, dropped);
    EXPECT_EQ(summary.test_packets + counted, written)
        << summary.test_packets << " in the trace, " << counted << " counted as dropped";
    RecordProperty("packets_in_trace", std::to_string(summary.test_packets));
    RecordProperty("packets_dropped", std::to_string(dropped));
    if (dropped > 0)
      return;
    Tracing::Shutdown();  // Again with a fresh SDK (the data source too).
    ASSERT_TRUE(Tracing::Initialize(args));
    ASSERT_TRUE(DroppingSource::Register(desc));
  }
  FAIL() << "the writer never dropped a packet in 5 tries: the test proved nothing";
}

TEST_F(TracingLifecycleTest, FlushInsideAnOpenPacketAbortsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto flush_inside_a_packet = [] {
    Tracing::Initialize(TracingInitArgs());
    RegisterSource();
    auto session = Tracing::NewTrace();
    session->Setup(FileConfig());
    session->StartBlocking();
    LifecycleSource::Trace([](LifecycleSource::TraceContext ctx) {
      auto packet = ctx.NewTracePacket();
      packet->set_timestamp(1);
      ctx.Flush();  // The packet is still open.
    });
  };
  EXPECT_DEATH(flush_inside_a_packet(), "Flush\\(\\) called while a packet is still open");
}

TEST_F(TracingLifecycleTest, TheCallerMayCloseItsFdRightAfterSetup) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  TempFile file;
  auto session = Tracing::NewTrace();
  session->Setup(FileConfig(), file.fd());
  file.CloseFd();
  session->StartBlocking();
  WritePackets(1, 100);
  session->StopBlocking();
  const TraceSummary summary = Summarize(file.Read());
  EXPECT_TRUE(summary.valid);
  EXPECT_EQ(summary.test_packets, 100u);
}

TEST_F(TracingLifecycleTest, SetupTwiceWritesTheSecondFileAndLeaksNoFd) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  TempFile first, second;
  const size_t fds_before = OpenFdCount();
  {
    auto session = Tracing::NewTrace();
    session->Setup(FileConfig(), first.fd());
    session->Setup(FileConfig(), second.fd());
    session->StartBlocking();
    WritePackets(2, 50);
    session->StopBlocking();
  }
  EXPECT_EQ(OpenFdCount(), fds_before);
  EXPECT_TRUE(first.Read().empty());
  const TraceSummary summary = Summarize(second.Read());
  EXPECT_EQ(summary.test_packets, 50u);
}

TEST_F(TracingLifecycleTest, ABadFdEndsTheSessionWithAReason) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  auto session = Tracing::NewTrace();
  std::string error;
  session->SetOnErrorCallback([&](const std::string& e) { error = e; });
  session->Setup(FileConfig(), 1 << 20);  // Not an open fd.
  session->StartBlocking();
  session->StopBlocking();  // Returns: the session ended at Start.
  EXPECT_NE(error.find("cannot duplicate fd"), std::string::npos) << error;
}

TEST_F(TracingLifecycleTest, ShutdownStopsSessionsAndInitializeStartsAgain) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  TempFile file;
  auto old_session = Tracing::NewTrace();
  bool stopped = false;
  old_session->SetOnStopCallback([&] { stopped = true; });
  old_session->Setup(FileConfig(), file.fd());
  old_session->StartBlocking();

  // A thread that writes before the shutdown and again after the next
  // Initialize(), holding a writer of the old backend in between.
  std::mutex mu;
  std::condition_variable cv;
  int phase = 0;  // 1: first packets written; 2: SDK re-initialized.
  std::thread writer([&] {
    WritePackets(7, 200);
    {
      std::lock_guard<std::mutex> lock(mu);
      phase = 1;
    }
    cv.notify_all();
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return phase == 2; }))
        << "the test never re-initialized";
    lock.unlock();
    WritePackets(8, 300);  // Retires the stale writer, then a new one.
  });
  WritePackets(5, 100);  // This thread's writer also outlives the backend.
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return phase == 1; }))
        << "the writer thread never wrote";
  }
  Tracing::Shutdown();
  EXPECT_TRUE(stopped);
  EXPECT_FALSE(Tracing::IsInitialized());
  // The old session is inert.
  old_session->StopBlocking();
  EXPECT_TRUE(old_session->ReadTraceBlocking().empty());
  EXPECT_FALSE(old_session->FlushBlocking(100));
  // Its file is complete: every packet of both threads, stats last.
  const TraceSummary old_summary = Summarize(file.Read());
  EXPECT_TRUE(old_summary.valid);
  EXPECT_TRUE(old_summary.ends_with_stats);
  EXPECT_EQ(old_summary.test_packets, 300u);
  // Nothing registers while tracing is off.
  EXPECT_FALSE(RegisterSource());

  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  auto session = Tracing::NewTrace();
  protos::gen::TraceConfig cfg = FileConfig();
  session->Setup(cfg);
  session->StartBlocking();
  {
    std::lock_guard<std::mutex> lock(mu);
    phase = 2;
  }
  cv.notify_all();
  WritePackets(9, 400);
  writer.join();  // A thread's writers commit their chunks when it exits.
  old_session.reset();  // Safe at any time after the shutdown.
  session->StopBlocking();
  const TraceSummary summary = Summarize(
      [&] {
        std::vector<char> raw = session->ReadTraceBlocking();
        return std::string(raw.begin(), raw.end());
      }());
  EXPECT_TRUE(summary.valid);
  uint64_t from_writer = 0, from_main = 0, stale = 0;
  for (uint32_t tag : summary.tags) {
    from_writer += tag == 8;
    from_main += tag == 9;
    stale += tag != 8 && tag != 9;
  }
  EXPECT_EQ(from_writer, 300u);
  EXPECT_EQ(from_main, 400u);
  EXPECT_EQ(stale, 0u) << "packets of the old backend leaked into the new one";
}

// Asks a running session for flushes, reads and stats without waiting,
// then ends it with |end|: when |end| returns, every callback has been
// called, once.
void EveryCallbackAnsweredOnceWhen(const std::function<void(std::unique_ptr<TracingSession>)>& end) {
  ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  ASSERT_TRUE(RegisterSource());
  auto session = Tracing::NewTrace();
  session->Setup(FileConfig());
  session->StartBlocking();
  WritePackets(1, 100);
  constexpr int kEach = 50;
  std::atomic<int> flushes{0}, reads{0}, stats{0};
  for (int i = 0; i < kEach; i++) {
    session->Flush([&](bool) { flushes++; });
    session->ReadTrace([&](TracingSession::ReadTraceCallbackArgs args) {
      if (!args.has_more)
        reads++;
    });
    session->GetTraceStats([&](TracingSession::GetTraceStatsCallbackArgs) { stats++; });
  }
  end(std::move(session));
  EXPECT_EQ(flushes.load(), kEach);
  EXPECT_EQ(reads.load(), kEach);
  EXPECT_EQ(stats.load(), kEach);
  if (Tracing::IsInitialized()) {
    // Whatever the service still had queued for the old session has run
    // by the time a new session's read returns (one thread, in order).
    Tracing::NewTrace()->ReadTraceBlocking();
  }
  EXPECT_EQ(flushes.load(), kEach) << "a flush callback was called twice";
  EXPECT_EQ(reads.load(), kEach) << "a read callback was called twice";
  EXPECT_EQ(stats.load(), kEach) << "a stats callback was called twice";
}

TEST_F(TracingLifecycleTest, DestroyingASessionAnswersEveryPendingCallbackOnce) {
  EveryCallbackAnsweredOnceWhen([](std::unique_ptr<TracingSession> session) { session.reset(); });
}

TEST_F(TracingLifecycleTest, ShutdownAnswersEveryPendingCallbackOnce) {
  std::unique_ptr<TracingSession> kept;
  EveryCallbackAnsweredOnceWhen([&](std::unique_ptr<TracingSession> session) {
    kept = std::move(session);  // Outlives the shutdown, inert.
    Tracing::Shutdown();
  });
}

TEST_F(TracingLifecycleTest, ShutdownWithoutInitializeDoesNothing) {
  Tracing::Shutdown();
  Tracing::Shutdown();
  EXPECT_FALSE(Tracing::IsInitialized());
}

}  // namespace
}  // namespace zt
