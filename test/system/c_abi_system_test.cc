// The C ABI through ztraced: examples/c/custom_data_source.c, a plain C
// program linked to libzerotrace_c.so, registers its data source with a
// private ztraced, and `ztrace record` records the packets it writes once
// the session starts: every one, whole, in the file.

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "test/system/subprocess.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace test {
namespace {

constexpr uint32_t kProcessTimeoutMs = 60000;  // A loaded 2-core machine.
constexpr int kPackets = 500;
constexpr char kConfig[] = R"(
buffers { size_kb: 4096 fill_policy: DISCARD }
data_sources { config { name: "com.example.c_counter" } }
duration_ms: 300000
)";

class CAbiSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/zt_c_abi_system_XXXXXX";
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
      all += "\nthe C program's stderr:\n" + app_->ReadAllStderr();
    if (recorder_)
      all += "\nztrace record's stderr:\n" + recorder_->ReadAllStderr();
    if (daemon_)
      all += "\nztraced's stderr:\n" + daemon_->ReadAllStderr();
    return all;
  }
  std::string dir_, config_;
  std::unique_ptr<Subprocess> daemon_, recorder_, app_;
};

TEST_F(CAbiSystemTest, CDataSourceIsRecordedByZtrace) {
  daemon_ = Subprocess::Start({ZT_ZTRACED_BIN}, Env());
  ASSERT_TRUE(daemon_);
  ASSERT_TRUE(base::WaitFor([&] { return CanConnect(dir_ + "/consumer.sock") &&
                                         CanConnect(dir_ + "/producer.sock"); },
                            kProcessTimeoutMs))
      << "ztraced never served its sockets" << Stderrs();
  app_ = Subprocess::Start({ZT_C_EXAMPLE_BIN, "--system", std::to_string(kPackets)}, Env());
  ASSERT_TRUE(app_);
  ASSERT_TRUE(app_->WaitForLine("registered", kProcessTimeoutMs)) << Stderrs();
  const std::string out = dir_ + "/trace.pftrace";
  recorder_ = Subprocess::Start({ZT_ZTRACE_BIN, "record", "-c", config_, "--txt", "-o", out},
                                Env());
  ASSERT_TRUE(recorder_);
  ASSERT_TRUE(app_->WaitForLine("done", kProcessTimeoutMs)) << Stderrs();
  // Ctrl-C: ztrace flushes, stops the session and writes the file.
  ASSERT_TRUE(recorder_->Signal(SIGINT));
  int status = -1;
  ASSERT_TRUE(recorder_->WaitExit(kProcessTimeoutMs, &status)) << Stderrs();
  EXPECT_EQ(status, 0) << Stderrs();
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
