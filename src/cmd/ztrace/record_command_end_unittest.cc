// How long `ztrace record` waits for the service to end a session: past
// the duration (or the stop request) plus the grace period, it waits on for
// as long as the service keeps reading the session's buffers out (a large
// buffer written into a slow reader), and gives up once that progress stops
// or the service stops answering. On virtual time, against a scripted
// endpoint whose stats say how far the reading got.

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/cmd/ztrace/record_command.h"
#include "src/cmd/ztrace/record_test_support.h"
#include "src/tracing/test/test_runner.h"
#include "zt/common/trace_stats.gen.h"

namespace zt {
namespace ztrace {
namespace {

using protos::gen::TraceConfig;

// A service whose session ends only after it has been asked for its stats
// |answers_before_end| times; each answer says |bytes_read| more bytes were
// read out of the buffer than the last, or (with |answer| false) none come.
class SlowEndEndpoint : public ScriptedConsumerEndpoint {
 public:
  struct Script {
    int answers_before_end = 0;
    uint64_t bytes_read_step = 0;
    bool answer = true;
  };
  // |answers| (the test's: the command deletes its endpoint when done)
  // counts the stats answers given.
  SlowEndEndpoint(Consumer* consumer, base::TaskRunner* runner, Script script, int* answers)
      : ScriptedConsumerEndpoint(consumer, runner), script_(script), answers_(answers) {}

  void Flush(uint32_t, std::function<void(bool)> done) override {
    Post([done = std::move(done)](Consumer*) { done(true); });
  }
  void GetTraceStats() override {
    if (ended_) {
      Post([stats = Stats()](Consumer* c) { c->OnTraceStats(true, stats); });
      return;
    }
    if (!script_.answer)
      return;
    bytes_read_ += script_.bytes_read_step;
    Post([stats = Stats()](Consumer* c) { c->OnTraceStats(true, stats); });
    if (++*answers_ == script_.answers_before_end) {
      ended_ = true;
      Post([](Consumer* c) { c->OnTracingDisabled(""); });
    }
  }

 private:
  std::vector<uint8_t> Stats() const {
    protos::gen::TraceStats stats;
    stats.add_buffer_stats()->set_bytes_read(bytes_read_);
    return stats.SerializeAsArray();
  }
  const Script script_;
  int* const answers_;
  uint64_t bytes_read_ = 0;
  bool ended_ = false;
};

class RecordCommandEndTest : public testing::Test {
 protected:
  ~RecordCommandEndTest() override {
    runner_.RunAndWait([&] { command_.reset(); });
  }

  // A write_into_file session into /dev/null; |duration_ms| 0: until stopped.
  void Start(uint32_t duration_ms, SlowEndEndpoint::Script script) {
    TraceConfig config;
    config.add_buffers()->set_size_kb(1024);
    config.add_data_sources()->mutable_config()->set_name("track_event");
    config.set_write_into_file(true);
    config.set_duration_ms(duration_ms);
    RecordCommand::Options options;
    options.config = config;
    options.output = base::ScopedFile(open("/dev/null", O_WRONLY | O_CLOEXEC));
    options.output_name = "out.pftrace";
    options.print = [this](std::string_view text) { printed_.append(text); };
    auto connect = [this, script](Consumer* consumer, base::TaskRunner* runner) {
      return std::make_unique<SlowEndEndpoint>(consumer, runner, script, &answers_);
    };
    command_ = std::make_unique<RecordCommand>(runner_.task_runner(), connect, std::move(options));
    command_->Start([this](int code) { exit_code_ = code; });
    runner_.RunAndWait([] {});
  }

  // Advances virtual time by |ms| in 1 s steps, stopping once the command
  // is done.
  void Advance(uint32_t ms) {
    for (uint32_t t = 0; t < ms && exit_code_ == -1; t += 1000)
      runner_.AdvanceTime(1000);
  }

  // The give-up deadline of a session with default flush and stop timeouts.
  static constexpr uint32_t kDeadlineMs = RecordCommand::kServiceGraceMs + 5000 + 5000;

  test::VirtualTimeTestRunner runner_;
  std::unique_ptr<RecordCommand> command_;
  int answers_ = 0;  // Stats answers the endpoint gave.
  std::string printed_;
  int exit_code_ = -1;
};

TEST_F(RecordCommandEndTest, AStopThatKeepsWritingIsWaitedFor) {
  // Ten checks' worth (100 s) past the deadline, each showing more read.
  Start(/*duration_ms=*/0, {/*answers_before_end=*/11, /*bytes_read_step=*/1 << 20, true});
  command_->RequestStop();
  runner_.RunAndWait([] {});
  Advance(kDeadlineMs + 11 * RecordCommand::kEndProgressCheckMs);
  ASSERT_EQ(exit_code_, kExitOk) << printed_;
  EXPECT_EQ(answers_, 11);
  EXPECT_EQ(printed_.find("giving up"), std::string::npos) << printed_;
}

TEST_F(RecordCommandEndTest, ASessionPastItsDurationThatKeepsWritingIsWaitedFor) {
  Start(/*duration_ms=*/1000, {/*answers_before_end=*/6, /*bytes_read_step=*/4096, true});
  Advance(1000 + kDeadlineMs + 6 * RecordCommand::kEndProgressCheckMs);
  ASSERT_EQ(exit_code_, kExitOk) << printed_;
  EXPECT_EQ(printed_.find("giving up"), std::string::npos) << printed_;
}

TEST_F(RecordCommandEndTest, AStopWithoutProgressIsGivenUpOn) {
  // Answers, but nothing more is read: the first answer starts the wait,
  // the second (one check later) shows no progress.
  Start(/*duration_ms=*/0, {/*answers_before_end=*/1000, /*bytes_read_step=*/0, true});
  command_->RequestStop();
  runner_.RunAndWait([] {});
  Advance(kDeadlineMs + RecordCommand::kEndProgressCheckMs - 1000);
  EXPECT_EQ(exit_code_, -1) << "gave up before looking at the progress: " << printed_;
  Advance(2000);
  ASSERT_EQ(exit_code_, kExitFailure);
  EXPECT_EQ(answers_, 2);
  EXPECT_EQ(printed_, "ztrace: the tracing service did not stop the session; giving up\n");
}

TEST_F(RecordCommandEndTest, AServiceThatNoLongerAnswersIsGivenUpOn) {
  Start(/*duration_ms=*/1000, {/*answers_before_end=*/0, /*bytes_read_step=*/0, false});
  Advance(1000 + kDeadlineMs + RecordCommand::kEndProgressCheckMs + 1000);
  ASSERT_EQ(exit_code_, kExitFailure);
  EXPECT_EQ(printed_,
            "ztrace: the tracing service did not end the session after its duration; giving up\n");
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
