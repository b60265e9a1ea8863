// `ztrace convert --to folded|callgrind|speedscope|graphviz`: a finished
// trace's slices in the formats profilers read (docs/design/
// profile_formats.md): folded stacks (flamegraph.pl, inferno, speedscope),
// callgrind (kcachegrind; for Templight, time and memory with file:line as
// templight-tools writes them), speedscope's own file format (one evented
// profile per thread or translation unit), and a graphviz call graph.
//
//   FileJsonSink sink(stdout);
//   ProfileExportResult result = ExportProfile(storage, ProfileFormat::kFolded, &sink);
//   if (!result.ok) Fail(result.error);
//   for (const std::string& note : result.notes) Warn(note);
//
// Names are the slices' names (arguments are not glued to them). Output is
// streamed to the sink in 64 KiB pieces. Cost: O(slices) with hash maps
// per distinct stack or function; memory 20 bytes per slice plus those
// maps. Thread-compatible; the storage is only read.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_PROFILE_FORMATS_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_PROFILE_FORMATS_H_

#include <string>
#include <vector>

#include "src/processor/exporters/json_writer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

enum class ProfileFormat { kFolded, kCallgrind, kSpeedscope, kGraphviz };

struct ProfileExportResult {
  bool ok = true;
  std::string error;               // The sink's message when !ok.
  std::vector<std::string> notes;  // What the format leaves out, once each.
};

ProfileExportResult ExportProfile(const TraceStorage& storage, ProfileFormat format,
                                  JsonSink* sink);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_PROFILE_FORMATS_H_
