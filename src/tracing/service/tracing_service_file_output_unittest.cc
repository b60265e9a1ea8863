// write_into_file into a pipe or socket (src/tracing/service/file_output.h):
// the service never blocks on its reader. A reader that stops reading ends
// only its own session, with an error, within the stall limit, while other
// sessions start and stop; a slow reader still gets the whole trace; the
// client's description gets its flags back.

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/service/tracing_service_impl.h"
#include "src/tracing/service/tracing_service_test_fixture.h"
#include "zt/trace/test_event.pbzero.h"

namespace zt {
namespace test {
namespace {

constexpr uint32_t kStallLimitMs = 500;

// Closes an fd when the test ends.
struct ScopedFd {
  explicit ScopedFd(int f) : fd(f) {}
  ~ScopedFd() {
    if (fd >= 0)
      close(fd);
  }
  int fd;
};

// The reading end of the service's output, which the test never reads (or
// reads late). Declared after the fakes, so that it goes first. Should
// the service block in a write to it (the defect these tests are about),
// the watchdog shuts it after kWatchdogMs: the write then fails with EPIPE
// and the test fails instead of hanging.
class StalledReader {
 public:
  static constexpr uint32_t kWatchdogMs = 20000;
  explicit StalledReader(int fd) : fd_(fd), watchdog_([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::milliseconds(kWatchdogMs), [this] { return done_; })) {
      ADD_FAILURE() << "the service still writes into the stalled output after " << kWatchdogMs
                    << " ms: shut to unblock it";
      shutdown(fd_, SHUT_RDWR);  // A socket.
      close(fd_);                // A pipe: its writer gets EPIPE.
      fd_ = -1;
    }
  }) {}
  ~StalledReader() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    watchdog_.join();
    if (fd_ >= 0)
      close(fd_);
  }
  int fd() const { return fd_; }
  // Until the service wrote into the output (bounded).
  bool WaitForData() {
    struct pollfd p = {fd_, POLLIN, 0};
    return poll(&p, 1, static_cast<int>(kDefaultWaitMs)) == 1;
  }

 private:
  int fd_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread watchdog_;
};

class FileOutputTest : public TracingServiceTest {
 protected:
  void SetStallLimit(uint32_t ms) {
    runner_->RunAndWait(
        [&] { static_cast<TracingServiceImpl*>(service_.get())->set_output_stall_timeout_ms(ms); });
  }
  // |n| packets of ~200 bytes from |w|, committed as they go (on virtual
  // time this thread alone drains the 64 KiB SMB: often enough to lose
  // nothing).
  void WritePackets(TraceWriter* w, uint64_t n) {
    const std::string payload(200, 'x');
    for (uint64_t i = 0; i < n; i++) {
      {
        auto packet = w->NewTracePacket();
        packet->set_timestamp(i);
        packet->set_for_testing()->set_str(payload);
      }
      if (i % 50 == 49)
        runner_->RunAndWait([] {});
    }
    w->Flush();
  }
  static protos::gen::TraceConfig BigFileConfig() {
    auto cfg = FileConfig("ds", 100);
    cfg.mutable_buffers()->at(0).set_size_kb(4096);
    return cfg;
  }
};

INSTANTIATE_TEST_SUITE_P(Runners, FileOutputTest, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "VirtualTime" : "RealThread";
                         });

TEST_P(FileOutputTest, AStalledPipeReaderEndsItsSessionAndBlocksNothingElse) {
  SetStallLimit(kStallLimitMs);
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto other = NewConsumer();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  // The client's own copy of the write end: same open file description.
  ScopedFd client_copy(dup(fds[1]));
  StalledReader reader(fds[0]);  // Never read, as `ztrace ... -o - | sleep 30`.
  c->EnableTracing(BigFileConfig(), fds[1]);
  ASSERT_TRUE(p->WaitForStarts(1));
  WritePackets(p->Writer(p->setups()[0]), 2000);  // ~450 KB; a pipe holds 64 KiB.
  runner_->AdvanceTime(100);  // The first periodic write fills the pipe.
  ASSERT_TRUE(reader.WaitForData()) << "nothing was written into the pipe";
  // Meanwhile the service answers everyone else: a second session starts,
  // reads and stops.
  other->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(2)) << "a second session could not start";
  other->DisableTracing();
  EXPECT_EQ(other->WaitForDisabled(), "");
  // The stalled one ends by itself within the limit, saying why.
  runner_->AdvanceTime(kStallLimitMs + 100);
  const std::string error = c->WaitForDisabled();
  EXPECT_NE(error.find("took no data for 500 ms"), std::string::npos) << error;
  // What reached the pipe before the stall is there, and the client's
  // description is blocking again, as it was handed over.
  int pipe_bytes = 0;
  ASSERT_EQ(ioctl(reader.fd(), FIONREAD, &pipe_bytes), 0);
  EXPECT_GT(pipe_bytes, 0);
  const int flags = fcntl(client_copy.fd, F_GETFL);
  EXPECT_EQ(flags & O_NONBLOCK, 0) << "O_NONBLOCK left on the client's pipe";
}

