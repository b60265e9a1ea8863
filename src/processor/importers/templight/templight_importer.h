// Fills a TraceStorage from a Templight trace (clang's template
// instantiation profile; docs/design/templight.md): one global track per
// translation unit, named after its source file; one slice per
// instantiation (ts and dur from its begin and end, -1 when it never
// ended; name; depth and parent from the compiler's stack); a
// `templight_instantiation` row per slice with kind, kind name, location,
// origin and memory at both ends; `templight_units` keeps each unit's
// header for writing it back.
//
//   if (LooksLikeTemplight(data, size))
//     ImportTemplight(data, size, ImportOptions(), &storage);
//
// ImportTrace (trace_importer.h) calls this itself for Templight input.
// Any bytes are accepted: what is malformed is counted in the stats table
// (`templight_problems`), described in storage.import_problems (the first
// kMaxImportProblems, with file offsets), and the rest is loaded.
// Thread-compatible; the input must stay valid during the call only.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_IMPORTER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_IMPORTER_H_

#include <cstddef>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

// Whether `data` starts like a TemplightTraceCollection rather than a
// Perfetto Trace. Both are repeated field 1; a Templight trace's first
// record holds only fields 1-3 (header, entries, dictionary) and its header
// only a version and a printable source file name, where a TracePacket has
// other fields (its time, its sequence) and field 1 would be ftrace events.
// Cost: decodes the first record's top level and its header.
bool LooksLikeTemplight(const void* data, size_t size);

ImportResult ImportTemplight(const void* data, size_t size, const ImportOptions& options,
                             TraceStorage* storage);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_IMPORTER_H_
