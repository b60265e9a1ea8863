// Upstream's general-purpose scalar functions over values rather than the
// trace: STR_SPLIT(text, delimiter, n), HASH(values...), TO_TIMECODE(ns)
// and the REGEXP operator (`x REGEXP pattern`, which SQLite leaves to a
// regexp() function). Their errors say what was wrong with which argument.

#include <regex.h>
#include <sqlite3.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace string_functions {

// STR_SPLIT(text, delimiter, n): the n-th field (from 0) of text cut at
// every delimiter; NULL when there are fewer fields or text is not text.
void StrSplit(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[1]) != SQLITE_TEXT || sqlite3_value_bytes(argv[1]) == 0) {
    sqlite3_result_error(ctx, "str_split: the delimiter (2nd argument) must be a non-empty string",
                         -1);
    return;
  }
  if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER || sqlite3_value_int64(argv[2]) < 0) {
    sqlite3_result_error(
        ctx, "str_split: the field number (3rd argument) must be a non-negative integer", -1);
    return;
  }
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
    sqlite3_result_null(ctx);
    return;
  }
  const std::string text(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                         static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  const std::string delimiter(reinterpret_cast<const char*>(sqlite3_value_text(argv[1])),
                              static_cast<size_t>(sqlite3_value_bytes(argv[1])));
  int64_t field = sqlite3_value_int64(argv[2]);
  size_t begin = 0;
  while (true) {
    const size_t end = text.find(delimiter, begin);
    if (field == 0) {
      const size_t size = (end == std::string::npos ? text.size() : end) - begin;
      sqlite3_result_text(ctx, text.data() + begin, static_cast<int>(size), SQLITE_TRANSIENT);
      return;
    }
    if (end == std::string::npos)
      break;
    begin = end + delimiter.size();
    --field;
  }
  sqlite3_result_null(ctx);
}

// HASH(values...): 64-bit FNV-1a over the values in turn (an integer as its
// 8 bytes, little-endian; text as its bytes), as upstream computes it, so
// that hashes agree between the two processors.
void Hash(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](const uint8_t* bytes, size_t size) {
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ bytes[i]) * 1099511628211ull;
  };
  for (int i = 0; i < argc; ++i) {
    switch (sqlite3_value_type(argv[i])) {
      case SQLITE_INTEGER: {
        const uint64_t v = static_cast<uint64_t>(sqlite3_value_int64(argv[i]));
        uint8_t bytes[8];
        for (int b = 0; b < 8; ++b)
          bytes[b] = static_cast<uint8_t>(v >> (8 * b));
        mix(bytes, sizeof(bytes));
        break;
      }
      case SQLITE_TEXT: {
        const unsigned char* text = sqlite3_value_text(argv[i]);
        mix(text, strlen(reinterpret_cast<const char*>(text)));
        break;
      }
      default: {
        const std::string message =
            "hash: argument " + std::to_string(i + 1) + " is neither an integer nor text";
        sqlite3_result_error(ctx, message.c_str(), -1);
        return;
      }
    }
  }
  sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(hash));
}

// TO_TIMECODE(ns): "HH:MM:SS mmm uuu nnn", as upstream prints a duration
// or timestamp for people (hours beyond 99 take more digits).
void ToTimecode(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "to_timecode: the time must be an integer (nanoseconds)", -1);
    return;
  }
  const int64_t ns = sqlite3_value_int64(argv[0]);
  uint64_t v = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  const uint64_t nanos = v % 1000;
  const uint64_t micros = v / 1000 % 1000;
  const uint64_t millis = v / 1000000 % 1000;
  const uint64_t seconds = v / 1000000000;
  char text[64];
  snprintf(text, sizeof(text), "%s%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 " %03" PRIu64
                               " %03" PRIu64 " %03" PRIu64,
           ns < 0 ? "-" : "", seconds / 3600, seconds / 60 % 60, seconds % 60, millis, micros,
           nanos);
  sqlite3_result_text(ctx, text, -1, SQLITE_TRANSIENT);
}

void FreeRegex(void* compiled) {
  regfree(static_cast<regex_t*>(compiled));
  delete static_cast<regex_t*>(compiled);
}

// regexp(pattern, text): whether the POSIX extended regular expression
// matches anywhere in text; the pattern is compiled once per statement.
void Regexp(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "regexp: the pattern must be text", -1);
    return;
  }
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  auto* compiled = static_cast<regex_t*>(sqlite3_get_auxdata(ctx, 0));
  if (!compiled) {
    compiled = new regex_t;
    const int rc = regcomp(compiled, reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                           REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char reason[128];
      regerror(rc, compiled, reason, sizeof(reason));
      delete compiled;
      const std::string message = std::string("regexp: bad pattern: ") + reason;
      sqlite3_result_error(ctx, message.c_str(), -1);
      return;
    }
    sqlite3_set_auxdata(ctx, 0, compiled, FreeRegex);
    compiled = static_cast<regex_t*>(sqlite3_get_auxdata(ctx, 0));
    if (!compiled) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  const char* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[1]));
  sqlite3_result_int(ctx, regexec(compiled, text ? text : "", 0, nullptr, 0) == 0 ? 1 : 0);
}

}  // namespace string_functions

bool RegisterStringFunctions(sqlite3* db, std::string* error) {
  struct Entry {
    const char* name;
    int args;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  const Entry entries[] = {{"str_split", 3, string_functions::StrSplit},
                           {"hash", -1, string_functions::Hash},
                           {"to_timecode", 1, string_functions::ToTimecode},
                           {"regexp", 2, string_functions::Regexp}};
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
