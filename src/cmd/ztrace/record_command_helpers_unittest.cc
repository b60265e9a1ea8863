// The helpers `ztrace record` and `ztrace clone` share (record_command.h):
// counting the packets of a ReadBuffers batch, naming each kind of loss a
// session's stats record with its unit, and opening the output file
// without emptying an existing one before a session starts.

#include "src/cmd/ztrace/record_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/cmd/ztrace/record_test_support.h"

namespace zt {
namespace ztrace {
namespace {

TEST(RecordCommandHelpersTest, CountTracePacketsCountsField1Only) {
  // Trace { packet: "ab" packet: "" } plus an unknown varint field 2.
  const uint8_t trace[] = {0x0a, 0x02, 'a', 'b', 0x0a, 0x00, 0x10, 0x05};
  EXPECT_EQ(CountTracePackets(trace, sizeof(trace)), 2u);
  EXPECT_EQ(CountTracePackets(trace, 0), 0u);
  // Cut inside the first packet: nothing complete.
  EXPECT_EQ(CountTracePackets(trace, 3), 0u);
}

TEST(RecordCommandHelpersTest, DescribeLossesNamesEachKind) {
  protos::gen::TraceStats stats;
  EXPECT_TRUE(DescribeLosses(stats).empty());
  stats.add_buffer_stats()->set_chunks_written(10);
  EXPECT_TRUE(DescribeLosses(stats).empty());
  // Service-wide counters (every session's since the service started) are
  // not this trace's losses: a busy daemon must not put them in every trace.
  stats.set_chunks_discarded(77);
  stats.set_patches_discarded(78);
  EXPECT_TRUE(DescribeLosses(stats).empty());
  auto* b = stats.add_buffer_stats();
  b->set_chunks_overwritten(3);
  b->set_chunks_discarded(4);
  b->set_trace_writer_packet_loss(5);
  b->set_writer_packets_dropped(4058);
  stats.set_invalid_packets(6);
  stats.set_flushes_failed(1);
  stats.set_final_flush_outcome(protos::gen::TraceStats_FinalFlushOutcome_FINAL_FLUSH_FAILED);
  const std::vector<std::string> lines = DescribeLosses(stats);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0].rfind("buffer 1: 3 chunks overwritten: the ring buffer wrapped", 0), 0u);
  EXPECT_EQ(lines[1].rfind("buffer 1: 4 chunks discarded: the buffer was full", 0), 0u);
  // Loss events, not packets: each mark stands for one or more packets.
  EXPECT_EQ(lines[2].rfind("buffer 1: 5 loss events in producers' writers (each one or more "
                           "packets, how many is not recorded",
                           0),
            0u)
      << lines[2];
  // Packets, counted by the writers that dropped them.
  EXPECT_EQ(lines[3].rfind("buffer 1: 4058 packets dropped by producers' writers", 0), 0u)
      << lines[3];
  EXPECT_EQ(lines[4], "6 packets invalid, dropped");
  EXPECT_EQ(lines[5].rfind("1 flushes not completed in time", 0), 0u);
  EXPECT_EQ(lines[6].rfind("the final flush failed", 0), 0u);
}

TEST(RecordCommandHelpersTest, OpenOutputCreatesKeepsOrRefuses) {
  OutputFile file;
  std::string error;
  int code = 0;
  {
    base::ScopedFile fd = file.Open();
    ASSERT_EQ(write(fd.get(), "old", 3), 3);
  }
  bool created = true;
  base::ScopedFile fd = OpenOutput(file.path(), /*no_clobber=*/false, &error, &code, &created);
  ASSERT_TRUE(fd) << error;
  EXPECT_FALSE(created);
  // Emptied only once a session starts (RecordCommand, truncate_on_start).
  EXPECT_EQ(file.Contents(), "old") << "truncated before the session started";
  struct stat st;
  EXPECT_FALSE(OpenOutput(file.path(), /*no_clobber=*/true, &error, &code));
  EXPECT_EQ(error, file.path() + " already exists (--no-clobber)");
  EXPECT_EQ(code, kExitFailure);

  const std::string fresh = file.path() + ".new";
  fd = OpenOutput(fresh, /*no_clobber=*/true, &error, &code, &created);
  ASSERT_TRUE(fd) << error;
  EXPECT_TRUE(created);
  ASSERT_EQ(fstat(fd.get(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u) << "traces are private: 0600";
  unlink(fresh.c_str());

  EXPECT_FALSE(OpenOutput("/nonexistent-dir/x", false, &error, &code));
  EXPECT_EQ(error, "cannot open /nonexistent-dir/x for writing: No such file or directory");
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
