// `ztrace record` against an in-process TracingService and a fake producer
// that writes real packets: the trace file holds exactly what was written,
// whether the session ends by its duration, by a stop request (what
// SIGINT/SIGTERM trigger) or by the service writing the file itself; and
// the failures (no service, a refused config, an output that cannot be
// written) are clear, exit 1, and leave no empty file behind. Every test
// runs on a real thread and on virtual time.

#include "src/cmd/ztrace/record_command.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/config/trace_config.pbzero.h"
#include "zt/protozero/scattered_heap_buffer.h"

#include "src/cmd/ztrace/record_config.h"
#include "src/cmd/ztrace/record_test_support.h"
#include "src/tracing/test/fake_consumer.h"
#include "src/tracing/test/fake_producer.h"
#include "src/tracing/test/test_runner.h"
#include "src/tracing/test/trace_checks.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace ztrace {
namespace {

using protos::gen::TraceConfig;
using test::FakeProducer;
using test::Packets;

TraceConfig Config(uint32_t duration_ms = 0, uint32_t size_kb = 1024) {
  ShorthandOptions options;
  options.duration = std::to_string(duration_ms) + "ms";
  options.buffer_size = std::to_string(size_kb) + "kb";
  TraceConfig config;
  std::string error;
  EXPECT_TRUE(BuildShorthandConfig(options, &config, &error)) << error;
  return config;
}

class RecordCommandTest : public testing::TestWithParam<bool> {
 protected:
  RecordCommandTest() {
    if (GetParam())
      runner_.reset(new test::VirtualTimeTestRunner());
    else
      runner_.reset(new test::ThreadTestRunner());
    runner_->RunAndWait([&] { service_ = TracingService::Create(runner_->task_runner()); });
  }
  ~RecordCommandTest() override {
    runner_->RunAndWait([&] { command_.reset(); });
    producer_.reset();
    runner_->RunAndWait([&] { service_.reset(); });
  }

  // A producer of "track_event", as an instrumented program is.
  FakeProducer* StartProducer() {
    producer_ = std::make_unique<FakeProducer>(runner_.get(), [this](Producer* p) {
      TracingService::ProducerOptions options;
      options.name = "app";
      options.uid = 1000;
      options.pid = 42;
      options.shm_size_hint_bytes = 64 * 1024;
      return service_->ConnectProducer(p, options);
    });
    producer_->RegisterDataSource("track_event");
    return producer_.get();
  }

  // |n| packets of |payload_size| bytes, committed. On virtual time this
  // thread also drains the 64 KiB SMB: it lets the runner do so before the
  // writer would have to stall.
  void WritePackets(int n, size_t payload_size = 0) {
    TraceWriter* w = producer_->Writer(producer_->setups()[0]);
    const std::string payload(payload_size, 'x');
    for (int i = 0; i < n; i++) {
      {
        auto packet = w->NewTracePacket();
        packet->set_timestamp(static_cast<uint64_t>(i));
        if (payload_size)
          packet->set_for_testing()->set_str(payload);
      }
      if (i % 16 == 15)
        runner_->RunAndWait([] {});
    }
    w->Flush();
    runner_->RunAndWait([] {});
  }

  RecordCommand::Options Options(TraceConfig config) {
    RecordCommand::Options options;
    options.config = std::move(config);
    options.output = out_.Open();
    options.output_name = "out.pftrace";
    options.remove_on_failure = out_.path();
    options.service_address = "/run/test.sock";
    options.print = [this](std::string_view text) {
      std::lock_guard<std::mutex> lock(mutex_);
      printed_.append(text);
      cv_.notify_all();
    };
    options.on_started = [this](bool ok) {
      std::lock_guard<std::mutex> lock(mutex_);
      started_.push_back(ok);
      cv_.notify_all();
    };
    return options;
  }

  ConnectFn ConnectToService() {
    return [this](Consumer* consumer, base::TaskRunner* runner) {
      EXPECT_EQ(runner, runner_->task_runner());
      return service_->ConnectConsumer(consumer, 0);
    };
  }

