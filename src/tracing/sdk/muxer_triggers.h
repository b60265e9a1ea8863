// Tracing::ActivateTriggers' way into the muxer, declared apart from the
// muxer (tracing_muxer_impl.h) so that tracing_triggers.cc, an object of its
// own, compiles without the muxer's headers.

#ifndef ZT_SRC_TRACING_SDK_MUXER_TRIGGERS_H_
#define ZT_SRC_TRACING_SDK_MUXER_TRIGGERS_H_

#include <string>
#include <vector>

namespace zt {

class ProducerEndpoint;
class TracingService;

namespace internal {

// How the in-process backend's service is asked (ActivateServiceTriggers):
// passed in by the caller, so that the muxer does not refer to the service's
// trigger matching and only programs that activate triggers link it.
using InProcessTriggers = void (*)(TracingService*, ProducerEndpoint*,
                                   const std::vector<std::string>&);

// Sends |triggers| to every connected backend's service, if tracing is
// initialized (tracing_muxer_impl.cc). Any thread.
void ActivateTriggersOnMuxer(const std::vector<std::string>& triggers,
                             InProcessTriggers in_process);

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_MUXER_TRIGGERS_H_
