// Fills a TraceStorage from a trace: Perfetto protobuf, Chrome JSON
// (json/json_trace_importer.h), Templight (templight/templight_importer.h),
// any of them gzip-compressed (decompressed as it is read). For protobuf:
// tokenizes it, keeps
// each sequence's incremental state (interning, packet defaults, clocks),
// converts every timestamp to the trace clock, orders packets across
// sequences, and parses track events, track descriptors, clock snapshots,
// trace stats and service packets into the tables
// (docs/design/trace_processor.md).
//
//   TraceStorage storage;
//   ImportResult result = ImportTrace(data, size, &storage);
//   // storage.slice, storage.counter, ... ; result says what was damaged.
//
// Any bytes are accepted: what cannot be read is counted in storage.stats
// (and, for the file's damage, in result.tokenizer), never fatal. The input
// must stay valid and unchanged during the call only; the storage copies
// every string it keeps. Thread-compatible: one import per storage.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_TRACE_IMPORTER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_TRACE_IMPORTER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "src/processor/storage/trace_storage.h"
#include "zt/processor/name_dictionary.h"
#include "zt/processor/trace_tokenizer.h"

namespace zt {
namespace processor {

struct ImportOptions {
  // (bytes done, total bytes) about every 64 MiB and at the end; may be
  // empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Called with byte ranges of the input the importer will not read again
  // soon; ImportTraceFile drops them from memory (the bytes stay readable).
  // Keeps the resident size of a large import near that of its tables.
  std::function<void(uint64_t offset, uint64_t length)> release_input;
  // A trace of at least this many bytes is imported with a second thread
  // (queueing events in pass 1, merging them in pass 2; two_thread_pass.h);
  // the model is the same either way, and every callback is still made on
  // the calling thread. The second thread saves wall time only where a
  // core is free for it, and costs CPU time in any case (handing events
  // over): by default it is used from 1 MiB on when this process may run
  // on at least kTwoThreadsMinCpus CPUs, never on fewer
  // (docs/benchmarks.md, "one thread or two"). Tests set 0 to cover the
  // two-thread path on small traces.
  static constexpr unsigned kTwoThreadsMinCpus = 4;
  static constexpr uint64_t kNeverTwoThreads = UINT64_MAX;
  uint64_t two_threads_min_bytes = DefaultTwoThreadsMinBytes();
  static uint64_t DefaultTwoThreadsMinBytes();
  // Upstream's strict reading of losses: after a previous_packet_dropped
  // mark, every packet that needs incremental state is skipped until the
  // next clear. By default those packets are kept whenever their names
  // and times can still be read (proto_trace_reader.h).
  bool drop_events_after_loss = false;
  // What the input is: found from its first bytes unless set. Gzip is
  // found and undone whatever is set; this names what it holds.
  enum class Format { kAuto, kProto, kTemplight, kJson };
  Format format = Format::kAuto;
  // How a Templight trace's dictionary names are expanded; both give the
  // same model (docs/design/templight.md). Batch is the faster and the
  // leaner on large traces (docs/benchmarks.md): the default.
  NameExpander::Method templight_method = NameExpander::Method::kBatch;
  // Templight: fill the templight table (each instantiation's locations,
  // memory and kind number: 52 bytes a row). False leaves it empty and
  // fills the rest as ever (slices with their names, times, nesting and
  // kinds as categories; units; stats): for a reader of slices only, such
  // as `ztrace report`, whose memory it lowers by a third.
  bool templight_details = true;
};

struct ImportResult {
  // What the input was (never kAuto), and whether it came gzip-compressed.
  ImportOptions::Format format = ImportOptions::Format::kProto;
  bool gzip = false;
  TokenizerStats tokenizer;
  uint64_t input_bytes = 0;  // The whole input's size.
  uint64_t packets_parsed = 0;  // Protobuf: track events; JSON: events.
  uint64_t sequences = 0;
  int64_t first_ts = 0;  // Trace-clock span of the imported events;
  int64_t last_ts = 0;   // both 0 when there were none.
  // Wall time of each pass (the ingest benchmark prints them).
  double pass1_seconds = 0;
  double pass2_seconds = 0;
  // Set when nothing at all could be read because the input is not what
  // it looked like ("not a JSON trace: ..."): ImportTraceFile's error.
  std::string unreadable;
};

ImportResult ImportTrace(const void* data, size_t size, TraceStorage* storage,
                         const ImportOptions& options = ImportOptions());

// What a growing input holds so far (GrowingInputFn).
struct GrowingInput {
  uint64_t available = 0;  // [data, data + available) may be read.
  bool ended = false;      // Nothing more will come: `available` is the size.
  bool abandoned = false;  // The import is not wanted any more.
};
// Blocks until more than `have` bytes are available, or the input has
// ended or been abandoned, and says which.
using GrowingInputFn = std::function<GrowingInput(uint64_t have)>;

// Imports a Perfetto protobuf trace whose bytes are still arriving (a trace
// sent to `ztrace serve` in pieces): the first pass reads each piece as it
// comes, the second runs once the input has ended, so an import finishes
// soon after its last byte. `data` is where the bytes will be, in an
// address range reserved for all of them; `more` says how many are there.
// Bytes once available must stay unchanged. The model is ImportTrace's
// on the final bytes, however they were cut into pieces (a record cut by a
// piece's end is read when the rest has come; damage is judged at the
// end). Abandoned: returns at once with `unreadable` set and the storage
// half-filled. Only for the protobuf format: the others are read whole
// (GuessTraceFormat on the first 4 KiB tells).
ImportResult ImportGrowingProtoTrace(const void* data, const GrowingInputFn& more,
                                     TraceStorage* storage,
                                     const ImportOptions& options = ImportOptions());

// Maps `path` and imports it. Null with *error set ("cannot open
// /x.pftrace: No such file or directory") if the file cannot be read; a
// damaged file still imports its valid part.
std::unique_ptr<TraceStorage> ImportTraceFile(const std::string& path,
                                              const ImportOptions& options,
                                              ImportResult* result,
                                              std::string* error);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_TRACE_IMPORTER_H_
