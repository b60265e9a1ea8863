#include "src/processor/exporters/profile_formats.h"

#include <string>

#include <gtest/gtest.h>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/test/templight_test_files.h"

namespace zt {
namespace processor {
namespace {

// Two threads: main (tid 10) with A [0,100] holding B [10,40] (holding C
// [20,30]), an instant D at 80, B again [50,70], and E from 90 never ended;
// worker (tid 11) with A [5,25].
class TwoThreads {
 public:
  TwoThreads() {
    s.thread.tid = {0, 10, 11};
    s.thread.name = {kNullStringId, s.strings.Intern("main"), s.strings.Intern("worker")};
    s.thread.upid = {kNullId, kNullId, kNullId};
    s.thread.start_ts = {kNullInt, kNullInt, kNullInt};
    s.thread.is_main_thread = {2, 2, 2};
    main_ = s.track.AddRow(kNullStringId, TrackKind::kThread, 1, kNullId, kNullId, 0, kNullStringId);
    worker_ = s.track.AddRow(kNullStringId, TrackKind::kThread, 2, kNullId, kNullId, 0, kNullStringId);
    const uint32_t a = Add(main_, "A", 0, 100, kNullId);
    Add(worker_, "A", 5, 20, kNullId);
    const uint32_t b = Add(main_, "B", 10, 30, a);
    Add(main_, "C", 20, 10, b);
    Add(main_, "B", 50, 20, a);
    Add(main_, "D", 80, 0, a);
    Add(main_, "E", 90, -1, a);
  }
  TraceStorage s;

  std::string Export(ProfileFormat format, ProfileExportResult* result = nullptr) {
    std::string text;
    StringJsonSink sink(&text);
    ProfileExportResult r = ExportProfile(s, format, &sink);
    EXPECT_TRUE(r.ok) << r.error;
    if (result)
      *result = r;
    return text;
  }

