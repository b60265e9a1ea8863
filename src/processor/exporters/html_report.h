// `ztrace report TRACE -o report.html`: one self-contained HTML file (no
// network, no server) that shows a trace in a browser: a zoomable,
// pannable timeline per thread (or Templight translation unit) with nested
// slices, instants, counters as graphs, flows as arrows and loss marks
// where data was lost; a flame graph (icicle) aggregated by name; the top
// slices by self and total time; the trace's stats with losses in red
// (docs/design/report.md).
//
//   FileJsonSink sink(file);
//   HtmlReportResult r = WriteHtmlReport(storage, options, &sink);
//
// The trace's data is one deflate-compressed block of varint columns
// (times as deltas, names once at the end), inflated by the browser's own
// DecompressionStream; the viewer (report/report.js) draws what is visible
// only, so a million slices stay usable.
//
// Cost: O(slices) time; memory: a slice profile of the storage (20 bytes
// a slice) and a 256 KiB piece of the block at a time, which streams out
// compressed (deflate_base64.h). Thread-compatible; the storage is only read.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_HTML_REPORT_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_HTML_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/processor/exporters/json_writer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

struct HtmlReportOptions {
  std::string title;  // The page's heading (e.g. the trace's file name).
};

struct HtmlReportResult {
  bool ok = true;
  std::string error;  // The sink's message when !ok.
  uint64_t slices = 0;
  uint64_t data_bytes = 0;  // The compressed block, before base64.
};

HtmlReportResult WriteHtmlReport(const TraceStorage& storage, const HtmlReportOptions& options,
                                 JsonSink* sink);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_HTML_REPORT_H_
