#include "src/processor/trace_text_dump.h"

#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

std::string ReadFixture() {
  std::ifstream in(std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace",
                   std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    n++;
  return n;
}

TEST(TraceTextDumpTest, EveryPacketWithInternedNamesResolved) {
  const std::string trace = ReadFixture();
  ASSERT_FALSE(trace.empty());
  std::string text;
  const TextDumpResult result = DumpTraceAsText(trace.data(), trace.size(), [&](std::string_view piece) {
    text.append(piece.data(), piece.size());
    return true;
  });
  EXPECT_FALSE(result.sink_failed);
  EXPECT_EQ(result.tokenizer.packets, 1054u);
  EXPECT_EQ(Count(text, "\npacket {  # byte ") + (text.rfind("packet {", 0) == 0), 1054u);
  // The manifest's 45 "Outer" begins, each naming its interned id.
  EXPECT_EQ(Count(text, "  # \"Outer\"\n"), 45u) << text.substr(0, 3000);
  EXPECT_GT(Count(text, "type: TYPE_SLICE_BEGIN\n"), 0u);
  EXPECT_GT(Count(text, "category_iids: "), 0u);
  EXPECT_EQ(Count(text, "# (not interned on this sequence)"), 0u);
  EXPECT_EQ(Count(text, "does not decode"), 0u);
}

TEST(TraceTextDumpTest, DamageIsReportedAtTheEnd) {
  const std::string trace = ReadFixture();
  std::string text;
  const TextDumpResult result =
      DumpTraceAsText(trace.data(), trace.size() - 10, [&](std::string_view piece) {
        text.append(piece.data(), piece.size());
        return true;
      });
  EXPECT_NE(result.tokenizer.damage, TraceDamage::kNone);
  EXPECT_NE(text.find("# length past the end at byte"), std::string::npos)
      << text.substr(text.size() > 300 ? text.size() - 300 : 0);
}

TEST(TraceTextDumpTest, ASinkThatFailsStopsTheDump) {
  const std::string trace = ReadFixture();
  int calls = 0;
  const TextDumpResult result = DumpTraceAsText(trace.data(), trace.size(), [&](std::string_view) {
    calls++;
    return false;
  });
  EXPECT_TRUE(result.sink_failed);
  EXPECT_EQ(calls, 1);
  EXPECT_LT(result.tokenizer.packets, 1054u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
