#include "src/processor/importers/templight/templight_reader.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "src/processor/exporters/templight_writer.h"
#include "src/processor/test/templight_test_files.h"

namespace zt {
namespace processor {
namespace {

// The expected entries of tiny.expected.json, each as the text from its
// `{"name":` to the next: values are read by key from that text (the
// fixture's strings hold no quote or backslash, and entries nest no
// object).
std::vector<std::string> ExpectedEntries(const std::string& json) {
  std::vector<std::string> entries;
  const std::string start = "{\"name\":";
  for (size_t at = json.find(start); at != std::string::npos;) {
    const size_t next = json.find(start, at + 1);
    entries.push_back(json.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  return entries;
}

// The raw value of "key" in an entry's text: a string without its quotes,
// a number, or an array's inside; "" when absent.
std::string Value(const std::string& entry, const std::string& key) {
  const std::string marker = "\"" + key + "\":";
  const size_t at = entry.find(marker);
  if (at == std::string::npos)
    return "";
  size_t begin = at + marker.size();
  size_t end;
  if (entry[begin] == '"') {
    end = entry.find('"', ++begin);
  } else if (entry[begin] == '[') {
    end = entry.find(']', ++begin);
  } else {
    end = entry.find_first_of(",}", begin);
  }
  return entry.substr(begin, end - begin);
}

std::string LocationText(const TemplightProfile& profile, const TemplightLocation& location) {
  return "\"" + profile.files[location.file] + "\"," + std::to_string(location.line) + "," +
         std::to_string(location.column);
}

void ExpectTinyFixture(NameExpander::Method method) {
  const std::string file = ReadTemplightTestFile("tiny.memory.trace.pbf");
  ASSERT_FALSE(file.empty());
  TemplightProfile profile;
  TemplightReadOptions options;
  options.method = method;
  ASSERT_TRUE(ReadTemplight(file.data(), file.size(), options, &profile));
  for (const TemplightProblem& problem : profile.problems)
    ADD_FAILURE() << problem.offset << ": " << problem.what;
  ASSERT_EQ(profile.units.size(), 1u);
  EXPECT_EQ(profile.units[0].version, 1u);
  EXPECT_EQ(profile.units[0].source_file, "/src/app/main.cpp");
  EXPECT_EQ(profile.units[0].dictionary_entries, 38u);
  EXPECT_EQ(profile.files.size(), 7u);

  const std::vector<std::string> expected = ExpectedEntries(ReadTemplightTestFile("tiny.expected.json"));
  ASSERT_EQ(profile.instantiations.size(), expected.size());
  ASSERT_EQ(expected.size(), 10u);
  for (size_t i = 0; i < expected.size(); i++) {
    SCOPED_TRACE("entry " + std::to_string(i));
    const TemplightInstantiation& got = profile.instantiations[i];
    const std::string& want = expected[i];
    ASSERT_NE(got.name, TemplightInstantiation::kNoName);
    EXPECT_EQ(profile.names[got.name], Value(want, "name"));
    EXPECT_EQ(std::to_string(got.kind), Value(want, "kind"));
    EXPECT_EQ(std::to_string(got.begin_ns), Value(want, "begin_ns"));
    EXPECT_EQ(std::to_string(got.end_ns), Value(want, "end_ns"));
    EXPECT_EQ(profile.files[got.location.file], Value(want, "file"));
    EXPECT_EQ(std::to_string(got.location.line), Value(want, "line"));
    EXPECT_EQ(std::to_string(got.location.column), Value(want, "column"));
    EXPECT_EQ(std::to_string(got.depth), Value(want, "depth"));
    EXPECT_EQ(std::to_string(got.parent), Value(want, "parent"));
    EXPECT_EQ(std::to_string(got.memory_begin), Value(want, "mem_begin"));
    EXPECT_EQ(std::to_string(got.memory_end), Value(want, "mem_end"));
    if (Value(want, "origin").empty())
      EXPECT_EQ(got.origin.file, TemplightLocation::kNoFile);
    else
      EXPECT_EQ(LocationText(profile, got.origin), Value(want, "origin"));
  }
}

TEST(TemplightReaderTest, TinyFixtureSequentially) {
  ExpectTinyFixture(NameExpander::Method::kSequential);
}

TEST(TemplightReaderTest, TinyFixtureInABatch) { ExpectTinyFixture(NameExpander::Method::kBatch); }

TEST(TemplightReaderTest, EveryFixtureLoadsWithoutProblems) {
  for (const char* name : {"plain_names_c0.trace.pbf", "kind23_clang16.trace.pbf",
                           "two_traces_concat.trace.pbf", "unclosed_begins.trace.pbf"}) {
    SCOPED_TRACE(name);
    const std::string file = ReadTemplightTestFile(name);
    ASSERT_FALSE(file.empty());
    for (NameExpander::Method method :
         {NameExpander::Method::kSequential, NameExpander::Method::kBatch}) {
      TemplightProfile profile;
      TemplightReadOptions options;
      options.method = method;
      ASSERT_TRUE(ReadTemplight(file.data(), file.size(), options, &profile));
      EXPECT_TRUE(profile.problems.empty()) << profile.problems[0].what;
      EXPECT_FALSE(profile.instantiations.empty());
      for (const TemplightInstantiation& i : profile.instantiations)
        EXPECT_NE(i.name, TemplightInstantiation::kNoName);
    }
  }
}

TEST(TemplightReaderTest, TwoTranslationUnitsAreTwoUnits) {
  const std::string file = ReadTemplightTestFile("two_traces_concat.trace.pbf");
  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(file.data(), file.size(), TemplightReadOptions(), &profile));
  ASSERT_EQ(profile.units.size(), 2u);
  EXPECT_NE(profile.units[0].source_file, profile.units[1].source_file);
  EXPECT_EQ(profile.units[0].instantiation_count + profile.units[1].instantiation_count,
            profile.instantiations.size());
  for (size_t i = 0; i < profile.instantiations.size(); i++) {
    const uint32_t unit = i < profile.units[1].first_instantiation ? 0 : 1;
    EXPECT_EQ(profile.instantiations[i].unit, unit);
  }
}

// templight++ compiling several sources writes one file: each unit's file
// followed by a '\n' (which is also the tag byte of a trace record).
TEST(TemplightReaderTest, FilesMergedByTheDriverAreReadAsItWritesThem) {
  const std::string first = ReadTemplightTestFile("tiny.memory.trace.pbf");
  const std::string second = ReadTemplightTestFile("kind23_clang16.trace.pbf");
  const std::string third = ReadTemplightTestFile("plain_names_c0.trace.pbf");
  std::vector<size_t> counts;
  for (const std::string* unit : {&first, &second, &third}) {
    TemplightProfile alone;
    ASSERT_TRUE(ReadTemplight(unit->data(), unit->size(), TemplightReadOptions(), &alone));
    ASSERT_EQ(alone.units.size(), 1u);
    counts.push_back(alone.instantiations.size());
  }
  struct Case {
    std::string bytes;
    std::vector<size_t> units;  // Instantiations of each unit.
  };
  for (const Case& c : {Case{first + "\n", {counts[0]}},
                        Case{first + "\n" + second + "\n", {counts[0], counts[1]}},
                        Case{second + "\n" + first + "\n" + third + "\n",
                             {counts[1], counts[0], counts[2]}}}) {
    SCOPED_TRACE(c.bytes.size());
    TemplightProfile profile;
    ASSERT_TRUE(ReadTemplight(c.bytes.data(), c.bytes.size(), TemplightReadOptions(), &profile));
    for (const TemplightProblem& problem : profile.problems)
      ADD_FAILURE() << problem.offset << ": " << problem.what;
    ASSERT_EQ(profile.units.size(), c.units.size());
    size_t total = 0;
    for (size_t u = 0; u < c.units.size(); u++) {
      EXPECT_EQ(profile.units[u].instantiation_count, c.units[u]) << "unit " << u;
      EXPECT_FALSE(profile.units[u].source_file.empty()) << "unit " << u;
      total += c.units[u];
    }
    EXPECT_EQ(profile.instantiations.size(), total);
  }
  // Templight's own layout of two units (records back to back) is unchanged.
  const std::string two = ReadTemplightTestFile("two_traces_concat.trace.pbf");
  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(two.data(), two.size(), TemplightReadOptions(), &profile));
  EXPECT_EQ(profile.units.size(), 2u);
  EXPECT_TRUE(profile.problems.empty());
}

TEST(TemplightReaderTest, BeginsLeftOpenHaveNoEnd) {
  const std::string file = ReadTemplightTestFile("unclosed_begins.trace.pbf");
  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(file.data(), file.size(), TemplightReadOptions(), &profile));
  size_t open = 0;
  for (const TemplightInstantiation& i : profile.instantiations)
    open += i.end_ns == -1;
  EXPECT_GT(open, 0u);
}

TEST(TemplightReaderTest, ATruncatedFileKeepsWhatCameBeforeAndSaysWhere) {
  const std::string file = ReadTemplightTestFile("tiny.memory.trace.pbf");
  TemplightProfile whole;
  ASSERT_TRUE(ReadTemplight(file.data(), file.size(), TemplightReadOptions(), &whole));
  for (size_t cut = 1; cut < file.size(); cut += 7) {
    TemplightProfile profile;
    ReadTemplight(file.data(), cut, TemplightReadOptions(), &profile);
    // The trace message is cut: the collection reports it.
    ASSERT_FALSE(profile.problems.empty()) << cut;
    EXPECT_LE(profile.problems.back().offset, cut);
    EXPECT_LE(profile.instantiations.size(), whole.instantiations.size());
  }
}

TEST(TemplightReaderTest, HostileEntriesAreReportedNotFollowed) {
  // A trace whose begin refers to dictionary entry 5 of 1, and an end
  // without a begin, written by hand:
  // traces { names { marked_name: "\0x" marker_ids: 0 }
  //          entries { begin { name { dict_id: 5 } } }
  //          entries { end { } } entries { end { } } }
  const std::string dict = std::string("\x0a\x02\x00x\x10\x00", 6);
  const std::string name = "\x18\x05";
  const std::string begin = std::string("\x12\x02") + name;
  const std::string entry_begin = std::string("\x0a\x04") + begin;
  const std::string entry_end = std::string("\x12\x00", 2);
  std::string trace;
  trace += "\x1a" + std::string(1, static_cast<char>(dict.size())) + dict;
  trace += "\x12" + std::string(1, static_cast<char>(entry_begin.size())) + entry_begin;
  trace += "\x12" + std::string(1, static_cast<char>(entry_end.size())) + entry_end;
  trace += "\x12" + std::string(1, static_cast<char>(entry_end.size())) + entry_end;
  const std::string file = "\x0a" + std::string(1, static_cast<char>(trace.size())) + trace;
  for (NameExpander::Method method :
       {NameExpander::Method::kSequential, NameExpander::Method::kBatch}) {
    TemplightProfile profile;
    TemplightReadOptions options;
    options.method = method;
    ASSERT_TRUE(ReadTemplight(file.data(), file.size(), options, &profile));
    ASSERT_EQ(profile.instantiations.size(), 1u);
    EXPECT_EQ(profile.instantiations[0].name, TemplightInstantiation::kNoName);
    std::vector<std::string> what;
    for (const TemplightProblem& problem : profile.problems)
      what.push_back(problem.what);
    // Sequentially every entry is expanded, and a name resolved, as it is
    // read; a batch expands only the entries a name needs, at the end of
    // the unit (entry 0 is never needed).
    if (method == NameExpander::Method::kSequential) {
      EXPECT_EQ(what, (std::vector<std::string>{
                          "translation unit 0: dictionary entry 0 refers to itself",
                          "translation unit 0: no dictionary entry 5 (1 entries)",
                          "translation unit 0: an end without a begin",
                      }));
    } else {
      EXPECT_EQ(what, (std::vector<std::string>{
                          "translation unit 0: an end without a begin",
                          "translation unit 0: no dictionary entry 5 (1 entries)",
                      }));
    }
  }
}

// A length-delimited protobuf field: key byte, varint size, bytes.
std::string Field(uint8_t key, const std::string& value) {
  std::string out(1, static_cast<char>(key));
  size_t size = value.size();
  do {
    out.push_back(static_cast<char>((size & 0x7f) | (size > 0x7f ? 0x80 : 0)));
    size >>= 7;
  } while (size);
  return out + value;
}

// A file of one unit whose begins are named by these TemplateName messages.
std::string FileWithNames(const std::vector<std::string>& template_names) {
  std::string trace;
  for (const std::string& name : template_names)
    trace += Field(0x12, Field(0x0a, Field(0x12, name)));  // entries.begin.name
  return Field(0x0a, trace);
}

std::string Zlib(const std::string& text) {
  uLongf size = compressBound(text.size());
  std::string out(size, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(&out[0]), &size,
                      reinterpret_cast<const Bytef*>(text.data()), text.size(), 9),
            Z_OK);
  out.resize(size);
  return out;
}

// Begin{time 2 s} Begin{no time} End{time 3 s} End{no time} Begin{time -1 s}
// End{}: times that are missing follow what came before without a report;
// a negative one is out of range, reported, and follows too.
TEST(TemplightReaderTest, MissingAndNegativeTimes) {
  auto seconds = [](double value) {
    std::string bytes(8, '\0');
    memcpy(&bytes[0], &value, 8);
    return bytes;
  };
  const std::string begin_at_2 = Field(0x0a, std::string("\x21", 1) + seconds(2));  // time_stamp = 4
  const std::string begin_untimed = Field(0x0a, std::string("\x08\x00", 2));        // kind = 0
  const std::string end_at_3 = Field(0x12, std::string("\x09", 1) + seconds(3));      // time_stamp = 1
  const std::string end_untimed = Field(0x12, "");
  const std::string begin_negative = Field(0x0a, std::string("\x21", 1) + seconds(-1));
  std::string trace;
  for (const std::string& entry :
       {begin_at_2, begin_untimed, end_at_3, end_untimed, begin_negative, end_untimed})
    trace += Field(0x12, entry);
  const std::string file = Field(0x0a, trace);
  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(file.data(), file.size(), TemplightReadOptions(), &profile));
  ASSERT_EQ(profile.instantiations.size(), 3u);
  EXPECT_EQ(profile.instantiations[0].begin_ns, 2000000000);
  EXPECT_EQ(profile.instantiations[0].end_ns, 3000000000);
  EXPECT_EQ(profile.instantiations[1].begin_ns, 2000000000);
  EXPECT_EQ(profile.instantiations[1].end_ns, 3000000000);
  EXPECT_EQ(profile.instantiations[2].begin_ns, 3000000000);
  EXPECT_EQ(profile.instantiations[2].end_ns, 3000000000);
  ASSERT_EQ(profile.problems.size(), 1u);
  EXPECT_EQ(profile.problems[0].what, "translation unit 0: a time stamp out of range");
}