 private:
  uint32_t Add(uint32_t track, const char* name, int64_t ts, int64_t dur, uint32_t parent) {
    SliceTable& t = s.slice;
    const uint32_t id = static_cast<uint32_t>(t.size());
    t.ts.push_back(ts);
    t.dur.push_back(dur);
    t.track_id.push_back(track);
    t.category.push_back(kNullStringId);
    t.name.push_back(s.strings.Intern(name));
    t.depth.push_back(parent == kNullId ? 0 : t.depth[parent] + 1);
    t.parent_id.push_back(parent);
    t.arg_set_id.push_back(kNullId);
    return id;
  }
  uint32_t main_;
  uint32_t worker_;
};

TEST(ProfileFormatsTest, FoldedStacksHoldSelfTimePerStack) {
  TwoThreads trace;
  // A's self: 100 less B (30 + 20) and E (90 to A's end, 10); D has none.
  EXPECT_EQ(trace.Export(ProfileFormat::kFolded),
            "thread main 10;A 40\n"
            "thread main 10;A;B 40\n"
            "thread main 10;A;B;C 10\n"
            "thread main 10;A;E 10\n"
            "thread worker 11;A 20\n");
}

TEST(ProfileFormatsTest, FoldedNamesCannotBreakTheFormat) {
  TraceStorage s;
  s.track.AddRow(s.strings.Intern("jobs"), TrackKind::kGlobal, kNullId, kNullId, kNullId, 0,
                 kNullStringId);
  s.slice.ts = {0};
  s.slice.dur = {5};
  s.slice.track_id = {0};
  s.slice.category = {kNullStringId};
  s.slice.name = {s.strings.Intern("a;b\nc")};
  s.slice.depth = {0};
  s.slice.parent_id = {kNullId};
  s.slice.arg_set_id = {kNullId};
  std::string text;
  StringJsonSink sink(&text);
  EXPECT_TRUE(ExportProfile(s, ProfileFormat::kFolded, &sink).ok);
  EXPECT_EQ(text, "jobs;a:b c 5\n");
}

TEST(ProfileFormatsTest, SpeedscopeEventsNestPerThread) {
  TwoThreads trace;
  ProfileExportResult result;
  const std::string json = trace.Export(ProfileFormat::kSpeedscope, &result);
  EXPECT_EQ(json.rfind("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"", 0), 0u);
  EXPECT_NE(json.find("{\"type\":\"evented\",\"name\":\"thread main 10\",\"unit\":\"nanoseconds\","
                      "\"startValue\":0,\"endValue\":100,\"events\":["
                      "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":10},"
                      "{\"type\":\"O\",\"frame\":2,\"at\":20},{\"type\":\"C\",\"frame\":2,\"at\":30},"
                      "{\"type\":\"C\",\"frame\":1,\"at\":40},{\"type\":\"O\",\"frame\":1,\"at\":50},"
                      "{\"type\":\"C\",\"frame\":1,\"at\":70},{\"type\":\"O\",\"frame\":3,\"at\":90},"
                      "{\"type\":\"C\",\"frame\":3,\"at\":100},{\"type\":\"C\",\"frame\":0,\"at\":100}]}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"type\":\"evented\",\"name\":\"thread worker 11\",\"unit\":\"nanoseconds\","
                      "\"startValue\":5,\"endValue\":25,\"events\":["
                      "{\"type\":\"O\",\"frame\":0,\"at\":5},{\"type\":\"C\",\"frame\":0,\"at\":25}]}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"shared\":{\"frames\":[{\"name\":\"A\"},{\"name\":\"B\"},{\"name\":\"C\"},"
                      "{\"name\":\"E\"}]}}\n"),
            std::string::npos)
      << json;
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_NE(result.notes[0].find("1 slices of no duration"), std::string::npos);
}

// Sums every cost line of a callgrind file's functions (self costs: lines
// that follow fn=, not calls=).
int64_t SumOfSelfCosts(const std::string& text) {
  int64_t sum = 0;
  bool after_fn = false;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end == std::string::npos ? text.size() : end + 1;
    if (line.rfind("fn=", 0) == 0) {
      after_fn = true;
    } else if (after_fn && !line.empty() && isdigit(static_cast<unsigned char>(line[0]))) {
      sum += std::stoll(line.substr(line.find(' ') + 1));
      after_fn = false;
    }
  }
  return sum;
}

TEST(ProfileFormatsTest, CallgrindSelfCostsAddUpToTheSummary) {
  TwoThreads trace;
  const std::string text = trace.Export(ProfileFormat::kCallgrind);
  EXPECT_NE(text.find("events: Time\nsummary: 120\n"), std::string::npos) << text;
  EXPECT_EQ(SumOfSelfCosts(text), 120) << text;
  // A on both threads is one function: self 40 + 20; called by each root.
  EXPECT_NE(text.find("cfn=(2) A\ncalls=1 0\n0 100\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fn=(2)\n0 60\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cfn=(3) B\ncalls=2 0\n0 50\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fn=(7) thread worker 11\n0 0\ncfi=(2)\ncfn=(2)\ncalls=1 0\n0 20\n"),
            std::string::npos)
      << text;
}

TEST(ProfileFormatsTest, GraphvizCallGraph) {
  TwoThreads trace;
  const std::string dot = trace.Export(ProfileFormat::kGraphviz);
  EXPECT_EQ(dot.rfind("digraph calls {\n", 0), 0u);
  EXPECT_NE(dot.find("  f0 [label=\"thread main 10\\ntotal: 100 ns\", shape=ellipse];\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  f1 -> f2 [label=\"2 calls, 50 ns\"];\n"), std::string::npos) << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

// Quotes and backslashes are escaped in a label, a line break becomes \n
// and a carriage return goes, wherever they stand in the name.
TEST(ProfileFormatsTest, GraphvizEscapesNames) {
  TwoThreads trace;
  trace.s.slice.name[2] = trace.s.strings.Intern("\"q\"\\x\ny\r<\"\\>");
  const std::string dot = trace.Export(ProfileFormat::kGraphviz);
  EXPECT_NE(dot.find("[label=\"\\\"q\\\"\\\\x\\ny<\\\"\\\\>\\nself: "), std::string::npos)
      << dot;
}

// Templight: the template's origin as the function's file and line, the
// point of instantiation as the call's line, memory as a second event.
TEST(ProfileFormatsTest, TemplightTimeAndMemoryWithFileAndLine) {
  const std::string file = ReadTemplightTestFile("tiny.memory.trace.pbf");
  TraceStorage s;
  ImportTrace(file.data(), file.size(), &s);
  std::string text;
  StringJsonSink sink(&text);
  ASSERT_TRUE(ExportProfile(s, ProfileFormat::kCallgrind, &sink).ok);
  EXPECT_NE(text.find("event: CTime : Compilation Time (ns)\n"
                      "event: CMem : Compiler Memory Usage (bytes)\nevents: CTime CMem\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fl=(1) /src/app/main.cpp\nfn=(1) /src/app/main.cpp\n"), std::string::npos)
      << text;
  // std::vector<...> is defined at stl_vector.h:1044 and instantiated at
  // main.cpp:8.
  EXPECT_NE(text.find("cfi=(2) /usr/include/c++/13/bits/stl_vector.h\n"), std::string::npos) << text;
  EXPECT_NE(text.find("calls=1 1044\n8 7000 1216\n"), std::string::npos) << text;

  text.clear();
  ASSERT_TRUE(ExportProfile(s, ProfileFormat::kGraphviz, &sink).ok);
  EXPECT_EQ(text.rfind("digraph instantiations {\n", 0), 0u);
  EXPECT_NE(text.find("TemplateInstantiation\\nstd::vector<"), std::string::npos) << text;
  EXPECT_NE(text.find("from /src/app/main.cpp:8"), std::string::npos) << text;

  text.clear();
  ASSERT_TRUE(ExportProfile(s, ProfileFormat::kFolded, &sink).ok);
  EXPECT_NE(text.find("/src/app/main.cpp;std::map<int, std::tuple<>, std::less<int>, "
                      "std::allocator<std::pair<const int, std::tuple<>>>>::operator[] 7000\n"),
            std::string::npos)
      << text;
}

TEST(ProfileFormatsTest, AnEmptyTraceGivesEmptyFilesAndSaysSo) {
  TraceStorage s;
  for (ProfileFormat format : {ProfileFormat::kFolded, ProfileFormat::kCallgrind,
                               ProfileFormat::kSpeedscope, ProfileFormat::kGraphviz}) {
    std::string text;
    StringJsonSink sink(&text);
    const ProfileExportResult result = ExportProfile(s, format, &sink);
    EXPECT_TRUE(result.ok);
    EXPECT_EQ(result.notes.size(), 1u);
  }
}

}  // namespace
}  // namespace processor
}  // namespace zt
