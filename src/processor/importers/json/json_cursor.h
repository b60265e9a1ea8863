// Reads one complete JSON text (a trace event, a metadata object) in place:
// a cursor that the caller steers value by value, with no tree built.
// Strings without escapes are views of the input; escaped ones are decoded
// into a caller's scratch string (\uXXXX and surrogate pairs to UTF-8).
//
//   JsonCursor c(text, size);
//   if (!c.EnterObject()) ...
//   std::string_view key;
//   while (c.NextKey(&key, &scratch)) {
//     if (key == "ph") c.ReadString(&ph, &scratch2); else c.SkipValue();
//   }
//   if (!c.ok()) ... c.error() names the problem and its offset.
//
// A comma before a closing '}' or ']' is accepted, as upstream Perfetto's
// importer accepts it. Errors are sticky: after the first, every call
// returns false. Nesting
// is bounded (kMaxDepth) so hostile input cannot exhaust the stack.
// Cost: one pass over the bytes read or skipped. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_CURSOR_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_CURSOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zt {
namespace processor {

enum class JsonType { kNone, kString, kNumber, kTrue, kFalse, kNull, kObject, kArray };

class JsonCursor {
 public:
  static constexpr int kMaxDepth = 64;

  JsonCursor(const char* data, size_t size) : begin_(data), p_(data), end_(data + size) {}

  // The type of the next value (after whitespace); kNone at the end or on
  // a character no value starts with.
  JsonType PeekType();

  // Objects: EnterObject consumes '{'; then NextKey reads `"key":` (after
  // a ',' when not the first) and returns true, or consumes the closing
  // '}' and returns false. The caller must read or skip each key's value.
  bool EnterObject();
  bool NextKey(std::string_view* key, std::string* scratch);
  // Arrays: EnterArray consumes '['; NextElement returns true when another
  // element follows (consuming a ',' between elements), false after ']'.
  bool EnterArray();
  bool NextElement();

  bool ReadString(std::string_view* value, std::string* scratch);
  // The number's text as written (e.g. "-12.5e3"), validated as JSON.
  bool ReadNumber(std::string_view* text);
  bool ReadBool(bool* value);
  bool ReadNull();
  // Skips one value of any type, nested ones included.
  bool SkipValue();
  // Skips one value and returns its text as written (for storing a nested
  // value as JSON).
  bool RawValue(std::string_view* text);

  bool ok() const { return error_ == nullptr; }
  // What went wrong and where: "expected ':' at byte 17".
  std::string error() const;
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  // True when only whitespace is left.
  bool AtEnd();

 private:
  bool Fail(const char* what);
  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      ++p_;
  }
  bool DecodeEscapes(const char* start, std::string* out);

  const char* const begin_;
  const char* p_;
  const char* const end_;
  const char* error_ = nullptr;
  size_t error_offset_ = 0;
  int depth_ = 0;
  // Per open container: whether an element/key has been read (a ','
  // must come before the next). Bit i for depth i.
  uint64_t seen_first_ = 0;
};

// Converts a JSON number's text to an integer count of `scale`ths of its
// unit, rounding to nearest: ("12.3456", 1000) -> 12346. Exact for plain
// decimals (no binary floating point in between), so microsecond
// timestamps become nanoseconds without drift. False if out of range.
bool JsonNumberToScaledInt(std::string_view text, int64_t scale, int64_t* out);
// The number as a double (strtod semantics); false if not finite.
bool JsonNumberToDouble(std::string_view text, double* out);
// The number as an exact int64 when it is an integer without fraction or
// exponent; false otherwise.
bool JsonNumberToInt(std::string_view text, int64_t* out);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_CURSOR_H_
