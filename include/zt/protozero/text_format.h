// Protobuf text format ("pbtxt") to binary protobuf, driven by the run-time
// MessageSchema tables that protoc-gen-pbzero emits; no libprotobuf needed.
// This is what turns upstream-style trace configs (the files passed to
// `perfetto --txt -c config.pbtxt`) into TraceConfig bytes.
//
// Accepted grammar, encoding rules, error model and limits:
// docs/design/text_format.md. In short: everything protobuf's TextFormat
// accepts for messages without extensions/Any/groups; duplicate singular
// fields and unknown field names are errors (as in libprotobuf).
//
// Thread-safe: no global state.

#ifndef ZT_PROTOZERO_TEXT_FORMAT_H_
#define ZT_PROTOZERO_TEXT_FORMAT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "zt/protozero/schema.h"

namespace zt {
namespace protozero {

struct TextFormatError {
  size_t line = 0;    // 1-based.
  size_t column = 0;  // 1-based, in bytes (a tab counts as one column).
  // What was expected and what was found. It quotes at most 40 bytes of
  // any token, so it stays short however long the input.
  std::string message;
};

// Messages may nest at most this deep (protobuf's default recursion limit).
constexpr size_t kTextFormatMaxDepth = 100;

// Parses |text| as a message of |schema|. On success appends its binary
// encoding to |*out| and returns true. On failure returns false, stores the
// first error in |*error| (if not null) and leaves |*out| unchanged.
// O(text size + output size).
bool ParseTextFormat(const MessageSchema& schema, std::string_view text,
                     std::string* out, TextFormatError* error);

// "file:line:col: message", the usual compiler-style diagnostic.
std::string FormatTextFormatError(std::string_view file,
                                  const TextFormatError& error);

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_TEXT_FORMAT_H_
