#include "src/processor/importers/templight/templight_filter.h"

#include <string>

#include <gtest/gtest.h>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/test/templight_test_files.h"

namespace zt {
namespace processor {
namespace {

// tiny.expected.json's ten entries: std::vector<...> (an instantiation)
// holding two memoizations; std::operator<< (a deduction) holding one;
// std::operator<<<...>; std::map<...>::operator[] holding std::tuple<...>
// holding a memoization; a memoization of fib<2>.
std::unique_ptr<TraceStorage> Tiny() {
  const std::string file = ReadTemplightTestFile("tiny.memory.trace.pbf");
  auto storage = std::make_unique<TraceStorage>();
  ImportTrace(file.data(), file.size(), storage.get());
  return storage;
}

std::vector<std::string> Names(const TraceStorage& s) {
  std::vector<std::string> names;
  for (size_t i = 0; i < s.slice.size(); i++)
    names.push_back(std::string(s.slice.depth[i], '.') + std::string(s.strings.Get(s.slice.name[i])).substr(0, 20));
  return names;
}

TEST(TemplightFilterTest, ABlacklistedInstantiationGoesWithWhatItHolds) {
  auto s = Tiny();
  ASSERT_EQ(s->slice.size(), 10u);
  TemplightBlacklist blacklist;
  std::string error;
  ASSERT_TRUE(blacklist.Parse("# templight-tools' format\n\nidentifier std::map<.*\n", "list", &error))
      << error;
  const TemplightFilterResult result = FilterTemplight(s.get(), &blacklist, false);
  EXPECT_EQ(result.blacklisted, 3u);
  EXPECT_EQ(result.not_instantiations, 0u);
  EXPECT_EQ(s->slice.size(), 7u);
  EXPECT_EQ(s->templight.size(), 7u);
  for (size_t row = 0; row < s->templight.size(); row++)
    EXPECT_EQ(s->templight.slice_id[row], row);
  for (const std::string& name : Names(*s))
    EXPECT_EQ(name.find("std::map"), std::string::npos) << name;
}

TEST(TemplightFilterTest, InstantiationsOnlyFoldsTheRestIntoTheirParents) {
  auto s = Tiny();
  const TemplightFilterResult result = FilterTemplight(s.get(), nullptr, true);
  EXPECT_EQ(result.not_instantiations, 6u);
  EXPECT_EQ(Names(*s), (std::vector<std::string>{"std::vector<std::bas", "std::operator<<<std:",
                                                 "std::map<int, std::t", ".std::tuple<int, doub"}));
  EXPECT_EQ(s->slice.parent_id[3], 2u);
  for (size_t row = 0; row < s->templight.size(); row++)
    EXPECT_EQ(s->strings.Get(s->templight.kind_name[row]), "TemplateInstantiation");
}

TEST(TemplightFilterTest, BothTogether) {
  auto s = Tiny();
  TemplightBlacklist blacklist;
  std::string error;
  ASSERT_TRUE(blacklist.Parse("context std::map<.*\r\nidentifier nothing\n", "list", &error)) << error;
  const TemplightFilterResult result = FilterTemplight(s.get(), &blacklist, true);
  EXPECT_EQ(result.blacklisted, 3u);
  EXPECT_EQ(Names(*s), (std::vector<std::string>{"std::vector<std::bas", "std::operator<<<std:"}));
}

TEST(TemplightFilterTest, BadListsSayWhichLine) {
  TemplightBlacklist blacklist;
  std::string error;
  EXPECT_FALSE(blacklist.Parse("identifier ok\njunk\n", "list.txt", &error));
  EXPECT_EQ(error, "list.txt:2: expected 'context REGEX' or 'identifier REGEX' (templight-tools' blacklist)");
  EXPECT_FALSE(blacklist.Parse("identifier (unclosed\n", "list.txt", &error));
  EXPECT_NE(error.find("list.txt:1: bad regular expression '(unclosed': "), std::string::npos) << error;
  EXPECT_FALSE(blacklist.Load("/nonexistent/list", &error));
  EXPECT_NE(error.find("/nonexistent/list"), std::string::npos);
  // Whole names only, as std::regex_match.
  ASSERT_TRUE(blacklist.Parse("identifier std::.*\n", "list", &error));
  EXPECT_TRUE(blacklist.Matches("std::vector<int>"));
  EXPECT_FALSE(blacklist.Matches("foo<std::vector<int>>"));
}

TEST(TemplightFilterTest, NothingToDoLeavesTheStorageAlone) {
  auto s = Tiny();
  TemplightBlacklist empty;
  const TemplightFilterResult result = FilterTemplight(s.get(), &empty, false);
  EXPECT_EQ(result.blacklisted + result.not_instantiations, 0u);
  EXPECT_EQ(s->slice.size(), 10u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
