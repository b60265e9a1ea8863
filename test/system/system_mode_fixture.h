// The system-mode tests' fixture: a private ztraced, `ztrace record` and
// system_test_producer processes in a temporary folder, and a reader of
// what the test data source recorded (test/system/system_mode_test.cc,
// system_faults_test.cc).

#ifndef ZT_TEST_SYSTEM_SYSTEM_MODE_FIXTURE_H_
#define ZT_TEST_SYSTEM_SYSTEM_MODE_FIXTURE_H_

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "test/system/subprocess.h"
#include "test/system/system_test_payload.h"
#include "zt/common/trace_stats.pbzero.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace test {

// Long enough for a loaded 2-core machine running sanitizers.
inline constexpr uint32_t kProcessTimeoutMs = 60000;

inline constexpr char kConfig[] = R"(
buffers { size_kb: 32768 fill_policy: DISCARD }
data_sources { config { name: "zt.test.system" } }
duration_ms: 300000
)";

// What a trace file holds of the test data source, per writer sequence.
struct Recorded {
  std::map<uint32_t, std::set<uint32_t>> counters;  // seq_value -> counters
  uint64_t packets = 0;
  uint64_t duplicates = 0;
  uint64_t corrupt = 0;  // A payload that does not match its seq/counter.
  uint64_t previous_packet_dropped = 0;
  bool have_stats = false;
  uint64_t chunks_discarded = 0;
  uint64_t trace_writer_packet_loss = 0;
  uint64_t abi_violations = 0;
  uint32_t producers_seen = 0;
};

inline Recorded ReadTrace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  Recorded r;
  protos::pbzero::Trace_Decoder trace(bytes);
  for (auto it = trace.packet(); it; ++it) {
    protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
    r.previous_packet_dropped += packet.previous_packet_dropped();
    if (packet.has_trace_stats()) {
      protos::pbzero::TraceStats_Decoder stats(packet.trace_stats());
      r.have_stats = true;
      r.chunks_discarded = stats.chunks_discarded();
      r.producers_seen = static_cast<uint32_t>(stats.producers_seen());
      r.trace_writer_packet_loss = 0;
      r.abi_violations = 0;
      for (auto b = stats.buffer_stats(); b; ++b) {
        protos::pbzero::TraceStats_BufferStats_Decoder buffer(*b);
        r.trace_writer_packet_loss += buffer.trace_writer_packet_loss();
        r.abi_violations += buffer.abi_violations();
      }
    }
    if (!packet.has_for_testing())
      continue;
    protos::pbzero::TestEvent_Decoder event(packet.for_testing());
    const uint32_t seq = event.seq_value();
    const uint32_t counter = static_cast<uint32_t>(event.counter());
    r.packets++;
    if (std::string(event.str()) != SystemTestPayload(seq, counter))
      r.corrupt++;
    if (!r.counters[seq].insert(counter).second)
      r.duplicates++;
  }
  return r;
}

class SystemModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/zt_system_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr) << strerror(errno);
    dir_ = dir;
    producer_socket_ = dir_ + "/producer.sock";
    consumer_socket_ = dir_ + "/consumer.sock";
    config_ = dir_ + "/config.pbtxt";
    std::ofstream(config_) << kConfig;
  }
  void TearDown() override {
    // Subprocess destructors kill whatever still runs.
    producers_.clear();
    recorder_.reset();
    daemon_.reset();
    std::string cmd = "rm -rf '" + dir_ + "'";
    if (system(cmd.c_str()) != 0)
      fprintf(stderr, "could not remove %s\n", dir_.c_str());
  }

  std::vector<std::string> Env() const {
    return {"PERFETTO_PRODUCER_SOCK_NAME=" + producer_socket_,
            "PERFETTO_CONSUMER_SOCK_NAME=" + consumer_socket_};
  }

  void StartDaemon() {
    daemon_ = Subprocess::Start({ZT_ZTRACED_BIN}, Env());
    ASSERT_TRUE(daemon_);
    ASSERT_TRUE(base::WaitFor([&] { return CanConnect(consumer_socket_) &&
                                           CanConnect(producer_socket_); },
                              kProcessTimeoutMs))
        << "ztraced never served its sockets; its stderr:\n" << daemon_->ReadAllStderr();
  }

  void StartRecording(const std::string& out) {
    recorder_ = Subprocess::Start(
        {ZT_ZTRACE_BIN, "record", "-c", config_, "--txt", "-o", out}, Env());
    ASSERT_TRUE(recorder_);
  }

  // Ctrl-C: ztrace flushes, stops the session, reads it and writes the file.
  void StopRecording() {
    ASSERT_TRUE(recorder_->Signal(SIGINT));
    int status = -1;
    ASSERT_TRUE(recorder_->WaitExit(kProcessTimeoutMs, &status))
        << "ztrace record did not finish; its stderr:\n" << recorder_->ReadAllStderr();
    EXPECT_EQ(status, 0) << "ztrace record failed; its stderr:\n" << recorder_->ReadAllStderr();
  }

  Subprocess* StartProducer(uint32_t id, uint32_t threads, uint32_t packets,
                            bool forever = false) {
    std::vector<std::string> argv = {ZT_PRODUCER_BIN, "--id", std::to_string(id), "--threads",
                                     std::to_string(threads), "--packets",
                                     std::to_string(packets)};
    if (forever)
      argv.push_back("--forever");
    producers_.push_back(Subprocess::Start(argv, Env()));
    return producers_.back().get();
  }

  void ExpectExact(const Recorded& r, uint32_t id, uint32_t threads, uint32_t packets) {
    for (uint32_t t = 0; t < threads; t++) {
      const auto it = r.counters.find(id * 16 + t);
      ASSERT_NE(it, r.counters.end()) << "nothing from producer " << id << " thread " << t;
      EXPECT_EQ(it->second.size(), packets) << "producer " << id << " thread " << t;
      if (!it->second.empty()) {
        EXPECT_EQ(*it->second.begin(), 0u);
        EXPECT_EQ(*it->second.rbegin(), packets - 1);
      }
    }
  }

  std::string dir_, producer_socket_, consumer_socket_, config_;
  std::unique_ptr<Subprocess> daemon_, recorder_;
  std::vector<std::unique_ptr<Subprocess>> producers_;
};

}  // namespace test
}  // namespace zt

#endif  // ZT_TEST_SYSTEM_SYSTEM_MODE_FIXTURE_H_
