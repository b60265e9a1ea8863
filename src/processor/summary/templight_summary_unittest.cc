#include "src/processor/summary/templight_summary.h"

#include <string>

#include <gtest/gtest.h>

#include "src/processor/test/templight_test_files.h"
#include "src/processor/importers/trace_importer.h"

namespace zt {
namespace processor {
namespace {

TEST(TemplightSummaryTest, TemplateOfFoldsArgumentsNotOperators) {
  EXPECT_EQ(TemplateOf("std::vector<int>"), "std::vector");
  EXPECT_EQ(TemplateOf("std::vector<int>::push_back"), "std::vector");
  EXPECT_EQ(TemplateOf("fib<4>"), "fib");
  EXPECT_EQ(TemplateOf("plain_function"), "plain_function");
  EXPECT_EQ(TemplateOf("std::operator<<"), "std::operator<<");
  EXPECT_EQ(TemplateOf("std::operator<<<std::char_traits<char>>"), "std::operator<<");
  // operator< with arguments (a real trace's libc++ names): before, cut at
  // the next '<' ("std::__1::operator<<long, std::__1::allocator"), a row
  // of its own for every argument list.
  EXPECT_EQ(TemplateOf("std::__1::operator<<long, std::__1::allocator<long> >"),
            "std::__1::operator<");
  EXPECT_EQ(TemplateOf("std::__1::operator<<std::__1::basic_string<char>, int>"),
            "std::__1::operator<");
  EXPECT_EQ(TemplateOf("std::operator<<=<int>"), "std::operator<<=");
  EXPECT_EQ(TemplateOf("std::operator<=<int>"), "std::operator<=");
  EXPECT_EQ(TemplateOf("std::operator><int>"), "std::operator>");
  EXPECT_EQ(TemplateOf("std::operator>><int>"), "std::operator>>");
  EXPECT_EQ(TemplateOf("std::operator<<(std::ostream &, int)"),
            "std::operator<<(std::ostream &, int)");
  EXPECT_EQ(TemplateOf("operator< <int>"), "operator<");
  EXPECT_EQ(TemplateOf("a::operator<=><T>"), "a::operator<=>");
  EXPECT_EQ(TemplateOf("X::operator<=(const X &)"), "X::operator<=(const X &)");
  EXPECT_EQ(TemplateOf(""), "");
  EXPECT_EQ(TemplateOf("<lambda>"), "");
}

// Appends one Templight instantiation (a slice on track 0 and its row).
uint32_t AddInstantiation(TraceStorage* storage, const char* name, int64_t ts, int64_t dur,
                          uint32_t parent, uint64_t mem_begin, uint64_t mem_end,
                          const char* file) {
  TraceStorage& s = *storage;
  const uint32_t id = static_cast<uint32_t>(s.slice.size());
  s.slice.ts.push_back(ts);
  s.slice.dur.push_back(dur);
  s.slice.track_id.push_back(0);
  s.slice.category.push_back(kNullStringId);
  s.slice.name.push_back(s.strings.Intern(name));
  s.slice.depth.push_back(parent == kNullId ? 0 : s.slice.depth[parent] + 1);
  s.slice.parent_id.push_back(parent);
  s.slice.arg_set_id.push_back(kNullId);
  TemplightInstantiationTable& t = s.templight;
  t.slice_id.push_back(id);
  t.kind.push_back(0);
  t.kind_name.push_back(kNullStringId);
  t.file.push_back(s.strings.Intern(file));
  t.line.push_back(1);
  t.column.push_back(1);
  t.origin_file.push_back(kNullStringId);
  t.origin_line.push_back(0);
  t.origin_column.push_back(0);
  t.memory_begin.push_back(mem_begin);
  t.memory_end.push_back(mem_end);
  return id;
}

// fib<3> inside fib<4> (the same template, nested): the template's time is
// fib<4>'s, not fib<4>'s plus fib<3>'s.
TEST(TemplightSummaryTest, NestedSameTemplateCountsOnce) {
  TraceStorage s;
  s.templight_units.push_back(TemplightUnitRow{0, 1, s.strings.Intern("a.cpp")});
  auto add = [&s](const char* name, int64_t ts, int64_t dur, uint32_t parent, uint64_t mem_begin,
                  uint64_t mem_end, const char* file) {
    return AddInstantiation(&s, name, ts, dur, parent, mem_begin, mem_end, file);
  };
  const uint32_t f4 = add("fib<4>", 0, 100, kNullId, 1000, 1600, "fib.h");
  const uint32_t f3 = add("fib<3>", 10, 60, f4, 1100, 1400, "fib.h");
  add("std::vector<int>", 20, 30, f3, 1200, 1300, "vector");
  add("fib<2>", 200, -1, kNullId, 2000, 0, "fib.h");  // Still open.

  const std::vector<TemplightCost> by_template =
      ComputeTemplightCosts(s, TemplightGrouping::kTemplate);
  ASSERT_EQ(by_template.size(), 2u);
  EXPECT_EQ(by_template[0].key, "fib");
  EXPECT_EQ(by_template[0].count, 3u);
  EXPECT_EQ(by_template[0].total_ns, 100);
  EXPECT_EQ(by_template[0].self_ns, 40 + 30);
  EXPECT_EQ(by_template[0].memory_bytes, 600u);
  EXPECT_EQ(by_template[1].key, "std::vector");
  EXPECT_EQ(by_template[1].total_ns, 30);
  EXPECT_EQ(by_template[1].memory_bytes, 100u);

  const std::vector<TemplightCost> by_name = ComputeTemplightCosts(s, TemplightGrouping::kName);
  ASSERT_EQ(by_name.size(), 4u);
  EXPECT_EQ(by_name[0].key, "fib<4>");
  EXPECT_EQ(by_name[1].key, "fib<3>");
  EXPECT_EQ(by_name[1].total_ns, 60);  // A different name: counted.

  // Kinds: named where the unit's numbering names them, numbers otherwise.
  s.templight.kind[3] = 77;
  s.templight.kind_name[0] = s.templight.kind_name[1] = s.templight.kind_name[2] =
      s.strings.Intern("TemplateInstantiation");
  const std::vector<TemplightCost> by_kind = ComputeTemplightCosts(s, TemplightGrouping::kKind);
  ASSERT_EQ(by_kind.size(), 2u);
  EXPECT_EQ(by_kind[0].key, "TemplateInstantiation");
  EXPECT_EQ(by_kind[0].count, 3u);
  EXPECT_EQ(by_kind[1].key, "kind 77");
  EXPECT_EQ(by_kind[1].count, 1u);

  const std::vector<TemplightCost> by_file = ComputeTemplightCosts(s, TemplightGrouping::kFile);
  ASSERT_EQ(by_file.size(), 2u);
  EXPECT_EQ(by_file[0].key, "fib.h");
  EXPECT_EQ(by_file[0].total_ns, 100);

  const std::string text = FormatTemplightSummary(s, 10);
  EXPECT_NE(text.find("1 translation unit, 4 instantiations (1 still open at the end), "
                      "2 templates, 4 distinct names, 2 files"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("top instantiations by memory"), std::string::npos) << text;
  EXPECT_NE(text.find("  kind 77   "), std::string::npos) << text;
}

// An instantiation left open at the end of the file (compilation stopped)
// holding a finished one of the same template: the open one has no time,
// so the finished one's counts. Before, it was taken as counted inside the
// open one: self time 60, total 0.
TEST(TemplightSummaryTest, InsideAnOpenInstantiationTimeIsCounted) {
  TraceStorage s;
  s.templight_units.push_back(TemplightUnitRow{0, 1, s.strings.Intern("a.cpp")});
  const uint32_t open = AddInstantiation(&s, "fib<4>", 0, -1, kNullId, 0, 0, "fib.h");
  const uint32_t f3 = AddInstantiation(&s, "fib<3>", 10, 60, open, 0, 0, "fib.h");
  AddInstantiation(&s, "fib<2>", 20, 30, f3, 0, 0, "fib.h");
  const std::vector<TemplightCost> by_template =
      ComputeTemplightCosts(s, TemplightGrouping::kTemplate);
  ASSERT_EQ(by_template.size(), 1u);
  EXPECT_EQ(by_template[0].count, 3u);
  EXPECT_EQ(by_template[0].total_ns, 60);  // fib<3>'s, fib<2> inside it.
  EXPECT_EQ(by_template[0].self_ns, 30 + 30);
  for (TemplightGrouping grouping : {TemplightGrouping::kTemplate, TemplightGrouping::kName,
                                     TemplightGrouping::kFile, TemplightGrouping::kKind}) {
    for (const TemplightCost& cost : ComputeTemplightCosts(s, grouping))
      EXPECT_LE(cost.self_ns, cost.total_ns) << cost.key;
  }
}

// A stack 50,000 deep (a hostile file, or a deep recursion): one template,
// counted once; a quadratic walk of ancestors would take minutes here.
TEST(TemplightSummaryTest, DeepStackIsCountedOnceAndQuickly) {
  TraceStorage s;
  s.templight_units.push_back(TemplightUnitRow{0, 1, s.strings.Intern("deep.cpp")});
  constexpr uint32_t kDepth = 50000;
  for (uint32_t i = 0; i < kDepth; i++) {
    s.slice.ts.push_back(i);
    s.slice.dur.push_back(2 * (kDepth - i));
    s.slice.track_id.push_back(0);
    s.slice.category.push_back(kNullStringId);
    s.slice.name.push_back(s.strings.Intern("rec<" + std::to_string(i) + ">"));
    s.slice.depth.push_back(i);
    s.slice.parent_id.push_back(i == 0 ? kNullId : i - 1);
    s.slice.arg_set_id.push_back(kNullId);
    TemplightInstantiationTable& t = s.templight;
    t.slice_id.push_back(i);
    t.kind.push_back(0);
    t.kind_name.push_back(kNullStringId);
    t.file.push_back(kNullStringId);
    t.line.push_back(0);
    t.column.push_back(0);
    t.origin_file.push_back(kNullStringId);
    t.origin_line.push_back(0);
    t.origin_column.push_back(0);
    t.memory_begin.push_back(0);
    t.memory_end.push_back(0);
  }
  const std::vector<TemplightCost> by_template =
      ComputeTemplightCosts(s, TemplightGrouping::kTemplate);
  ASSERT_EQ(by_template.size(), 1u);
  EXPECT_EQ(by_template[0].key, "rec");
  EXPECT_EQ(by_template[0].count, kDepth);
  EXPECT_EQ(by_template[0].total_ns, 2 * int64_t{kDepth});
  EXPECT_EQ(by_template[0].self_ns, 2 * int64_t{kDepth});  // 2 ns each.
  const std::vector<TemplightCost> by_name = ComputeTemplightCosts(s, TemplightGrouping::kName);
  EXPECT_EQ(by_name.size(), kDepth);
  EXPECT_EQ(by_name[0].total_ns, 2 * int64_t{kDepth});
}

// Two units (tracks) whose rows interleave in time: a stack left open on
// one track does not make the other's instantiations look nested.
TEST(TemplightSummaryTest, TracksAreStacksOfTheirOwn) {
  const std::string bytes = ReadTemplightTestFile("two_traces_concat.trace.pbf");
  TraceStorage s;
  ImportTrace(bytes.data(), bytes.size(), &s);
  int64_t memoization_ns = 0;  // None is nested in another here: all count.
  for (uint32_t row = 0; row < s.templight.size(); row++) {
    if (s.strings.Get(s.templight.kind_name[row]) == "Memoization")
      memoization_ns += std::max<int64_t>(0, s.slice.dur[s.templight.slice_id[row]]);
  }
  ASSERT_GT(memoization_ns, 0);
  bool found = false;
  for (const TemplightCost& cost : ComputeTemplightCosts(s, TemplightGrouping::kKind)) {
    if (cost.key == "Memoization") {
      EXPECT_EQ(cost.total_ns, memoization_ns);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(TemplightSummaryTest, TinyFixture) {
  const std::string bytes = ReadTemplightTestFile("tiny.memory.trace.pbf");
  TraceStorage s;
  ImportTrace(bytes.data(), bytes.size(), &s);
  const std::string text = FormatTemplightSummary(s, 3);
  EXPECT_NE(text.find("unit: /src/app/main.cpp (Templight version 1, kinds numbered as "), std::string::npos)
      << text;
  EXPECT_NE(text.find("top templates by time"), std::string::npos) << text;
  EXPECT_NE(text.find("top files by time"), std::string::npos) << text;
  EXPECT_EQ(FormatTemplightSummary(TraceStorage(), 3), "");
  // Every kind, whatever --top says (its three here).
  const std::string one = FormatTemplightSummary(s, 1);
  const std::string kinds = one.substr(one.find("by kind"));
  EXPECT_NE(kinds.find("  TemplateInstantiation "), std::string::npos) << kinds;
  EXPECT_NE(kinds.find("  Memoization "), std::string::npos) << kinds;
  EXPECT_NE(kinds.find("  DeducedTemplateArgumentSubstitution "), std::string::npos) << kinds;
}

}  // namespace
}  // namespace processor
}  // namespace zt
