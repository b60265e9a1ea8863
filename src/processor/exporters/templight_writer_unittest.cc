#include "src/processor/exporters/templight_writer.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/test/templight_test_files.h"

namespace zt {
namespace processor {
namespace {

TemplightProfile Read(const std::string& bytes) {
  TemplightProfile profile;
  EXPECT_TRUE(ReadTemplight(bytes.data(), bytes.size(), TemplightReadOptions(), &profile));
  for (const TemplightProblem& problem : profile.problems)
    ADD_FAILURE() << problem.offset << ": " << problem.what;
  return profile;
}

std::string FileOf(const TemplightProfile& profile, const TemplightLocation& location) {
  return location.file == TemplightLocation::kNoFile ? "(none)" : profile.files[location.file];
}

// Everything a Templight file says about its instantiations, compared by
// value (indices into names and files may differ between two profiles).
void ExpectSameProfile(const TemplightProfile& a, const TemplightProfile& b) {
  ASSERT_EQ(a.units.size(), b.units.size());
  for (size_t u = 0; u < a.units.size(); u++) {
    EXPECT_EQ(a.units[u].version, b.units[u].version);
    EXPECT_EQ(a.units[u].source_file, b.units[u].source_file);
    EXPECT_EQ(a.units[u].instantiation_count, b.units[u].instantiation_count);
  }
  ASSERT_EQ(a.instantiations.size(), b.instantiations.size());
  for (size_t i = 0; i < a.instantiations.size(); i++) {
    SCOPED_TRACE("instantiation " + std::to_string(i));
    const TemplightInstantiation& x = a.instantiations[i];
    const TemplightInstantiation& y = b.instantiations[i];
    ASSERT_NE(x.name, TemplightInstantiation::kNoName);
    ASSERT_NE(y.name, TemplightInstantiation::kNoName);
    EXPECT_EQ(a.names[x.name], b.names[y.name]);
    EXPECT_EQ(x.unit, y.unit);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.begin_ns, y.begin_ns);
    EXPECT_EQ(x.end_ns, y.end_ns);
    EXPECT_EQ(x.memory_begin, y.memory_begin);
    EXPECT_EQ(x.memory_end, y.memory_end);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.depth, y.depth);
    EXPECT_EQ(FileOf(a, x.location), FileOf(b, y.location));
    EXPECT_EQ(x.location.line, y.location.line);
    EXPECT_EQ(x.location.column, y.location.column);
    EXPECT_EQ(FileOf(a, x.origin), FileOf(b, y.origin));
    EXPECT_EQ(x.origin.line, y.origin.line);
    EXPECT_EQ(x.origin.column, y.origin.column);
  }
}

TEST(TemplightWriterTest, EveryFixtureRoundTripsInEveryNameMode) {
  for (const char* name : {"tiny.memory.trace.pbf", "plain_names_c0.trace.pbf",
                           "kind23_clang16.trace.pbf", "two_traces_concat.trace.pbf",
                           "unclosed_begins.trace.pbf"}) {
    SCOPED_TRACE(name);
    const TemplightProfile original = Read(ReadTemplightTestFile(name));
    for (TemplightNameMode mode : {TemplightNameMode::kDictionary, TemplightNameMode::kPlain,
                                   TemplightNameMode::kZlib}) {
      const std::string written = WriteTemplight(original, mode);
      ExpectSameProfile(original, Read(written));
    }
  }
}

TEST(TemplightWriterTest, WritesTheTinyFixtureByteForByteAsTemplightDid) {
  // Same dictionary, same field order, same file ids, same doubles: the
  // file Templight's writer made.
  const std::string original = ReadTemplightTestFile("tiny.memory.trace.pbf");
  EXPECT_EQ(WriteTemplight(Read(original), TemplightNameMode::kDictionary), original);
}

// A trace Templight made of a real program (libc++'s containers, with
// `operator<` and `operator<<` templates among its 5,206 instantiations):
// our dictionary is the one Templight's writer made, entry for entry.
TEST(TemplightWriterTest, WritesARealTraceByteForByteAsTemplightDid) {
  const std::string original = ReadTemplightTestFile("real_file1_data.trace.pbf");
  ASSERT_GT(original.size(), 100000u);
  const std::string written = WriteTemplight(Read(original), TemplightNameMode::kDictionary);
  ASSERT_EQ(written.size(), original.size());
  EXPECT_TRUE(written == original) << "first difference at byte "
                                   << std::mismatch(written.begin(), written.end(),
                                                    original.begin()).first - written.begin();
}

TEST(TemplightWriterTest, DictionaryNamesAreSmallerThanPlainOnes) {
  const TemplightProfile profile = Read(ReadTemplightTestFile("tiny.memory.trace.pbf"));
  EXPECT_LT(WriteTemplight(profile, TemplightNameMode::kDictionary).size(),
            WriteTemplight(profile, TemplightNameMode::kPlain).size());
}

}  // namespace
}  // namespace processor
}  // namespace zt