  void Start(RecordCommand::Options options, ConnectFn connect = nullptr) {
    command_ = std::make_unique<RecordCommand>(
        runner_->task_runner(), connect ? std::move(connect) : ConnectToService(),
        std::move(options));
    command_->Start([this](int code) {
      std::lock_guard<std::mutex> lock(mutex_);
      EXPECT_EQ(exit_code_, -1) << "on_done ran twice";
      exit_code_ = code;
      cv_.notify_all();
    });
  }

  // The exit code, once the command is done; -1 (and a failure) if it
  // never is.
  int WaitDone() {
    if (!runner_->WaitFor(mutex_, cv_, [this] { return exit_code_ != -1; })) {
      ADD_FAILURE() << "the command never finished; it printed:\n" << printed();
      return -1;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    return exit_code_;
  }
  bool WaitStarted() {
    return runner_->WaitFor(mutex_, cv_, [this] { return !started_.empty(); });
  }
  std::string printed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return printed_;
  }
  std::vector<bool> started() {
    std::lock_guard<std::mutex> lock(mutex_);
    return started_;
  }

  std::unique_ptr<test::TestRunner> runner_;
  std::unique_ptr<TracingService> service_;
  std::unique_ptr<FakeProducer> producer_;
  std::unique_ptr<RecordCommand> command_;
  OutputFile out_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int exit_code_ = -1;
  std::string printed_;
  std::vector<bool> started_;
};

INSTANTIATE_TEST_SUITE_P(Runners, RecordCommandTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "VirtualTime" : "Thread";
                         });

TEST_P(RecordCommandTest, StopRequestFlushesStopsAndWritesEveryPacket) {
  StartProducer();
  Start(Options(Config(/*duration_ms=*/0)));
  ASSERT_TRUE(producer_->WaitForStarts(1));
  ASSERT_TRUE(WaitStarted());
  EXPECT_EQ(started(), std::vector<bool>{true});
  WritePackets(500);
  const size_t flushes = producer_->flush_count();
  command_->RequestStop();  // What SIGINT does.
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  EXPECT_GT(producer_->flush_count(), flushes) << "no final flush before the stop";
  EXPECT_EQ(producer_->stops().size(), 1u);

  const Packets packets = out_.ReadPackets();
  ExpectCompleteTrace(packets, 500);
  EXPECT_EQ(command_->packets_written(), packets.size());
  EXPECT_EQ(command_->bytes_written(), out_.Contents().size());
  const std::string summary = "ztrace: wrote " + std::to_string(out_.Contents().size()) +
                              " bytes (" + std::to_string(packets.size()) +
                              " packets) to out.pftrace in ";
  EXPECT_EQ(printed().rfind(summary, 0), 0u) << printed();
  EXPECT_EQ(printed().find("WARNING"), std::string::npos) << printed();
  EXPECT_EQ(started(), std::vector<bool>{true});
}

// Config(0) whose session waits for the START_TRACING trigger |name|.
TraceConfig StartTriggerConfig(const std::string& name) {
  TraceConfig config = Config(/*duration_ms=*/0);
  protozero::HeapBuffered<protos::pbzero::TraceConfig_TriggerConfig> triggers;
  triggers->set_trigger_mode(protos::pbzero::TraceConfig_TriggerConfig::START_TRACING);
  triggers->set_trigger_timeout_ms(600000);
  triggers->add_triggers()->set_name(name);
  config.set_trigger_config_raw(triggers.SerializeAsString());
  return config;
}

// A session waiting for a start trigger counts as started once it is set
// up (what --background waits for): its data sources start only with the
// trigger, which usually comes from a command run after this one returns.
TEST_P(RecordCommandTest, ASessionWaitingForItsStartTriggerCountsAsStarted) {
  StartProducer();
  Start(Options(StartTriggerConfig("go")));
  ASSERT_TRUE(WaitStarted());
  EXPECT_EQ(started(), std::vector<bool>{true});
  EXPECT_TRUE(producer_->starts().empty());  // Only set up.
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  // Said plainly, without the warnings of a session that should have data.
  EXPECT_NE(printed().find("no trigger of the config came"), std::string::npos) << printed();
  EXPECT_EQ(printed().find("warning"), std::string::npos) << printed();
}