// A reader that clears O_NONBLOCK on its own copy of the description
// mid-session still cannot make the service block.
TEST_P(FileOutputTest, AClientClearingNonBlockingCannotMakeTheServiceBlock) {
  SetStallLimit(kStallLimitMs);
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ScopedFd client_copy(dup(fds[1]));
  StalledReader reader(fds[0]);
  c->EnableTracing(BigFileConfig(), fds[1]);
  ASSERT_TRUE(p->WaitForStarts(1));
  ASSERT_NE(fcntl(client_copy.fd, F_GETFL) & O_NONBLOCK, 0) << "the pipe was not made non-blocking";
  ASSERT_EQ(fcntl(client_copy.fd, F_SETFL, fcntl(client_copy.fd, F_GETFL) & ~O_NONBLOCK), 0);
  WritePackets(p->Writer(p->setups()[0]), 2000);
  runner_->AdvanceTime(100);
  runner_->AdvanceTime(kStallLimitMs + 100);
  const std::string error = c->WaitForDisabled();
  EXPECT_NE(error.find("took no data"), std::string::npos) << error;
}

// A reader that is slow (it reads only after the stop, and then in small
// bites) gets the whole trace, the stats last; the stop waits for it.
TEST_P(FileOutputTest, ASlowPipeReaderGetsTheWholeTrace) {
  SetStallLimit(2000);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ScopedFd reader(fds[0]);
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(BigFileConfig(), fds[1]);
  ASSERT_TRUE(p->WaitForStarts(1));
  constexpr uint64_t kPackets = 2000;
  WritePackets(p->Writer(p->setups()[0]), kPackets);
  // The reader starts once the stop is asked for (or, should the service
  // block in a write meanwhile, after a bounded wait: the test then fails
  // instead of hanging).
  std::mutex mutex;
  std::condition_variable cv;
  bool stop_asked = false;
  std::string bytes;
  std::thread slow_reader([&] {
    {
      std::unique_lock<std::mutex> lock(mutex);
      cv.wait_for(lock, std::chrono::milliseconds(kDefaultWaitMs), [&] { return stop_asked; });
    }
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) {
      bytes.append(buf, static_cast<size_t>(n));
      usleep(100);  // Pacing only: slower than the service writes.
    }
  });
  runner_->AdvanceTime(100);  // A periodic write fills the pipe.
  c->DisableTracing();
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop_asked = true;
  }
  cv.notify_all();
  const std::string error = c->WaitForDisabled();
  slow_reader.join();  // EOF: the service closed its end once done.
  EXPECT_EQ(error, "");
  const Packets packets =
      SplitTrace(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  const std::vector<uint64_t> ts = ProducerTimestamps(packets);
  for (uint64_t i = 0; i < ts.size(); i++)
    ASSERT_EQ(ts[i], i) << "a gap";
  ASSERT_EQ(ts.size(), kPackets);
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(packets, &stats));
  EXPECT_EQ(stats.buffer_stats()[0].bytes_written(), stats.buffer_stats()[0].bytes_read());
}

// A socket is written with per-call non-blocking sends: its stalled reader
// ends the session the same way.
TEST_P(FileOutputTest, AStalledSocketReaderEndsItsSession) {
  SetStallLimit(kStallLimitMs);
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  StalledReader reader(fds[0]);
  c->EnableTracing(BigFileConfig(), fds[1]);
  ASSERT_TRUE(p->WaitForStarts(1));
  WritePackets(p->Writer(p->setups()[0]), 8000);  // ~1.8 MB: more than a socket holds.
  runner_->AdvanceTime(100);
  runner_->AdvanceTime(kStallLimitMs + 100);
  const std::string error = c->WaitForDisabled();
  EXPECT_NE(error.find("output socket took no data"), std::string::npos) << error;
}

}  // namespace
}  // namespace test
}  // namespace zt
