#include "src/processor/sql/perfetto_sql_parser.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace sql {
namespace {

std::vector<std::string> Split(const std::string& text, std::string* error = nullptr) {
  std::vector<std::string> out;
  std::string ignored;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t begin = 0, end = 0;
    if (!NextStatement(text, pos, &begin, &end, error ? error : &ignored))
      return {"error"};
    if (begin >= text.size())
      break;
    out.push_back(text.substr(begin, end - begin));
    pos = end;
  }
  return out;
}

TEST(PerfettoSqlParserTest, StatementsEndAtSemicolonsOutsideQuotesAndComments) {
  EXPECT_EQ(Split("SELECT 1; SELECT ';' -- ; \n; /* ; */ SELECT \"a;b\""),
            (std::vector<std::string>{"SELECT 1;", "SELECT ';' -- ; \n;",
                                      "SELECT \"a;b\""}));
  EXPECT_EQ(Split("  -- only a comment\n"), std::vector<std::string>{});
  EXPECT_EQ(Split("SELECT 'it''s; fine'; SELECT [a;b]"),
            (std::vector<std::string>{"SELECT 'it''s; fine';", "SELECT [a;b]"}));
}

TEST(PerfettoSqlParserTest, UnterminatedQuotesAndCommentsSayWhere) {
  std::string error;
  EXPECT_EQ(Split("SELECT 1;\nSELECT 'abc", &error), std::vector<std::string>{"error"});
  EXPECT_EQ(error, "unterminated string at 2:8");
  EXPECT_EQ(Split("SELECT /* x", &error), std::vector<std::string>{"error"});
  EXPECT_EQ(error, "unterminated comment at 1:8");
}

PerfettoStatement Parse(const std::string& text, std::string* error = nullptr) {
  PerfettoStatement out;
  std::string ignored;
  if (!ParsePerfettoStatement(text, &out, error ? error : &ignored))
    out.name = "<error>";
  return out;
}

TEST(PerfettoSqlParserTest, OrdinarySqlIsNotPerfetto) {
  EXPECT_EQ(Parse("SELECT 1").kind, PerfettoStatement::kNotPerfetto);
  EXPECT_EQ(Parse("CREATE TABLE t AS SELECT 1").kind, PerfettoStatement::kNotPerfetto);
  EXPECT_EQ(Parse("create or replace view v as select 1").kind, PerfettoStatement::kNotPerfetto);
  EXPECT_EQ(Parse("INCLUDE x").kind, PerfettoStatement::kNotPerfetto);
}

TEST(PerfettoSqlParserTest, TablesAndViewsWithAndWithoutSchemas) {
  PerfettoStatement s = Parse("create perfetto table big AS SELECT * FROM slice WHERE dur > 5;");
  EXPECT_EQ(s.kind, PerfettoStatement::kTable);
  EXPECT_EQ(s.name, "big");
  EXPECT_FALSE(s.replace);
  EXPECT_EQ(s.body, "SELECT * FROM slice WHERE dur > 5");
  s = Parse("CREATE OR REPLACE PERFETTO VIEW v(\n  -- The id.\n  id JOINID(slice.id),\n"
            "  name STRING\n) AS SELECT id, name FROM slice");
  EXPECT_EQ(s.kind, PerfettoStatement::kView);
  EXPECT_TRUE(s.replace);
  ASSERT_EQ(s.columns.size(), 2u);
  EXPECT_EQ(s.columns[0].name, "id");
  EXPECT_EQ(s.columns[0].type, "JOINID(SLICE.ID)");
  EXPECT_EQ(s.columns[1].name, "name");
  EXPECT_EQ(s.columns[1].type, "STRING");
}