TEST(TemplightReaderTest, ZlibNamesAreInflatedWithinTheLimit) {
  const std::string name = "std::vector<std::basic_string<char>, std::allocator<char>>";
  const std::string compressed = Zlib(name);
  const std::string bomb = Zlib(std::string(2 << 20, 'a'));  // 2 MiB of 'a'.
  // TemplateName.compressed_name is field 2.
  const std::string file = FileWithNames({
      Field(0x12, compressed),
      Field(0x12, compressed.substr(0, 4)),   // Truncated.
      Field(0x12, "\x78\x9c\xff\xff\xff"),  // A zlib header, then not deflate data.
      Field(0x12, bomb),
  });
  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(file.data(), file.size(), TemplightReadOptions(), &profile));
  ASSERT_EQ(profile.instantiations.size(), 4u);
  ASSERT_NE(profile.instantiations[0].name, TemplightInstantiation::kNoName);
  EXPECT_EQ(profile.names[profile.instantiations[0].name], name);
  std::vector<std::string> what;
  for (const TemplightProblem& problem : profile.problems)
    what.push_back(problem.what);
  EXPECT_EQ(what, (std::vector<std::string>{
                      "translation unit 0: a zlib-compressed name that is truncated or corrupt",
                      "translation unit 0: a zlib-compressed name that is truncated or corrupt",
                      "translation unit 0: a zlib-compressed name longer than 1048576 bytes",
                  }));
  for (size_t i = 1; i < 4; i++)
    EXPECT_EQ(profile.instantiations[i].name, TemplightInstantiation::kNoName);
}

