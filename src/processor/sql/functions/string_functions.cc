// Upstream's general-purpose scalar functions over values rather than the
// trace: STR_SPLIT(text, delimiter, n), HASH(values...), TO_TIMECODE(ns),
// REVERSE(text), BASE64_ENCODE(bytes), BASE64_DECODE(text), UNHEX(text),
// DEMANGLE(symbol) (the regular expressions are regex_functions.cc). Their
// errors say what was wrong with which argument; NULL in gives NULL out.

#include <cxxabi.h>
#include <sqlite3.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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


// REVERSE(text): the bytes of text in reverse order.
void Reverse(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "reverse: the argument must be text", -1);
    return;
  }
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  std::string reversed(text, static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  std::reverse(reversed.begin(), reversed.end());
  sqlite3_result_text(ctx, reversed.data(), static_cast<int>(reversed.size()), SQLITE_TRANSIENT);
}

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// BASE64_ENCODE(bytes): standard base64 with '=' padding.
void Base64Encode(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  if (type != SQLITE_BLOB) {
    sqlite3_result_error(ctx, "base64_encode: the argument must be bytes (a BLOB)", -1);
    return;
  }
  const auto* in = static_cast<const uint8_t*>(sqlite3_value_blob(argv[0]));
  const size_t size = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    const uint32_t chunk = static_cast<uint32_t>(in[i]) << 16 |
                           (i + 1 < size ? static_cast<uint32_t>(in[i + 1]) << 8 : 0) |
                           (i + 2 < size ? in[i + 2] : 0);
    out += kBase64Alphabet[chunk >> 18];
    out += kBase64Alphabet[(chunk >> 12) & 63];
    out += i + 1 < size ? kBase64Alphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < size ? kBase64Alphabet[chunk & 63] : '=';
  }
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

// BASE64_DECODE(text): the bytes; padding optional; anything else that is
// not of the alphabet is an error naming where.
void Base64Decode(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "base64_decode: the argument must be text", -1);
    return;
  }
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  size_t size = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  while (size > 0 && text[size - 1] == '=')
    size--;
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (size_t i = 0; i < size; i++) {
    const char* found = static_cast<const char*>(memchr(kBase64Alphabet, text[i], 64));
    if (!found || text[i] == '\0') {
      const std::string message =
          "base64_decode: not base64 at character " + std::to_string(i + 1);
      sqlite3_result_error(ctx, message.c_str(), -1);
      return;
    }
    bits = bits << 6 | static_cast<uint32_t>(found - kBase64Alphabet);
    if (++count == 4) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>((bits >> 8) & 0xff);
      out += static_cast<char>(bits & 0xff);
      bits = 0;
      count = 0;
    }
  }
  if (count == 1) {
    sqlite3_result_error(ctx, "base64_decode: the text ends in the middle of a byte", -1);
    return;
  }
  if (count == 2) {
    out += static_cast<char>(bits >> 4);
  } else if (count == 3) {
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>((bits >> 2) & 0xff);
  }
  sqlite3_result_blob(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

// UNHEX(text): the integer a hex string (blanks around it and a 0x prefix
// allowed) writes.
void Unhex(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "unhex: the argument must be text", -1);
    return;
  }
  std::string text(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                   static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  const size_t first = text.find_first_not_of(" \t\n\r\f\v");
  const size_t last = text.find_last_not_of(" \t\n\r\f\v");
  text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.erase(0, 2);
  if (text.empty()) {
    sqlite3_result_error(ctx, "unhex: no hex digits", -1);
    return;
  }
  const bool negative = text[0] == '-';
  uint64_t value = 0;
  for (size_t i = negative ? 1 : 0; i < text.size(); i++) {
    const char c = text[i];
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0 || value > (UINT64_MAX >> 4)) {
      sqlite3_result_error(
          ctx, digit < 0 ? "unhex: not a hex digit in the text" : "unhex: out of range", -1);
      return;
    }
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  if (value > (negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX}) ||
      (negative && text.size() == 1)) {
    sqlite3_result_error(ctx, negative && text.size() == 1 ? "unhex: no hex digits"
                                                           : "unhex: out of range",
                         -1);
    return;
  }
  sqlite3_result_int64(ctx, negative ? static_cast<int64_t>(0 - value)
                                     : static_cast<int64_t>(value));
}

// DEMANGLE(symbol): a C++ (Itanium ABI) symbol as source code names it;
// NULL if it is not one.
void Demangle(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "demangle: the argument must be text", -1);
    return;
  }
  int status = 0;
  char* demangled = abi::__cxa_demangle(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                                        nullptr, nullptr, &status);
  if (status != 0 || !demangled) {
    std::free(demangled);
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_result_text(ctx, demangled, -1, SQLITE_TRANSIENT);
  std::free(demangled);
}

// STRING_AGG(value, separator): SQLite 3.44's name for GROUP_CONCAT with
// a separator (Debian 12's SQLite is 3.40), which upstream's SQL uses: the
// non-NULL values joined by the separator (none if it is NULL), NULL if
// there is none. An aggregate, not a window function.
void StringAggStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** joined = static_cast<std::string**>(sqlite3_aggregate_context(ctx, sizeof(std::string*)));
  if (!joined)
    return sqlite3_result_error_nomem(ctx);
  const unsigned char* value = sqlite3_value_text(argv[0]);
  if (!value)
    return;
  const size_t value_size = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  if (!*joined) {
    *joined = new std::string();
  } else {
    const unsigned char* separator = sqlite3_value_text(argv[1]);
    if (separator) {
      (*joined)->append(reinterpret_cast<const char*>(separator),
                        static_cast<size_t>(sqlite3_value_bytes(argv[1])));
    }
  }
  (*joined)->append(reinterpret_cast<const char*>(value), value_size);
}

void StringAggFinal(sqlite3_context* ctx) {
  auto** joined = static_cast<std::string**>(sqlite3_aggregate_context(ctx, 0));
  if (!joined || !*joined)
    return sqlite3_result_null(ctx);
  sqlite3_result_text(ctx, (*joined)->data(), static_cast<int>((*joined)->size()),
                      SQLITE_TRANSIENT);
  delete *joined;
  *joined = nullptr;
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
                           {"reverse", 1, string_functions::Reverse},
                           {"base64_encode", 1, string_functions::Base64Encode},
                           {"base64_decode", 1, string_functions::Base64Decode},
                           {"unhex", 1, string_functions::Unhex},
                           {"demangle", 1, string_functions::Demangle}};
  for (const Entry& e : entries) {
    if (sqlite3_create_function_v2(db, e.name, e.args, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                   nullptr, e.fn, nullptr, nullptr, nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + e.name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  // A newer SQLite has its own: that one stays.
  if (sqlite3_libversion_number() < 3044000 &&
      sqlite3_create_function_v2(db, "string_agg", 2, SQLITE_UTF8, nullptr, nullptr,
                                 string_functions::StringAggStep,
                                 string_functions::StringAggFinal, nullptr) != SQLITE_OK) {
    *error = std::string("cannot register string_agg: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
