// TracingService::ObserveEvents: what a consumer asks to be told about its
// session (data source instances changing state, all of them started), and
// the telling. Only the daemon's consumer port asks, so it is an object of
// its own: the service reaches AddObservedEvent through a pointer that the
// first ObserveEvents sets, and an in-process program, which never
// observes, carries none of it.

#include <utility>

#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"

namespace zt {

void TracingService::ObserveEvents(ConsumerEndpoint* consumer, uint32_t events_mask) {
  static_cast<TracingServiceImpl*>(this)->Observe(consumer, events_mask);
}

void TracingServiceImpl::Observe(ConsumerEndpoint* endpoint, uint32_t events_mask) {
  report_observed_ = &TracingServiceImpl::AddObservedEvent;
  auto* consumer = static_cast<ConsumerEndpointImpl*>(endpoint);
  consumer->observed_events =
      events_mask & (ObservedEvents::kDataSourceInstances | ObservedEvents::kAllDataSourcesStarted);
  Session* s = SessionOf(consumer);
  if (!s)
    return;
  if (consumer->observed_events & ObservedEvents::kDataSourceInstances) {
    // Where each instance stands now, so that the changes that follow make
    // sense; instances whose data source has gone are no longer part of the
    // session as upstream counts them.
    for (const DataSourceInstance& inst : s->instances) {
      if (!inst.withdrawn)
        AddObservedEvent(s, &inst);
    }
  }
  // A consumer that asks after its running session's start completed is
  // told at once (what upstream's service means to do, and what a client
  // that sends ObserveEvents right after EnableTracing got from our port
  // before); once per session and consumer, so never twice to one that
  // observed it.
  if ((consumer->observed_events & ObservedEvents::kAllDataSourcesStarted) &&
      s->all_started_notified && s->state == SessionState::kStarted &&
      consumer->observed_all_started_of != s->id) {
    consumer->observed_events_batch()->all_data_sources_started = true;
    consumer->observed_all_started_of = s->id;
  }
}

void TracingServiceImpl::AddObservedEvent(Session* s, const DataSourceInstance* inst) {
  ConsumerEndpointImpl* consumer = s->consumer;
  if (!consumer)
    return;
  if (!inst) {
    // In the batch of the starts that completed it, if any (upstream's
    // consumers see both in one message).
    if (consumer->observed_events & ObservedEvents::kAllDataSourcesStarted) {
      consumer->observed_events_batch()->all_data_sources_started = true;
      consumer->observed_all_started_of = s->id;
    }
    return;
  }
  if (!(consumer->observed_events & ObservedEvents::kDataSourceInstances))
    return;
  using Change = ObservedEvents::InstanceStateChange;
  Change change;
  switch (inst->state) {
    case InstanceState::kSetUp:
    case InstanceState::kStopped:
      change.state = Change::State::kStopped;
      break;
    case InstanceState::kStarted:
      change.state = Change::State::kStarted;
      break;
    case InstanceState::kStarting:
    case InstanceState::kStopping:
      return;  // Waiting for the producer: upstream reports the outcome only.
  }
  // Every change happens while the producer is connected (leaving stops
  // its instances first).
  auto p = producers_.find(inst->producer_id);
  if (p != producers_.end())
    change.producer_name = p->second->options.name;
  change.data_source_name = inst->name;
  consumer->observed_events_batch()->instance_state_changes.push_back(std::move(change));
}

}  // namespace zt
