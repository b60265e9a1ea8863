// Writes a finished TraceStorage as Chrome Trace Event JSON, the JSON Object
// Format (`{"traceEvents": [...], "metadata": {...}}`) that
// chrome://tracing, the Perfetto UI and speedscope load.
//
//   FileJsonSink sink(stdout);
//   JsonExportResult result = ExportJson(storage, &sink);
//   if (!result.ok) ... result.error ...;
//   for (const std::string& note : result.notes) ... what JSON could not hold
//
// Streamed: events are written as the tables are walked, through a 64 KiB
// buffer, so memory stays bounded by the index of flows and args, never by
// the output. What each table becomes (docs/design/trace_processor.md,
// "JSON export"):
//   * slices on thread tracks: "X" (ended), "B" without "E" (dur -1), "i"
//     with scope "t" (dur 0; "X" with dur 0 when it carries a flow, since
//     importers bind flows to X and B events only);
//   * slices on process and global tracks, and on a thread's second and
//     later tracks: the same events on a synthetic thread per track (tids
//     above any real pid or tid) named by a thread_name "M" event, in the
//     track's process or in one synthetic "Global tracks" process; the
//     track's slices nest, so a thread row shows them exactly;
//   * counters: "C" events named by the track, one series "value";
//   * flows: v2 fields on the slices' own events ("bind_id", "flow_out",
//     "flow_in"; a chain shares one id); a slice's further flows as v1
//     "s"/"f" events 1 ns into each slice, before its first child;
//   * args: "args" objects, debug annotations without "debug.", dotted and
//     indexed keys rebuilt as nested objects and arrays; a slice's
//     templight_instantiation row adds its args (templight_args.h);
//   * process and thread names: "M" process_name / thread_name events;
//   * metadata rows: the top-level "metadata" object.
// Timestamps are microseconds with exactly three decimals, printed from the
// integer nanoseconds. Strings are escaped for any bytes: control characters
// as escapes, invalid UTF-8 as U+FFFD.
//
// What the format cannot hold is returned as notes (one line each, counted,
// never one per event): counter units, stats, flows that cannot be bound,
// values JSON has no number for, and so on. Thread-compatible; the storage
// is only read.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_JSON_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_JSON_H_

#include <stdio.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/exporters/json_writer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

struct JsonExportOptions {
  // (slices and counters written, their total) every 1 M rows and at the
  // end; may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct JsonExportResult {
  bool ok = true;
  std::string error;               // The sink's message when !ok.
  std::vector<std::string> notes;  // What the JSON does not hold.
  uint64_t events = 0;             // traceEvents entries written.
  uint64_t bytes = 0;              // Bytes handed to the sink.
};

JsonExportResult ExportJson(const TraceStorage& storage, JsonSink* sink,
                            const JsonExportOptions& options = JsonExportOptions());

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_JSON_H_
