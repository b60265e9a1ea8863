// fork() with tracing initialized and a session running: the child has
// none of the SDK's threads. It must never hang: sessions and registrations
// are refused at once (with a log line), Trace() writes nothing (the
// shared memory may be the parent's), a session inherited from the parent
// is destroyed at once, and Tracing::Initialize() in the child starts
// tracing afresh there. Each child is waited for with a deadline and
// killed past it (before the fix, NewTrace()/StartBlocking() in the child
// waited for ever on the parent's tracing thread).

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

#if defined(__SANITIZE_THREAD__)
#define ZT_FORK_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZT_FORK_TEST_UNDER_TSAN 1
#endif
#endif

namespace zt {
namespace {

constexpr char kSourceName[] = "zt.test.fork";

class ForkSource : public DataSource<ForkSource> {};

bool Register() {
  protos::gen::DataSourceDescriptor desc;
  desc.set_name(kSourceName);
  return ForkSource::Register(desc);
}

protos::gen::TraceConfig Config() {
  protos::gen::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(1024);
  cfg.add_data_sources()->mutable_config()->set_name(kSourceName);
  return cfg;
}

void WritePackets(uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    ForkSource::Trace([&](ForkSource::TraceContext ctx) {
      ctx.NewTracePacket()->set_for_testing()->set_counter(i);
    });
  }
  ForkSource::Trace([](ForkSource::TraceContext ctx) { ctx.Flush(); });
}

uint64_t CountTestPackets(const std::vector<char>& trace) {
  protos::pbzero::Trace_Decoder decoder(reinterpret_cast<const uint8_t*>(trace.data()),
                                        trace.size());
  uint64_t n = 0;
  for (auto it = decoder.packet(); it; ++it)
    n += protos::pbzero::TracePacket_Decoder((*it).data, (*it).size).has_for_testing();
  return n;
}

// Forks; the child runs |child| and _exits with its result. Returns the
// child's exit status, or -1 if it had not ended after |timeout| (it is
// then killed).
template <typename Fn>
int RunInChild(Fn child, std::chrono::seconds timeout = std::chrono::seconds(20)) {
  const pid_t pid = fork();
  if (pid == 0)
    _exit(child());
  if (pid < 0)
    return -2;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

class TracingForkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Tracing::Shutdown();
    ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
    ASSERT_TRUE(Register());
    session_ = Tracing::NewTrace();
    session_->Setup(Config());
    session_->StartBlocking();
    WritePackets(10);  // This thread has a writer into the SMB.
  }
  void TearDown() override {
    session_.reset();
    Tracing::Shutdown();
  }
  std::unique_ptr<TracingSession> session_;
};

TEST_F(TracingForkTest, TheChildIsRefusedAtOnceAndWritesNothing) {
  const int status = RunInChild([this] {
    int traced = 0;
    ForkSource::Trace([&](ForkSource::TraceContext) { traced++; });
    if (traced != 0)
      return 10;  // The child wrote into the parent's session.
    if (Tracing::NewTrace() != nullptr)
      return 11;
    protos::gen::DataSourceDescriptor desc;
    desc.set_name("zt.test.fork.other");
    if (ForkSource::Register(desc))
      return 12;
    session_.reset();  // The parent's session, as the child sees it.
    return 0;
  });
  EXPECT_NE(status, -1) << "the child hung";
  EXPECT_EQ(status, 0);
  // The parent's session still records.
  WritePackets(5);
  session_->StopBlocking();
  EXPECT_EQ(CountTestPackets(session_->ReadTraceBlocking()), 15u);
}

TEST_F(TracingForkTest, TheChildTracesAfterInitializingAgain) {
#if defined(ZT_FORK_TEST_UNDER_TSAN)
  GTEST_SKIP() << "TSan does not support new threads after a multi-threaded fork";
#endif
  const int status = RunInChild([] {
    if (!Tracing::Initialize(TracingInitArgs()))
      return 20;
    if (!Register())
      return 21;
    std::unique_ptr<TracingSession> session = Tracing::NewTrace();
    if (!session)
      return 22;
    session->Setup(Config());
    session->StartBlocking();
    WritePackets(7);
    session->StopBlocking();
    return CountTestPackets(session->ReadTraceBlocking()) == 7 ? 0 : 23;
  });
  EXPECT_NE(status, -1) << "the child hung";
  EXPECT_EQ(status, 0);
}

}  // namespace
}  // namespace zt
