// Who this process and thread are, as track descriptors say it: the
// process's uuid (zt/tracing/track.h declares ProcessUuid()), the thread
// id, and the process's descriptor. Apart from the track event code so
// that the C ABI's track events share it without linking the C++ ones.

#ifndef ZT_SRC_TRACING_SDK_PROCESS_IDENTITY_H_
#define ZT_SRC_TRACING_SDK_PROCESS_IDENTITY_H_

#include <cstdint>

#include "zt/trace/track_event/track_descriptor.pbzero.h"

namespace zt {
namespace internal {

// The calling thread's kernel id.
uint64_t CurrentTid();

// Fills |track| as this process's descriptor: uuid ProcessUuid(), pid,
// and the name and command line from /proc/self/cmdline (read once).
void FillProcessDescriptor(protos::pbzero::TrackDescriptor* track);

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_PROCESS_IDENTITY_H_
