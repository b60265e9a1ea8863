// `ztrace clone` against an in-process service on the command's own runner:
// a session another consumer runs is snapshotted into the file, the losses
// reported as `record` reports them; refusals and bad command lines exit
// with their codes and messages.

#include "src/cmd/ztrace/clone_command.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/tracing/test/fake_consumer.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace ztrace {
namespace {

// A consumer that only owns the session to clone.
class Owner : public Consumer {
 public:
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingDisabled(const std::string&) override {}
  void OnAllDataSourcesStarted() override {}
  void OnTraceData(std::vector<uint8_t>, bool) override {}
  void OnTraceStats(bool, std::vector<uint8_t>) override {}
};

// The cloner's endpoint: an in-process service (made on the command's
// runner) in which |owner_| already runs the session "svc"; CloneSession
// goes to the service as the consumer port sends it.
class ServiceWithASession : public ConsumerEndpoint {
 public:
  ServiceWithASession(Consumer* consumer, base::TaskRunner* runner)
      : service_(TracingService::Create(runner)) {
    owner_endpoint_ = service_->ConnectConsumer(&owner_, static_cast<int32_t>(getuid()));
    protos::gen::TraceConfig config;
    config.add_buffers()->set_size_kb(64);
    config.set_unique_session_name("svc");
    owner_endpoint_->EnableTracing(config);
    inner_ = service_->ConnectConsumer(consumer, static_cast<int32_t>(getuid()));
  }
  ~ServiceWithASession() override {
    inner_.reset();
    owner_endpoint_.reset();
    service_.reset();
  }
  void EnableTracing(const protos::gen::TraceConfig& c, int fd) override {
    inner_->EnableTracing(c, fd);
  }
  void StartTracing() override { inner_->StartTracing(); }
  void DisableTracing() override { inner_->DisableTracing(); }
  void Flush(uint32_t timeout_ms, std::function<void(bool)> done) override {
    inner_->Flush(timeout_ms, std::move(done));
  }
  void ReadBuffers() override { inner_->ReadBuffers(); }
  void FreeBuffers() override { inner_->FreeBuffers(); }
  void GetTraceStats() override { inner_->GetTraceStats(); }
  void CloneSession(const CloneSessionArgs& args,
                    std::function<void(const CloneSessionResult&)> done) override {
    service_->CloneSession(inner_.get(), args, std::move(done));
  }

 private:
  std::unique_ptr<TracingService> service_;
  Owner owner_;
  std::unique_ptr<ConsumerEndpoint> owner_endpoint_;
  std::unique_ptr<ConsumerEndpoint> inner_;
};

ConnectFn InProcess() {
  return [](Consumer* consumer, base::TaskRunner* runner) {
    return std::make_unique<ServiceWithASession>(consumer, runner);
  };
}

struct CloneRun {
  int code;
  std::string err;
};

CloneRun RunWith(const std::vector<std::string>& args, const ConnectFn& connect) {
  testing::internal::CaptureStderr();
  const int code = RunClone(args, connect, "x.sock");
  return {code, testing::internal::GetCapturedStderr()};
}

std::string ReadFile(const std::string& path) {
  std::string bytes;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  char buf[4096];
  for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0;)
    bytes.append(buf, static_cast<size_t>(n));
  if (fd >= 0)
    close(fd);
  return bytes;
}

TEST(CloneCommandTest, ASnapshotOfARunningSessionIsWritten) {
  const std::string path = testing::TempDir() + "/zt_clone_out.pftrace";
  for (const std::string session : {"svc", "1"}) {  // By name, by id.
    SCOPED_TRACE(session);
    {
      // An older, longer file there: replaced whole, not overwritten in part.
      const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      ASSERT_GE(fd, 0);
      const std::string junk(4096, 'x');
      ASSERT_EQ(write(fd, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
      close(fd);
    }
    const CloneRun run = RunWith({"-o", path, session}, InProcess());
    ASSERT_EQ(run.code, kExitOk) << run.err;
    const std::string bytes = ReadFile(path);
    EXPECT_EQ(run.err, "ztrace: wrote " + std::to_string(bytes.size()) + " bytes to " + path +
                           "\n");
    const auto packets =
        test::SplitTrace(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ASSERT_FALSE(packets.empty());
    protos::pbzero::TracePacket_Decoder last(packets.back().data(), packets.back().size());
    EXPECT_TRUE(last.has_trace_stats()) << "a snapshot ends with its stats";
  }
  unlink(path.c_str());
}

TEST(CloneCommandTest, RefusalsAndBadCommandLinesSayWhy) {
  const std::string path = testing::TempDir() + "/zt_clone_refused.pftrace";
  CloneRun run = RunWith({"-o", path, "nope"}, InProcess());
  EXPECT_EQ(run.code, kExitFailure);
  EXPECT_EQ(run.err, "ztrace clone: CloneSession: no session named \"nope\"\n");
  struct stat st {};
  EXPECT_NE(stat(path.c_str(), &st), 0) << "a refused clone left the file it created";
  run = RunWith({"-o", path, "svc"},
                [](Consumer*, base::TaskRunner*) { return nullptr; });
  EXPECT_EQ(run.code, kExitFailure);
  EXPECT_NE(run.err.find("cannot connect to the tracing service: no socket at x.sock: is "
                         "ztraced running?"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(RunWith({"svc"}, InProcess()).code, kExitUsage);
  EXPECT_EQ(RunWith({"-o", path}, InProcess()).code, kExitUsage);
  EXPECT_EQ(RunWith({"-o", path, "a", "b"}, InProcess()).code, kExitUsage);
  EXPECT_EQ(RunWith({"-o", path, "--bogus", "a"}, InProcess()).code, kExitUsage);
  unlink(path.c_str());
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