TEST(PerfettoSqlParserTest, FunctionsMacrosIndexesAndIncludes) {
  PerfettoStatement s = Parse(
      "CREATE PERFETTO FUNCTION is_long(\n  -- The slice.\n  id LONG, min_dur DURATION)\n"
      "RETURNS BOOL AS SELECT dur > $min_dur FROM slice WHERE id = $id;");
  EXPECT_EQ(s.kind, PerfettoStatement::kFunction);
  EXPECT_EQ(s.name, "is_long");
  ASSERT_EQ(s.args.size(), 2u);
  EXPECT_EQ(s.args[1].name, "min_dur");
  EXPECT_EQ(s.args[1].type, "DURATION");
  EXPECT_EQ(s.returns, "BOOL");
  EXPECT_EQ(s.body, "SELECT dur > $min_dur FROM slice WHERE id = $id");

  s = Parse("CREATE PERFETTO FUNCTION f() RETURNS TABLE(id LONG, ts TIMESTAMP) AS SELECT 1, 2");
  EXPECT_EQ(s.returns, "TABLE");
  EXPECT_TRUE(s.args.empty());
  ASSERT_EQ(s.columns.size(), 2u);

  s = Parse("CREATE PERFETTO MACRO twice(x Expr) RETURNS Expr AS ($x) * 2");
  EXPECT_EQ(s.kind, PerfettoStatement::kMacro);
  EXPECT_EQ(s.body, "($x) * 2");

  s = Parse("CREATE PERFETTO INDEX big_ts ON big(ts)");
  EXPECT_EQ(s.kind, PerfettoStatement::kIndex);
  EXPECT_EQ(s.body, "big(ts)");

  s = Parse("INCLUDE PERFETTO MODULE slices.with_context;");
  EXPECT_EQ(s.kind, PerfettoStatement::kInclude);
  EXPECT_EQ(s.name, "slices.with_context");
}

TEST(PerfettoSqlParserTest, GrammarErrorsSayWhatWasExpected) {
  std::string error;
  Parse("CREATE PERFETTO FUNCTION f(a LONG) AS SELECT 1", &error);
  EXPECT_EQ(error, "CREATE PERFETTO FUNCTION f (after the arguments): expected RETURNS at 1:36");
  Parse("CREATE PERFETTO TABLE t SELECT 1", &error);
  EXPECT_EQ(error, "CREATE PERFETTO TABLE t: expected AS at 1:25");
  Parse("CREATE PERFETTO FUNCTION f(a) RETURNS LONG AS SELECT 1", &error);
  EXPECT_EQ(error, "CREATE PERFETTO FUNCTION f: expected 'name TYPE' before 1:29");
  Parse("CREATE PERFETTO TRIGGER t AS SELECT 1", &error);
  EXPECT_EQ(error, "CREATE PERFETTO TRIGGER: not a PerfettoSQL statement (TABLE, VIEW, FUNCTION, "
                   "MACRO or INDEX)");
  Parse("INCLUDE PERFETTO MODULE a b", &error);
  EXPECT_EQ(error, "INCLUDE PERFETTO MODULE: 'a b' is not a module name (dotted words, as in "
                   "slices.with_context, or a prefix and .*)");
  Parse("CREATE PERFETTO VIEW v AS", &error);
  EXPECT_EQ(error, "CREATE PERFETTO VIEW v: nothing after AS");
}

const Macro* Lookup(const void* data, std::string_view name) {
  const auto& macros = *static_cast<const std::map<std::string, Macro, std::less<>>*>(data);
  const auto it = macros.find(name);
  return it == macros.end() ? nullptr : &it->second;
}

TEST(PerfettoSqlParserTest, MacrosExpandTheirArgumentsAndNestedCalls) {
  std::map<std::string, Macro, std::less<>> macros;
  macros["twice"] = Macro{{"x"}, "(($x) * 2)"};
  macros["add"] = Macro{{"a", "b"}, "($a + $b)"};
  macros["four"] = Macro{{}, "twice!(2)"};
  std::string out, error;
  ASSERT_TRUE(ExpandMacros("SELECT twice!(dur), add!(f(1, 2), 'x,y') FROM slice", Lookup,
                           &macros, &out, &error))
      << error;
  EXPECT_EQ(out, "SELECT ((dur) * 2), (f(1, 2) + 'x,y') FROM slice");
  ASSERT_TRUE(ExpandMacros("SELECT four!() WHERE a != b AND '$x twice!(1)' = '-'", Lookup,
                           &macros, &out, &error));
  EXPECT_EQ(out, "SELECT ((2) * 2) WHERE a != b AND '$x twice!(1)' = '-'");
}

