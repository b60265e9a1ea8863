// TracingService::ObserveEvents: what a consumer asks to be told about its
// session (data source instances changing state, all of them started).
// Only the daemon's consumer port asks, so it is an object of its own (an
// in-process program does not link it); the events themselves are recorded
// where the states change (tracing_service_impl.cc, SetInstanceState).

#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"

namespace zt {

void TracingService::ObserveEvents(ConsumerEndpoint* consumer, uint32_t events_mask) {
  static_cast<TracingServiceImpl*>(this)->Observe(consumer, events_mask);
}

void TracingServiceImpl::Observe(ConsumerEndpoint* endpoint, uint32_t events_mask) {
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
        ReportInstanceState(s, inst);
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

}  // namespace zt
