// PerfettoSQL's own statements, recognized in SQL text before SQLite sees
// it (docs/design/perfetto_sql.md):
//
//   CREATE [OR REPLACE] PERFETTO TABLE name [(col TYPE, ...)] AS select
//   CREATE [OR REPLACE] PERFETTO VIEW name [(col TYPE, ...)] AS select
//   CREATE [OR REPLACE] PERFETTO FUNCTION name(arg TYPE, ...)
//       RETURNS TYPE | RETURNS TABLE(col TYPE, ...) AS select
//   CREATE [OR REPLACE] PERFETTO MACRO name(arg Type, ...) RETURNS Type AS body
//   CREATE [OR REPLACE] PERFETTO INDEX name ON table(col, ...)
//   INCLUDE PERFETTO MODULE a.b.c | a.b.*
//
// and the statement boundaries and macro calls (`name!(args)`) of any SQL,
// with SQLite's lexical rules: quotes ('', "", ``, []) and comments (--,
// /* */) hide what they hold. Pure functions of the text: no SQLite here.

#ifndef ZT_SRC_PROCESSOR_SQL_PERFETTO_SQL_PARSER_H_
#define ZT_SRC_PROCESSOR_SQL_PERFETTO_SQL_PARSER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace zt {
namespace processor {
namespace sql {

// Where the statement that starts at or after `pos` begins (past blanks
// and comments; text.size() if none does) and ends (just past its `;`, or
// text.size()). False with *error ("unterminated string at 3:14") if a
// quote or comment never closes.
bool NextStatement(std::string_view text, size_t pos, size_t* begin, size_t* end,
                   std::string* error);

// "line:column" (1-based) of `offset` in `text`.
std::string Where(std::string_view text, size_t offset);

struct PerfettoStatement {
  enum Kind { kNotPerfetto, kTable, kView, kFunction, kMacro, kIndex, kInclude };
  struct Arg {
    std::string name;
    std::string type;  // As written, upper-cased ("LONG", "JOINID(SLICE.ID)").
  };
  Kind kind = kNotPerfetto;
  bool replace = false;      // OR REPLACE.
  std::string name;          // Table, view, function, macro, index; module.
  std::vector<Arg> args;     // A function's or macro's arguments.
  std::vector<Arg> columns;  // A table's or view's schema, a table function's.
  std::string returns;       // "LONG", ..., or "TABLE" (then `columns`).
  std::string body;          // The select (or macro body; index: "table(col, ...)").
};

// Parses `statement` (one statement, as NextStatement bounds it). A
// statement that does not start with PerfettoSQL's keywords is
// kNotPerfetto; one that does but does not follow their grammar is an
// error saying what was expected ("CREATE PERFETTO FUNCTION: expected
// RETURNS after the arguments").
bool ParsePerfettoStatement(std::string_view statement, PerfettoStatement* out,
                            std::string* error);

// A macro, as the engine keeps it: a body whose `$arg`s are replaced, or
// a native one whose body C++ writes from the arguments' text (the
// operators behind the standard library's macros).
struct Macro {
  using NativeFn = bool (*)(const std::vector<std::string>& args, std::string* body,
                            std::string* error);
  std::vector<std::string> args;
  std::string body;
  NativeFn native = nullptr;
};

// The items of a parenthesised list given as a macro argument: "(a, (SELECT
// x, y FROM t))" gives "a" and "(SELECT x, y FROM t)"; "()" gives none. An
// argument that is not a list in parentheses is an error.
bool SplitMacroList(std::string_view list, std::vector<std::string>* items, std::string* error);

// The native macro `__zt_columns!((a, b))`: the list's items without the
// parentheses, "a, b" (the standard library's modules splice a list of
// partition columns into PARTITION BY and GROUP BY with it). An empty
// list is an error: a clause left without its columns would not parse.
bool ExpandColumnList(const std::vector<std::string>& args, std::string* body,
                      std::string* error);
// The native macro `__intrinsic_token_apply!(m, (a, b))`, as upstream's:
// "m!(a), m!(b)" (expanded again in turn); an empty list gives nothing.
bool ExpandTokenApply(const std::vector<std::string>& args, std::string* body,
                      std::string* error);

using MacroLookup = const Macro* (*)(const void* data, std::string_view name);

// Expands every `name!(a, b)` in `text` whose name `lookup` knows, the
// body's `$arg`s replaced by the arguments' text; expansions are expanded
// again, up to a depth of 64 (then an error: a macro that expands into
// itself), and to 16 MiB of text (then an error too: nested calls of a
// macro that uses an argument twice double at each level). An unknown
// macro or a wrong argument count is an error naming it. `text` without
// `!(` is returned as is.
bool ExpandMacros(std::string_view text, MacroLookup lookup, const void* data, std::string* out,
                  std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_PERFETTO_SQL_PARSER_H_