// The trigger then starts the session's data sources and what they write
// is recorded. (Activating one also links the service's trigger support
// into this test program; without it trigger configs are refused.)
TEST_P(RecordCommandTest, ATriggeredSessionRecordsItsData) {
  StartProducer();
  Start(Options(StartTriggerConfig("go")));
  ASSERT_TRUE(WaitStarted());
  producer_->Call([this](ProducerEndpoint* e) { service_->ActivateTriggers(e, {"go"}); });
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(100);
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  EXPECT_EQ(printed().find("no trigger"), std::string::npos) << printed();
  EXPECT_GT(command_->packets_written(), 100u);
}

TEST_P(RecordCommandTest, TheSessionsDurationEndsIt) {
  StartProducer();
  Start(Options(Config(/*duration_ms=*/1000)));
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(300, /*payload_size=*/100);
  runner_->AdvanceTime(1000);  // On a real thread it passes by itself.
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  const Packets packets = out_.ReadPackets();
  ExpectCompleteTrace(packets, 300);
  EXPECT_EQ(command_->packets_written(), packets.size());
  EXPECT_NE(printed().find("ztrace: wrote "), std::string::npos) << printed();
}

TEST_P(RecordCommandTest, WriteIntoFileHandsTheOutputToTheService) {
  StartProducer();
  TraceConfig config = Config(/*duration_ms=*/0);
  config.set_write_into_file(true);
  config.set_file_write_period_ms(100);
  Start(Options(config));
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(200);
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  ExpectCompleteTrace(out_.ReadPackets(), 200);
  EXPECT_EQ(command_->bytes_written(), 0u) << "the service wrote it, not us";
  EXPECT_EQ(printed().rfind("ztrace: the service wrote " +
                                std::to_string(out_.Contents().size()) +
                                " bytes to out.pftrace in ",
                            0),
            0u)
      << printed();
}

TEST_P(RecordCommandTest, ReachingTheFileSizeLimitIsANormalEnd) {
  StartProducer();
  ShorthandOptions shorthand;
  shorthand.duration = "0";
  shorthand.max_file_size = "64kb";
  TraceConfig config;
  std::string error;
  ASSERT_TRUE(BuildShorthandConfig(shorthand, &config, &error)) << error;
  config.set_file_write_period_ms(100);
  Start(Options(config));
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(400, /*payload_size=*/500);  // 200 KB: past the limit.
  runner_->AdvanceTime(100);                // A write period.
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  EXPECT_LE(out_.Contents().size(), 64u * 1024);
  EXPECT_NE(printed().find("ztrace: note: max_file_size_bytes (65536) reached"),
            std::string::npos)
      << printed();
}

TEST_P(RecordCommandTest, DataLossIsReportedLoudly) {
  StartProducer();
  Start(Options(Config(/*duration_ms=*/0, /*size_kb=*/16)));  // A small ring.
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(400, /*payload_size=*/500);  // 200 KB through 16 KB.
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  const std::string text = printed();
  EXPECT_NE(text.find("ztrace: WARNING: THE TRACE IS MISSING DATA:\n"
                      "ztrace:   buffer 0: "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" chunks overwritten: the ring buffer wrapped"), std::string::npos)
      << text;
  ASSERT_FALSE(command_->stats().buffer_stats().empty());
  EXPECT_GT(command_->stats().buffer_stats()[0].chunks_overwritten(), 0u);
}

TEST_P(RecordCommandTest, ATraceWithNothingFromProducersSaysSo) {
  Start(Options(Config(/*duration_ms=*/0)));  // No producer at all.
  ASSERT_TRUE(WaitStarted());
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  ExpectCompleteTrace(out_.ReadPackets(), 0);
  EXPECT_NE(printed().find("ztrace: warning: no data source wrote anything"),
            std::string::npos)
      << printed();
}

TEST_P(RecordCommandTest, AnOutputThatCannotBeWrittenIsAClearError) {
  StartProducer();
  RecordCommand::Options options = Options(Config(/*duration_ms=*/0));
  options.output = base::ScopedFile(open("/dev/full", O_WRONLY | O_CLOEXEC));
  ASSERT_TRUE(options.output);
  options.output_name = "/dev/full";
  options.remove_on_failure.clear();
  Start(std::move(options));
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(10);
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(),
            "ztrace: cannot write the trace to /dev/full: No space left on device\n");
}