TEST(TemplightReaderTest, ACorruptNestedMessageIsReportedAndTheRestKept) {
  // A begin whose location is cut inside its file name (the length says 9
  // bytes, 2 follow) but whose kind and time are whole, then a good begin.
  const std::string bad_location = std::string("\x0a\x09/a", 3);
  const std::string begin_bad = "\x08\x05" + Field(0x1a, bad_location);
  const std::string begin_good = std::string("\x08\x07", 2);
  std::string trace = Field(0x12, Field(0x0a, begin_bad));
  trace += Field(0x12, Field(0x0a, begin_good));
  const std::string file = Field(0x0a, trace);
  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(file.data(), file.size(), TemplightReadOptions(), &profile));
  ASSERT_EQ(profile.instantiations.size(), 2u);
  EXPECT_EQ(profile.instantiations[0].kind, 5u);
  EXPECT_EQ(profile.instantiations[0].location.file, TemplightLocation::kNoFile);
  EXPECT_EQ(profile.instantiations[1].kind, 7u);
  ASSERT_EQ(profile.problems.size(), 1u);
  EXPECT_EQ(profile.problems[0].what, "translation unit 0: a corrupt location");
  EXPECT_EQ(file.substr(profile.problems[0].offset, bad_location.size()), bad_location);
}

}  // namespace
}  // namespace processor
}  // namespace zt

