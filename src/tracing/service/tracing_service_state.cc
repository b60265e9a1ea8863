// What only the daemon's consumer port asks of the service, in an object
// of its own so that in-process programs do not link it: the service state
// (`QueryServiceState`), and sessions detached and attached by key.

#include <unistd.h>

#include <string>

#include "src/tracing/service/service_packets.h"
#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "zt/base/logging.h"
#include "zt/common/tracing_service_state.pbzero.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {

// TracingService has one implementation (TracingService::Create makes it).
std::vector<uint8_t> TracingService::QueryServiceState() const {
  return QueryServiceState(static_cast<int32_t>(getuid()));
}

std::vector<uint8_t> TracingService::QueryServiceState(int32_t asking_uid,
                                                       bool sessions_only) const {
  return static_cast<const TracingServiceImpl*>(this)->ComputeServiceState(asking_uid,
                                                                           sessions_only);
}

std::vector<uint8_t> TracingServiceImpl::ComputeServiceState(int32_t asking_uid,
                                                             bool sessions_only) const {
  protozero::HeapBuffered<protos::pbzero::TracingServiceState> state;
  // The state goes in one reply frame, which an upstream consumer takes up
  // to 128 KiB: what would not fit is left out and counted, so that no
  // number of producers or data sources makes the query fail for everyone.
  // Each entry's size is bounded from above (tags, lengths, ids).
  constexpr size_t kEntryOverhead = 48;
  size_t budget = kMaxServiceStateBytes;
  uint32_t producers_omitted = 0, data_sources_omitted = 0;
  for (const auto& entry : producers_) {
    if (sessions_only)
      break;
    const ProducerState& p = *entry.second;
    const size_t cost = kEntryOverhead + p.options.name.size() + p.options.sdk_version.size();
    if (cost > budget) {
      producers_omitted++;
      continue;
    }
    budget -= cost;
    auto* producer = state->add_producers();
    producer->set_id(static_cast<int32_t>(p.id));
    producer->set_name(p.options.name);
    producer->set_uid(p.options.uid);
    if (!p.options.sdk_version.empty())
      producer->set_sdk_version(p.options.sdk_version);
    producer->set_pid(p.options.pid);
  }
  for (const auto& entry : producers_) {
    if (sessions_only)
      break;
    for (const auto& ds : entry.second->data_sources) {
      const std::string descriptor = ds.second.SerializeAsString();
      const size_t cost = kEntryOverhead + descriptor.size();
      if (cost > budget) {
        data_sources_omitted++;
        continue;
      }
      budget -= cost;
      auto* data_source = state->add_data_sources();
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
  // TracingServiceState.TracingSession.state: upstream's names.
  auto state_name = [](const Session& s) {
    if (s.is_clone)
      return "CLONED_READ_ONLY";
    switch (s.state) {
      case SessionState::kConfigured:
        return "CONFIGURED";
      case SessionState::kStarted:
        return "STARTED";
      case SessionState::kStopping:
        return "STOP_WAIT";
      case SessionState::kStopped:
        break;
    }
    return "DISABLED";
  };
  // The sessions the asker may see: those it may clone (its uid's; all of
  // them for root), as upstream lists them.
  uint32_t sessions_omitted = 0;
  for (const auto& entry : sessions_) {
    const Session& s = *entry.second;
    if (asking_uid != 0 && asking_uid != s.consumer_uid)
      continue;
    // Within the same budget (a config may name many buffers, a long name).
    const size_t cost = 2 * kEntryOverhead + s.config.unique_session_name().size() +
                        s.config.bugreport_filename().size() +
                        6 * static_cast<size_t>(s.config.buffers().size());
    if (cost > budget) {
      sessions_omitted++;
      continue;
    }
    budget -= cost;
    auto* session = state->add_tracing_sessions();
    session->set_id(s.id);
    session->set_consumer_uid(s.consumer_uid);
    session->set_state(state_name(s));
    session->set_unique_session_name(s.config.unique_session_name());
    for (const auto& buffer : s.config.buffers())
      session->add_buffer_size_kb(buffer.size_kb());
    session->set_duration_ms(s.config.duration_ms());
    session->set_num_data_sources(static_cast<uint32_t>(s.instances.size()));
    // What upstream's `perfetto --clone-all-for-bugreport` selects by.
    if (s.config.has_bugreport_score())
      session->set_bugreport_score(s.config.bugreport_score());
    if (s.config.has_bugreport_filename())
      session->set_bugreport_filename(s.config.bugreport_filename());
    if (s.start_realtime_ns)
      session->set_start_realtime_ns(s.start_realtime_ns);
    session->set_is_started(!s.is_clone && s.state == Session::State::kStarted);
  }
  state->set_supports_tracing_sessions(true);
  if (producers_omitted || data_sources_omitted || sessions_omitted) {
    ZT_WLOG("QueryServiceState: %u producers, %u data sources and %u sessions left out to "
            "fit the %zu-byte reply",
            producers_omitted, data_sources_omitted, sessions_omitted, kMaxServiceStateBytes);
    state->set_zt_producers_omitted(producers_omitted);
    state->set_zt_data_sources_omitted(data_sources_omitted);
    state->set_zt_sessions_omitted(sessions_omitted);
  }
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
