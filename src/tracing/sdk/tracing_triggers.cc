// Tracing::ActivateTriggers: an object of its own, so that the service's
// trigger matching (tracing_service_triggers.cc) is linked only into the
// programs that activate triggers. It names that code and nothing else: the
// muxer's side is in tracing_muxer_impl.cc, reached through two small
// headers, so this object costs a user's build little.

#include <string>
#include <vector>

#include "src/tracing/sdk/muxer_triggers.h"
#include "zt/ext/tracing/core/service_triggers.h"
#include "zt/tracing/tracing.h"

namespace zt {

void Tracing::ActivateTriggers(const std::vector<std::string>& triggers) {
  internal::ActivateTriggersOnMuxer(triggers, &ActivateServiceTriggers);
}

}  // namespace zt
