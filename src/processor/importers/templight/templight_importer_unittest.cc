#include "src/processor/importers/templight/templight_importer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/importers/templight/templight_reader.h"
#include "src/processor/exporters/templight_writer.h"
#include "src/processor/test/templight_test_files.h"
#include "src/processor/importers/trace_importer.h"

namespace zt {
namespace processor {
namespace {

const char* const kFixtures[] = {"tiny.memory.trace.pbf", "plain_names_c0.trace.pbf",
                                 "kind23_clang16.trace.pbf", "two_traces_concat.trace.pbf",
                                 "unclosed_begins.trace.pbf"};

std::string Str(const TraceStorage& s, StringId id) {
  return id == kNullStringId ? "(null)" : std::string(s.strings.Get(id));
}

std::string ReadFile(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  std::string bytes;
  if (!f)
    return bytes;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;)
    bytes.append(buf, n);
  fclose(f);
  return bytes;
}

TEST(TemplightImporterTest, TellsTemplightFromPerfettoTraces) {
  for (const char* name : kFixtures) {
    const std::string bytes = ReadTemplightTestFile(name);
    ASSERT_FALSE(bytes.empty()) << name;
    EXPECT_TRUE(LooksLikeTemplight(bytes.data(), bytes.size())) << name;
  }
  const std::string pftrace =
      ReadFile(std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace");
  ASSERT_FALSE(pftrace.empty());
  EXPECT_FALSE(LooksLikeTemplight(pftrace.data(), pftrace.size()));
  // A TracePacket whose first field is ftrace_events (also field 1):
  // FtraceEventBundle{cpu: 1, event {timestamp: 5}} then a timestamp (8).
  const std::string ftrace_packet("\x0a\x0b\x0a\x06\x08\x01\x12\x02\x08\x05\x40\x07", 12);
  EXPECT_FALSE(LooksLikeTemplight(ftrace_packet.data(), ftrace_packet.size()));
  EXPECT_FALSE(LooksLikeTemplight("", 0));
}

// Every instantiation the reader sees is a slice with its templight row.
void ExpectModelMatchesProfile(const std::string& fixture, NameExpander::Method method) {
  SCOPED_TRACE(fixture);
  const std::string bytes = ReadTemplightTestFile(fixture);
  TemplightProfile profile;
  TemplightReadOptions read_options;
  read_options.method = method;
  ASSERT_TRUE(ReadTemplight(bytes.data(), bytes.size(), read_options, &profile));

  TraceStorage s;
  ImportOptions options;
  options.templight_method = method;
  const ImportResult result = ImportTrace(bytes.data(), bytes.size(), &s, options);
  ASSERT_EQ(s.slice.size(), profile.instantiations.size());
  ASSERT_EQ(s.templight.size(), s.slice.size());
  EXPECT_EQ(result.packets_parsed, s.slice.size());
  ASSERT_EQ(s.templight_units.size(), profile.units.size());
  ASSERT_EQ(s.track.size(), profile.units.size());
  for (size_t u = 0; u < profile.units.size(); u++) {
    EXPECT_EQ(Str(s, s.templight_units[u].source_file), profile.units[u].source_file);
    EXPECT_EQ(s.templight_units[u].version, profile.units[u].version);
    EXPECT_EQ(Str(s, s.track.name[s.templight_units[u].track_id]), profile.units[u].source_file);
    EXPECT_EQ(s.track.kind[u], TrackKind::kGlobal);
  }

  // Match slices to instantiations by (unit, begin, depth, name): the
  // model reorders only by time.
  std::vector<bool> used(profile.instantiations.size());
  int64_t open = 0;
  for (uint32_t row = 0; row < s.slice.size(); row++) {
    SCOPED_TRACE(row);
    if (row > 0) {
      EXPECT_LE(s.slice.ts[row - 1], s.slice.ts[row]);
    }
    EXPECT_EQ(s.templight.slice_id[row], row);
    size_t match = profile.instantiations.size();
    for (size_t i = 0; i < profile.instantiations.size(); i++) {
      const TemplightInstantiation& in = profile.instantiations[i];
      if (!used[i] && in.begin_ns == s.slice.ts[row] && in.depth == s.slice.depth[row] &&
          s.templight_units[in.unit].track_id == s.slice.track_id[row] &&
          profile.names[in.name] == s.strings.Get(s.slice.name[row])) {
        match = i;
        break;
      }
    }
    ASSERT_LT(match, profile.instantiations.size());
    used[match] = true;
    const TemplightInstantiation& in = profile.instantiations[match];
    EXPECT_EQ(s.slice.dur[row], in.end_ns < 0 ? -1 : in.end_ns - in.begin_ns);
    open += in.end_ns < 0;
    EXPECT_EQ(s.templight.kind[row], in.kind);
    EXPECT_EQ(Str(s, s.templight.file[row]), profile.files[in.location.file]);
    EXPECT_EQ(s.templight.line[row], in.location.line);
    EXPECT_EQ(s.templight.column[row], in.location.column);
    if (in.origin.file == TemplightLocation::kNoFile) {
      EXPECT_EQ(s.templight.origin_file[row], kNullStringId);
    } else {
      EXPECT_EQ(Str(s, s.templight.origin_file[row]), profile.files[in.origin.file]);
      EXPECT_EQ(s.templight.origin_line[row], in.origin.line);
      EXPECT_EQ(s.templight.origin_column[row], in.origin.column);
    }
    EXPECT_EQ(s.templight.memory_begin[row], in.memory_begin);
    EXPECT_EQ(s.templight.memory_end[row], in.memory_end);
    // The stack: a parent on the same track, one level up, begun before.
    if (in.parent < 0) {
      EXPECT_EQ(s.slice.parent_id[row], kNullId);
    } else {
      const uint32_t parent = s.slice.parent_id[row];
      ASSERT_LT(parent, s.slice.size());
      EXPECT_EQ(s.slice.depth[parent] + 1, s.slice.depth[row]);
      EXPECT_EQ(s.slice.track_id[parent], s.slice.track_id[row]);
      EXPECT_LE(s.slice.ts[parent], s.slice.ts[row]);
      EXPECT_EQ(s.strings.Get(s.slice.name[parent]),
                profile.names[profile.instantiations[in.parent].name]);
    }
  }
  EXPECT_EQ(s.stats.Get(stats::slices_unterminated), open);
  EXPECT_EQ(s.stats.Get(stats::templight_problems), 0);
}

TEST(TemplightImporterTest, EveryFixtureBothMethods) {
  for (const char* fixture : kFixtures) {
    ExpectModelMatchesProfile(fixture, NameExpander::Method::kSequential);
    ExpectModelMatchesProfile(fixture, NameExpander::Method::kBatch);
  }
}

// Without details (the report's import) the slices, tracks and units are
// the same, in the same order, and the templight table is left empty
// (two_traces_concat's rows need sorting).
TEST(TemplightImporterTest, SlicesOnlyImportHasTheSameSlices) {
  std::vector<std::string> fixtures(std::begin(kFixtures), std::end(kFixtures));
  fixtures.push_back("real_file1_data.trace.pbf");  // 5,206 rows of a real program.
  for (const std::string& fixture : fixtures) {
    SCOPED_TRACE(fixture);
    const std::string bytes = ReadTemplightTestFile(fixture);
    TraceStorage full, lean;
    ImportTrace(bytes.data(), bytes.size(), &full);
    ImportOptions options;
    options.templight_details = false;
    const ImportResult result = ImportTrace(bytes.data(), bytes.size(), &lean, options);
    ASSERT_GT(full.slice.size(), 0u);
    EXPECT_EQ(result.packets_parsed, full.slice.size());
    EXPECT_EQ(lean.templight.size(), 0u);
    ASSERT_EQ(lean.slice.size(), full.slice.size());
    ASSERT_EQ(lean.templight_units.size(), full.templight_units.size());
    for (uint32_t r = 0; r < full.slice.size(); r++) {
      EXPECT_EQ(lean.slice.ts[r], full.slice.ts[r]) << r;
      EXPECT_EQ(lean.slice.dur[r], full.slice.dur[r]) << r;
      EXPECT_EQ(lean.slice.depth[r], full.slice.depth[r]) << r;
      EXPECT_EQ(lean.slice.parent_id[r], full.slice.parent_id[r]) << r;
      EXPECT_EQ(lean.slice.track_id[r], full.slice.track_id[r]) << r;
      EXPECT_EQ(Str(lean, lean.slice.name[r]), Str(full, full.slice.name[r])) << r;
      EXPECT_EQ(Str(lean, lean.slice.category[r]), Str(full, full.slice.category[r])) << r;
    }
  }
}

TEST(TemplightImporterTest, TinyFixtureTrack) {
  const std::string bytes = ReadTemplightTestFile("tiny.memory.trace.pbf");
  TraceStorage s;
  ImportTrace(bytes.data(), bytes.size(), &s);
  ASSERT_EQ(s.slice.size(), 10u);
  ASSERT_EQ(s.track.size(), 1u);
  EXPECT_EQ(Str(s, s.track.name[0]), "/src/app/main.cpp");
  EXPECT_EQ(s.slice.ts[0], 612083000);
  EXPECT_EQ(Str(s, s.slice.name[0]),
            "std::vector<std::basic_string<char, std::char_traits<char>, std::allocator<char>>, "
            "std::allocator<std::basic_string<char, std::char_traits<char>, "
            "std::allocator<char>>>>");
  EXPECT_EQ(Str(s, s.templight.origin_file[0]), "/usr/include/c++/13/bits/stl_vector.h");
  EXPECT_EQ(s.templight.origin_line[0], 1044u);
  EXPECT_EQ(s.templight.memory_begin[0], 48955200u);
  bool found_type = false;
  for (uint32_t i = 0; i < s.metadata.size(); i++) {
    if (Str(s, s.metadata.name[i]) == "trace_type") {
      EXPECT_EQ(Str(s, s.metadata.str_value[i]), "templight");
      found_type = true;
    }
  }
  EXPECT_TRUE(found_type);
}

TEST(TemplightImporterTest, KindsAreNamedByTheUnitsNumbering) {
  {
    const std::string bytes = ReadTemplightTestFile("tiny.memory.trace.pbf");
    TraceStorage s;
    ImportTrace(bytes.data(), bytes.size(), &s);
    ASSERT_EQ(s.templight.size(), 10u);
    EXPECT_EQ(s.templight.kind[0], 0u);
    EXPECT_EQ(Str(s, s.templight.kind_name[0]), "TemplateInstantiation");
    EXPECT_EQ(Str(s, s.slice.category[0]), "TemplateInstantiation");
    for (uint32_t row = 0; row < s.templight.size(); row++) {
      if (s.templight.kind[row] == 11) {
        EXPECT_EQ(Str(s, s.templight.kind_name[row]), "Memoization");
      }
    }
  }
  {
    const std::string bytes = ReadTemplightTestFile("kind23_clang16.trace.pbf");
    TraceStorage s;
    ImportTrace(bytes.data(), bytes.size(), &s);
    ASSERT_EQ(s.templight_units.size(), 1u);
    EXPECT_EQ(Str(s, s.templight_units[0].kind_numbering), "clang 16");
    bool seen = false;
    for (uint32_t row = 0; row < s.templight.size(); row++) {
      if (s.templight.kind[row] == 23) {
        EXPECT_EQ(Str(s, s.templight.kind_name[row]), "Memoization");
        seen = true;
      }
    }
    EXPECT_TRUE(seen);
  }
}

TEST(TemplightImporterTest, TwoUnitsOverlapInTimeAndStayApart) {
  const std::string bytes = ReadTemplightTestFile("two_traces_concat.trace.pbf");
  TraceStorage s;
  ImportTrace(bytes.data(), bytes.size(), &s);
  ASSERT_EQ(s.track.size(), 2u);
  size_t on_track[2] = {};
  for (uint32_t row = 0; row < s.slice.size(); row++)
    on_track[s.slice.track_id[row]]++;
  EXPECT_GT(on_track[0], 0u);
  EXPECT_GT(on_track[1], 0u);
}

// Memory above 4 GiB, times as double seconds to the nanosecond, a unit
// with no source file.
TEST(TemplightImporterTest, LargeMemoryAndExactTimes) {
  TemplightProfile written;
  written.units.push_back(TemplightUnit{});
  written.units[0].instantiation_count = 1;
  written.names.push_back("big<huge>");
  TemplightInstantiation i;
  i.name = 0;
  i.begin_ns = 1234567891;
  i.end_ns = 2345678912;
  i.memory_begin = (uint64_t{5} << 30) + 3;
  i.memory_end = (uint64_t{6} << 30) + 7;
  written.instantiations.push_back(i);
  const std::string bytes = WriteTemplight(written, TemplightNameMode::kDictionary);
  TraceStorage s;
  ImportTrace(bytes.data(), bytes.size(), &s);
  ASSERT_EQ(s.templight.size(), 1u);
  EXPECT_EQ(s.templight.memory_begin[0], (uint64_t{5} << 30) + 3);
  EXPECT_EQ(s.templight.memory_end[0], (uint64_t{6} << 30) + 7);
  EXPECT_EQ(s.slice.ts[0], 1234567891);
  EXPECT_EQ(s.slice.dur[0], 2345678912 - 1234567891);
  EXPECT_EQ(Str(s, s.track.name[0]), "translation unit 1");
}

TEST(TemplightImporterTest, DamageIsCountedAndTheRestLoaded) {
  const std::string whole = ReadTemplightTestFile("tiny.memory.trace.pbf");
  const std::string cut = whole.substr(0, whole.size() * 2 / 3);
  TraceStorage s;
  ImportOptions options;
  options.format = ImportOptions::Format::kTemplight;
  ImportTrace(cut.data(), cut.size(), &s, options);
  EXPECT_GT(s.slice.size(), 0u);
  EXPECT_LT(s.slice.size(), 10u);
  EXPECT_GT(s.stats.Get(stats::templight_problems), 0);
  ASSERT_FALSE(s.import_problems.empty());
  EXPECT_NE(s.import_problems.back().what.find("cut"), std::string::npos)
      << s.import_problems.back().what;
  for (const ImportProblem& problem : s.import_problems)
    EXPECT_LE(problem.offset, cut.size());
}

// A unit of 5,000 damaged entries (a begin whose length runs past it): each
// is a problem and all are counted, in the profile and in the stats, but
// only the first kMaxKeptProblems are kept (each is a string: 8 M of them
// took 0.95 GB for a 32 MB file).
TEST(TemplightImporterTest, ProblemsAreAllCountedButBoundedInMemory) {
  auto length = [](size_t n) {
    std::string out;
    for (; n >= 0x80; n >>= 7)
      out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    out.push_back(static_cast<char>(n));
    return out;
  };
  const std::string header("\x08\x01\x12\x05" "a.cpp", 9);
  std::string trace = "\x0a" + length(header.size()) + header;
  constexpr size_t kDamaged = 5000;
  for (size_t i = 0; i < kDamaged; i++)
    trace += std::string("\x12\x02\x0a\xff", 4);
  const std::string bytes = "\x0a" + length(trace.size()) + trace;

  TemplightProfile profile;
  ASSERT_TRUE(ReadTemplight(bytes.data(), bytes.size(), TemplightReadOptions(), &profile));
  EXPECT_EQ(profile.problem_count, kDamaged);
  EXPECT_EQ(profile.problems.size(), TemplightProfile::kMaxKeptProblems);

  TraceStorage s;
  ImportTrace(bytes.data(), bytes.size(), &s);
  EXPECT_EQ(s.stats.Get(stats::templight_problems), static_cast<int64_t>(kDamaged));
  EXPECT_LE(s.import_problems.size(), kMaxImportProblems);
  EXPECT_EQ(s.slice.size(), 0u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
