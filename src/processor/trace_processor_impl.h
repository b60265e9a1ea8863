// The TraceProcessor behind the public header: a finished TraceStorage and
// the SQL engine over it. CreateTraceProcessor() is also how tests (and,
// later, other importers) get a processor for a storage they filled
// themselves, without a trace file.

#ifndef ZT_SRC_PROCESSOR_TRACE_PROCESSOR_IMPL_H_
#define ZT_SRC_PROCESSOR_TRACE_PROCESSOR_IMPL_H_

#include <memory>
#include <string>

#include "src/processor/storage/trace_storage.h"
#include "zt/processor/trace_processor.h"

namespace zt {
namespace processor {

// Takes the finished storage (it is never changed again). Null with *error
// only if SQLite cannot be set up.
std::unique_ptr<TraceProcessor> CreateTraceProcessor(std::unique_ptr<TraceStorage> storage,
                                                     std::string* error);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_TRACE_PROCESSOR_IMPL_H_
