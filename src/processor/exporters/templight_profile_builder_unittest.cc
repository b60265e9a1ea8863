#include "src/processor/exporters/templight_profile_builder.h"

#include <string>

#include <gtest/gtest.h>

#include "src/processor/exporters/templight_writer.h"
#include "src/processor/test/templight_test_files.h"
#include "src/processor/importers/trace_importer.h"

namespace zt {
namespace processor {
namespace {

std::string LocationText(const TemplightProfile& p, const TemplightLocation& l) {
  if (l.file == TemplightLocation::kNoFile)
    return "none";
  return p.files[l.file] + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
}

// One line per instantiation with everything a round trip must keep.
std::vector<std::string> Describe(const TemplightProfile& p) {
  std::vector<std::string> lines;
  for (const TemplightUnit& unit : p.units)
    lines.push_back("unit " + std::to_string(unit.version) + " " + unit.source_file + " " +
                    std::to_string(unit.instantiation_count));
  for (const TemplightInstantiation& i : p.instantiations) {
    std::string line = std::to_string(i.unit) + " " + std::string(p.names[i.name]) + " kind " +
                       std::to_string(i.kind) + " at " + LocationText(p, i.location) +
                       " from " + LocationText(p, i.origin) + " " +
                       std::to_string(i.begin_ns) + ".." + std::to_string(i.end_ns) + " mem " +
                       std::to_string(i.memory_begin) + ".." + std::to_string(i.memory_end) +
                       " depth " + std::to_string(i.depth) + " in " +
                       (i.parent < 0 ? std::string("-")
                                     : std::string(p.names[p.instantiations[i.parent].name]));
    lines.push_back(line);
  }
  return lines;
}

TEST(TemplightProfileBuilderTest, EveryFixtureRoundTripsThroughTheModel) {
  for (const char* fixture :
       {"tiny.memory.trace.pbf", "plain_names_c0.trace.pbf", "kind23_clang16.trace.pbf",
        "two_traces_concat.trace.pbf", "unclosed_begins.trace.pbf"}) {
    SCOPED_TRACE(fixture);
    const std::string bytes = ReadTemplightTestFile(fixture);
    TemplightProfile original;
    ASSERT_TRUE(ReadTemplight(bytes.data(), bytes.size(), TemplightReadOptions(), &original));

    TraceStorage storage;
    ImportTrace(bytes.data(), bytes.size(), &storage);
    TemplightProfile rebuilt;
    std::string error;
    ASSERT_TRUE(BuildTemplightProfile(storage, &rebuilt, &error)) << error;
    for (TemplightNameMode mode :
         {TemplightNameMode::kDictionary, TemplightNameMode::kPlain, TemplightNameMode::kZlib}) {
      const std::string written = WriteTemplight(rebuilt, mode);
      TemplightProfile reread;
      ASSERT_TRUE(ReadTemplight(written.data(), written.size(), TemplightReadOptions(), &reread));
      EXPECT_TRUE(reread.problems.empty());
      EXPECT_EQ(Describe(reread), Describe(original));
    }
  }
}

// Templight's own tools read what we write: on the tiny fixture, the model
// written back is the file Templight wrote, byte for byte.
TEST(TemplightProfileBuilderTest, TinyFixtureThroughTheModelIsByteForByte) {
  const std::string bytes = ReadTemplightTestFile("tiny.memory.trace.pbf");
  TraceStorage storage;
  ImportTrace(bytes.data(), bytes.size(), &storage);
  TemplightProfile rebuilt;
  std::string error;
  ASSERT_TRUE(BuildTemplightProfile(storage, &rebuilt, &error)) << error;
  EXPECT_EQ(WriteTemplight(rebuilt, TemplightNameMode::kDictionary), bytes);
}

TEST(TemplightProfileBuilderTest, NotATemplightTrace) {
  TraceStorage storage;
  TemplightProfile profile;
  std::string error;
  EXPECT_FALSE(BuildTemplightProfile(storage, &profile, &error));
  EXPECT_NE(error.find("no Templight translation unit"), std::string::npos) << error;
}

}  // namespace
}  // namespace processor
}  // namespace zt
