// Tracing::ActivateTriggers: an object of its own, so that the service's
// trigger matching (tracing_service_triggers.cc) is linked only into the
// programs that activate triggers.

#include <string>
#include <vector>

#include "src/tracing/sdk/tracing_backend.h"
#include "src/tracing/sdk/tracing_muxer_impl.h"
#include "zt/base/logging.h"
#include "zt/tracing/tracing.h"

namespace zt {

void Tracing::ActivateTriggers(const std::vector<std::string>& triggers) {
  if (internal::TracingMuxerImpl* muxer = internal::TracingMuxerImpl::instance())
    muxer->ActivateTriggers(triggers);
}

namespace internal {

void TracingMuxerImpl::ActivateTriggers(const std::vector<std::string>& triggers) {
  PostUnlessRetired([this, triggers] {
    ForEachConnectedProducer([&triggers](BackendType type, TracingBackend* backend,
                                         ProducerEndpoint* endpoint) {
      if (type == kInProcessBackend) {
        // The service is ours: asked directly (its endpoint has no socket
        // to send them on).
        static_cast<InProcessTracingBackend*>(backend)->service()->ActivateTriggers(endpoint,
                                                                                    triggers);
        return;
      }
      endpoint->ActivateTriggers(triggers, [](bool ok) {
        if (!ok)
          ZT_WLOG("Tracing::ActivateTriggers: the tracing service did not take the triggers");
      });
    });
  });
}

}  // namespace internal
}  // namespace zt