TEST_P(RecordCommandTest, AClosedPipeIsAnErrorNotADeath) {
  struct sigaction ignore = {}, old = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);  // As RunRecord does.
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  close(fds[0]);
  RecordCommand::Options options = Options(Config(/*duration_ms=*/0));
  options.output = base::ScopedFile(fds[1]);
  options.output_name = "stdout";
  options.remove_on_failure.clear();
  Start(std::move(options));
  ASSERT_TRUE(WaitStarted());
  command_->RequestStop();
  EXPECT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(), "ztrace: cannot write the trace to stdout: Broken pipe\n");
  sigaction(SIGPIPE, &old, nullptr);
}

TEST_P(RecordCommandTest, ARefusedConfigFailsAndLeavesNoFile) {
  TraceConfig config = Config(/*duration_ms=*/0);
  // A name the service refuses twice: the second session fails.
  config.set_unique_session_name("only-one");
  auto other = std::make_unique<test::FakeConsumer>(
      runner_.get(), [this](Consumer* c) { return service_->ConnectConsumer(c, 0); });
  other->EnableTracing(config);
  Start(Options(config));
  ASSERT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(),
            "ztrace: the tracing service ended the session: EnableTracing: a session "
            "named \"only-one\" already exists\n");
  EXPECT_FALSE(out_.Exists()) << "an empty trace file was left behind";
  EXPECT_EQ(started(), std::vector<bool>{false});
  other.reset();
}

TEST_P(RecordCommandTest, NoServiceSaysWhereItLookedAndWhatToDo) {
  const std::string expected =
      "ztrace: cannot connect to the tracing service: no socket at /run/test.sock: is "
      "ztraced running? (set PERFETTO_CONSUMER_SOCK_NAME to use another socket)\n";
  // A client that gives up at once...
  Start(Options(Config()), [](Consumer*, base::TaskRunner*) { return nullptr; });
  ASSERT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(), expected);
  EXPECT_FALSE(out_.Exists());
  EXPECT_EQ(started(), std::vector<bool>{false});

  // ...and one that reports the failed connection later, as the socket
  // client does.
  class UnreachableEndpoint : public ConsumerEndpoint {
   public:
    UnreachableEndpoint(Consumer* consumer, base::TaskRunner* runner)
        : alive_(std::make_shared<bool>(true)) {
      runner->PostTask([consumer, alive = alive_] {
        if (*alive)
          consumer->OnDisconnect();
      });
    }
    ~UnreachableEndpoint() override { *alive_ = false; }
    void EnableTracing(const TraceConfig&, int) override { ADD_FAILURE(); }
    void StartTracing() override {}
    void DisableTracing() override {}
    void Flush(uint32_t, std::function<void(bool)>) override {}
    void ReadBuffers() override {}
    void FreeBuffers() override {}
    void GetTraceStats() override {}

   private:
    std::shared_ptr<bool> alive_;
  };
  runner_->RunAndWait([&] { command_.reset(); });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    exit_code_ = -1;
    printed_.clear();
  }
  OutputFile second;
  RecordCommand::Options options = Options(Config());
  options.output = second.Open();
  options.remove_on_failure = second.path();
  Start(std::move(options), [](Consumer* c, base::TaskRunner* r) {
    return std::make_unique<UnreachableEndpoint>(c, r);
  });
  ASSERT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(), expected);
  EXPECT_FALSE(second.Exists());
}

TEST_P(RecordCommandTest, AStopBeforeTracingStartedFails) {
  RecordCommand::Options options = Options(Config());
  command_ = std::make_unique<RecordCommand>(runner_->task_runner(), ConnectToService(),
                                             std::move(options));
  command_->RequestStop();  // Ctrl-C while still connecting.
  command_->Start([this](int code) {
    std::lock_guard<std::mutex> lock(mutex_);
    exit_code_ = code;
    cv_.notify_all();
  });
  ASSERT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(), "ztrace: interrupted before tracing started\n");
}

