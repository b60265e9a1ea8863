#include "src/processor/exporters/json_writer.h"

#include <errno.h>
#include <string.h>

#include <cmath>

namespace zt {
namespace processor {

JsonSink::~JsonSink() = default;

bool JsonSink::Finish(std::string*) { return true; }

bool JsonSink::Take(std::string* buffer, std::string* error) {
  const bool written = Write(buffer->data(), buffer->size(), error);
  buffer->clear();
  return written;
}

bool FileJsonSink::Write(const char* data, size_t size, std::string* error) {
  if (size == 0) return true;
  if (fwrite(data, 1, size, file_) != size) {
    *error = strerror(errno);
    return false;
  }
  return true;
}

bool FileJsonSink::Finish(std::string* error) {
  if (fflush(file_) != 0 || ferror(file_)) {
    *error = strerror(errno);
    return false;
  }
  return true;
}

bool StringJsonSink::Write(const char* data, size_t size, std::string*) {
  out_->append(data, size);
  return true;
}

namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD.

// Length of the valid UTF-8 sequence at p (1..4), or, when it is not valid,
// minus the length of its maximal subpart (the bytes to replace by one
// U+FFFD; Unicode's "best practice", as browsers decode).
int Utf8Sequence(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = p[0];
  int len;
  unsigned char lo = 0x80, hi = 0xBF;  // Range of the second byte.
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // No surrogates.
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return -1;  // Continuation byte, C0, C1, F5..FF.
  }
  int have = 1;
  for (; have < len; ++have) {
    if (p + have >= end) return -have;
    const unsigned char b = p[have];
    const unsigned char min = have == 1 ? lo : 0x80;
    const unsigned char max = have == 1 ? hi : 0xBF;
    if (b < min || b > max) return -have;
  }
  return len;
}

}  // namespace

bool AppendJsonDouble(double value, std::string* out) {
  if (!std::isfinite(value)) return false;
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, static_cast<size_t>(res.ptr - buf));
  return true;
}

const char* JsonNonFiniteName(double value) {
  if (std::isnan(value)) return "\"NaN\"";
  return value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
}

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    // Copy the run of bytes that need nothing.
    const unsigned char* run = p;
    while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') ++p;
    out->append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p >= end) break;
    const unsigned char c = *p;
    if (c < 0x80) {
      switch (c) {
        case '"': out->append("\\\""); break;
        case '\\': out->append("\\\\"); break;
        case '\b': out->append("\\b"); break;
        case '\f': out->append("\\f"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        default: {
          const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
          out->append(esc, 6);
        }
      }
      ++p;
      continue;
    }
    const int len = Utf8Sequence(p, end);
    if (len > 0) {
      out->append(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
      p += len;
    } else {
      out->append(kReplacement);
      p += -len;
    }
  }
  out->push_back('"');
}

void AppendMicros(int64_t ns, std::string* out) {
  uint64_t abs = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out->push_back('-');
    abs = ~abs + 1;  // Exact for INT64_MIN too.
  }
  AppendJsonInt(abs / 1000, out);
  const unsigned frac = static_cast<unsigned>(abs % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  out->append(digits, 4);
}

void FlushToSink(JsonSink* sink, std::string* buffer, bool* failed, std::string* error,
                 uint64_t* bytes) {
  if (!*failed && !buffer->empty()) {
    const size_t size = buffer->size();
    if (sink->Take(buffer, error))
      *bytes += size;
    else
      *failed = true;
  }
  buffer->clear();
}

}  // namespace processor
}  // namespace zt
