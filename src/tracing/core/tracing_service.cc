// The producer and consumer interfaces' out-of-line members, here in the
// tracing core rather than in the service, so that a program that only
// talks to a tracing daemon (its endpoints are IPC proxies) links no
// service.

#include "zt/ext/tracing/core/tracing_service.h"

#include <utility>

namespace zt {

Producer::~Producer() = default;
void Producer::FlushWithFlags(FlushRequestId request,
                              const std::vector<DataSourceInstanceId>& ids, uint64_t) {
  Flush(request, ids);
}
Consumer::~Consumer() = default;
void Consumer::OnObservedEvents(const ObservedEvents&) {}
ProducerEndpoint::~ProducerEndpoint() = default;
ConcurrentCommitter::~ConcurrentCommitter() = default;
std::shared_ptr<ConcurrentCommitter> ProducerEndpoint::concurrent_committer() {
  return nullptr;
}

void ProducerEndpoint::UpdateDataSource(const protos::gen::DataSourceDescriptor& descriptor) {
  RegisterDataSource(descriptor);
}
void ProducerEndpoint::ActivateTriggers(const std::vector<std::string>&,
                                        std::function<void(bool)> done) {
  done(false);
}
ConsumerEndpoint::~ConsumerEndpoint() = default;
void ConsumerEndpoint::SetReadPaused(bool) {}
void ConsumerEndpoint::QueryServiceState(std::function<void(bool, std::vector<uint8_t>)> done) {
  done(false, {});
}
void ConsumerEndpoint::FlushWithFlags(uint32_t timeout_ms, std::function<void(bool)> done,
                                      uint64_t) {
  Flush(timeout_ms, std::move(done));
}
void ConsumerEndpoint::CloneSession(const CloneSessionArgs&,
                                    std::function<void(const CloneSessionResult&)> done) {
  CloneSessionResult result;
  result.error = "CloneSession is not supported by this consumer endpoint";
  done(result);
}
TracingService::~TracingService() = default;

}  // namespace zt
