#include "src/processor/exporters/trace_text_dump.h"

#include <algorithm>
#include <cstdint>
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

std::string Varint(uint64_t value) {
  std::string out;
  for (; value >= 0x80; value >>= 7)
    out += static_cast<char>((value & 0x7f) | 0x80);
  out += static_cast<char>(value);
  return out;
}

// A packet holding one 8 MiB string that is not a message: escaped to
// about 4x its size, it reaches the sink in pieces, never as one (issue 27:
// a 128 MiB packet took 1.18 GB), and the progress callback walks the file.
TEST(TraceTextDumpTest, AHugeStringIsStreamedInBoundedPieces) {
  std::string payload(8u << 20, '\0');
  for (size_t i = 0; i < payload.size(); i++)
    payload[i] = static_cast<char>((i * 2654435761u) >> 13);  // Mostly escapes.
  const std::string packet = Varint((999u << 3) | 2) + Varint(payload.size()) + payload;
  const std::string trace =
      "\x0a" + Varint(packet.size()) + packet + std::string("\x0a\x00", 2);
  size_t largest = 0, total = 0;
  const TextDumpResult result = DumpTraceAsText(
      trace.data(), trace.size(),
      [&](std::string_view piece) {
        largest = std::max(largest, piece.size());
        total += piece.size();
        return true;
      },
      [&, last = uint64_t{0}](uint64_t done) mutable {
        EXPECT_GT(done, last);
        EXPECT_LE(done, trace.size());
        last = done;
      });
  EXPECT_FALSE(result.sink_failed);
  EXPECT_EQ(result.tokenizer.packets, 2u);
  EXPECT_GT(total, payload.size() * 2) << "the string was not printed whole";
  EXPECT_LE(largest, size_t{80 * 1024}) << "a piece as large as the string";
}

}  // namespace
}  // namespace processor
}  // namespace zt
