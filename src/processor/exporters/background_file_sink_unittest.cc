#include "src/processor/exporters/background_file_sink.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/exporters/profile_output.h"

namespace zt {
namespace processor {
namespace {

// The bytes a stream holds, read back from its start.
std::string Contents(FILE* file) {
  std::string bytes;
  rewind(file);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, file)) > 0)
    bytes.append(chunk, n);
  return bytes;
}

TEST(BackgroundFileSinkTest, WritesEverythingInOrder) {
  FILE* file = tmpfile();
  ASSERT_NE(file, nullptr);
  std::string expected;
  {
    BackgroundFileSink sink(file);
    std::string error;
    // Many more buffers than the queue holds, of sizes that differ, some
    // taken whole and some copied, some empty.
    for (int i = 0; i < 2000; i++) {
      std::string piece(static_cast<size_t>(i % 97) * 31, static_cast<char>('a' + i % 26));
      piece += std::to_string(i) + "\n";
      expected += piece;
      if (i % 3 == 0) {
        ASSERT_TRUE(sink.Write(piece.data(), piece.size(), &error)) << error;
      } else {
        ASSERT_TRUE(sink.Take(&piece, &error)) << error;
        EXPECT_TRUE(piece.empty()) << "Take() leaves the buffer empty";
      }
      std::string nothing;
      ASSERT_TRUE(sink.Take(&nothing, &error));
    }
    ASSERT_TRUE(sink.Finish(&error)) << error;
  }
  EXPECT_EQ(Contents(file), expected);
  fclose(file);
}

TEST(BackgroundFileSinkTest, ThroughTheExportersBufferedOutput) {
  FILE* file = tmpfile();
  ASSERT_NE(file, nullptr);
  std::string expected;
  BackgroundFileSink sink(file);
  ProfileOutput out(&sink);
  for (int i = 0; i < 100000; i++) {
    const std::string line = "fn=(" + std::to_string(i) + ") name\n";
    expected += line;
    out.Append(line);  // Flushed (handed over whole) every 64 KiB.
  }
  ASSERT_TRUE(out.Finish()) << out.error();
  EXPECT_EQ(Contents(file), expected);
  fclose(file);
}

TEST(BackgroundFileSinkTest, AFailedWriteStopsTheExportWithItsReason) {
  FILE* full = fopen("/dev/full", "wb");
  if (full == nullptr)
    GTEST_SKIP() << "no /dev/full here";
  BackgroundFileSink sink(full);
  std::string error;
  bool refused = false;
  // The first failure shows in a later call (the thread writes behind the
  // exporter), at the latest in Finish().
  for (int i = 0; i < 64 && !refused; i++) {
    std::string buffer(64 << 10, 'x');
    refused = !sink.Take(&buffer, &error);
    EXPECT_TRUE(buffer.empty());
  }
  if (!refused)
    refused = !sink.Finish(&error);
  EXPECT_TRUE(refused);
  EXPECT_NE(error.find("No space left"), std::string::npos) << error;
  // Later calls keep failing with the same reason.
  std::string again;
  std::string more = "more";
  EXPECT_FALSE(sink.Take(&more, &again));
  EXPECT_EQ(again, error);
  EXPECT_FALSE(sink.Finish(&again));
  fclose(full);
}

TEST(BackgroundFileSinkTest, DestroyedWithoutFinishWritesWhatWasQueued) {
  FILE* file = tmpfile();
  ASSERT_NE(file, nullptr);
  {
    BackgroundFileSink sink(file);
    std::string error;
    std::string piece = "queued and then abandoned\n";
    ASSERT_TRUE(sink.Take(&piece, &error));
  }
  fflush(file);
  EXPECT_EQ(Contents(file), "queued and then abandoned\n");
  fclose(file);
}

}  // namespace
}  // namespace processor
}  // namespace zt