TEST(PerfettoSqlParserTest, MacroErrorsNameTheMacro) {
  std::map<std::string, Macro, std::less<>> macros;
  macros["twice"] = Macro{{"x"}, "(($x) * 2)"};
  macros["loop"] = Macro{{}, "loop!()"};
  std::string out, error;
  EXPECT_FALSE(ExpandMacros("SELECT nope!(1)", Lookup, &macros, &out, &error));
  EXPECT_EQ(error, "no macro named nope (at 1:8); CREATE PERFETTO MACRO defines one");
  EXPECT_FALSE(ExpandMacros("SELECT twice!(1, 2)", Lookup, &macros, &out, &error));
  EXPECT_EQ(error, "macro twice takes 1 argument(s), the call at 1:8 gives 2");
  EXPECT_FALSE(ExpandMacros("SELECT loop!()", Lookup, &macros, &out, &error));
  EXPECT_EQ(error,
            "macro loop expands more than 64 levels deep (does it expand into itself?), in loop! "
            "at 1:8");
  EXPECT_FALSE(ExpandMacros("SELECT twice!(1", Lookup, &macros, &out, &error));
  EXPECT_EQ(error, "the call of macro twice at 1:8 never closes");
  // 40 nested calls of a macro that doubles its argument: 2^40 copies.
  macros["dup"] = Macro{{"x"}, "$x || $x"};
  std::string nested = "x";
  for (int i = 0; i < 40; i++)
    nested = "dup!(" + nested + ")";
  EXPECT_FALSE(ExpandMacros("SELECT " + nested, Lookup, &macros, &out, &error));
  EXPECT_TRUE(error.find("exceeds 16 MiB") != std::string::npos ||
              error.find("past 32 MiB of text to read") != std::string::npos)
      << error;
  // 60 nested calls around a 2 MB argument: a small output, but the
  // argument is read again at every level (120 MB). Before, only the output
  // was bounded, and such a statement took seconds.
  std::string deep = "'" + std::string(2 << 20, 'a') + "'";
  for (int i = 0; i < 60; i++)
    deep = "twice!(" + deep + ")";
  EXPECT_FALSE(ExpandMacros("SELECT " + deep, Lookup, &macros, &out, &error));
  EXPECT_NE(error.find("past 32 MiB of text to read"), std::string::npos) << error;
}

TEST(PerfettoSqlParserTest, ListArgumentsSplitAtTheirTopLevelCommas) {
  std::vector<std::string> items;
  std::string error;
  ASSERT_TRUE(SplitMacroList(" (a, (SELECT x, ')' FROM t) , b -- c\n) ", &items, &error)) << error;
  EXPECT_EQ(items, (std::vector<std::string>{"a", "(SELECT x, ')' FROM t)", "b -- c"}));
  ASSERT_TRUE(SplitMacroList("()", &items, &error)) << error;
  EXPECT_TRUE(items.empty());
  EXPECT_FALSE(SplitMacroList("a, b", &items, &error));
  EXPECT_EQ(error, "expected a list in parentheses, as (a, b), not 'a, b'");
  EXPECT_FALSE(SplitMacroList("(a, , b)", &items, &error));
  EXPECT_EQ(error, "an empty item in the list '(a, , b)'");
  EXPECT_FALSE(SplitMacroList("(a))(b)", &items, &error));
  EXPECT_EQ(error, "unbalanced parentheses in the list '(a))(b)'");
}

bool CountItems(const std::vector<std::string>& args, std::string* body, std::string* error) {
  std::vector<std::string> items;
  if (!SplitMacroList(args[0], &items, error))
    return false;
  *body = std::to_string(items.size());
  return true;
}

TEST(PerfettoSqlParserTest, NativeMacrosWriteTheirBodyFromTheArguments) {
  std::map<std::string, Macro, std::less<>> macros;
  Macro count;
  count.args = {"list"};
  count.native = &CountItems;
  macros["count"] = count;
  macros["three"] = Macro{{}, "count!((1, 2, 3))"};
  std::string out, error;
  ASSERT_TRUE(ExpandMacros("SELECT count!((a, b)), three!()", Lookup, &macros, &out, &error))
      << error;
  EXPECT_EQ(out, "SELECT 2, 3");
  EXPECT_FALSE(ExpandMacros("SELECT count!(x)", Lookup, &macros, &out, &error));
  EXPECT_EQ(error, "count!: expected a list in parentheses, as (a, b), not 'x' (at 1:8)");
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
