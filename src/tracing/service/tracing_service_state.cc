// What only the daemon's consumer port asks of the service, in an object
// of its own so that in-process programs do not link it: the service state
// (`QueryServiceState`), and sessions detached and attached by key.

#include <string>

#include "src/tracing/service/service_packets.h"
#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "zt/common/tracing_service_state.pbzero.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {

// TracingService has one implementation (TracingService::Create makes it).
std::vector<uint8_t> TracingService::QueryServiceState() const {
  return static_cast<const TracingServiceImpl*>(this)->ComputeServiceState();
}

std::vector<uint8_t> TracingServiceImpl::ComputeServiceState() const {
  protozero::HeapBuffered<protos::pbzero::TracingServiceState> state;
  for (const auto& entry : producers_) {
    const ProducerState& p = *entry.second;
    auto* producer = state->add_producers();
    producer->set_id(static_cast<int32_t>(p.id));
    producer->set_name(p.options.name);
    producer->set_uid(p.options.uid);
    producer->set_pid(p.options.pid);
  }
  for (const auto& entry : producers_) {
    for (const auto& ds : entry.second->data_sources) {
      auto* data_source = state->add_data_sources();
      const std::string descriptor = ds.second.SerializeAsString();
      data_source->AppendBytes(
          protos::pbzero::TracingServiceState_DataSource::kDsDescriptorFieldNumber,
          descriptor.data(), descriptor.size());
      data_source->set_producer_id(static_cast<int32_t>(entry.first));
    }
  }
  int32_t started = 0;
  for (const auto& entry : sessions_)
    started += entry.second->state == Session::State::kStarted;
  state->set_num_sessions(static_cast<int32_t>(sessions_.size()));
  state->set_num_sessions_started(started);
  state->set_tracing_service_version(TracingServiceVersion());
  return state.SerializeAsArray();
}

bool TracingService::DetachConsumer(ConsumerEndpoint* consumer, const std::string& key) {
  return static_cast<TracingServiceImpl*>(this)->Detach(consumer, key);
}

bool TracingService::AttachConsumer(ConsumerEndpoint* consumer, const std::string& key,
                                    protos::gen::TraceConfig* config) {
  return static_cast<TracingServiceImpl*>(this)->Attach(consumer, key, config);
}

bool TracingServiceImpl::Detach(ConsumerEndpoint* endpoint, const std::string& key) {
  auto* consumer = static_cast<ConsumerEndpointImpl*>(endpoint);
  Session* s = SessionOf(consumer);
  if (!s || key.empty())
    return false;
  for (const auto& entry : sessions_) {
    if (entry.second->detach_key == key)
      return false;
  }
  // What the consumer waited for is answered now, unsuccessful: nothing
  // about the session reaches it any more.
  for (auto& f : s->flushes) {
    if (f.second.done)
      consumer->Post([done = std::move(f.second.done)](Consumer*) { done(false); });
    f.second.done = nullptr;
  }
  s->consumer = nullptr;
  // Its read, paused by it or not, ends with it (ReadNextBatch would end
  // it too, but a paused one waits for a resume that will not come).
  if (s->read_waits) {
    s->read_in_progress = false;
    s->reads_queued = 0;
  }
  s->read_paused = false;
  s->read_waits = false;
  s->detach_key = key;
  consumer->session_id = 0;
  return true;
}

bool TracingServiceImpl::Attach(ConsumerEndpoint* endpoint, const std::string& key,
                                protos::gen::TraceConfig* config) {
  auto* consumer = static_cast<ConsumerEndpointImpl*>(endpoint);
  if (SessionOf(consumer) || key.empty())
    return false;
  for (auto& entry : sessions_) {
    Session* s = entry.second.get();
    if (s->detach_key != key || s->consumer_uid != consumer->uid())
      continue;
    s->detach_key.clear();
    s->consumer = consumer;
    consumer->session_id = s->id;
    *config = s->config;
    if (s->state == SessionState::kStopped)
      NotifyDisabled(s);
    return true;
  }
  return false;
}

}  // namespace zt
