#include "src/processor/importers/trace_format.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/test/gzip_for_testing.h"
#include "src/processor/test/templight_test_files.h"

namespace zt {
namespace processor {
namespace {

TraceFormat Guess(const std::string& bytes) {
  return GuessTraceFormat(bytes.data(), bytes.size());
}

std::string ReadTestFile(const std::string& name) {
  std::ifstream in(std::string(ZT_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(TraceFormatTest, TracesAreImportable) {
  const std::string perfetto = ReadTestFile("perfetto_v14/inprocess_small.pftrace");
  ASSERT_FALSE(perfetto.empty());
  EXPECT_EQ(Guess(perfetto), TraceFormat::kProto);
  // Cut inside its first packet, a trace is still one (the importer reads
  // it up to the damage).
  EXPECT_EQ(Guess(perfetto.substr(0, 100)), TraceFormat::kProto);
  EXPECT_EQ(Guess(ReadTemplightTestFile("tiny.memory.trace.pbf")), TraceFormat::kTemplight);
  EXPECT_EQ(Guess(ReadTemplightTestFile("two_traces_concat.trace.pbf")), TraceFormat::kTemplight);
  EXPECT_TRUE(IsImportable(TraceFormat::kProto));
  EXPECT_TRUE(IsImportable(TraceFormat::kTemplight));
  EXPECT_EQ(NotATraceError("t.pftrace", perfetto.data(), perfetto.size()), "");
}

TEST(TraceFormatTest, NamesWhatIsNotATrace) {
  EXPECT_EQ(Guess(""), TraceFormat::kEmpty);
  EXPECT_EQ(Guess("{\"traceEvents\": []}"), TraceFormat::kJson);
  EXPECT_EQ(Guess("\xEF\xBB\xBF  \n[{\"ph\": \"X\"}]"), TraceFormat::kJson);
  EXPECT_EQ(Guess(std::string("\x1F\x8B\x08\x00\x00\x00\x00\x00", 8)), TraceFormat::kGzip);
  EXPECT_EQ(Guess(std::string("PK\x03\x04\x14\x00", 6)), TraceFormat::kZip);
  EXPECT_EQ(Guess(std::string("SQLite format 3\0\x10\x00", 18)), TraceFormat::kSqlite);
  EXPECT_EQ(Guess(std::string("PERFILE2\x68\x00\x00\x00", 12)), TraceFormat::kPerfData);
  EXPECT_EQ(Guess("# tracer: nop\n#\n"), TraceFormat::kSystrace);
  EXPECT_EQ(Guess("<!DOCTYPE html><html><head><title>Trace</title>"), TraceFormat::kSystrace);
  EXPECT_EQ(Guess("hello, world\n"), TraceFormat::kText);
  EXPECT_EQ(Guess("gr\xC3\xBC\xC3\x9F" "e\n"), TraceFormat::kText);  // UTF-8.
  EXPECT_EQ(Guess(std::string("\x01\x02\x03\x04", 4)), TraceFormat::kUnknown);
  EXPECT_TRUE(IsImportable(TraceFormat::kJson));
  for (TraceFormat format : {TraceFormat::kEmpty, TraceFormat::kGzip,
                             TraceFormat::kZip, TraceFormat::kSqlite, TraceFormat::kPerfData,
                             TraceFormat::kSystrace, TraceFormat::kText, TraceFormat::kUnknown}) {
    EXPECT_FALSE(IsImportable(format));
  }
}

// A newline is 0x0A, the tag every trace starts with: text and JSON that
// begin with one must still be told apart from a trace.
TEST(TraceFormatTest, TextStartingWithANewlineIsNotATrace) {
  EXPECT_EQ(Guess("\n{\"traceEvents\": [{\"name\": \"a\"}]}\n"), TraceFormat::kJson);
  EXPECT_EQ(Guess("\n\nsome notes\n"), TraceFormat::kText);
  // A multi-byte UTF-8 sequence cut by the sniffing window is still text.
  std::string long_text(4095, 'a');
  long_text = "\n" + long_text.substr(1) + "\xC3\xBC";
  EXPECT_EQ(Guess(long_text), TraceFormat::kText);
}

TEST(TraceFormatTest, ErrorsNameTheFileAndWhatItIs) {
  const std::string json = "{\"traceEvents\": []}";
  EXPECT_EQ(NotATraceError("demo.json", json.data(), json.size()), "");
  const std::string sqlite("SQLite format 3\0\x10\x00", 18);
  EXPECT_EQ(NotATraceError("t.db", sqlite.data(), sqlite.size()),
            "t.db is an SQLite database, not a Perfetto, Chrome JSON or Templight trace "
            "(open it with sqlite3; `ztrace export-db` writes such files)");
  EXPECT_EQ(NotATraceError("e", "", 0),
            "e is empty (0 bytes), not a Perfetto, Chrome JSON or Templight trace");
  const std::string binary("\x01\xFF\x00\x7F\x10\x20\x30\x40\x50", 9);
  EXPECT_EQ(NotATraceError("b", binary.data(), binary.size()),
            "b is binary data starting 01 ff 00 7f 10 20 30 40, not a Perfetto, Chrome JSON or "
            "Templight trace");
}

// Compressed input is judged by what it holds.
TEST(TraceFormatTest, GzipIsJudgedByItsContent) {
  const std::string json_gz = GzipForTesting("{\"traceEvents\": []}");
  EXPECT_EQ(NotATraceError("t.json.gz", json_gz.data(), json_gz.size()), "");
  const std::string text_gz = GzipForTesting("hello, world\n");
  EXPECT_EQ(NotATraceError("t.gz", text_gz.data(), text_gz.size()),
            "t.gz is gzip-compressed text, not a Perfetto, Chrome JSON or Templight trace");
  const std::string twice = GzipForTesting(json_gz);
  EXPECT_EQ(NotATraceError("t.gz", twice.data(), twice.size()),
            "t.gz is gzip-compressed twice; decompress it once first (gunzip -c t.gz > trace.gz)");
  const std::string cut = json_gz.substr(0, 4);
  EXPECT_EQ(NotATraceError("t.gz", cut.data(), cut.size()),
            "t.gz is gzip-compressed data that does not decompress (a cut or corrupt file?)");
}

}  // namespace
}  // namespace processor
}  // namespace zt
