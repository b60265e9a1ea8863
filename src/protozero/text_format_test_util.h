// Test support for the text-format parser's tests
// (text_format_unittest.cc, text_format_errors_unittest.cc): hand-written
// schemas (AllTypes: one field of every type, repeated, packed and
// recursive; the Mini* ones mirror a small TraceConfig subset, docs/wire.md)
// and helpers that turn a parse into comparable strings.

#ifndef ZT_SRC_PROTOZERO_TEXT_FORMAT_TEST_UTIL_H_
#define ZT_SRC_PROTOZERO_TEXT_FORMAT_TEST_UTIL_H_

#include <string>
#include <string_view>

#include "zt/protozero/schema.h"

namespace zt {
namespace protozero {

extern const MessageSchema kAllTypes;
extern const MessageSchema kMiniTraceConfig;

// Space-separated hex bytes.
std::string Hex(std::string_view bytes);
// The hex bytes of |text| parsed as |schema|, or "ERROR line:col: message".
std::string P(std::string_view text, const MessageSchema& schema = kAllTypes);
// "line:col: message" for text that must fail.
std::string E(std::string_view text, const MessageSchema& schema = kAllTypes);

}  // namespace protozero
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_TEXT_FORMAT_TEST_UTIL_H_
