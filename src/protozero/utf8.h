// UTF-8 encoding of one code point: for readers of escaped text, the
// text-format lexer (\u and \U escapes) and the processor's JSON reader
// (\u escapes, surrogate pairs joined by the caller).
//
// Appends 1 to 4 bytes to `out`; `code_point` must be at most 0x10FFFF
// (callers check it: a larger value would need bytes UTF-8 does not have).
// Surrogates (0xD800-0xDFFF) are encoded as they are, which is what the
// readers want for an unpaired one. Thread-compatible; no allocation
// beyond `out`'s growth.
#ifndef ZT_SRC_PROTOZERO_UTF8_H_
#define ZT_SRC_PROTOZERO_UTF8_H_

#include <cstdint>
#include <string>

namespace zt {
namespace protozero {

inline void AppendUtf8(uint32_t code_point, std::string* out) {
  const uint32_t cp = code_point;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace protozero
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_UTF8_H_
