// RunRecord (record_process.cc): `ztrace record` as main() runs it, on its
// own runner, against an in-process service: SIGINT and SIGTERM stop the
// session and the trace is written, an existing output survives a failure,
// '-' writes to stdout, and each failure exits with its code and message.

#include "src/cmd/ztrace/record_command.h"

#include <signal.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/cmd/ztrace/record_config.h"
#include "src/cmd/ztrace/record_test_support.h"
#include "src/tracing/test/fake_consumer.h"
#include "src/tracing/test/trace_checks.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {
namespace ztrace {
namespace {

using protos::gen::TraceConfig;

// RunRecord as main() runs it, on its own runner: the endpoint it connects
// owns an in-process service on that runner (no producer: the trace holds
// the service's packets only), and can raise a signal once tracing is on.
class ServiceOwningEndpoint : public ConsumerEndpoint {
 public:
  // The flags of the last flush asked through any instance (runner thread;
  // read after RunRecord returns).
  static inline uint64_t last_flush_flags = 0;

  ServiceOwningEndpoint(Consumer* consumer, base::TaskRunner* runner, int signal)
      : service_(TracingService::Create(runner)),
        inner_(service_->ConnectConsumer(consumer, 0)),
        signal_(signal) {}
  ~ServiceOwningEndpoint() override {
    inner_.reset();
    service_.reset();
  }
  void EnableTracing(const TraceConfig& config, int fd) override {
    inner_->EnableTracing(config, fd);
    if (signal_)
      raise(signal_);  // The handler runs here, on the runner's thread.
  }
  void StartTracing() override { inner_->StartTracing(); }
  void DisableTracing() override { inner_->DisableTracing(); }
  void Flush(uint32_t timeout_ms, std::function<void(bool)> done) override {
    inner_->Flush(timeout_ms, std::move(done));
  }
  void FlushWithFlags(uint32_t timeout_ms, std::function<void(bool)> done,
                      uint64_t flags) override {
    last_flush_flags = flags;
    inner_->FlushWithFlags(timeout_ms, std::move(done), flags);
  }
  void ReadBuffers() override { inner_->ReadBuffers(); }
  void FreeBuffers() override { inner_->FreeBuffers(); }
  void GetTraceStats() override { inner_->GetTraceStats(); }

 private:
  std::unique_ptr<TracingService> service_;
  std::unique_ptr<ConsumerEndpoint> inner_;
  const int signal_;
};

ConnectFn InProcess(int signal) {
  return [signal](Consumer* consumer, base::TaskRunner* runner) {
    return std::make_unique<ServiceOwningEndpoint>(consumer, runner, signal);
  };
}

void (*CurrentHandler(int signal))(int) {
  struct sigaction now = {};
  sigaction(signal, nullptr, &now);
  return now.sa_handler;
}

TEST(RunRecordTest, SigintAndSigtermStopTheSessionAndTheTraceIsWritten) {
  for (int signal : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(signal);
    OutputFile out;
    testing::internal::CaptureStderr();
    const int code = RunRecord({"-t", "0", "-o", out.path()}, InProcess(signal), "x.sock");
    const std::string err = testing::internal::GetCapturedStderr();
    ASSERT_EQ(code, kExitOk) << err;
    ExpectCompleteTrace(out.ReadPackets(), 0);
    EXPECT_EQ(err.rfind("ztrace: wrote " + std::to_string(out.Contents().size()) + " bytes", 0),
              0u)
        << err;
    // The stop's flush says who asked and why, as upstream's perfetto does.
    EXPECT_EQ(ServiceOwningEndpoint::last_flush_flags,
              flush_flags::kInitiatorPerfettoCmd | flush_flags::kReasonTraceStop);
    ServiceOwningEndpoint::last_flush_flags = 0;
    // The handlers are the test's again.
    EXPECT_EQ(CurrentHandler(SIGINT), SIG_DFL);
    EXPECT_EQ(CurrentHandler(SIGTERM), SIG_DFL);
    EXPECT_EQ(CurrentHandler(SIGPIPE), SIG_DFL);
  }
}

// An existing output file is replaced only once a session starts: with no
// daemon it stays as it was (issue 27: it used to be deleted); with one,
// the trace replaces all of it (nothing of the old, longer file remains).
TEST(RunRecordTest, AnExistingOutputSurvivesAFailureAndIsReplacedBySuccess) {
  OutputFile out;
  const std::string precious(100000, 'p');
  {
    base::ScopedFile fd = out.Open();
    ASSERT_EQ(write(fd.get(), precious.data(), precious.size()),
              static_cast<ssize_t>(precious.size()));
  }
  testing::internal::CaptureStderr();
  int code = RunRecord({"-t", "0", "-o", out.path()},
                       [](Consumer*, base::TaskRunner*) { return nullptr; }, "/nowhere.sock");
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, kExitFailure) << err;
  ASSERT_TRUE(out.Exists()) << "the failed recording removed the existing file";
  EXPECT_EQ(out.Contents(), precious);

  testing::internal::CaptureStderr();
  code = RunRecord({"-t", "0", "-o", out.path()}, InProcess(SIGINT), "x.sock");
  err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(code, kExitOk) << err;
  EXPECT_LT(out.Contents().size(), precious.size());
  EXPECT_EQ(out.Contents().find(std::string(64, 'p')), std::string::npos)
      << "old bytes left after the trace";
  ExpectCompleteTrace(out.ReadPackets(), 0);
}

TEST(RunRecordTest, DashWritesTheTraceToStdout) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = RunRecord({"-o", "-", "-t", "0", "some_category"}, InProcess(SIGINT),
                             "x.sock");
  const std::string trace = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(code, kExitOk) << err;
  ExpectCompleteTrace(
      test::SplitTrace(reinterpret_cast<const uint8_t*>(trace.data()), trace.size()), 0);
  EXPECT_NE(err.find(" to stdout in "), std::string::npos) << err;
}

TEST(RunRecordTest, FailuresExitWithTheirCodesAndMessages) {
  OutputFile out;
  unlink(out.path().c_str());  // The command creates it (and removes it on failure).
  struct {
    std::vector<std::string> args;
    int code;
    std::string err;  // Its start.
  } cases[] = {
      {{"-o", out.path(), "--bogus"}, kExitUsage,
       "ztrace record: unknown option \"--bogus\"\nTry 'ztrace record --help'.\n"},
      {{}, kExitUsage, "ztrace record: an output file is required"},
      {{"-o", out.path(), "-t", "5"}, kExitUsage, "ztrace record: -t: bad duration \"5\""},
      {{"-o", out.path(), "-c", out.path() + ".missing", "--txt"}, kExitFailure,
       "ztrace: cannot read the config " + out.path() + ".missing: No such file"},
      {{"-o", "/nonexistent-dir/t", "-t", "1s"}, kExitFailure,
       "ztrace: cannot open /nonexistent-dir/t for writing"},
      {{"-o", out.path(), "-t", "1s"}, kExitFailure,
       "ztrace: cannot connect to the tracing service: no socket at /nowhere.sock: is "
       "ztraced running?"},
  };
  for (const auto& c : cases) {
    testing::internal::CaptureStderr();
    const int code = RunRecord(
        c.args, [](Consumer*, base::TaskRunner*) { return nullptr; }, "/nowhere.sock");
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, c.code) << err;
    EXPECT_EQ(err.rfind(c.err, 0), 0u) << err;
  }
  EXPECT_FALSE(out.Exists()) << "the failed recording left an empty file";

  testing::internal::CaptureStdout();
  EXPECT_EQ(RunRecord({"--help"}, nullptr, ""), kExitOk);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), RecordUsage());
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
