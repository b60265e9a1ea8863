// A program written against Perfetto's SDK API through zt/perfetto_compat.h
// (perfetto_compat_system_app.cc) traces into a private ztraced and
// `ztrace record` records it: its session observer hears setup, start and
// stop of the daemon's session, its slices and counters are in the file,
// with the process name it set through a track descriptor, and
// enable_system_consumer = false keeps it from starting sessions itself.

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "test/system/subprocess.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/process_descriptor.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"

namespace zt {
namespace test {
namespace {

constexpr uint32_t kProcessTimeoutMs = 60000;  // A loaded 2-core machine.
constexpr int kEvents = 25;

constexpr char kConfig[] = R"(
buffers { size_kb: 4096 fill_policy: DISCARD }
data_sources { config { name: "track_event" } }
duration_ms: 300000
)";

// What the app's sequence wrote, as a reader resolves it.
struct AppEvents {
  std::map<std::string, int> slice_begins;  // By interned name.
  int slice_ends = 0;
  int counter_values = 0;
  std::vector<std::string> process_names;
};

AppEvents ReadAppEvents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string trace_bytes = bytes.str();
  AppEvents events;
  std::map<uint64_t, std::string> names;  // One sequence writes events here.
  protos::pbzero::Trace_Decoder trace(trace_bytes);
  for (auto it = trace.packet(); it; ++it) {
    protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
    if (packet.has_interned_data()) {
      protos::pbzero::InternedData_Decoder interned(packet.interned_data());
      for (auto n = interned.event_names(); n; ++n) {
        protos::pbzero::EventName_Decoder name(*n);
        names[name.iid()] = std::string(name.name());
      }
    }
    if (packet.has_track_descriptor()) {
      protos::pbzero::TrackDescriptor_Decoder track(packet.track_descriptor());
      if (track.has_process()) {
        protos::pbzero::ProcessDescriptor_Decoder process(track.process());
        events.process_names.push_back(std::string(process.process_name()));
      }
    }
    if (packet.has_track_event()) {
      protos::pbzero::TrackEvent_Decoder event(packet.track_event());
      switch (event.type()) {
        case protos::pbzero::TrackEvent::TYPE_SLICE_BEGIN:
          events.slice_begins[names[event.name_iid()]]++;
          break;
        case protos::pbzero::TrackEvent::TYPE_SLICE_END:
          events.slice_ends++;
          break;
        case protos::pbzero::TrackEvent::TYPE_COUNTER:
          events.counter_values++;
          break;
        default:
          break;
      }
    }
  }
  return events;
}

class PerfettoCompatSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/zt_compat_system_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr) << strerror(errno);
    dir_ = dir;
    config_ = dir_ + "/config.pbtxt";
    std::ofstream(config_) << kConfig;
  }
  void TearDown() override {
    app_.reset();  // Subprocess destructors kill whatever still runs.
    recorder_.reset();
    daemon_.reset();
    const std::string cmd = "rm -rf '" + dir_ + "'";
    if (system(cmd.c_str()) != 0)
      fprintf(stderr, "could not remove %s\n", dir_.c_str());
  }
  std::vector<std::string> Env() const {
    return {"PERFETTO_PRODUCER_SOCK_NAME=" + dir_ + "/producer.sock",
            "PERFETTO_CONSUMER_SOCK_NAME=" + dir_ + "/consumer.sock"};
  }
  std::string Stderrs() const {
    std::string all;
    if (app_)
      all += "\napp's stderr:\n" + app_->ReadAllStderr();
    if (recorder_)
      all += "\nztrace record's stderr:\n" + recorder_->ReadAllStderr();
    if (daemon_)
      all += "\nztraced's stderr:\n" + daemon_->ReadAllStderr();
    return all;
  }

  std::string dir_, config_;
  std::unique_ptr<Subprocess> daemon_, recorder_, app_;
};

TEST_F(PerfettoCompatSystemTest, PerfettoStyleProgramIsRecordedByZtrace) {
  daemon_ = Subprocess::Start({ZT_ZTRACED_BIN}, Env());
  ASSERT_TRUE(daemon_);
  ASSERT_TRUE(base::WaitFor([&] { return CanConnect(dir_ + "/consumer.sock") &&
                                         CanConnect(dir_ + "/producer.sock"); },
                            kProcessTimeoutMs))
      << "ztraced never served its sockets" << Stderrs();

  app_ = Subprocess::Start({ZT_COMPAT_APP_BIN, "--events", std::to_string(kEvents)}, Env());
  ASSERT_TRUE(app_);
  ASSERT_TRUE(app_->WaitForLine("consumer refused", kProcessTimeoutMs))
      << "enable_system_consumer = false did not keep NewTrace() off the daemon" << Stderrs();
  // The session starts only once the observer is in place: observers hear
  // from the sessions that start after they are added (a session started
  // before would never reach it, and the app would wait for nothing).
  ASSERT_TRUE(app_->WaitForLine("waiting", kProcessTimeoutMs)) << Stderrs();
  const std::string out = dir_ + "/trace.pftrace";
  recorder_ = Subprocess::Start({ZT_ZTRACE_BIN, "record", "-c", config_, "--txt", "-o", out},
                                Env());
  ASSERT_TRUE(recorder_);
  ASSERT_TRUE(app_->WaitForLine("started", kProcessTimeoutMs))
      << "the observer never heard OnSetup then OnStart" << Stderrs();
  ASSERT_TRUE(app_->WaitForLine("done", kProcessTimeoutMs)) << Stderrs();

  // Ctrl-C: ztrace flushes, stops the session and writes the file.
  ASSERT_TRUE(recorder_->Signal(SIGINT));
  int status = -1;
  ASSERT_TRUE(recorder_->WaitExit(kProcessTimeoutMs, &status)) << Stderrs();
  EXPECT_EQ(status, 0) << Stderrs();
  ASSERT_TRUE(app_->WaitForLine("stopped", kProcessTimeoutMs))
      << "the observer never heard OnStop" << Stderrs();
  ASSERT_TRUE(app_->WaitExit(kProcessTimeoutMs, &status)) << Stderrs();
  EXPECT_EQ(status, 0) << Stderrs();

  const AppEvents events = ReadAppEvents(out);
  EXPECT_EQ(events.slice_begins, (std::map<std::string, int>{{"Step", kEvents}}));
  EXPECT_EQ(events.slice_ends, kEvents);
  EXPECT_EQ(events.counter_values, kEvents);
  ASSERT_FALSE(events.process_names.empty()) << "no process descriptor";
  for (const std::string& name : events.process_names)
    EXPECT_EQ(name, "compat-system-app");
}

}  // namespace
}  // namespace test
}  // namespace zt
