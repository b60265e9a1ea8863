// Flushes of a session: a consumer's Flush, the flush before a stop by
// duration or trigger, the periodic one; each asks the producers of the
// session's instances to commit what they hold and answers once all have,
// or at the timeout (counted in the stats).

#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "zt/base/logging.h"

namespace zt {

void TracingServiceImpl::Flush(ConsumerEndpointImpl* consumer,
                               uint32_t timeout_ms,
                               std::function<void(bool)> done, uint64_t flags) {
  Session* s = SessionOf(consumer);
  // Only a running session has data sources to flush: anything else is
  // answered "not flushed" at once, and leaves no trace in the session.
  if (!s || s->state != SessionState::kStarted) {
    if (done)
      consumer->Post([done = std::move(done)](Consumer*) { done(false); });
    return;
  }
  // The consumer's flags go to the producers as they came (upstream's
  // service passes them on too).
  FlushSession(s, timeout_ms, std::move(done), nullptr, flags);
}

void TracingServiceImpl::FlushAndStopSession(Session* s) {
  if (s->state != SessionState::kStarted)
    return;
  FlushSession(s, 0, nullptr, [this, session_id = s->id](bool success) {
    Session* session = SessionById(session_id);
    if (!session)
      return;
    // TraceStats.FinalFlushOutcome: SUCCEEDED 1, FAILED 2.
    session->final_flush_outcome = success ? 1 : 2;
    StopSession(session);
  }, flush_flags::kInitiatorTraced | flush_flags::kReasonTraceStop);
}

void TracingServiceImpl::FlushSession(Session* s, uint32_t timeout_ms,
                                      std::function<void(bool)> done,
                                      std::function<void(bool)> then,
                                      uint64_t flags) {
  // Callers flush running sessions only; a stop ends every pending flush
  // (FinishStop). Bounded, as a consumer could ask faster than producers
  // answer.
  ZT_CHECK(s->state == SessionState::kStarted);
  if (s->flushes.size() >= kMaxPendingFlushes) {
    if (done && s->consumer)
      s->consumer->Post([done = std::move(done)](Consumer*) { done(false); });
    if (then)
      then(false);
    return;
  }
  // Data sources that declared no_flush are not asked: as upstream, they
  // count as answered.
  auto by_producer = LiveInstancesByProducer(*s, /*flushable_only=*/true);
  const FlushRequestId id = next_flush_id_++;
  s->flushes_requested++;
  s->service_packets->OnFlushStarted();
  PendingFlush& pending = s->flushes[id];
  pending.done = std::move(done);
  pending.then = std::move(then);
  for (auto& p : by_producer) {
    pending.producers.insert(p.first);
    producers_.at(p.first)->endpoint->Post(
        [id, ids = std::move(p.second), flags](Producer* pr) {
          pr->FlushWithFlags(id, ids, flags);
        });
  }
  if (by_producer.empty()) {
    CompleteFlush(s->id, id, true);
    return;
  }
  if (timeout_ms == 0) {
    timeout_ms = s->config.flush_timeout_ms() ? s->config.flush_timeout_ms()
                                              : kDefaultFlushTimeoutMs;
  }
  const uint64_t session_id = s->id;
  PostDelayedIfAlive(timeout_ms, [session_id, id](TracingServiceImpl* self) {
    self->CompleteFlush(session_id, id, false);
  });
}

void TracingServiceImpl::NotifyFlushComplete(uint32_t producer_id,
                                             FlushRequestId id) {
  for (auto& entry : sessions_) {
    auto f = entry.second->flushes.find(id);
    if (f == entry.second->flushes.end())
      continue;
    if (f->second.producers.erase(producer_id) && f->second.producers.empty())
      CompleteFlush(entry.first, id, true);
    return;
  }
}

void TracingServiceImpl::CompleteFlush(uint64_t session_id, FlushRequestId id,
                                       bool success) {
  Session* s = SessionById(session_id);
  if (!s)
    return;
  auto f = s->flushes.find(id);
  if (f == s->flushes.end())
    return;  // Answered already (the timeout came after the answers).
  std::function<void(bool)> done = std::move(f->second.done);
  std::function<void(bool)> then = std::move(f->second.then);
  s->flushes.erase(f);
  (success ? s->flushes_succeeded : s->flushes_failed)++;
  if (s->state != SessionState::kStopped)
    ScrapeSharedMemoryBuffers(s);
  // Recorded whatever the outcome, as upstream does (readers window their
  // sorting on it).
  s->service_packets->OnFlushed();
  if (done && s->consumer)
    s->consumer->Post([done = std::move(done), success](Consumer*) { done(success); });
  if (then)
    then(success);
}

}  // namespace zt
