// TraceProcessor::Open: the importer, then the SQL engine over what it
// filled (trace_processor_impl.cc).

#include <utility>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/trace_processor_impl.h"
#include "zt/processor/trace_processor.h"

namespace zt {
namespace processor {

std::unique_ptr<TraceProcessor> TraceProcessor::Open(const std::string& path,
                                                     const OpenOptions& options,
                                                     std::string* error) {
  ImportOptions import;
  import.progress = options.progress;
  import.drop_events_after_loss = options.drop_events_after_loss;
  ImportResult result;
  std::unique_ptr<TraceStorage> storage = ImportTraceFile(path, import, &result, error);
  if (!storage)
    return nullptr;
  return CreateTraceProcessor(std::move(storage), error);
}

}  // namespace processor
}  // namespace zt
