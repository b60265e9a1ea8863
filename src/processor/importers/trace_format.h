// Tells what a file holds from its first bytes, so that a command given
// something other than a trace says what it was given instead of loading
// nothing and reporting an empty trace.
//
//   TraceFormat format = GuessTraceFormat(data, size);
//   if (!IsImportable(format))
//     Fail(path + " is " + DescribeTraceFormat(format, data, size) + ", not a trace");
//
// Perfetto protobuf, Chrome JSON and Templight traces are importable, and
// so is any of them gzip-compressed; everything else (SQLite, zip, text,
// ...) is named for the user. A damaged or
// cut Perfetto trace still starts like one and is imported up to its
// damage: only the first record's tag is looked at for that.
// Cost: reads at most the first 4 KiB. Thread-safe (no state).

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_TRACE_FORMAT_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_TRACE_FORMAT_H_

#include <cstddef>
#include <string>

namespace zt {
namespace processor {

enum class TraceFormat {
  kProto,      // A Perfetto `Trace`: repeated field 1, length-delimited.
  kTemplight,  // A TemplightTraceCollection (also field 1; its header tells).
  kEmpty,      // No bytes at all.
  kJson,       // '{' or '[' first: a Chrome JSON trace, most likely.
  kGzip,       // 1f 8b.
  kZip,        // "PK\3\4".
  kSqlite,     // "SQLite format 3\0".
  kPerfData,   // Linux perf's "PERFILE2".
  kSystrace,   // ftrace text ("# tracer:") or systrace HTML.
  kText,       // Other printable text.
  kUnknown,    // Binary data that is none of the above.
};

TraceFormat GuessTraceFormat(const void* data, size_t size);

// Whether the importer reads this format (Perfetto protobuf, Chrome JSON,
// Templight). Gzip is not listed: whether it is depends on its content
// (NotATraceError looks).
bool IsImportable(TraceFormat format);

// A phrase naming the format for an error message, e.g. "a Chrome JSON
// trace", "gzip-compressed data", "an SQLite database", "text",
// "binary data starting 12 34 56 78". `data` is read only for kUnknown.
std::string DescribeTraceFormat(TraceFormat format, const void* data, size_t size);

// The whole refusal for a file that is not importable: "<path> is <what>,
// not a Perfetto, Chrome JSON or Templight trace" plus a hint where one
// helps; empty when the file is importable. Gzip-compressed data is judged
// by its first decompressed bytes.
std::string NotATraceError(const std::string& path, const void* data, size_t size);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_TRACE_FORMAT_H_
