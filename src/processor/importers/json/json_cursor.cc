#include "src/processor/importers/json/json_cursor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "src/protozero/utf8.h"

namespace zt {
namespace processor {
namespace {

// Exact decimal arithmetic on up to 36 digits (GCC and Clang both have it).
__extension__ typedef __int128 Int128;

int HexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Splits a validated JSON number into sign, significant digits (at most
// 36 kept) and a power of ten: value = digits * 10^exponent.
struct Decimal {
  bool negative = false;
  Int128 digits = 0;
  int exponent = 0;
  bool too_precise = false;  // More than 36 significant digits.
};

bool ParseDecimal(std::string_view text, Decimal* d) {
  const char* p = text.data();
  const char* const end = p + text.size();
  if (p < end && *p == '-') {
    d->negative = true;
    ++p;
  }
  int kept = 0;
  auto take = [&](char c, bool fraction) {
    if (kept == 0 && c == '0') {
      if (fraction)
        d->exponent--;
      return;
    }
    if (kept < 36) {
      d->digits = d->digits * 10 + (c - '0');
      ++kept;
      if (fraction)
        d->exponent--;
    } else {
      d->too_precise = true;
      if (!fraction)
        d->exponent++;
    }
  };
  if (p == end || !IsDigit(*p))
    return false;
  while (p < end && IsDigit(*p))
    take(*p++, false);
  if (p < end && *p == '.') {
    ++p;
    if (p == end || !IsDigit(*p))
      return false;
    while (p < end && IsDigit(*p))
      take(*p++, true);
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negative_exponent = false;
    if (p < end && (*p == '+' || *p == '-'))
      negative_exponent = *p++ == '-';
    if (p == end || !IsDigit(*p))
      return false;
    int e = 0;
    while (p < end && IsDigit(*p)) {
      if (e < 100000)
        e = e * 10 + (*p - '0');
      ++p;
    }
    d->exponent += negative_exponent ? -e : e;
  }
  return p == end;
}

}  // namespace

std::string JsonCursor::error() const {
  if (!error_)
    return std::string();
  return std::string(error_) + " at byte " + std::to_string(error_offset_);
}

bool JsonCursor::Fail(const char* what) {
  if (!error_) {
    error_ = what;
    error_offset_ = offset();
  }
  p_ = end_;
  return false;
}

bool JsonCursor::AtEnd() {
  SkipSpace();
  return p_ == end_;
}

JsonType JsonCursor::PeekType() {
  if (error_)
    return JsonType::kNone;
  SkipSpace();
  if (p_ == end_)
    return JsonType::kNone;
  switch (*p_) {
    case '"':
      return JsonType::kString;
    case '{':
      return JsonType::kObject;
    case '[':
      return JsonType::kArray;
    case 't':
      return JsonType::kTrue;
    case 'f':
      return JsonType::kFalse;
    case 'n':
      return JsonType::kNull;
    default:
      return (*p_ == '-' || IsDigit(*p_)) ? JsonType::kNumber : JsonType::kNone;
  }
}

bool JsonCursor::EnterObject() {
  if (PeekType() != JsonType::kObject)
    return Fail("expected an object");
  if (depth_ >= kMaxDepth)
    return Fail("nested deeper than 64 levels");
  ++p_;
  ++depth_;
  seen_first_ &= ~(uint64_t{1} << (depth_ - 1));
  return true;
}

bool JsonCursor::EnterArray() {
  if (PeekType() != JsonType::kArray)
    return Fail("expected an array");
  if (depth_ >= kMaxDepth)
    return Fail("nested deeper than 64 levels");
  ++p_;
  ++depth_;
  seen_first_ &= ~(uint64_t{1} << (depth_ - 1));
  return true;
}

bool JsonCursor::NextKey(std::string_view* key, std::string* scratch) {
  if (error_ || depth_ == 0)
    return false;
  SkipSpace();
  if (p_ == end_)
    return Fail("object not closed");
  const uint64_t bit = uint64_t{1} << (depth_ - 1);
  if (*p_ == '}') {
    ++p_;
    --depth_;
    return false;
  }
  if (seen_first_ & bit) {
    if (*p_ != ',')
      return Fail("expected ',' or '}'");
    ++p_;
    SkipSpace();
    // A comma before the closing brace is accepted, as upstream's
    // importer (and Chrome's writers of old) have it.
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      --depth_;
      return false;
    }
  }
  seen_first_ |= bit;
  if (p_ == end_ || *p_ != '"')
    return Fail("expected a key");
  if (!ReadString(key, scratch))
    return false;
  SkipSpace();
  if (p_ == end_ || *p_ != ':')
    return Fail("expected ':'");
  ++p_;
  return true;
}

bool JsonCursor::NextElement() {
  if (error_ || depth_ == 0)
    return false;
  SkipSpace();
  if (p_ == end_)
    return Fail("array not closed");
  const uint64_t bit = uint64_t{1} << (depth_ - 1);
  if (*p_ == ']') {
    ++p_;
    --depth_;
    return false;
  }
  if (seen_first_ & bit) {
    if (*p_ != ',')
      return Fail("expected ',' or ']'");
    ++p_;
    SkipSpace();
    if (p_ < end_ && *p_ == ']') {  // A trailing comma, accepted.
      ++p_;
      --depth_;
      return false;
    }
  }
  seen_first_ |= bit;
  return true;
}

bool JsonCursor::ReadString(std::string_view* value, std::string* scratch) {
  if (PeekType() != JsonType::kString)
    return Fail("expected a string");
  const char* const start = ++p_;
  // Most strings have no escapes: find the closing quote, watching for
  // a backslash.
  while (p_ < end_ && *p_ != '"' && *p_ != '\\')
    ++p_;
  if (p_ == end_)
    return Fail("string not closed");
  if (*p_ == '"') {
    *value = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }
  scratch->assign(start, static_cast<size_t>(p_ - start));
  if (!DecodeEscapes(start, scratch))
    return false;
  *value = *scratch;
  return true;
}

// Continues a string at its first backslash (p_), appending to *out.
bool JsonCursor::DecodeEscapes(const char* /*start*/, std::string* out) {
  while (p_ < end_) {
    const char c = *p_;
    if (c == '"') {
      ++p_;
      return true;
    }
    if (c != '\\') {
      const char* run = p_;
      while (p_ < end_ && *p_ != '"' && *p_ != '\\')
        ++p_;
      out->append(run, static_cast<size_t>(p_ - run));
      continue;
    }
    if (end_ - p_ < 2)
      break;
    const char e = p_[1];
    p_ += 2;
    switch (e) {
      case '"': out->push_back('"'); break;
      case '\\': out->push_back('\\'); break;
      case '/': out->push_back('/'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'u': {
        auto read_hex4 = [&](uint32_t* cp) {
          if (end_ - p_ < 4)
            return false;
          uint32_t v = 0;
          for (int i = 0; i < 4; ++i) {
            const int h = HexDigit(p_[i]);
            if (h < 0)
              return false;
            v = v * 16 + static_cast<uint32_t>(h);
          }
          p_ += 4;
          *cp = v;
          return true;
        };
        uint32_t cp;
        if (!read_hex4(&cp))
          return Fail("bad \\u escape");
        if (cp >= 0xD800 && cp < 0xDC00) {
          // A high surrogate: a low one should follow; alone it becomes
          // U+FFFD, as a lone low surrogate does.
          uint32_t low = 0;
          if (end_ - p_ >= 6 && p_[0] == '\\' && p_[1] == 'u') {
            const char* const save = p_;
            p_ += 2;
            if (read_hex4(&low) && low >= 0xDC00 && low < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              p_ = save;
              cp = 0xFFFD;
            }
          } else {
            cp = 0xFFFD;
          }
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          cp = 0xFFFD;
        }
        protozero::AppendUtf8(cp, out);
        break;
      }
      default:
        return Fail("bad escape in string");
    }
  }
  return Fail("string not closed");
}

bool JsonCursor::ReadNumber(std::string_view* text) {
  if (PeekType() != JsonType::kNumber)
    return Fail("expected a number");
  const char* const start = p_;
  if (*p_ == '-')
    ++p_;
  if (p_ == end_ || !IsDigit(*p_))
    return Fail("bad number");
  if (*p_ == '0') {
    ++p_;
  } else {
    while (p_ < end_ && IsDigit(*p_))
      ++p_;
  }
  if (p_ < end_ && *p_ == '.') {
    ++p_;
    if (p_ == end_ || !IsDigit(*p_))
      return Fail("bad number");
    while (p_ < end_ && IsDigit(*p_))
      ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
      ++p_;
    if (p_ == end_ || !IsDigit(*p_))
      return Fail("bad number");
    while (p_ < end_ && IsDigit(*p_))
      ++p_;
  }
  *text = std::string_view(start, static_cast<size_t>(p_ - start));
  return true;
}

bool JsonCursor::ReadBool(bool* value) {
  const JsonType type = PeekType();
  const char* const word = type == JsonType::kTrue ? "true" : "false";
  const size_t length = type == JsonType::kTrue ? 4 : 5;
  if ((type != JsonType::kTrue && type != JsonType::kFalse) ||
      static_cast<size_t>(end_ - p_) < length || memcmp(p_, word, length) != 0)
    return Fail("expected true or false");
  p_ += length;
  *value = type == JsonType::kTrue;
  return true;
}

bool JsonCursor::ReadNull() {
  if (PeekType() != JsonType::kNull || end_ - p_ < 4 || memcmp(p_, "null", 4) != 0)
    return Fail("expected null");
  p_ += 4;
  return true;
}

bool JsonCursor::SkipValue() {
  std::string_view ignored;
  return RawValue(&ignored);
}

bool JsonCursor::RawValue(std::string_view* text) {
  const JsonType type = PeekType();
  const char* const start = p_;
  std::string scratch;
  switch (type) {
    case JsonType::kNone:
      return Fail(p_ == end_ ? "expected a value" : "unexpected character");
    case JsonType::kString:
      if (!ReadString(text, &scratch))
        return false;
      break;
    case JsonType::kNumber:
      if (!ReadNumber(text))
        return false;
      break;
    case JsonType::kTrue:
    case JsonType::kFalse: {
      bool b;
      if (!ReadBool(&b))
        return false;
      break;
    }
    case JsonType::kNull:
      if (!ReadNull())
        return false;
      break;
    case JsonType::kObject:
    case JsonType::kArray: {
      // Nested values, walked without recursion; depth bounded as for
      // the caller's own nesting.
      const int base_depth = depth_;
      std::string_view key;
      bool in_object = type == JsonType::kObject;
      if (in_object ? !EnterObject() : !EnterArray())
        return false;
      uint64_t object_bits = 0;  // Bit i: level base_depth + i is an object.
      if (in_object)
        object_bits |= 1;
      while (depth_ > base_depth) {
        const int level = depth_ - base_depth - 1;
        in_object = (object_bits >> level) & 1;
        const bool more = in_object ? NextKey(&key, &scratch) : NextElement();
        if (!ok())
          return false;
        if (!more)
          continue;
        const JsonType next = PeekType();
        if (next == JsonType::kObject || next == JsonType::kArray) {
          if (next == JsonType::kObject ? !EnterObject() : !EnterArray())
            return false;
          const int new_level = depth_ - base_depth - 1;
          if (next == JsonType::kObject)
            object_bits |= uint64_t{1} << new_level;
          else
            object_bits &= ~(uint64_t{1} << new_level);
          continue;
        }
        std::string_view ignored;
        if (!RawValue(&ignored))
          return false;
      }
      break;
    }
  }
  *text = std::string_view(start, static_cast<size_t>(p_ - start));
  return true;
}

// The common case, a plain decimal of at most 18 digits ("1597071955492308",
// "12.345") with a power-of-ten scale up to 10^9, without Int128.
bool FastScaledInt(std::string_view text, int64_t scale, int64_t* out) {
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p < end && *p == '-';
  p += negative;
  int64_t value = 0;
  int digits = 0;
  for (; p < end && IsDigit(*p); ++p, ++digits) {
    if (digits == 18)
      return false;  // Could overflow: the exact path takes it.
    value = value * 10 + (*p - '0');
  }
  int64_t rest = 0;  // Fraction digits beyond the scale, for rounding.
  int rest_digits = 0;
  int64_t scale_left = scale;
  if (p < end && *p == '.') {
    ++p;
    for (; p < end && IsDigit(*p); ++p) {
      if (scale_left > 1) {
        if (digits == 18)
          return false;
        value = value * 10 + (*p - '0');
        scale_left /= 10;
        ++digits;
      } else if (rest_digits == 0) {
        rest = *p - '0';
        rest_digits = 1;
      }
    }
  }
  if (p != end || digits > 18 || digits == 0)
    return false;
  // scale_left is what the digits still need: 10^(scale digits - fraction).
  if (scale_left > 1 && value > INT64_MAX / scale_left)
    return false;
  value *= scale_left;
  if (rest >= 5)
    ++value;  // Half away from zero: the next digit decides.
  *out = negative ? -value : value;
  return true;
}

bool IsPowerOfTen(int64_t v) {
  while (v >= 10 && v % 10 == 0)
    v /= 10;
  return v == 1;
}

bool JsonNumberToScaledInt(std::string_view text, int64_t scale, int64_t* out) {
  if (scale <= 1000000000 && scale > 0 && IsPowerOfTen(scale) && text.size() <= 40 &&
      text.find_first_of("eE") == std::string_view::npos && FastScaledInt(text, scale, out))
    return true;
  Decimal d;
  if (!ParseDecimal(text, &d) || scale <= 0)
    return false;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // The exact path below needs digits * 10^18 and rest * scale (rest <
  // 10^27) to fit in 127 bits; anything else goes through a double.
  if (d.too_precise || d.exponent > 18 || d.exponent < -27 || scale > 1000000000) {
    double value;
    if (!JsonNumberToDouble(text, &value))
      return false;
    const double scaled = std::nearbyint(value * static_cast<double>(scale));
    if (!(std::fabs(scaled) < 9.2e18))
      return false;
    *out = static_cast<int64_t>(scaled);
    return true;
  }
  Int128 v = d.digits;
  if (d.exponent >= 0) {
    for (int i = 0; i < d.exponent; ++i) {
      v *= 10;
      if (v > kMax)
        return false;
    }
    if (v != 0 && static_cast<Int128>(scale) > kMax / v)
      return false;
    v *= scale;
  } else {
    Int128 divisor = 1;
    for (int i = 0; i < -d.exponent; ++i)
      divisor *= 10;
    // Round half away from zero: (v * scale + divisor / 2) / divisor,
    // computed without overflow as whole and remainder parts.
    const Int128 whole = v / divisor;
    const Int128 rest = v % divisor;
    if (whole != 0 && static_cast<Int128>(scale) > kMax / whole)
      return false;
    v = whole * scale + (rest * scale + divisor / 2) / divisor;
    if (v > kMax)
      return false;
  }
  *out = static_cast<int64_t>(d.negative ? -v : v);
  return true;
}

bool JsonNumberToDouble(std::string_view text, double* out) {
  if (text.empty())
    return false;
  char buffer[64];
  std::string long_text;
  const char* c_text;
  if (text.size() < sizeof(buffer)) {
    memcpy(buffer, text.data(), text.size());
    buffer[text.size()] = '\0';
    c_text = buffer;
  } else {
    long_text.assign(text.data(), text.size());
    c_text = long_text.c_str();
  }
  char* parse_end = nullptr;
  const double value = strtod(c_text, &parse_end);
  if (parse_end == c_text || !std::isfinite(value))
    return false;
  *out = value;
  return true;
}

bool JsonNumberToInt(std::string_view text, int64_t* out) {
  if (text.find_first_of(".eE") != std::string_view::npos)
    return false;
  // Up to 18 digits cannot overflow: the common case, without Int128.
  const bool negative = !text.empty() && text[0] == '-';
  if (text.size() - negative <= 18 && text.size() > static_cast<size_t>(negative)) {
    int64_t v = 0;
    for (size_t i = negative; i < text.size(); ++i) {
      if (!IsDigit(text[i]))
        return false;
      v = v * 10 + (text[i] - '0');
    }
    *out = negative ? -v : v;
    return true;
  }
  Decimal d;
  if (!ParseDecimal(text, &d) || d.too_precise || d.exponent != 0)
    return false;
  if (d.digits > (d.negative ? Int128{std::numeric_limits<int64_t>::max()} + 1
                             : Int128{std::numeric_limits<int64_t>::max()}))
    return false;
  *out = static_cast<int64_t>(d.negative ? -d.digits : d.digits);
  return true;
}

}  // namespace processor
}  // namespace zt
