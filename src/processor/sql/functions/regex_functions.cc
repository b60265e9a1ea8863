// Upstream's regular-expression functions, on POSIX extended regular
// expressions (as upstream's on Linux):
//   regexp(pattern, text)            whether pattern matches in text (also
//                                    the operator `text REGEXP pattern`)
//   regexp(pattern, text, flags)     the same; flags 'i' ignore case, 'c'
//                                    heed it (the last given wins)
//   regexp_extract(text, pattern)    the first match, or its one group if
//                                    the pattern has one and it matched
//   regexp_replace_simple(text, pattern, replacement)
//                                    every match replaced by replacement
// A pattern is compiled once per statement (SQLite's auxdata). NULL text
// gives NULL; a bad pattern or flag is an error saying so.

#include <regex.h>
#include <sqlite3.h>

#include <string>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace regex_functions {

struct Compiled {
  regex_t regex;
  int flags;
};

void FreeCompiled(void* compiled) {
  regfree(&static_cast<Compiled*>(compiled)->regex);
  delete static_cast<Compiled*>(compiled);
}

// The pattern of argument `index`, compiled with `flags` (kept with the
// statement); nullptr after setting the error.
const regex_t* Pattern(sqlite3_context* ctx, sqlite3_value** argv, int index, int flags,
                       const char* function) {
  if (sqlite3_value_type(argv[index]) != SQLITE_TEXT) {
    const std::string message = std::string(function) + ": the pattern must be text";
    sqlite3_result_error(ctx, message.c_str(), -1);
    return nullptr;
  }
  auto* compiled = static_cast<Compiled*>(sqlite3_get_auxdata(ctx, index));
  if (compiled && compiled->flags == flags)
    return &compiled->regex;
  compiled = new Compiled;
  compiled->flags = flags;
  const int rc = regcomp(&compiled->regex,
                         reinterpret_cast<const char*>(sqlite3_value_text(argv[index])), flags);
  if (rc != 0) {
    char reason[128];
    regerror(rc, &compiled->regex, reason, sizeof(reason));
    delete compiled;
    const std::string message = std::string(function) + ": bad pattern: " + reason;
    sqlite3_result_error(ctx, message.c_str(), -1);
    return nullptr;
  }
  sqlite3_set_auxdata(ctx, index, compiled, FreeCompiled);
  compiled = static_cast<Compiled*>(sqlite3_get_auxdata(ctx, index));
  if (!compiled) {
    sqlite3_result_error_nomem(ctx);
    return nullptr;
  }
  return &compiled->regex;
}

const char* TextOrNull(sqlite3_value* value) {
  return sqlite3_value_type(value) == SQLITE_NULL
             ? nullptr
             : reinterpret_cast<const char*>(sqlite3_value_text(value));
}

void Regexp(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  int flags = REG_EXTENDED | REG_NOSUB;
  if (argc == 3) {
    const char* given = TextOrNull(argv[2]);
    for (const char* c = given ? given : ""; *c; c++) {
      if (*c == 'i') {
        flags |= REG_ICASE;
      } else if (*c == 'c') {
        flags &= ~REG_ICASE;
      } else {
        const std::string message = std::string("regexp: unknown flag '") + *c +
                                    "' (flags are 'i', ignore case, and 'c', heed it)";
        sqlite3_result_error(ctx, message.c_str(), -1);
        return;
      }
    }
  }
  const regex_t* pattern = Pattern(ctx, argv, 0, flags, "regexp");
  if (!pattern)
    return;
  const char* text = TextOrNull(argv[1]);
  if (!text) {
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_result_int(ctx, regexec(pattern, text, 0, nullptr, 0) == 0 ? 1 : 0);
}

void RegexpExtract(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const regex_t* pattern = Pattern(ctx, argv, 1, REG_EXTENDED, "regexp_extract");
  if (!pattern)
    return;
  if (pattern->re_nsub > 1) {
    sqlite3_result_error(ctx, "regexp_extract: the pattern has more than one group", -1);
    return;
  }
  const char* text = TextOrNull(argv[0]);
  regmatch_t match[2];
  if (!text || regexec(pattern, text, 2, match, 0) != 0) {
    sqlite3_result_null(ctx);
    return;
  }
  const regmatch_t& m =
      pattern->re_nsub == 1 && match[1].rm_so >= 0 && match[1].rm_eo > match[1].rm_so ? match[1]
                                                                                      : match[0];
  sqlite3_result_text(ctx, text + m.rm_so, static_cast<int>(m.rm_eo - m.rm_so), SQLITE_TRANSIENT);
}

void RegexpReplaceSimple(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const regex_t* pattern = Pattern(ctx, argv, 1, REG_EXTENDED, "regexp_replace_simple");
  if (!pattern)
    return;
  const char* text = TextOrNull(argv[0]);
  const char* replacement = TextOrNull(argv[2]);
  if (!text || !replacement) {
    sqlite3_result_null(ctx);
    return;
  }
  const std::string input(text, static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  std::string out;
  size_t pos = 0;
  while (pos <= input.size()) {
    regmatch_t match;
    if (regexec(pattern, input.c_str() + pos, 1, &match, pos > 0 ? REG_NOTBOL : 0) != 0)
      break;
    out.append(input, pos, static_cast<size_t>(match.rm_so));
    out += replacement;
    pos += static_cast<size_t>(match.rm_eo);
    if (match.rm_eo == match.rm_so) {
      // An empty match: keep the next character, or the loop never moves.
      if (pos < input.size())
        out += input[pos];
      pos++;
    }
  }
  if (pos < input.size())
    out.append(input, pos, std::string::npos);
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

}  // namespace regex_functions

bool RegisterRegexFunctions(sqlite3* db, std::string* error) {
  struct Entry {
    const char* name;
    int args;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  const Entry entries[] = {{"regexp", 2, regex_functions::Regexp},
                           {"regexp", 3, regex_functions::Regexp},
                           {"regexp_extract", 2, regex_functions::RegexpExtract},
                           {"regexp_replace_simple", 3, regex_functions::RegexpReplaceSimple}};
  for (const Entry& e : entries) {
    if (sqlite3_create_function_v2(db, e.name, e.args, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                   nullptr, e.fn, nullptr, nullptr, nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + e.name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
