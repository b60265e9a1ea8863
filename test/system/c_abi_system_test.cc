// The C ABI through ztraced: examples/c/custom_data_source.c and
// examples/c/track_events.c, plain C programs linked to libzerotrace_c.so,
// register their data sources with a private ztraced, and `ztrace record`
// records what they write once the session starts: every packet, whole,
// and every track event, as the processor reads them.

#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/system/subprocess.h"
#include "test/system/system_mode_fixture.h"
#include "zt/processor/trace_processor.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace test {
namespace {

constexpr int kPackets = 500;

// The system-mode fixture (a private ztraced, ztrace record), recording the
// C example's data source instead of the test producer's.
class CAbiSystemTest : public SystemModeTest {
 protected:
  void SetUp() override {
    SystemModeTest::SetUp();
    std::ofstream(config_) << R"(
buffers { size_kb: 4096 fill_policy: DISCARD }
data_sources { config { name: "com.example.c_counter" } }
duration_ms: 300000
)";
  }
  void TearDown() override {
    app_.reset();  // Its destructor kills it if it still runs.
    SystemModeTest::TearDown();
  }
  std::string Stderrs() const {
    std::string all;
    if (app_)
      all += "\nthe C program's stderr:\n" + app_->ReadAllStderr();
    if (recorder_)
      all += "\nztrace record's stderr:\n" + recorder_->ReadAllStderr();
    if (daemon_)
      all += "\nztraced's stderr:\n" + daemon_->ReadAllStderr();
    return all;
  }
  // Runs |argv| (a program in its --system mode) against the daemon,
  // records from its "registered" line to its "done" line into |out|, and
  // checks that it then ends on its own (it waits for its data source to
  // stop), status 0.
  void RecordApp(const std::vector<std::string>& argv, const std::string& out) {
    StartDaemon();
    app_ = Subprocess::Start(argv, Env());
    ASSERT_TRUE(app_);
    ASSERT_TRUE(app_->WaitForLine("registered", kProcessTimeoutMs)) << Stderrs();
    StartRecording(out);
    ASSERT_TRUE(app_->WaitForLine("done", kProcessTimeoutMs)) << Stderrs();
    StopRecording();
    int status = -1;
    ASSERT_TRUE(app_->WaitExit(kProcessTimeoutMs, &status))
        << "the C program did not see its data source stop" << Stderrs();
    EXPECT_EQ(status, 0) << Stderrs();
  }
  std::unique_ptr<Subprocess> app_;
};

TEST_F(CAbiSystemTest, CDataSourceIsRecordedByZtrace) {
  const std::string out = dir_ + "/trace.pftrace";
  ASSERT_NO_FATAL_FAILURE(
      RecordApp({ZT_C_EXAMPLE_BIN, "--system", std::to_string(kPackets)}, out));

  std::ifstream in(out, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string trace_bytes = bytes.str();
  protos::pbzero::Trace_Decoder trace(trace_bytes);
  std::set<uint64_t> counters;
  int packets = 0;
  for (auto it = trace.packet(); it; ++it) {
    protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
    if (!packet.has_for_testing())
      continue;
    protos::pbzero::TestEvent_Decoder event(packet.for_testing());
    EXPECT_EQ(std::string(event.str()), "c packet");
    EXPECT_GT(packet.timestamp(), 0u);
    counters.insert(event.counter());
    packets++;
  }
  EXPECT_EQ(packets, kPackets) << Stderrs();
  EXPECT_EQ(counters.size(), static_cast<size_t>(kPackets));
}

// Track events from C: the categories the config names are on in the C
// program once the session starts; every frame's events are in the trace.
TEST_F(CAbiSystemTest, CTrackEventsAreRecordedByZtrace) {
  constexpr int kFrames = 50;
  std::ofstream(config_) << R"(
buffers { size_kb: 4096 fill_policy: DISCARD }
data_sources { config { name: "track_event" track_event_config { enabled_categories: "*" } } }
duration_ms: 300000
)";
  const std::string out = dir_ + "/trace.pftrace";
  ASSERT_NO_FATAL_FAILURE(
      RecordApp({ZT_C_TRACK_EVENTS_BIN, "--system", std::to_string(kFrames)}, out));

  std::string error;
  auto tp = processor::TraceProcessor::Open(out, {}, &error);
  ASSERT_TRUE(tp) << error;
  processor::QueryResult result = tp->Query(
      "SELECT category || ':' || name || '=' || n FROM (SELECT category, name, COUNT(*) AS n "
      "FROM slice GROUP BY category, name) ORDER BY 1");
  ASSERT_TRUE(result.ok()) << result.error;
  std::string rows;
  for (const auto& row : result.rows)
    rows += row[0].text + " ";
  EXPECT_EQ(rows,
            "app:Done (low-level ABI)=2 app:Flushed=2 app:Frame=100 app:Request=100 "
            "app:Result=100 io:Read=100 plugin.audio:Plugin loaded=100 ")
      << Stderrs();
  result = tp->Query(
      "SELECT COUNT(*) FROM flow f JOIN slice a ON f.slice_out = a.id "
      "JOIN slice b ON f.slice_in = b.id WHERE a.name = 'Request' AND b.name = 'Result'");
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.rows.at(0).at(0).int_value, 2 * kFrames);
  result = tp->Query("SELECT COUNT(*) FROM counter");
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.rows.at(0).at(0).int_value, 4 * kFrames);
}

// The C ABI from Python (ctypes), through ztraced: a data source's packets
// and track events, every one in the trace.
TEST_F(CAbiSystemTest, PythonRecordsThroughZtraced) {
#if defined(ZT_PYTHON3_BIN)
  std::ofstream(config_) << R"(
buffers { size_kb: 4096 fill_policy: DISCARD }
data_sources { config { name: "com.example.python" } }
data_sources { config { name: "track_event" track_event_config { enabled_categories: "python" } } }
duration_ms: 300000
)";
  const std::string out = dir_ + "/trace.pftrace";
  ASSERT_NO_FATAL_FAILURE(RecordApp({ZT_PYTHON3_BIN, ZT_PYTHON_EXAMPLE, "--lib", ZT_C_LIBRARY,
                                     "--system", "--packets", "300", "--slices", "200"},
                                    out));
  std::string error;
  auto tp = processor::TraceProcessor::Open(out, {}, &error);
  ASSERT_TRUE(tp) << error;
  processor::QueryResult result = tp->Query(
      "SELECT COUNT(*), SUM(EXTRACT_ARG(arg_set_id, 'debug.i')), MIN(dur) >= 0 FROM slice "
      "WHERE name = 'python slice' AND category = 'python'");
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.rows.at(0).at(0).int_value, 200) << Stderrs();
  EXPECT_EQ(result.rows.at(0).at(1).int_value, 199 * 200 / 2);
  EXPECT_EQ(result.rows.at(0).at(2).int_value, 1);
  std::ifstream in(out, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string trace_bytes = bytes.str();
  protos::pbzero::Trace_Decoder trace(trace_bytes);
  int packets = 0;
  for (auto it = trace.packet(); it; ++it)
    packets += protos::pbzero::TracePacket_Decoder((*it).data, (*it).size).has_for_testing();
  EXPECT_EQ(packets, 300) << Stderrs();
#else
  GTEST_SKIP() << "no python3 (or a sanitizer build: python3 does not load a sanitized library)";
#endif
}

}  // namespace
}  // namespace test
}  // namespace zt
