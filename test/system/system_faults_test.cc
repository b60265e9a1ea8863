// Faults across processes: the daemon killed while it writes a trace file,
// and a file that can grow no more (RLIMIT_FSIZE, as a full disk). What was
// written stays a trace every reader takes; the failing session ends with a
// clear error and the daemon keeps serving everyone else.

#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "test/system/subprocess.h"
#include "test/system/system_mode_fixture.h"

namespace zt {
namespace test {
namespace {

constexpr char kFileConfig[] = R"(
buffers { size_kb: 8192 fill_policy: DISCARD }
data_sources { config { name: "zt.test.system" } }
duration_ms: 300000
write_into_file: true
file_write_period_ms: 100
)";

uint64_t FileSize(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// How a trace file ends: every top-level record whole, or the last one cut
// (a writer killed inside a write). |*whole_bytes| is where the whole
// records end.
enum class Ending { kWhole, kCutLastRecord, kGarbage };

Ending ScanRecords(const std::string& path, uint64_t* whole_bytes) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t p = 0;
  auto varint = [&](uint64_t* value) {
    *value = 0;
    for (int shift = 0; shift < 64 && p < bytes.size(); shift += 7) {
      const uint8_t b = static_cast<uint8_t>(bytes[p++]);
      *value |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  };
  while (p < bytes.size()) {
    *whole_bytes = p;
    uint64_t tag = 0, length = 0;
    if (!varint(&tag) || !varint(&length))
      return Ending::kCutLastRecord;
    if (tag != ((1u << 3) | 2))
      return Ending::kGarbage;  // Only TracePacket records are written.
    if (length > bytes.size() - p)
      return Ending::kCutLastRecord;
    p += length;
  }
  *whole_bytes = p;
  return Ending::kWhole;
}

// Per writer sequence, the gaps in its counters that no packet marks: a
// packet after a gap must carry previous_packet_dropped (the loss at the
// very end of a killed writer has no later packet; the stats count it).
struct Gaps {
  uint64_t marked = 0;
  uint64_t unmarked = 0;
  std::string first_unmarked;  // "seq S: C after L".
};

Gaps FindGaps(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<uint32_t, int64_t> last;  // seq -> last counter seen.
  Gaps gaps;
  protos::pbzero::Trace_Decoder trace(bytes);
  for (auto it = trace.packet(); it; ++it) {
    protos::pbzero::TracePacket_Decoder packet((*it).data, (*it).size);
    if (!packet.has_for_testing())
      continue;
    protos::pbzero::TestEvent_Decoder event(packet.for_testing());
    const uint32_t seq = event.seq_value();
    const int64_t counter = static_cast<int64_t>(event.counter());
    auto found = last.find(seq);
    const int64_t expected = found == last.end() ? 0 : found->second + 1;
    if (counter != expected) {
      if (packet.previous_packet_dropped()) {
        gaps.marked++;
      } else if (gaps.unmarked++ == 0) {
        gaps.first_unmarked = "seq " + std::to_string(seq) + ": " + std::to_string(counter) +
                              " after " + std::to_string(expected - 1);
      }
    }
    last[seq] = counter;
  }
  return gaps;
}

class SystemFaultsTest : public SystemModeTest {
 protected:
  void UseFileConfig() { std::ofstream(config_) << kFileConfig; }
};

// The daemon dies while it writes the file (SIGKILL): the file holds whole
// packets, none torn or twice (at most the very last one cut short by the
// kill), `ztrace record` says the trace is incomplete, and a new daemon
// serves the same sockets.
TEST_F(SystemFaultsTest, ADaemonKilledWhileWritingAFileLeavesAReadableTrace) {
  UseFileConfig();
  StartDaemon();
  const std::string out = dir_ + "/trace.pftrace";
  StartRecording(out);
  Subprocess* producer = StartProducer(1, 2, 0, /*forever=*/true);
  ASSERT_TRUE(producer->WaitForLine("writing", kProcessTimeoutMs)) << producer->ReadAllStderr();
  ASSERT_TRUE(base::WaitFor([&] { return FileSize(out) > (512u << 10); }, kProcessTimeoutMs))
      << "the service wrote " << FileSize(out) << " bytes; its stderr:\n"
      << daemon_->ReadAllStderr();
  ASSERT_TRUE(daemon_->Signal(SIGKILL));
  ASSERT_TRUE(daemon_->WaitExit(kProcessTimeoutMs, nullptr));

  int status = -1;
  ASSERT_TRUE(recorder_->WaitExit(kProcessTimeoutMs, &status)) << recorder_->ReadAllStderr();
  EXPECT_EQ(status, 1);
  EXPECT_NE(recorder_->ReadAllStderr().find("is incomplete"), std::string::npos)
      << recorder_->ReadAllStderr();

  uint64_t whole = 0;
  const Ending ending = ScanRecords(out, &whole);
  EXPECT_NE(ending, Ending::kGarbage);
  const Recorded r = ReadTrace(out);
  EXPECT_GT(r.packets, 1000u);
  EXPECT_EQ(r.corrupt, 0u);
  EXPECT_EQ(r.duplicates, 0u);

  StartDaemon();  // Takes over the dead one's socket files.
  EXPECT_TRUE(CanConnect(consumer_socket_));
}

// The file reaches the size limit the daemon runs under (RLIMIT_FSIZE: the
// write fails with EFBIG, as ENOSPC on a full disk): that session ends with
// the error, its file holds whole packets only, and the daemon (which
// ignores SIGXFSZ: it used to be killed by it) serves the next session.
TEST_F(SystemFaultsTest, AFileThatCannotGrowEndsOnlyItsSession) {
  constexpr rlim_t kLimit = (4u << 20) + 12345;  // Past whole 1 MiB pieces: one is cut.
  UseFileConfig();
  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit small = saved;
  small.rlim_cur = kLimit;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  StartDaemon();  // Inherits the limit.
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);

  const std::string out = dir_ + "/trace.pftrace";
  StartRecording(out);
  StartProducer(1, 2, 0, /*forever=*/true);
  int status = -1;
  ASSERT_TRUE(recorder_->WaitExit(kProcessTimeoutMs, &status))
      << "the session did not end at the limit; ztraced's stderr:\n"
      << daemon_->ReadAllStderr();
  EXPECT_EQ(status, 1);
  EXPECT_NE(recorder_->ReadAllStderr().find("File too large"), std::string::npos)
      << recorder_->ReadAllStderr();
  EXPECT_LE(FileSize(out), kLimit);
  uint64_t whole = 0;
  EXPECT_EQ(ScanRecords(out, &whole), Ending::kWhole)
      << "the file ends inside a packet, at byte " << whole << " of " << FileSize(out);
  const Recorded r = ReadTrace(out);
  EXPECT_GT(r.packets, 0u);
  EXPECT_EQ(r.corrupt, 0u);

  // The daemon lives on: a one-second session that ztrace writes itself
  // runs to its end.
  ASSERT_TRUE(CanConnect(consumer_socket_)) << daemon_->ReadAllStderr();
  std::ofstream(config_) << "buffers { size_kb: 4096 }\n"
                            "data_sources { config { name: \"zt.test.system\" } }\n"
                            "duration_ms: 1000\n";
  const std::string second = dir_ + "/second.pftrace";
  StartRecording(second);
  ASSERT_TRUE(recorder_->WaitExit(kProcessTimeoutMs, &status)) << recorder_->ReadAllStderr();
  EXPECT_EQ(status, 0) << recorder_->ReadAllStderr();
  const Recorded again = ReadTrace(second);
  EXPECT_GT(again.packets, 0u);
  EXPECT_EQ(again.corrupt, 0u);
}

// A producer killed at a random instant while it writes, again and again
// (ZT_FAULT_RUNS runs; 5 by default, tools/faults runs 200): its packets
// that reach the trace are whole and once each, every gap in its
// sequences is marked, and the other producer loses nothing. The seed is
// printed: ZT_FAULT_SEED=S replays a run's timings.
TEST_F(SystemFaultsTest, ProducersKilledAtRandomInstantsNeverTearAPacket) {
  const char* runs_env = getenv("ZT_FAULT_RUNS");
  const int runs = runs_env ? atoi(runs_env) : 5;
  const char* seed_env = getenv("ZT_FAULT_SEED");
  const uint64_t seed = seed_env ? strtoull(seed_env, nullptr, 10)
                                 : static_cast<uint64_t>(
                                       std::chrono::steady_clock::now().time_since_epoch().count());
  printf("ZT_FAULT_SEED=%llu, %d runs\n", static_cast<unsigned long long>(seed), runs);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> delay_us(0, 30000);
  constexpr uint32_t kThreads = 2, kPackets = 3000;
  StartDaemon();
  uint64_t victim_packets = 0, marked = 0;
  for (int run = 0; run < runs; run++) {
    SCOPED_TRACE("run " + std::to_string(run) + " of seed " + std::to_string(seed));
    const std::string out = dir_ + "/run.pftrace";
    StartRecording(out);
    Subprocess* victim = StartProducer(9, kThreads, 0, /*forever=*/true);
    Subprocess* steady = StartProducer(1, kThreads, kPackets);
    ASSERT_TRUE(victim->WaitForLine("writing", kProcessTimeoutMs)) << victim->ReadAllStderr();
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));  // The instant.
    ASSERT_TRUE(victim->Signal(SIGKILL));
    ASSERT_TRUE(victim->WaitExit(kProcessTimeoutMs, nullptr));
    ASSERT_TRUE(steady->WaitForLine("done 1", kProcessTimeoutMs)) << steady->ReadAllStderr();
    StopRecording();
    const Recorded r = ReadTrace(out);
    ExpectExact(r, 1, kThreads, kPackets);
    EXPECT_EQ(r.corrupt, 0u);
    EXPECT_EQ(r.duplicates, 0u);
    const Gaps gaps = FindGaps(out);
    EXPECT_EQ(gaps.unmarked, 0u) << "an unmarked gap: " << gaps.first_unmarked;
    for (uint32_t t = 0; t < kThreads; t++)
      victim_packets += r.counters.count(9 * 16 + t) ? r.counters.at(9 * 16 + t).size() : 0;
    marked += gaps.marked;
    producers_.clear();  // The steady one has exited; the victim is reaped.
    if (HasFatalFailure() || HasFailure())
      break;
  }
  printf("%d kills: %llu of the victims' packets kept, %llu marked gaps\n", runs,
         static_cast<unsigned long long>(victim_packets), static_cast<unsigned long long>(marked));
}

}  // namespace
}  // namespace test
}  // namespace zt
