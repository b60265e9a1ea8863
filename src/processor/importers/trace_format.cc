#include "src/processor/importers/trace_format.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "src/processor/importers/gzip/gzip_stream.h"
#include "src/processor/importers/templight/templight_importer.h"

namespace zt {
namespace processor {
namespace {

// Enough to tell text from binary and to see past a JSON file's leading
// whitespace; a Perfetto trace's first packet has non-text bytes (small
// varints, lengths, zero values) well within it.
constexpr size_t kSniffBytes = 4096;

bool StartsWith(const uint8_t* data, size_t size, const char* magic, size_t magic_size) {
  return size >= magic_size && memcmp(data, magic, magic_size) == 0;
}

// Printable ASCII, the usual control characters of text (tab, newlines,
// form feed, escape) and well-formed UTF-8. A sequence cut by the window's
// end counts as text.
bool IsText(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size;) {
    const uint8_t c = data[i];
    if (c < 0x80) {
      const bool control = c < 0x20 && !(c >= 0x09 && c <= 0x0D) && c != 0x1B;
      if (control || c == 0x7F)
        return false;
      ++i;
      continue;
    }
    size_t continuation;
    if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
      continuation = 1;
    } else if ((c & 0xF0) == 0xE0) {
      continuation = 2;
    } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
      continuation = 3;
    } else {
      return false;
    }
    for (size_t k = 1; k <= continuation; ++k) {
      if (i + k >= size)
        return true;
      if ((data[i + k] & 0xC0) != 0x80)
        return false;
    }
    i += continuation + 1;
  }
  return true;
}

TraceFormat ClassifyText(const uint8_t* data, size_t size) {
  size_t i = 0;
  if (StartsWith(data, size, "\xEF\xBB\xBF", 3))
    i = 3;  // A UTF-8 byte order mark.
  while (i < size && (data[i] == ' ' || (data[i] >= 0x09 && data[i] <= 0x0D)))
    ++i;
  if (i == size)
    return TraceFormat::kText;
  const uint8_t* const rest = data + i;
  const size_t rest_size = size - i;
  if (rest[0] == '{' || rest[0] == '[')
    return TraceFormat::kJson;
  if (StartsWith(rest, rest_size, "# tracer:", 9) ||
      StartsWith(rest, rest_size, "TRACE:", 6))
    return TraceFormat::kSystrace;
  if (rest[0] == '<') {
    const std::string head(reinterpret_cast<const char*>(rest), std::min<size_t>(rest_size, 1024));
    if (head.find("trace") != std::string::npos || head.find("Trace") != std::string::npos)
      return TraceFormat::kSystrace;
  }
  return TraceFormat::kText;
}

}  // namespace

TraceFormat GuessTraceFormat(const void* data, size_t size) {
  if (size == 0)
    return TraceFormat::kEmpty;
  const uint8_t* const bytes = static_cast<const uint8_t*>(data);
  const size_t window = std::min(size, kSniffBytes);
  if (IsText(bytes, window))
    return ClassifyText(bytes, window);
  if (StartsWith(bytes, size, "\x1F\x8B", 2))
    return TraceFormat::kGzip;
  if (StartsWith(bytes, size, "PK\x03\x04", 4))
    return TraceFormat::kZip;
  if (StartsWith(bytes, size, "SQLite format 3", 16))  // With its NUL.
    return TraceFormat::kSqlite;
  if (StartsWith(bytes, size, "PERFILE2", 8))
    return TraceFormat::kPerfData;
  // Both formats we read are a repeated, length-delimited field 1.
  if (bytes[0] == 0x0A)
    return LooksLikeTemplight(data, size) ? TraceFormat::kTemplight : TraceFormat::kProto;
  return TraceFormat::kUnknown;
}

bool IsImportable(TraceFormat format) {
  return format == TraceFormat::kProto || format == TraceFormat::kTemplight ||
         format == TraceFormat::kJson;
}

std::string DescribeTraceFormat(TraceFormat format, const void* data, size_t size) {
  switch (format) {
    case TraceFormat::kProto:
      return "a Perfetto protobuf trace";
    case TraceFormat::kTemplight:
      return "a Templight trace";
    case TraceFormat::kEmpty:
      return "empty (0 bytes)";
    case TraceFormat::kJson:
      return "a Chrome JSON trace";
    case TraceFormat::kGzip:
      return "gzip-compressed data";
    case TraceFormat::kZip:
      return "a zip archive";
    case TraceFormat::kSqlite:
      return "an SQLite database";
    case TraceFormat::kPerfData:
      return "a Linux perf.data file";
    case TraceFormat::kSystrace:
      return "ftrace or systrace text";
    case TraceFormat::kText:
      return "text";
    case TraceFormat::kUnknown:
      break;
  }
  const uint8_t* const bytes = static_cast<const uint8_t*>(data);
  std::string out = "binary data starting";
  for (size_t i = 0; i < std::min<size_t>(size, 8); ++i) {
    char hex[4];
    snprintf(hex, sizeof(hex), " %02x", bytes[i]);
    out += hex;
  }
  return out;
}

std::string NotATraceError(const std::string& path, const void* data, size_t size) {
  TraceFormat format = GuessTraceFormat(data, size);
  std::string what;
  if (format == TraceFormat::kGzip) {
    // What matters is what it holds.
    const std::string head = InflateHead(data, size, kSniffBytes);
    if (head.empty())
      return path + " is gzip-compressed data that does not decompress (a cut or corrupt file?)";
    const TraceFormat inner = GuessTraceFormat(head.data(), head.size());
    if (IsImportable(inner))
      return std::string();
    if (inner == TraceFormat::kGzip)
      return path + " is gzip-compressed twice; decompress it once first (gunzip -c " + path +
             " > trace.gz)";
    what = "gzip-compressed " + DescribeTraceFormat(inner, head.data(), head.size());
    format = inner;
  } else if (IsImportable(format)) {
    return std::string();
  } else {
    what = DescribeTraceFormat(format, data, size);
  }
  std::string error =
      path + " is " + what + ", not a Perfetto, Chrome JSON or Templight trace";
  switch (format) {
    case TraceFormat::kSqlite:
      error += " (open it with sqlite3; `ztrace export-db` writes such files)";
      break;
    case TraceFormat::kZip:
      error += " (unzip it first)";
      break;
    default:
      break;
  }
  return error;
}

}  // namespace processor
}  // namespace zt
