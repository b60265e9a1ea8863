#include "src/processor/exporters/templight_text_dump.h"

#include <string>

#include <gtest/gtest.h>

#include "src/processor/test/templight_test_files.h"

namespace zt {
namespace processor {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    n++;
  return n;
}

std::string Dump(const std::string& file, TemplightTextResult* result = nullptr) {
  std::string text;
  const TemplightTextResult r = DumpTemplightAsText(file.data(), file.size(), [&](std::string_view piece) {
    text.append(piece.data(), piece.size());
    return true;
  });
  if (result)
    *result = r;
  return text;
}

// Before, `--to text` read a Templight file as Perfetto packets and printed
// junk ("trusted_uid: ..." for every dictionary entry), with exit status 0.
TEST(TemplightTextDumpTest, TheTinyFixtureAsTemplightsMessagesWithNamesResolved) {
  const std::string file = ReadTemplightTestFile("tiny.memory.trace.pbf");
  ASSERT_FALSE(file.empty());
  TemplightTextResult result;
  const std::string text = Dump(file, &result);
  EXPECT_TRUE(result.damage.empty()) << result.damage;
  EXPECT_EQ(result.units, 1u);
  EXPECT_EQ(text.find("packet"), std::string::npos);
  EXPECT_EQ(text.find("trusted_uid"), std::string::npos);
  EXPECT_EQ(text.rfind("traces {  # byte 3: translation unit 0, kinds numbered as ", 0), 0u)
      << text.substr(0, 200);
  EXPECT_NE(text.find("  header {\n    version: 1\n    source_file: \"/src/app/main.cpp\"\n  }\n"),
            std::string::npos);
  // 20 entries (10 begins, 10 ends), 38 dictionary entries (tiny.expected.json).
  EXPECT_EQ(Count(text, "\n    begin {\n"), 10u);
  EXPECT_EQ(Count(text, "\n    end {\n"), 10u);
  EXPECT_EQ(Count(text, "\n  names {  # entry "), 38u);
  EXPECT_NE(text.find("  names {  # entry 0: \"std\"\n    marked_name: \"std\"\n  }\n"),
            std::string::npos);
  // A dict_id shows the whole name; a kind its name; a time its value.
  EXPECT_NE(text.find("  # \"std::map<int, std::tuple<>, std::less<int>, "
                      "std::allocator<std::pair<const int, std::tuple<>>>>::operator[]\"\n"),
            std::string::npos);
  EXPECT_NE(text.find("kind: 11  # Memoization\n"), std::string::npos);
  EXPECT_NE(text.find("time_stamp: 0.612083\n"), std::string::npos);
  // A location naming its file by id alone says which file.
  EXPECT_NE(text.find("file_id: 0  # \"/src/app/main.cpp\"\n"), std::string::npos);
}

TEST(TemplightTextDumpTest, EveryUnitOfEitherLayout) {
  const std::string tiny = ReadTemplightTestFile("tiny.memory.trace.pbf");
  const std::string other = ReadTemplightTestFile("kind23_clang16.trace.pbf");
  const std::string two = ReadTemplightTestFile("two_traces_concat.trace.pbf");
  TemplightTextResult result;
  std::string text = Dump(two, &result);
  EXPECT_EQ(result.units, 2u);
  EXPECT_EQ(Count(text, "traces {  # byte "), 2u);
  EXPECT_TRUE(result.damage.empty());

  text = Dump(tiny + "\n" + other + "\n", &result);
  EXPECT_EQ(result.units, 2u);
  EXPECT_TRUE(result.damage.empty()) << result.damage;
  EXPECT_NE(text.find("translation unit 1, kinds numbered as clang 16"), std::string::npos)
      << text;
}

TEST(TemplightTextDumpTest, ADamagedFileIsPrintedUpToTheDamageAndSaysWhere) {
  const std::string tiny = ReadTemplightTestFile("tiny.memory.trace.pbf");
  TemplightTextResult result;
  const std::string text = Dump(tiny + tiny.substr(0, 40), &result);
  EXPECT_EQ(result.units, 1u);
  EXPECT_NE(result.damage.find("at byte 1397"), std::string::npos) << result.damage;
  EXPECT_NE(text.find("# the file is truncated or corrupt at byte 1397"), std::string::npos);
  // Inside a unit: a dict_id the unit never defined, a corrupt sub-message.
  for (size_t cut = 0; cut < tiny.size(); cut += 13) {
    std::string damaged = tiny;
    damaged[cut] = static_cast<char>(damaged[cut] ^ 0x5a);
    Dump(damaged, &result);  // No crash, bounded (ASan runs this too).
  }
}

TEST(TemplightTextDumpTest, ARefusingSinkStopsTheDump) {
  const std::string tiny = ReadTemplightTestFile("tiny.memory.trace.pbf");
  std::string file;
  for (int i = 0; i < 100; i++)
    file += tiny;
  size_t pieces = 0;
  const TemplightTextResult result = DumpTemplightAsText(file.data(), file.size(),
                                                         [&](std::string_view) {
                                                           pieces++;
                                                           return false;
                                                         });
  EXPECT_TRUE(result.sink_failed);
  EXPECT_EQ(pieces, 1u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
