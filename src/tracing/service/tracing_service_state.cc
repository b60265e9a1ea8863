// TracingService::QueryServiceState: the service seen from a consumer
// (what `QueryServiceState` on the consumer port answers).

#include <string>

#include "src/tracing/service/service_packets.h"
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

}  // namespace zt
