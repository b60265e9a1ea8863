#include "src/cmd/ztrace/stats_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/cmd/ztrace/exit_codes.h"

namespace zt {
namespace ztrace {
namespace {

const std::string kFixture =
    std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";

struct CommandRun {
  int code;
  std::string out;
  std::string err;
};

CommandRun RunWith(const std::vector<std::string>& args) {
  FILE* out = tmpfile();
  FILE* err = tmpfile();
  CommandRun run{RunStats(args, out, err), "", ""};
  for (auto [file, text] : {std::pair<FILE*, std::string*>{out, &run.out}, {err, &run.err}}) {
    rewind(file);
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0)
      text->append(buffer, n);
    fclose(file);
  }
  return run;
}

// A Templight trace: the costliest templates, instantiations and files; a
// cut one says where, and --strict fails on it.
TEST(StatsCommandTest, SummarizesATemplightTrace) {
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/templight/tiny.memory.trace.pbf";
  const CommandRun run = RunWith({trace, "--top", "2"});
  EXPECT_EQ(run.code, kExitOk) << run.err;
  for (const char* line :
       {"a Templight trace, 1.4 KiB", "templight  1 translation unit, 10 instantiations",
        "top templates by time", "top instantiations by memory", "top files by time",
        "  std::operator<<      "}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << "\n" << run.out;
  }

  std::ifstream in(trace, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut_path = testing::TempDir() + "/cut.trace.pbf";
  std::ofstream(cut_path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const CommandRun cut = RunWith({cut_path, "--strict"});
  EXPECT_EQ(cut.code, kExitFailure) << cut.out;
  EXPECT_NE(cut.out.find("templight_problems"), std::string::npos) << cut.out;
  EXPECT_NE(cut.out.find("it is cut, its last entries are lost"), std::string::npos) << cut.out;
  unlink(cut_path.c_str());
}

// Templight users find their input, the lists and the SQL tables in the
// help (before: one line, no tables, "--top N slices to list").
TEST(StatsCommandTest, HelpSaysWhatATemplightTraceGets) {
  const std::string usage = StatsUsage();
  EXPECT_NE(usage.find("a Templight trace of clang's template instantiations"), std::string::npos);
  EXPECT_NE(usage.find("every kind of instantiation"), std::string::npos);
  EXPECT_NE(usage.find("templight_instantiation and templight_unit"), std::string::npos)
      << usage;
  EXPECT_NE(usage.find("--top N     rows per list"), std::string::npos);
}

// A build's traces together: templates summed over the units, each with
// the units it appears in; a trace that is not Templight's is named and
// left out.
TEST(StatsCommandTest, SummarizesABuildOfTemplightTraces) {
  const std::string dir = std::string(ZT_TEST_DATA_DIR) + "/templight/";
  const CommandRun run = RunWith({dir + "tiny.memory.trace.pbf", dir + "two_traces_concat.trace.pbf",
                                  dir + "kind23_clang16.trace.pbf",
                                  std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace"});
  EXPECT_EQ(run.code, kExitOk) << run.err;
  EXPECT_NE(run.out.find("build      3 Templight traces, 4 translation units, "), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("top templates across the build by total time"), std::string::npos);
  EXPECT_NE(run.out.find("top templates across the build by count"), std::string::npos);
  EXPECT_NE(run.out.find("      in /src/app/main.cpp"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("inprocess_small.pftrace is not a Templight trace"), std::string::npos)
      << run.err;
  // A quoted pattern with ** is expanded here.
  const CommandRun pattern = RunWith({std::string(ZT_TEST_DATA_DIR) + "/**/tiny*.trace.pbf",
                                      dir + "kind23_clang16.trace.pbf"});
  EXPECT_EQ(pattern.code, kExitOk) << pattern.err;
  EXPECT_NE(pattern.out.find("build      2 Templight traces"), std::string::npos) << pattern.out;
  EXPECT_EQ(RunWith({dir + "*.nothing"}).code, kExitFailure);
}

TEST(StatsCommandTest, SummarizesTheUpstreamFixture) {
  const CommandRun run = RunWith({kFixture, "--top", "3"});
  EXPECT_EQ(run.code, kExitOk) << run.err;
  // The file's size (32,526 bytes), not its packets' bytes (29.7 KiB).
  EXPECT_NE(run.out.find("inprocess_small.pftrace: 31.8 KiB, 1054 packets"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("405 slices, 90 instants, 90 counter values, 45 flows"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("data loss  none"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("problems   none"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  Outer "), std::string::npos) << run.out;  // The top slice.
  EXPECT_EQ(run.err, "");
}

TEST(StatsCommandTest, ACutTraceSaysWhereAndStrictFails) {
  std::ifstream in(kFixture, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  char path[] = "/tmp/zt_stats_cut_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const size_t cut = bytes.size() - 100;
  ASSERT_EQ(write(fd, bytes.data(), cut), static_cast<ssize_t>(cut));
  close(fd);
  CommandRun run = RunWith({path});
  EXPECT_EQ(run.code, kExitOk);
  EXPECT_NE(run.out.find("the file is damaged at byte"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("trace_damage_bytes_skipped"), std::string::npos) << run.out;
  run = RunWith({"--strict", path});
  EXPECT_EQ(run.code, kExitFailure);
  unlink(path);
}

// A ring that wrapped leaves no loss mark in the trace, only its stats:
// chunks overwritten, and packets whose sequence's start (its interned
// data) went with them. Both are reported as what they are, and --strict
// fails on them.
TEST(StatsCommandTest, AWrappedRingIsReportedAndStrictFails) {
  // Packet 1: trusted_packet_sequence_id 1, trace_stats { buffer_stats {
  // chunks_overwritten: 231448 } }. Packet 2: sequence 2, sequence_flags
  // SEQ_NEEDS_INCREMENTAL_STATE, timestamp 100, an empty track_event: its
  // sequence never had that state in the trace.
  const uint8_t stats_packet[] = {0x50, 0x01, 0x9a, 0x02, 0x06, 0x0a,
                                  0x04, 0x18, 0x98, 0x90, 0x0e};
  const uint8_t event_packet[] = {0x50, 0x02, 0x68, 0x02, 0x40, 0x64, 0x5a, 0x00};
  std::string bytes;
  for (auto packet : {std::string(reinterpret_cast<const char*>(stats_packet),
                                  sizeof(stats_packet)),
                      std::string(reinterpret_cast<const char*>(event_packet),
                                  sizeof(event_packet))}) {
    bytes += '\x0a';
    bytes += static_cast<char>(packet.size());
    bytes += packet;
  }
  const std::string path = testing::TempDir() + "/zt_stats_wrapped.pftrace";
  std::ofstream(path, std::ios::binary) << bytes;
  CommandRun run = RunWith({path});
  EXPECT_EQ(run.code, kExitOk) << run.err;
  EXPECT_NE(run.out.find("overwritten buffer 0: 231448 chunks overwritten unread"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("skipped    1 packets not imported"), std::string::npos) << run.out;
  run = RunWith({"--strict", path});
  EXPECT_EQ(run.code, kExitFailure) << run.out;
  // The rule is in --help.
  EXPECT_NE(RunWith({"--help"}).out.find("ring wrapped and overwrote chunks"), std::string::npos);
  unlink(path.c_str());
}

TEST(StatsCommandTest, UsageErrorsAndUnreadableFiles) {
  EXPECT_EQ(RunWith({}).code, kExitUsage);
  EXPECT_EQ(RunWith({"--top"}).code, kExitUsage);
  EXPECT_EQ(RunWith({"--frobnicate", kFixture}).code, kExitUsage);
  // Several traces are a build summary, of Templight traces only.
  const CommandRun two = RunWith({kFixture, kFixture});
  EXPECT_EQ(two.code, kExitFailure);
  EXPECT_NE(two.err.find("none of the 2 traces is a Templight trace"), std::string::npos) << two.err;
  const CommandRun help = RunWith({"--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_NE(help.out.find("Usage: ztrace stats"), std::string::npos);
  const CommandRun missing = RunWith({"/nonexistent/x.pftrace"});
  EXPECT_EQ(missing.code, kExitFailure);
  EXPECT_NE(missing.err.find("/nonexistent/x.pftrace"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
