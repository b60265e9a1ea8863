// libFuzzer target: any text through PerfettoSQL's preprocessor (statement
// splitting, its own statements' grammar, macro expansion). Beyond "no
// crash, no out-of-bounds read, no endless loop", it checks that the
// statements found tile the text in order, that a statement parses the
// same way twice, and that expansion (with a native macro that splits a
// list, as the standard library's do) either fails with a message or
// yields text.

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/sql/perfetto_sql_parser.h"

namespace {

using zt::processor::sql::Macro;

void Check(bool cond) {
  if (!cond)
    abort();
}

const Macro* Lookup(const void* data, std::string_view name) {
  const auto& macros = *static_cast<const std::map<std::string, Macro, std::less<>>*>(data);
  const auto it = macros.find(name);
  return it == macros.end() ? nullptr : &it->second;
}

// A native macro: the number of items of its list argument, each of
// which must be non-empty text.
bool CountItems(const std::vector<std::string>& args, std::string* body, std::string* error) {
  std::vector<std::string> items;
  if (!zt::processor::sql::SplitMacroList(args[0], &items, error)) {
    Check(!error->empty());
    return false;
  }
  for (const std::string& item : items)
    Check(!item.empty());
  *body = std::to_string(items.size());
  return true;
}

Macro Native() {
  Macro macro;
  macro.args = {"list"};
  macro.native = &CountItems;
  return macro;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zt::processor::sql;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::map<std::string, Macro, std::less<>> macros = {
      {"twice", Macro{{"x"}, "(($x) * 2)"}},
      {"pair", Macro{{"a", "b"}, "$a, $b, twice!($a)"}},
      {"self", Macro{{}, "self!()"}},
      {"items", Native()},
  };
  size_t pos = 0;
  std::string error;
  while (pos < text.size()) {
    size_t begin = 0, end = 0;
    if (!NextStatement(text, pos, &begin, &end, &error)) {
      Check(!error.empty());
      break;
    }
    Check(begin >= pos && begin <= text.size() && end <= text.size());
    if (begin >= text.size())
      break;
    Check(end > begin);
    const std::string_view statement = text.substr(begin, end - begin);
    PerfettoStatement first, second;
    std::string first_error, second_error;
    const bool ok = ParsePerfettoStatement(statement, &first, &first_error);
    Check(ok == ParsePerfettoStatement(statement, &second, &second_error));
    Check(ok ? first.kind == second.kind && first.name == second.name &&
                   first.body == second.body && first.args.size() == second.args.size()
             : !first_error.empty() && first_error == second_error);
    std::string expanded, expand_error;
    if (!ExpandMacros(statement, Lookup, &macros, &expanded, &expand_error))
      Check(!expand_error.empty());
    pos = end;
  }
  return 0;
}