TEST_P(RecordCommandTest, ProgressIsOneLineRewrittenThenCleared) {
  StartProducer();
  RecordCommand::Options options = Options(Config(/*duration_ms=*/0));
  options.progress = true;
  Start(std::move(options));
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(20);
  runner_->AdvanceTime(RecordCommand::kProgressPeriodMs);
  // On a real thread, wait (bounded) for one period's line.
  ASSERT_TRUE(runner_->WaitFor(mutex_, cv_, [this] {
    return printed_.find("\r\033[Kztrace: recording ") != std::string::npos;
  })) << printed();
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitOk);
  const std::string text = printed();
  EXPECT_EQ(text.find('\n'), text.rfind('\n')) << "only the summary ends a line: " << text;
  EXPECT_NE(text.find("(Ctrl-C stops)"), std::string::npos) << text;
  // The last progress line is cleared before the summary.
  const size_t summary = text.find("ztrace: wrote ");
  ASSERT_NE(summary, std::string::npos) << text;
  EXPECT_EQ(text.substr(summary - 4, 4), "\r\033[K");
}

TEST_P(RecordCommandTest, ASecondStopWhileStoppingIsHarmless) {
  StartProducer();
  Start(Options(Config(/*duration_ms=*/0)));
  ASSERT_TRUE(producer_->WaitForStarts(1));
  WritePackets(50);
  command_->RequestStop();
  command_->RequestStop();
  ASSERT_EQ(WaitDone(), kExitOk) << printed();
  ExpectCompleteTrace(out_.ReadPackets(), 50);
}

// A service that ends the session at once (with |error|) and then answers
// nothing more: reads and stats never come.
class MuteAfterStopEndpoint : public ScriptedConsumerEndpoint {
 public:
  MuteAfterStopEndpoint(Consumer* consumer, base::TaskRunner* runner, std::string error = "")
      : ScriptedConsumerEndpoint(consumer, runner), error_(std::move(error)) {}
  void EnableTracing(const TraceConfig& config, int fd) override {
    ScriptedConsumerEndpoint::EnableTracing(config, fd);
    Post([error = error_](Consumer* c) { c->OnTracingDisabled(error); });
  }

 private:
  const std::string error_;
};

// A config too large for the service's frames (ConsumerIpcClient's error):
// said with the sizes and what to do, no file left, not an abort.
TEST_P(RecordCommandTest, AConfigTooLargeToSendSaysSoWithTheSizes) {
  const std::string error =
      "the trace config cannot be sent: the EnableTracing request is 245760 bytes, over the "
      "131072-byte frame limit of the service's ConsumerPort";
  Start(Options(Config()), [error](Consumer* c, base::TaskRunner* r) {
    return std::make_unique<MuteAfterStopEndpoint>(c, r, error);
  });
  ASSERT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(), "ztrace: " + error +
                           "; make the config smaller (fewer categories, data sources or "
                           "filters)\n");
  EXPECT_FALSE(out_.Exists());
}

TEST_P(RecordCommandTest, AServiceThatStopsAnsweringIsGivenUpOn) {
  if (!runner_->virtual_time())
    GTEST_SKIP() << "waits kServiceSilenceMs: virtual time only";
  auto mute = [](Consumer* c, base::TaskRunner* r) {
    return std::make_unique<MuteAfterStopEndpoint>(c, r);
  };
  Start(Options(Config()), mute);
  runner_->RunAndWait([] {});
  runner_->AdvanceTime(RecordCommand::kServiceSilenceMs - 1);
  runner_->RunAndWait([] {});
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_EQ(exit_code_, -1) << "gave up early";
  }
  runner_->AdvanceTime(1);
  ASSERT_EQ(WaitDone(), kExitFailure);
  EXPECT_EQ(printed(), "ztrace: the tracing service sent nothing for 30 s: out.pftrace "
                       "is incomplete\n");

  // With the file written by the service, only the stats are missing.
  runner_->RunAndWait([&] { command_.reset(); });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    exit_code_ = -1;
    printed_.clear();
  }
  TraceConfig config = Config();
  config.set_write_into_file(true);
  Start(Options(config), mute);
  runner_->RunAndWait([] {});
  runner_->AdvanceTime(RecordCommand::kServiceSilenceMs);
  ASSERT_EQ(WaitDone(), kExitOk);
  EXPECT_EQ(printed().rfind("ztrace: warning: the tracing service sent nothing for 30 s "
                            "instead of the session's stats\nztrace: the service wrote ",
                            0),
            0u)
      << printed();
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