namespace zt {
namespace processor {
namespace {

// A child that begins before its parent and ends after it (a damaged
// clock): the times are made monotonic, so the nesting holds, and it is
// reported.
TEST(TemplightReaderTest, TimesThatGoBackAreClampedAndReported) {
  TemplightProfile written;
  written.units.push_back(TemplightUnit{});
  written.units[0].source_file = "a.cpp";
  written.units[0].instantiation_count = 2;
  written.names.push_back("A");
  written.names.push_back("B");
  TemplightInstantiation a;
  a.name = 0;
  a.begin_ns = 100;
  a.end_ns = 200;
  TemplightInstantiation b;
  b.name = 1;
  b.begin_ns = 50;
  b.end_ns = 300;
  b.depth = 1;
  b.parent = 0;
  written.instantiations = {a, b};
  const std::string bytes = WriteTemplight(written, TemplightNameMode::kPlain);

  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(bytes.data(), bytes.size(), TemplightReadOptions(), &profile));
  ASSERT_EQ(profile.instantiations.size(), 2u);
  EXPECT_EQ(profile.instantiations[0].begin_ns, 100);
  EXPECT_EQ(profile.instantiations[0].end_ns, 300);
  EXPECT_EQ(profile.instantiations[1].begin_ns, 100);
  EXPECT_EQ(profile.instantiations[1].end_ns, 300);
  ASSERT_EQ(profile.problems.size(), 1u);
  EXPECT_EQ(profile.problems[0].what,
            "translation unit 0: 2 time stamps went back in time; each was taken as the time "
            "before it");
}

}  // namespace
}  // namespace processor
}  // namespace zt
