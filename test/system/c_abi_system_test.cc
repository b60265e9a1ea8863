// The C ABI through ztraced: examples/c/custom_data_source.c, a plain C
// program linked to libzerotrace_c.so, registers its data source with a
// private ztraced, and `ztrace record` records the packets it writes once
// the session starts: every one, whole, in the file.

#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "test/system/subprocess.h"
#include "test/system/system_mode_fixture.h"
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
  std::unique_ptr<Subprocess> app_;
};

TEST_F(CAbiSystemTest, CDataSourceIsRecordedByZtrace) {
  StartDaemon();
  app_ = Subprocess::Start({ZT_C_EXAMPLE_BIN, "--system", std::to_string(kPackets)}, Env());
  ASSERT_TRUE(app_);
  ASSERT_TRUE(app_->WaitForLine("registered", kProcessTimeoutMs)) << Stderrs();
  const std::string out = dir_ + "/trace.pftrace";
  StartRecording(out);
  ASSERT_TRUE(app_->WaitForLine("done", kProcessTimeoutMs)) << Stderrs();
  StopRecording();
  int status = -1;
  ASSERT_TRUE(app_->WaitExit(kProcessTimeoutMs, &status))
      << "the C program did not see its data source stop" << Stderrs();
  EXPECT_EQ(status, 0) << Stderrs();

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

}  // namespace
}  // namespace test
}  // namespace zt
