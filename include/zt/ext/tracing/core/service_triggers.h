// The service's trigger matching (TracingService::ActivateTriggers,
// tracing_service.h) as a free function of forward-declared types, for a
// caller that must reach it without parsing the service's interface and the
// config classes it names: the SDK's Tracing::ActivateTriggers, an object
// of its own that only programs activating triggers link (so the header it
// compiles with decides its cost: 1.5 s of CPU through the muxer's headers,
// 0.4 s through this one).

#ifndef ZT_EXT_TRACING_CORE_SERVICE_TRIGGERS_H_
#define ZT_EXT_TRACING_CORE_SERVICE_TRIGGERS_H_

#include <string>
#include <vector>

namespace zt {

class ProducerEndpoint;
class TracingService;

// service->ActivateTriggers(producer, names). Defined with it
// (tracing_service_triggers.cc): naming it links the trigger matching in.
void ActivateServiceTriggers(TracingService* service, ProducerEndpoint* producer,
                             const std::vector<std::string>& names);

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_SERVICE_TRIGGERS_H_
