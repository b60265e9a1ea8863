// Writes a finished TraceStorage as a Perfetto protobuf trace (a `Trace`:
// repeated TracePacket, field 1) of track events, which the Perfetto UI,
// upstream's trace_processor and our own importer read.
//
//   FileJsonSink sink(file);  // Any byte sink of json_writer.h.
//   PftraceExportResult result = ExportPftrace(storage, &sink);
//   if (!result.ok) ... result.error ...;
//   for (const std::string& note : result.notes) ... what was not written
//
// One packet sequence (trusted_packet_sequence_id 1): its first packet says
// SEQ_INCREMENTAL_STATE_CLEARED and first_packet_on_sequence, every later one
// SEQ_NEEDS_INCREMENTAL_STATE. Timestamps are the model's nanoseconds, in
// the default trace clock (BOOTTIME), no clock snapshot. What is written
// (docs/design/trace_processor.md, "Perfetto protobuf export"):
//   * first, one TrackDescriptor per track with slices or counter values
//     (and the tracks these hang from), parents before children: a
//     process's own descriptor (pid, process_name, cmdline) for each
//     process they belong to; a thread's track with its ThreadDescriptor
//     (pid, tid, thread_name); a thread's other tracks, process-scoped and
//     global tracks as named tracks, with parent_uuid where the model has
//     a parent (else the thread's or the process's descriptor); counter
//     tracks with a CounterDescriptor (unit_name);
//   * then, in time order, slices as TYPE_SLICE_BEGIN / TYPE_SLICE_END
//     pairs (an end before a begin at the same time, unless the begin is
//     the ending slice's child), dur -1 as a begin without an end, dur 0 as
//     TYPE_INSTANT; counter values as TYPE_COUNTER (double_counter_value);
//     flows as flow_ids / terminating_flow_ids on the slices' begins;
//   * names, categories, annotation names and string values interned
//     (InternedData in the packet that first uses them);
//   * args as debug annotations: "debug." dropped, dotted and indexed keys
//     as dict_entries and array_values (so that readers rebuild the same
//     keys); templight_instantiation rows as the annotations of their
//     slices (templight_args.h).
// Streamed through a 64 KiB buffer: besides the tables it holds an index
// of args by set, the flows by slice, per-track stacks of open slices and
// what was interned, never the output.
//
// What is not written is returned as notes (one line per kind, counted,
// first example): metadata, stats, Templight unit headers, threads and
// processes without tracks, args whose key clashes once nested, null args,
// timestamps below 0, nesting the events cannot reproduce, and so on.
// Thread-compatible; the storage is only read.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_PFTRACE_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_PFTRACE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/processor/exporters/json_writer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

struct PftraceExportOptions {
  // (slices and counters written, their total) every 1 M rows and at the
  // end; may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct PftraceExportResult {
  bool ok = true;
  std::string error;               // The sink's message when !ok.
  std::vector<std::string> notes;  // What the trace does not hold.
  uint64_t packets = 0;            // TracePackets written.
  uint64_t bytes = 0;              // Bytes handed to the sink.
};

// `sink` takes bytes, not only JSON: any JsonSink (json_writer.h).
PftraceExportResult ExportPftrace(const TraceStorage& storage, JsonSink* sink,
                                  const PftraceExportOptions& options = PftraceExportOptions());

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_PFTRACE_H_
