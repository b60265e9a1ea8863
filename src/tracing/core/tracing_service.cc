// The producer and consumer interfaces' out-of-line members, here in the
// tracing core rather than in the service, so that a program that only
// talks to a tracing daemon (its endpoints are IPC proxies) links no
// service.

#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

Producer::~Producer() = default;
Consumer::~Consumer() = default;
void Consumer::OnObservedEvents(const ObservedEvents&) {}
ProducerEndpoint::~ProducerEndpoint() = default;

void ProducerEndpoint::ActivateTriggers(const std::vector<std::string>&,
                                        std::function<void(bool)> done) {
  done(false);
}
ConsumerEndpoint::~ConsumerEndpoint() = default;
void ConsumerEndpoint::SetReadPaused(bool) {}
void ConsumerEndpoint::QueryServiceState(std::function<void(bool, std::vector<uint8_t>)> done) {
  done(false, {});
}
TracingService::~TracingService() = default;

}  // namespace zt
